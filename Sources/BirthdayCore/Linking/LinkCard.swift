import Foundation

/// One card as ``PersonLinker`` reads it: what says who it is, nothing else.
/// A card is what one source holds (a vCard in a file, a CSV row, a vdir or
/// CardDAV card, an invitation's answer); a person is one or more cards.
/// Never logged.
public struct LinkCard: Hashable, Sendable {
    /// Which card it is, for as long as its source holds it: the source's
    /// name and the card's id there (its `UID`, or the id an import derives
    /// for a card without one). Remembered decisions (``LinkException``) are
    /// keyed by it.
    public struct Key: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var source: String
        public var id: String

        public init(source: String, id: String) {
            self.source = source
            self.id = id
        }

        public static func < (lhs: Key, rhs: Key) -> Bool { (lhs.source, lhs.id) < (rhs.source, rhs.id) }

        /// `SOURCE:ID`, as `unlink --card` takes it.
        public var description: String { source + ":" + id }
    }

    public var key: Key
    /// The card's own `UID`; `nil` when it has none (a CSV row, a card without
    /// one): a derived id names a name, not a card, and is no evidence.
    public var uid: String?
    /// The name shown (`FN`, else `N` composed).
    public var name: String
    /// The nickname the card carries; empty when none.
    public var nickname: String
    public var emails: [String]
    public var phones: [String]
    public var birthday: EventDate?
    /// When the card last changed at its source (or was last read changed); `nil` when unknown.
    public var changed: Date?

    public init(
        key: Key,
        uid: String? = nil,
        name: String,
        nickname: String = "",
        emails: [String] = [],
        phones: [String] = [],
        birthday: EventDate? = nil,
        changed: Date? = nil
    ) {
        self.key = key
        self.uid = uid
        self.name = name
        self.nickname = nickname
        self.emails = emails
        self.phones = phones
        self.birthday = birthday
        self.changed = changed
    }

    /// The card a reader parsed: its name, nickname, e-mail addresses and
    /// phone numbers (``ParsedContact/contactPoints``), birthday and `UID`.
    public init(_ contact: ParsedContact, key: Key, changed: Date? = nil) {
        self.init(
            key: key,
            uid: contact.uid,
            name: contact.displayName,
            nickname: contact.nickname ?? "",
            emails: contact.contactPoints.filter { $0.kind == .email }.map(\.value),
            phones: contact.contactPoints.filter { $0.kind == .phone }.map(\.value),
            birthday: contact.birthday,
            changed: changed
        )
    }
}

/// A decision the person made about two cards, which every later import and
/// sync respects (as Android's contacts provider keeps its aggregation
/// exceptions): `link` keeps cards together, `unlink` keeps them separate.
public struct LinkException: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// One person, whatever the cards say.
        case keepTogether = "together"
        /// Never one person, whatever the cards say.
        case keepSeparate = "separate"
    }

    public var kind: Kind
    public var first: LinkCard.Key
    public var second: LinkCard.Key

    public init(_ kind: Kind, _ first: LinkCard.Key, _ second: LinkCard.Key) {
        self.kind = kind
        self.first = first
        self.second = second
    }
}
