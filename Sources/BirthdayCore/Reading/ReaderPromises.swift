import Foundation

/// What the contact readers promise for any bytes at all, checked by the
/// fuzzer (`make fuzz`, Fuzz/ReaderFuzzer) on every input it makes and by
/// the tests on every case kept in Fuzz/regressions:
///
/// - every problem names the file and a line inside it, and has a message
///   on one line without control characters (``SafeText``);
/// - every contact comes from a line inside the file;
/// - a contact has at most ``ContactGroups/maxCount`` groups, each named by
///   1 to ``ContactGroups/maxLength`` characters;
/// - every date exists and its year is one a feed can carry (``EventDate/yearRange``),
///   dates in other calendars included (their Gregorian day's year);
/// - every contact point is one ``ContactPoint/read(_:_:)`` accepts as it is
///   (no control character, at most ``ContactPoint/maxLength``), and its URI
///   holds no space;
/// - a contact's zone is read back the same from what the store keeps
///   (``PersonZone/storedValue``).
package enum ReaderPromises {
    /// Parses `bytes` as the file `file` and returns the broken promises,
    /// one sentence each (empty when all are kept), with the result.
    package static func check(_ bytes: Data, file: String = "fuzz") -> (broken: [String], result: ParseResult) {
        // The readers end a line at LF, CRLF or a lone CR (in UTF-16 too, whose
        // line breaks hold the same bytes): one more line than CRs and LFs
        // together is an upper bound on the line numbers they can report.
        let lines = bytes.reduce(1) { $0 + ($1 == 0x0A || $1 == 0x0D ? 1 : 0) }
        let result = ContactReader.parse(bytes, file: file, referenceYear: 2026)
        var broken: [String] = []
        for problem in result.problems {
            if problem.file != SafeText.quoted(file) { broken.append("a problem names another file: \(problem)") }
            if problem.line < 1 || problem.line > lines + 1 { broken.append("a problem's line is outside the file: \(problem)") }
            if problem.message.isEmpty { broken.append("a problem without a message") }
            if problem.description.unicodeScalars.contains(where: SafeText.isUnsafe) {
                broken.append("a problem with a control character: \(problem.description.debugDescription)")
            }
        }
        for contact in result.contacts {
            if contact.source.line < 1 || contact.source.line > lines + 1 { broken.append("a contact's line is outside the file") }
            let names = contact.groups + (contact.groupCard.map { [$0.name] } ?? []).filter { !$0.isEmpty }
            if contact.groups.count > ContactGroups.maxCount || names.contains(where: { $0.isEmpty || $0.count > ContactGroups.maxLength }) {
                broken.append("too many groups, or a group name empty or too long")
            }
            if contact.labelledDates.count > 2 * VCardCardBuilder.labelledLimit
                || contact.labelledDates.contains(where: { $0.label.isEmpty || $0.label.count > 101 })
            {
                broken.append("too many labelled dates, or a label empty or too long")
            }
            for date in ([contact.birthday, contact.anniversary] + contact.labelledDates.map(\.date)).compactMap({ $0 }) {
                if EventDate(year: date.year, month: date.month, day: date.day) != date { broken.append("a date that does not exist: \(date)") }
                if let year = date.year, !EventDate.yearRange.contains(year) { broken.append("a year a feed cannot carry: \(date)") }
            }
            for alternate in contact.alternateDates {
                let date = alternate.date
                let again = CalendarDate(
                    calendar: date.calendar,
                    era: date.era,
                    year: date.year,
                    month: date.month,
                    isLeapMonth: date.isLeapMonth,
                    day: date.day
                )
                if again != date { broken.append("a \(date.calendar.rawValue) date that does not exist: \(date)") }
                if let day = date.gregorian, !EventDate.yearRange.contains(day.year) { broken.append("a year a feed cannot carry: \(date)") }
            }
            for point in contact.contactPoints {
                if (try? ContactPoint.read(point.kind, point.value).get()) != point {
                    broken.append("a contact point that is not one: \(point.kind)")
                }
                if point.uri.contains(where: \.isWhitespace) { broken.append("a contact point's URI with a space: \(point.kind)") }
            }
            if let zone = contact.zone, PersonZone(cardValue: zone.storedValue) != zone {
                broken.append("a zone that does not read back: \(zone.storedValue)")
            }
        }
        return (broken, result)
    }
}
