/// Reads a date written in a calendar other than the Gregorian one: Apple's
/// `X-ALTBDAY;CALSCALE=<calendar>:<value>` and vCard 4's
/// `BDAY;CALSCALE=<calendar>:<value>` / `ANNIVERSARY;CALSCALE=<calendar>:<value>`
/// ([RFC 6350 §5.8](https://www.rfc-editor.org/rfc/rfc6350#section-5.8)).
///
/// ## What is read
/// `CALSCALE` names the calendar in any case (``CalendarSystem``). The value is, in this order:
/// - **Apple's form**, which Contacts writes for every calendar: era, year,
///   month and day with no separators, 4, 4, 2 and 2 digits, an `L` after a
///   leap month, and `-` in place of a field it does not have:
///   `007800021101` (Chinese era 78, year 2, month 11, day 1: 1985-12-12),
///   `0078003704L10` (leap 4th month), `000057840614` (Hebrew 14 Adar I 5784),
///   `--1101` (no era, no year), `-57840614` (a year without its era);
/// - the same **with dashes**: `0078-0002-11-01`, `0078-0037-04L-10`
///   (what `birthdays people` shows);
/// - **vCard 4 dates**, years without an era: `57840614`, `5784-06-14`,
///   `--0614`, `--06-14` (an `L` may follow the month).
///
/// Months and days are Foundation's, which Apple uses too: Hebrew 6 is
/// Adar I and 7 is Adar (Adar II in leap years), and Hebrew has no `L`; a
/// Chinese leap month is the month's number with `L`.
///
/// A year needs its era where the year alone means nothing: the 60-year
/// cycle of `chinese` and `dangi`, the reign of `japanese`. Elsewhere a year
/// without an era is in the calendar's current era.
///
/// ## What is reported
/// Never guessed: a value that is none of these forms, that lacks a month
/// or a day, that marks a leap month in a calendar without them, gives a
/// Chinese year without its cycle, or does not exist in its calendar (the
/// 30th of a month that has 29 days that year, a leap month that year does
/// not have, Adar I in a common year) is kept as text, gets no reminder,
/// and is reported at its line; so is a calendar this program does not read
/// (``CalendarSystem/unsupportedReason(_:)``).
enum CalendarDateValue: Hashable, Sendable {
    case date(CalendarDate)
    /// Why the value is not read, as the end of a sentence that starts with the property and the value.
    case unreadable(String)
    /// An empty value.
    case none

    /// Reads `raw` as a date of the calendar `calscale` names.
    static func read(_ raw: String, calscale: String?) -> CalendarDateValue {
        let text = raw.trimmingWhitespace()
        guard !text.isEmpty else { return .none }
        guard let calscale, !calscale.trimmingWhitespace().isEmpty else { return .unreadable("has no CALSCALE naming its calendar") }
        guard let calendar = CalendarSystem(calscale: calscale) else {
            return .unreadable(
                "is in the calendar '\(calscale.trimmingWhitespace())', which is not read: " + CalendarSystem.unsupportedReason(calscale)
            )
        }
        guard let fields = Fields(Array(text.utf8)) else { return .unreadable("is not a \(calendar.rawValue) date") }
        guard let month = fields.month else { return .unreadable("has no month") }
        guard let day = fields.day else { return .unreadable("has no day") }
        if fields.leap && !calendar.hasLeapMonths {
            return .unreadable("marks a leap month, which the \(calendar.rawValue) calendar does not have")
        }
        var era = fields.era
        if fields.year == nil {
            era = nil
        } else if era == nil {
            guard let current = calendar.eraOfEralessYear else {
                let what = calendar == .japanese ? "reign" : "60-year cycle"
                return .unreadable("gives a \(calendar.rawValue) year without its era (the \(what)); Apple's form starts with it: EEEEYYYYMMDD")
            }
            era = current
        }
        guard let date = CalendarDate(calendar: calendar, era: era, year: fields.year, month: month, isLeapMonth: fields.leap, day: day) else {
            return .unreadable("does not exist in the \(calendar.rawValue) calendar")
        }
        return .date(date)
    }

