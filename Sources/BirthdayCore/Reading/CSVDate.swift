import Foundation

/// A date cell of a contacts CSV export, read on its own.
///
/// Slash dates (`03/04/1990`) are kept unresolved as ``SlashDate`` because
/// whether they are day/month or month/day is decided once per file
/// (``SlashDecision/decide(for:outlook:given:)``).
enum CSVDate: Hashable, Sendable {
    /// Empty, or a placeholder meaning "no date": day and month both zero,
    /// as in Outlook's `0/0/00` and German Outlook's `0.0.00`.
    case none
    case date(EventDate)
    case slash(SlashDate)
    /// Not a date (`1990-02-30`, free text, a three-digit year).
    case invalid

    /// Reads one cell.
    ///
    /// Accepted forms, each optionally followed by a time of day after a space
    /// (`1990-01-15 00:00:00`, `3/4/1990 12:00 AM`):
    /// - `YYYY-MM-DD` (also with one-digit month or day, and with `T` and a
    ///   time, read as written and never shifted into a zone), `YYYYMMDD`;
    /// - `--MM-DD` and `--MMDD` without a year (Google writes `" --12-25"`
    ///   with a leading space);
    /// - `D.M.YYYY`, `DD.MM.YY` and `D.M.` (German: always day first);
    /// - `YYYY/MM/DD` and `YYYY.MM.DD`;
    /// - `A/B/YYYY`, `A/B/YY`, `A/B` and `YY/MM/D`: a ``SlashDate``.
    ///
    /// A two-digit year `YY` is 20YY when that is not after `referenceYear`,
    /// else 19YY (`01.01.99` is 1999). Years 0000 and 1604 mean "no year"
    /// (``EventDate/placeholderYears``). A date that does not exist, such as
    /// February 29 of a common year, is `.invalid`; `--02-29` is valid.
    static func read(_ raw: String, referenceYear: Int) -> CSVDate {
        var text = raw.trimmingWhitespace()
        if text.isEmpty { return .none }
        if let space = text.firstIndex(of: " "), isTimeOfDay(text[text.index(after: space)...]) {
            text = String(text[..<space]).trimmingWhitespace()
        }
        if text.hasPrefix("--") || (text.utf8.count >= 5 && text.utf8.prefix(4).allSatisfy(isDigit) && !text.contains("/") && !text.contains(".")) {
            // ISO 8601 and vCard forms: YYYY-MM-DD[Thh:mm…], YYYYMMDD, --MM-DD, --MMDD.
            switch DateValue.vCard(text) {
            case .date(let date): return .date(date)
            case .none: return .none
            case .invalid: break
            }
            return isoWithShortParts(text)
        }
        for separator in [Character("."), "/"] where text.contains(separator) {
            return separated(text, by: separator, referenceYear: referenceYear)
        }
        return .invalid
    }

    /// Thunderbird's three columns `Birth Year`, `Birth Month`, `Birth Day`.
    /// All empty is `.none`; the year may be empty (or 0) for "no year", and a
    /// two-digit year is expanded as in ``read(_:referenceYear:)``.
    static func parts(year: String, month: String, day: String, referenceYear: Int) -> CSVDate {
        let year = year.trimmingWhitespace()
        let month = month.trimmingWhitespace()
        let day = day.trimmingWhitespace()
        if year.isEmpty && month.isEmpty && day.isEmpty { return .none }
        guard let m = Int(month), let d = Int(day) else { return .invalid }
        if m == 0 && d == 0 { return .none }
        var y: Int?
        if !year.isEmpty {
            guard year.utf8.allSatisfy(isDigit), let value = Int(year) else { return .invalid }
            y = year.utf8.count == 2 ? expandTwoDigitYear(value, referenceYear: referenceYear) : value
        }
        return EventDate(year: y, month: m, day: d).map(CSVDate.date) ?? .invalid
    }

