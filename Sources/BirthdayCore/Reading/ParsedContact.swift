/// One contact as a parser read it from a vCard or a CSV record, before it is
/// given a stable id and merged into the store.
public struct ParsedContact: Hashable, Sendable {
    public var source: ContactSource
    /// The vCard `UID` as written (a `urn:uuid:` prefix is removed later, by ``PersonID``).
    public var uid: String?
    /// `FN` for vCards, the display-name column for CSV.
    public var formattedName: String?
    public var nameParts: NameParts
    public var organization: String?
    public var email: String?
    public var birthday: EventDate?
    public var anniversary: EventDate?
    /// Birthdays and anniversaries in other calendars (``CalendarDateValue``),
    /// at most one per kind and calendar, in ``AlternateDate`` order.
    public var alternateDates: [AlternateDate]
    /// The dates kept under labels of their own (``LabelledDate``), in that type's order.
    public var labelledDates: [LabelledDate] = []
    /// Raw text of date values that could not be read.
    public var invalidDates: [String]
    /// The first nickname (vCard `NICKNAME`, a CSV `Nickname` column).
    public var nickname: String?
    /// The death date as ``Person/deathDate`` keeps it; `nil` when the card gives none.
    public var deathDate: String?
    /// The card asks to be left out of birthday calendars (`X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR`).
    public var excludedInCard: Bool
    /// The ways to reach the person (``ContactPoint``), in the card's order of preference.
    public var contactPoints: [ContactPoint] = []
    /// The groups the contact is in (``ContactGroups``): `CATEGORIES`, a CSV's labels.
    public var groups: [String] = []
    /// The card's `TZ` when it names a zone (``PersonZone/init(cardValue:)``).
    public var zone: PersonZone?
    /// Set when the card is a group card (`KIND:group`,
    /// `X-ADDRESSBOOKSERVER-KIND:group`): then it is no person.
    public var groupCard: GroupCard?

    public init(
        source: ContactSource,
        uid: String? = nil,
        formattedName: String? = nil,
        nameParts: NameParts = NameParts(),
        organization: String? = nil,
        email: String? = nil,
        birthday: EventDate? = nil,
        anniversary: EventDate? = nil,
        alternateDates: [AlternateDate] = [],
        invalidDates: [String] = [],
        nickname: String? = nil,
        deathDate: String? = nil,
        excludedInCard: Bool = false
    ) {
        self.source = source
        self.uid = uid
        self.formattedName = formattedName
        self.nameParts = nameParts
        self.organization = organization
        self.email = email
        self.birthday = birthday
        self.anniversary = anniversary
        self.alternateDates = alternateDates
        self.invalidDates = invalidDates
        self.nickname = nickname
        self.deathDate = deathDate
        self.excludedInCard = excludedInCard
    }

    /// The name to show: `FN`, else `N` composed ("prefix given additional
    /// family suffix"), else `ORG`, else the first `EMAIL`; empty when the
    /// contact has none of them.
    public var displayName: String {
        // Each candidate only when the ones before it are empty.
        if let name = formattedName?.trimmingWhitespace(), !name.isEmpty { return name }
        let composed = nameParts.composed
        if !composed.isEmpty { return composed }
        for candidate in [organization, email] {
            if let candidate = candidate?.trimmingWhitespace(), !candidate.isEmpty { return candidate }
        }
        return ""
    }

    /// Whether the contact carries any date worth keeping (valid or not).
    public var hasDates: Bool {
        birthday != nil || anniversary != nil || !alternateDates.isEmpty || !labelledDates.isEmpty || !invalidDates.isEmpty
    }

    /// The name (else email, else content) that identifies a contact without
    /// a UID, normalized so case and spacing differences do not matter.
    public var derivationKey: String {
        let name = displayName
        if !name.isEmpty { return "n:" + PersonID.normalize(name) }
        var content = "d:"
        content += birthday?.description ?? ""
        content += "|" + (anniversary?.description ?? "")
        content += "|" + invalidDates.joined(separator: "|")
        // Only when there are any: the keys of contacts without them stay as they were.
        if !alternateDates.isEmpty { content += "|" + alternateDates.map(\.description).joined(separator: "|") }
        if !labelledDates.isEmpty { content += "|" + labelledDates.map(\.description).joined(separator: "|") }
        return content
    }
}

/// Something wrong in an input file, reported as `file:line: message`.
///
/// Messages never contain a person's name or date of birth unless the date
/// is the very text that could not be read (the user needs to find it).
public struct ImportProblem: Hashable, Sendable, Codable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    /// The file name and the message are kept on one line with their
    /// control characters visible (``SafeText/quoted(_:)``): a value quoted
    /// from a contact can neither forge a `file:line:` line nor send escape
    /// sequences to the terminal.
    public init(file: String, line: Int, message: String) {
        self.file = SafeText.quoted(file)
        self.line = line
        self.message = SafeText.quoted(message)
    }

    public var description: String { "\(file):\(line): \(message)" }
}

/// What a parser returns for one file.
public struct ParseResult: Sendable {
    public var contacts: [ParsedContact]
    public var problems: [ImportProblem]

    public init(contacts: [ParsedContact] = [], problems: [ImportProblem] = []) {
        self.contacts = contacts
        self.problems = problems
    }
}
