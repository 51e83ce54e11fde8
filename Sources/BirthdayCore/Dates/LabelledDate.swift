/// A date the card keeps under a label of its own, beside the birthday and the
/// anniversary: Apple's `itemN.X-ABDATE` with its `itemN.X-ABLabel`
/// ("Child's birthday", "Started work", `_$!<Other>!$_` read as "Other"),
/// Android's `X-ANDROID-CUSTOM` events, Google CSV's `Event N - Label` and
/// `Event N - Value`. A label that means a wedding anniversary makes the
/// person's ``Person/anniversary`` instead.
///
/// A person may have several with one label (two children's birthdays);
/// two with the same label and date are one.
public struct LabelledDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The label as the card writes it (trimmed; Apple's `_$!<…>!$_` unwrapped). Never logged.
    public var label: String
    public var date: EventDate
    /// The country of the name-day list this name day comes from (``NameDays``);
    /// `nil` for a date the card keeps.
    public var nameDayList: String? = nil

    public init(label: String, date: EventDate, nameDayList: String? = nil) {
        self.label = label
        self.date = date
        self.nameDayList = nameDayList
    }

    /// The label compared without case and with runs of spaces as one: what
    /// `exclude --label` names and what the reminder ids are made from.
    public var key: String { Self.key(label) }

    /// ``key`` of any label text.
    public static func key(_ label: String) -> String {
        label.trimmingWhitespace().lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// Whether the label says it is someone's birthday ("Child's birthday",
    /// "Geburtstag Anna"): its years are then an age ("turns 11"), else a
    /// count of years ("8 years").
    public var isBirthday: Bool {
        let key = key
        return Self.birthdayWords.contains { key.contains($0) }
    }

    /// Words for "birthday" in the ten languages of the catalog (French and
    /// Portuguese use theirs for anniversaries too, so they are not counted).
    static let birthdayWords = ["birthday", "bday", "geburtstag", "cumpleaños", "compleanno", "verjaardag", "urodziny", "誕生日", "生日"]

    /// The label Apple writes for a date of no particular kind, and the one
    /// given to a dated property without a label.
    public static let otherLabel = "Other"

    /// Apple's built-in labels are written `_$!<Anniversary>!$_`: the inner word is the label.
    public static func label(fromCard text: String) -> String {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.hasPrefix("_$!<"), trimmed.hasSuffix(">!$_"), trimmed.count > 8 else { return trimmed }
        return String(trimmed.dropFirst(4).dropLast(4)).trimmingWhitespace()
    }

    /// By label (without case), then by date; the order of `show` and of the store.
    public static func < (lhs: LabelledDate, rhs: LabelledDate) -> Bool {
        let (a, b) = (lhs.key, rhs.key)
        if a != b { return a < b }
        if lhs.date.month != rhs.date.month { return lhs.date.month < rhs.date.month }
        if lhs.date.day != rhs.date.day { return lhs.date.day < rhs.date.day }
        if lhs.date.year != rhs.date.year { return (lhs.date.year ?? 0) < (rhs.date.year ?? 0) }
        return lhs.label < rhs.label
    }

    /// `Started work 2019-03-03`.
    public var description: String { label + " " + date.description }

    /// The part of a reminder id that names this date among the person's:
    /// `date-` and 8 hex digits of a stable hash of ``key``, then `-2`, `-3`, …
    /// for the second and later dates with the same label (in ``LabelledDate``
    /// order): `date-1f2e3d4c`. Made of `a-z 0-9 -` only. A name day from a
    /// list is `nameday-<country>` (``nameDayList``): `nameday-lv`.
    public static func idPart(key: String, ordinal: Int) -> String {
        "date-" + String(StableHash.hex(key.utf8).prefix(8)) + (ordinal > 1 ? "-" + String(ordinal) : "")
    }

    /// ``idPart(key:ordinal:)`` of this date, or `nameday-<country>` for a name day from a list.
    public func idPart(ordinal: Int) -> String {
        nameDayList.map { "nameday-" + $0 } ?? Self.idPart(key: key, ordinal: ordinal)
    }

    /// Each date with its ordinal among those of the same label (1, 2, …),
    /// for ``idPart(key:ordinal:)``; `dates` in ``LabelledDate`` order.
    public static func withOrdinals(_ dates: [LabelledDate]) -> [(LabelledDate, Int)] {
        var seen: [String: Int] = [:]
        return dates.map { date in
            let ordinal = (seen[date.key] ?? 0) + 1
            seen[date.key] = ordinal
            return (date, ordinal)
        }
    }

    /// The sorted dates without repeats (same label key and date).
    public static func normalized(_ dates: [LabelledDate]) -> [LabelledDate] {
        var seen: Set<String> = []
        return dates.sorted().filter { seen.insert($0.key + "\u{1F}" + $0.date.description).inserted }
    }
}
