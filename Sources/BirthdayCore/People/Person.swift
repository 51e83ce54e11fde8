/// The structured parts of a name, as vCard's `N` property orders them.
public struct NameParts: Hashable, Sendable, Codable {
    public var prefix: String
    public var given: String
    public var additional: String
    public var family: String
    public var suffix: String

    public init(prefix: String = "", given: String = "", additional: String = "", family: String = "", suffix: String = "") {
        self.prefix = prefix
        self.given = given
        self.additional = additional
        self.family = family
        self.suffix = suffix
    }

    /// "prefix given additional family suffix", skipping empty parts.
    public var composed: String {
        [prefix, given, additional, family, suffix]
            .map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    public var isEmpty: Bool { composed.isEmpty }
}

/// Where a person was read from: enough to find the card again.
public struct ContactSource: Hashable, Sendable, Codable {
    /// The file the card was read from: an absolute path for an import (`<stdin>` for standard input).
    public var file: String
    /// 0-based index of the card (vCard) or data record (CSV) in the file.
    public var index: Int
    /// 1-based line where the card or record starts.
    public var line: Int

    public init(file: String, index: Int, line: Int) {
        self.file = file
        self.index = index
        self.line = line
    }
}

/// Someone whose birthday or anniversary `birthdays` tracks.
///
/// The ``id`` is stable across imports: the vCard `UID` (without a
/// `urn:uuid:` prefix) when there is one, else derived from the name, so the
/// same contact imported again updates this person instead of adding another.
/// It contains only `A-Z a-z 0-9 . _ -`, so it can be embedded in notification
/// ids and URLs as it is.
public struct Person: Hashable, Sendable, Identifiable {
    public var id: String
    /// The name shown everywhere. Never logged.
    public var name: String
    public var nameParts: NameParts
    /// The first vCard `NICKNAME` (or a CSV `Nickname` cell); empty when there
    /// is none. Reminders and feed titles use it under `names nickname`. Never logged.
    public var nickname: String
    public var source: ContactSource
    public var birthday: EventDate?
    public var anniversary: EventDate?
    /// Birthdays and anniversaries in other calendars (a lunar birthday, a
    /// Hebrew one), each an event of its own beside the Gregorian dates; at
    /// most one per kind and calendar, in ``AlternateDate`` order.
    public var alternateDates: [AlternateDate]
    /// The dates the card keeps under labels of its own ("Child's birthday",
    /// "Started work"), in ``LabelledDate`` order; they follow the card on
    /// every import and sync, like the birthday. Never logged.
    public var labelledDates: [LabelledDate] = []
    /// The kinds of date a birthday calendar (`import FILE.ics`) filled in
    /// for a person who came from a card without them: a later import of
    /// that card keeps them while it still lacks them (``ContactMerge``).
    public var calendarFilled: Set<EventKind> = []
    /// Raw text of date values that could not be read; such dates get no reminders.
    public var invalidDates: [String]
    /// Who decided whether the person is left out (``excluded``).
    public var exclusion: Exclusion
    /// The death date when the card gives one (vCard 4 `DEATHDATE`, or the
    /// `X-DEATHDATE` of vCard 3 writers): `2020-05-01`, `--05-01` without a
    /// year, or the text as written when it is not a date (`circa 1990`).
    /// Any value marks the person as deceased (``isDeceased``); what that does
    /// is the `deceased` setting's (``DeceasedPolicy``). Never logged.
    public var deathDate: String?
    /// The death date of someone known to have died without a date: a
    /// birthday calendar's memorial ("🕯️ Ada", "In memory of Ada") says no more.
    public static let unknownDeathDate = "unknown"
    /// The person's own reminder days (`birthdays remind PERSON --days 7,1,0`);
    /// `nil` follows the `reminders` setting.
    public var reminderDays: ReminderDays?
    /// The channels the person's reminders go through (`birthdays remind
    /// PERSON --channels email,ntfy`), names of built-in or added channels;
    /// `nil` uses every channel that delivers. Imports never change it.
    public var channels: [String]?
    /// Whether the person's weekend reminders move to the Friday before
    /// (`--weekend friday`); `nil` moves nothing. Imports never change it.
    public var weekend: WeekendRule?
    /// The ways to reach the person (`EMAIL`, `TEL`, `IMPP`, a CSV's e-mail
    /// and phone columns) in the card's order of preference
    /// (``ContactPoints/resolve(_:file:problems:)``); they follow the card on
    /// every import and sync. Never logged.
    public var contactPoints: [ContactPoint]
    /// The groups the person's contact is in (``ContactGroups``), sorted,
    /// without repeats: its `CATEGORIES`, a CSV's labels, and the group
    /// cards of the same import that list it. They follow the card at every
    /// import and sync. Never logged.
    public var groups: [String] = []
    /// The rules of the groups and sources the person is in, as the store
    /// found them when it read the person (empty otherwise); what they do is
    /// ``RulePrecedence``'s.
    public var sharedRules: [SharedRule] = []
    /// The zone the card gives (`TZ`: an offset or an IANA name); it follows
    /// the card on every import and sync. Never logged.
    public var cardZone: PersonZone?
    /// The user's `birthdays zone` choice, which wins over ``cardZone``;
    /// imports never change it.
    public var zoneChoice: ZoneChoice?
    /// The user's note for the person's day (``PersonNote``: `birthdays
    /// note`); never read from a card, never logged; `nil` when there is none.
    public var note: String?

    public init(
        id: String,
        name: String,
        nameParts: NameParts = NameParts(),
        nickname: String = "",
        source: ContactSource,
        birthday: EventDate? = nil,
        anniversary: EventDate? = nil,
        alternateDates: [AlternateDate] = [],
        invalidDates: [String] = [],
        exclusion: Exclusion = Exclusion(),
        deathDate: String? = nil,
        reminderDays: ReminderDays? = nil,
        channels: [String]? = nil,
        weekend: WeekendRule? = nil,
        contactPoints: [ContactPoint] = []
    ) {
        self.id = id
        self.name = name
        self.nameParts = nameParts
        self.nickname = nickname
        self.source = source
        self.birthday = birthday
        self.anniversary = anniversary
        self.alternateDates = alternateDates
        self.invalidDates = invalidDates
        self.exclusion = exclusion
        self.deathDate = deathDate
        self.reminderDays = reminderDays
        self.channels = channels
        self.weekend = weekend
        self.contactPoints = contactPoints
    }

    /// Excluded people get no reminders and no calendar events (``Exclusion``).
    public var excluded: Bool { exclusion.isExcluded }

    /// The zone the person's birthday begins and ends in (``ZonedDayOf``): the
    /// user's choice, else the card's; `nil` is the user's own zone.
    public var zone: PersonZone? {
        guard let zoneChoice else { return cardZone }
        return zoneChoice.zone
    }

    /// Whether the person has died (``deathDate``).
    public var isDeceased: Bool { deathDate != nil }

    /// Whether the store knows no date of the person at all, not even an
    /// unreadable one: a contact kept without dates. Such a person is never
    /// reminded and has no event in the feed, `upcoming` or the digest;
    /// `people` marks them and `people --undated` lists them.
    public var isUndated: Bool { birthday == nil && anniversary == nil && alternateDates.isEmpty && labelledDates.isEmpty && invalidDates.isEmpty }

    /// The person's date of `kind`, if any.
    public func date(of kind: EventKind) -> EventDate? {
        switch kind {
        case .birthday: birthday
        case .anniversary: anniversary
        case .labelled: nil
        }
    }
}