    /// The fields of one value, before they are checked against the calendar.
    struct Fields: Equatable {
        var era: Int?
        var year: Int?
        var month: Int?
        var leap = false
        var day: Int?

        /// The first form (see ``CalendarDateValue``) that reads all of `bytes`, or `nil`.
        init?(_ bytes: [UInt8]) {
            if let dashed = Fields(dashed: bytes) {
                self = dashed
            } else if let apple = Fields(apple: bytes) {
                self = apple
            } else if let vCard = Fields(vCard: bytes) {
                self = vCard
            } else {
                return nil
            }
        }

        init(era: Int?, year: Int?, month: Int?, leap: Bool, day: Int?) {
            self.era = era
            self.year = year
            self.month = month
            self.leap = leap
            self.day = day
        }

        private static let dash = UInt8(ascii: "-")

        private static func isLeapMarker(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "L") || byte == UInt8(ascii: "l") }

        /// The number in `bytes[range]` when every byte is a digit.
        private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, !range.isEmpty else { return nil }
            var n = 0
            for i in range {
                let d = bytes[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                n = n * 10 + Int(d)
            }
            return n
        }

        /// `EEEE-YYYY-MM[L]-DD`.
        private init?(dashed bytes: [UInt8]) {
            guard bytes.count == 15 || bytes.count == 16, bytes[4] == Fields.dash, bytes[9] == Fields.dash else { return nil }
            let leap = bytes.count == 16
            guard !leap || Fields.isLeapMarker(bytes[12]), bytes[bytes.count - 3] == Fields.dash,
                let era = Fields.number(bytes, 0..<4), let year = Fields.number(bytes, 5..<9), let month = Fields.number(bytes, 10..<12),
                let day = Fields.number(bytes, (bytes.count - 2)..<bytes.count)
            else { return nil }
            self.init(era: era, year: year, month: month, leap: leap, day: day)
        }

        /// Apple's scanner: era (4 digits or `-`), year (4 or `-`), month
        /// (2 or `-`), an optional `L`, day (2 or `-`), and nothing after.
        private init?(apple bytes: [UInt8]) {
            var position = 0
            func field(_ width: Int) -> Int?? {
                guard position < bytes.count else { return .none }
                if bytes[position] == Fields.dash {
                    position += 1
                    return .some(nil)
                }
                guard let n = Fields.number(bytes, position..<(position + width)) else { return .none }
                position += width
                return .some(n)
            }
            guard let era = field(4), let year = field(4), let month = field(2) else { return nil }
            var leap = false
            if position < bytes.count, Fields.isLeapMarker(bytes[position]) {
                leap = true
                position += 1
            }
            guard let day = field(2), position == bytes.count else { return nil }
            self.init(era: era, year: year, month: month, leap: leap, day: day)
        }

        /// vCard 4's `YYYYMMDD`, `YYYY-MM-DD`, `--MMDD` and `--MM-DD`, with an optional `L` after the month.
        private init?(vCard bytes: [UInt8]) {
            var rest = bytes[...]
            var year: Int?
            if rest.starts(with: [Fields.dash, Fields.dash]) {
                rest = rest.dropFirst(2)
            } else {
                guard let y = Fields.number(bytes, 0..<4) else { return nil }
                year = y
                rest = rest.dropFirst(4)
                if rest.first == Fields.dash { rest = rest.dropFirst() }
            }
            let tail = Array(rest)
            guard let month = Fields.number(tail, 0..<2) else { return nil }
            var position = 2
            let leap = position < tail.count && Fields.isLeapMarker(tail[position])
            if leap { position += 1 }
            if position < tail.count, tail[position] == Fields.dash { position += 1 }
            guard tail.count == position + 2, let day = Fields.number(tail, position..<(position + 2)) else { return nil }
            self.init(era: nil, year: year, month: month, leap: leap, day: day)
        }
    }
}