    // MARK: - Helpers

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    /// `12:00`, `00:00:00`, `12:00 AM`, `00:00:00.000`: a time Excel or
    /// Outlook appended to a date.
    private static func isTimeOfDay(_ text: Substring) -> Bool {
        var rest = text.trimmingWhitespace().lowercased()
        for marker in [" am", " pm", "am", "pm"] where rest.hasSuffix(marker) {
            rest.removeLast(marker.count)
            break
        }
        guard rest.contains(":") else { return false }
        return rest.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ":" || $0 == ".") }
    }

    /// `YYYY-M-D` with one-digit parts, which DateValue.vCard does not take.
    private static func isoWithShortParts(_ text: String) -> CSVDate {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
        else { return .invalid }
        if m == 0 && d == 0 { return .none }
        return EventDate(year: y, month: m, day: d).map(CSVDate.date) ?? .invalid
    }

    private static func separated(_ text: String, by separator: Character, referenceYear: Int) -> CSVDate {
        var parts = text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
        // "24.12." is a German date without a year.
        if separator == ".", parts.count == 3, parts[2].isEmpty { parts.removeLast() }
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 4 && $0.utf8.allSatisfy(isDigit) }) else {
            return .invalid
        }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count else { return .invalid }
        if parts.count == 3 && parts[0].utf8.count == 4 {
            // YYYY/MM/DD, YYYY.MM.DD
            guard parts[1].utf8.count <= 2, parts[2].utf8.count <= 2 else { return .invalid }
            if numbers[1] == 0 && numbers[2] == 0 { return .none }
            return EventDate(year: numbers[0], month: numbers[1], day: numbers[2]).map(CSVDate.date) ?? .invalid
        }
        guard parts[0].utf8.count <= 2, parts[1].utf8.count <= 2 else { return .invalid }
        if numbers[0] == 0 && numbers[1] == 0 { return .none }
        if separator == "." {
            var year: Int?
            if parts.count == 3 {
                switch parts[2].utf8.count {
                case 4: year = numbers[2]
                case 2: year = expandTwoDigitYear(numbers[2], referenceYear: referenceYear)
                default: return .invalid
                }
            }
            return EventDate(year: year, month: numbers[1], day: numbers[0]).map(CSVDate.date) ?? .invalid
        }
        let third = parts.count == 3 ? SlashDate.Part(value: numbers[2], digits: parts[2].utf8.count) : nil
        let date = SlashDate(
            first: SlashDate.Part(value: numbers[0], digits: parts[0].utf8.count),
            second: numbers[1],
            third: third,
            referenceYear: referenceYear
        )
        // A third part that is no year (`1/2/3`) makes no date, unless it can be the day of `YY/MM/D`.
        if let third, third.digits != 2, third.digits != 4, date.reading(.ymd) == nil { return .invalid }
        return .slash(date)
    }

    /// 20YY when that is not after `referenceYear`, else 19YY.
    static func expandTwoDigitYear(_ yy: Int, referenceYear: Int) -> Int {
        2000 + yy <= referenceYear ? 2000 + yy : 1900 + yy
    }
}

/// A date written `A/B/YEAR`, `A/B` or `YY/MM/DD` whose order is not known
/// from the cell alone.
struct SlashDate: Hashable, Sendable {
    /// One number as written, with its count of digits (`01` has two).
    struct Part: Hashable, Sendable {
        var value: Int
        var digits: Int
    }

    var first: Part
    var second: Int
    /// `nil` for `A/B`.
    var third: Part?
    /// The current year, for two-digit years (see ``CSVDate/expandTwoDigitYear(_:referenceYear:)``).
    var referenceYear: Int

    init(first: Part, second: Int, third: Part?, referenceYear: Int) {
        self.first = first
        self.second = second
        self.third = third
        self.referenceYear = referenceYear
    }

    /// `first/second/year` with a four-digit year (or none).
    init(first: Int, second: Int, year: Int?) {
        self.init(first: Part(value: first, digits: 2), second: second, third: year.map { Part(value: $0, digits: 4) }, referenceYear: 2000)
    }

    /// The year after day and month (`A/B/YY` or `A/B/YYYY`; two digits are
    /// expanded), or `nil` when there is no third part or it is no such year.
    var year: Int? {
        guard let third else { return nil }
        switch third.digits {
        case 4: return third.value
        case 2: return CSVDate.expandTwoDigitYear(third.value, referenceYear: referenceYear)
        default: return nil
        }
    }

