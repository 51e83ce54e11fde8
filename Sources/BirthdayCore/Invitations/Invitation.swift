import Foundation

/// A link that collects a missing birthday (`birthdays invite NAME`): who
/// opens it gets a form for a name, a day and a month (the year only if they
/// want to give it); what they send waits as an ``InvitationAnswer`` until
/// the owner accepts or rejects it (or at once with ``autoAccept``).
///
/// ## Rules
/// - The token is 128 random bits (``FeedToken/generate()``), printed once;
///   only its SHA-256 is kept (``tokenHash(_:)``), as for shares.
/// - A link is open while it has uses left (``usesAllowed``; `nil` is no
///   limit) and has not expired (``expiresAt``); a closed one answers 410.
///   The use count is checked and raised in the transaction that stores
///   the answer.
public struct Invitation: Sendable, Hashable {
    public var id: Int64
    /// The owner's name for the link ("Friends"); it appears in the owner's
    /// messages, never on the form.
    public var name: String
    /// The group an accepted person joins; `nil` for none.
    public var group: String?
    /// How many answers the link takes; `nil` is no limit.
    public var usesAllowed: Int?
    /// How many answers it took.
    public var used: Int
    /// When it stops taking answers; `nil` is never.
    public var expiresAt: Date?
    /// The owner's words on the form about who will see the answer; `nil` uses the default sentence.
    public var note: String?
    /// Whether answers are taken into ``group`` at once, without `invites accept`.
    public var autoAccept: Bool
    public var createdAt: Date

    public init(
        id: Int64,
        name: String,
        group: String? = nil,
        usesAllowed: Int? = nil,
        used: Int = 0,
        expiresAt: Date? = nil,
        note: String? = nil,
        autoAccept: Bool = false,
        createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.group = group
        self.usesAllowed = usesAllowed
        self.used = used
        self.expiresAt = expiresAt
        self.note = note
        self.autoAccept = autoAccept
        self.createdAt = createdAt
    }

    /// Whether a link takes answers, and if not, why.
    public enum Standing: String, Sendable, Hashable {
        case open, used, expired
    }

    /// Where the link stands at `now`.
    public func standing(at now: Date) -> Standing {
        if let expiresAt, now >= expiresAt { return .expired }
        if let usesAllowed, used >= usesAllowed { return .used }
        return .open
    }

    /// What the database keeps of a link's token: 64 hex digits of its SHA-256.
    public static func tokenHash(_ token: String) -> String { SHA256.hex(token) }

    /// The longest note a link carries.
    public static let maxNoteCharacters = 500

    /// `note` as a link's note: one line of at most ``maxNoteCharacters``, or `nil` when empty.
    public static func cleanNote(_ note: String?) -> String? {
        guard let note else { return nil }
        let line = SafeText.line(note, maxCharacters: maxNoteCharacters)
        return line.isEmpty ? nil : line
    }

    /// A `--expires` duration: a whole number followed by `m` (minutes), `h`
    /// (hours), `d` (days) or `w` (weeks): `30m`, `12h`, `7d`, `2w`; at most
    /// a year. `nil` for anything else.
    public static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        let seconds: Double
        switch unit {
        case "m": seconds = 60
        case "h": seconds = 3_600
        case "d": seconds = 86_400
        case "w": seconds = 604_800
        default: return nil
        }
        let total = Double(count) * seconds
        return total <= 366 * 86_400 ? total : nil
    }

    /// How long a link lasts when `invite` is given no `--expires`.
    public static let defaultDuration: TimeInterval = 30 * 86_400

    /// How many answers a link that takes them at once (``autoAccept``)
    /// takes when `invite` is given no `--uses`: each one adds a person to
    /// the group (and so to its shares and team rooms), so a link passed on
    /// further than meant cannot add a thousand strangers.
    public static let defaultAutoAcceptUses = 20

    /// The uses a new link gets: `uses` when given, else
    /// ``defaultAutoAcceptUses`` for a link that takes answers at once, else no limit.
    public static func usesAllowed(_ uses: Int?, autoAccept: Bool) -> Int? {
        uses ?? (autoAccept ? defaultAutoAcceptUses : nil)
    }
}

/// What someone sent through an ``Invitation``.
public struct InvitationAnswer: Sendable, Hashable {
    /// Where an answer stands.
    public enum State: String, Sendable, Hashable, CaseIterable {
        case waiting, accepted, rejected
    }

    /// The number `invites accept ID` takes.
    public var id: Int64
    /// The link it came through; `nil` once the link was removed.
    public var invitationID: Int64?
    /// The link's name when the answer arrived.
    public var invitationName: String
    /// The name as cleaned (``InviteForm/cleanName(_:)``); never logged.
    public var name: String
    public var month: Int
    public var day: Int
    public var year: Int?
    public var arrivedAt: Date
    public var state: State
    /// The person it was added to, once accepted.
    public var personID: String?

    public init(
        id: Int64,
        invitationID: Int64?,
        invitationName: String,
        name: String,
        month: Int,
        day: Int,
        year: Int?,
        arrivedAt: Date,
        state: State,
        personID: String? = nil
    ) {
        self.id = id
        self.invitationID = invitationID
        self.invitationName = invitationName
        self.name = name
        self.month = month
        self.day = day
        self.year = year
        self.arrivedAt = arrivedAt
        self.state = state
        self.personID = personID
    }

    /// The date as the store keeps a birthday; `nil` only for a row the form would not have let in.
    public var date: EventDate? { EventDate(year: year, month: month, day: day) }
}

/// The message the owner's channels get when an answer arrives (BirthdayText's `request(answerID:invitationID:invitation:accepted:now:today:in:)`).
///
/// It names the link and the answer's number, never the name or the date
/// sent: channels may forward anywhere. It goes through the delivery ledger
/// like a reminder (once per channel, retried like one), as a row of its own
/// that is due at once (``DeliveryEntry/isInvitationNotice``).
///
/// One message per link and day, for the day's first answer: the row's key
/// is the link and the owner's day, so a stranger who keeps answering (from
/// many addresses) cannot turn each answer into a message on every channel.
/// `birthdays invites` lists every answer.
public enum InvitationNotice {
    /// The notification id of the messages about link `invitationID`'s answers (one a day: the ledger's key is the id and the day).
    public static func notificationID(invitationID: Int64) -> String { "invite-\(invitationID)" }

    /// The notification id of the message that link `invitationID` is used up (once: a link is used up once).
    public static func usedUpID(invitationID: Int64) -> String { "invite-\(invitationID)-used-up" }
}

extension DeliveryKind {
    /// The answer an invitation's notice names; `nil` for anything else.
    public var invitationAnswerID: Int64? {
        switch self {
        case .invitationNotice(let answerID): answerID
        case .reminder, .digest, .announcement, .greeting: nil
        }
    }
}

extension DeliveryEntry {
    /// Whether this row tells the owner that an invitation was answered
    /// (``InvitationNotice``): due at its own instant, like a snooze.
    public var isInvitationNotice: Bool { deliveryKind.invitationAnswerID != nil }
}