    /// The date when read in `order`, or `nil` when that day does not exist.
    ///
    /// Day/month and month/day take a year of two or four digits after them
    /// (`03/04/90`, `03/04/1990`) or none. Year/month/day takes a two-digit
    /// year before them (`88/12/1`); without a third part it reads month/day.
    /// A placeholder year (1604) is dropped by ``EventDate``.
    func reading(_ order: DateOrder) -> EventDate? {
        switch order {
        case .dmy, .mdy:
            if let third, third.digits != 2, third.digits != 4 { return nil }
            return order == .dmy
                ? EventDate(year: year, month: second, day: first.value) : EventDate(year: year, month: first.value, day: second)
        case .ymd:
            guard let third else { return EventDate(year: nil, month: first.value, day: second) }
            guard first.digits == 2, third.digits <= 2 else { return nil }
            return EventDate(year: CSVDate.expandTwoDigitYear(first.value, referenceYear: referenceYear), month: second, day: third.value)
        }
    }

    /// The only order in which the date exists (`20/01/1991` → day first), or
    /// `nil` when it exists in both or in neither. Year first is never inferred.
    var evidence: DateOrder? {
        switch (reading(.dmy) != nil, reading(.mdy) != nil) {
        case (true, false): .dmy
        case (false, true): .mdy
        default: nil
        }
    }

    /// Whether both orders give a date and they differ (`03/04/1990`).
    var isAmbiguous: Bool {
        first.value != second && reading(.dmy) != nil && reading(.mdy) != nil
    }
}

/// The order of day, month and year in slash dates (`03/04/1990`): what
/// `birthdays import --date-order` takes, or what a file's dates show.
public enum DateOrder: String, Hashable, Sendable, CaseIterable, Codable {
    /// Day, month, year: `03/04/1990` is April 3.
    case dmy
    /// Month, day, year, as in the US: `03/04/1990` is March 4.
    case mdy
    /// Year, month, day with a two-digit year: `90/04/03` is April 3, 1990.
    case ymd

    /// "day/month/year", for messages.
    var spelled: String {
        switch self {
        case .dmy: "day/month/year"
        case .mdy: "month/day/year"
        case .ymd: "year/month/day"
        }
    }
}

/// What a file (or the user) says about its slash dates.
enum SlashDecision: Hashable, Sendable {
    /// The user's order (`--date-order`): every slash date is read this way.
    case given(DateOrder)
    /// Every slash date is read in this order, as the file shows.
    case order(DateOrder)
    /// Some dates exist only day-first and others only month-first: those
    /// contradict each other and are not imported.
    case conflicting
    /// No date settles the order: ambiguous dates are not imported.
    case undecided

    /// Decides the order for a file.
    ///
    /// - An order the user gives decides, whatever the file.
    /// - Outlook's English export is always month first (`M/D/YYYY`).
    /// - Otherwise a date that exists only day first (first part above 12,
    ///   `20/01/1991`) makes the file day-first, and one that exists only month
    ///   first (`01/20/1991`) makes it month-first; both kinds in one file are
    ///   ``conflicting``. With neither, the file stays ``undecided``: a date is
    ///   never guessed.
    static func decide(for dates: [SlashDate], outlook: Bool, given: DateOrder? = nil) -> SlashDecision {
        if let given { return .given(given) }
        if outlook { return .order(.mdy) }
        let evidence = Set(dates.compactMap(\.evidence))
        switch (evidence.contains(.dmy), evidence.contains(.mdy)) {
        case (true, true): return .conflicting
        case (true, false): return .order(.dmy)
        case (false, true): return .order(.mdy)
        case (false, false): return .undecided
        }
    }

    /// How one slash date reads under this decision.
    func resolve(_ date: SlashDate) -> SlashResolution {
        switch self {
        case .given(let order):
            return date.reading(order).map(SlashResolution.date) ?? .notInOrder(order)
        case .order(let order):
            return date.reading(order).map(SlashResolution.date) ?? .notADate
        case .conflicting, .undecided:
            if date.isAmbiguous { return .ambiguous }
            if date.evidence != nil { return self == .conflicting ? .conflicting : .notADate }
            // Same number twice (05/05/1990) reads the same both ways.
            return date.reading(.dmy).map(SlashResolution.date) ?? .notADate
        }
    }
}

/// The outcome of ``SlashDecision/resolve(_:)``.
enum SlashResolution: Hashable, Sendable {
    case date(EventDate)
    case notADate
    /// Not a date in the order the user gave.
    case notInOrder(DateOrder)
    case ambiguous
    case conflicting
}
