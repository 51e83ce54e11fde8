import BirthdayCore
import CLibical
import Foundation

/// Reads the events of an iCalendar file (RFC 5545) with libical's parser,
/// for `birthdays import FILE.ics` (``CalendarBirthdays`` in core decides
/// what they say).
///
/// Each `VEVENT` becomes a ``CalendarFileEvent``: its `UID`, `SUMMARY`,
/// `DTSTART` when it is a date, whether its `RRULE` is `FREQ=YEARLY` (an
/// `INTERVAL` other than 1, or an `RSCALE`, is not), its `CATEGORIES` and
/// our own feed's `X-BIRTHDAYS-YEAR`, `X-BIRTHDAYS-UNKNOWN-YEAR`,
/// `X-BIRTHDAYS-CALENDAR`, `X-BIRTHDAYS-LABEL` and `X-BIRTHDAYS-DEATHDATE`. The line of each is the line of its
/// `BEGIN:VEVENT` in the file.
package enum CalendarFileReader {
    /// The contacts of the calendar file `data` (``CalendarBirthdays``), or
    /// a problem at line 1 when it cannot be read or libical is missing.
    package static func parse(
        _ data: Data,
        file: String,
        asBirthday: Bool,
        today: LocalDate?,
        known: CalendarBirthdays.KnownNames = CalendarBirthdays.KnownNames()
    ) -> ParseResult {
        let text = String(decoding: data, as: UTF8.self)
        do {
            let events = try events(in: text)
            return CalendarBirthdays.contacts(from: events, file: file, asBirthday: asBirthday, today: today, known: known)
        } catch {
            return ParseResult(problems: [ImportProblem(file: file, line: 1, message: "cannot read this calendar file: \(error.description)")])
        }
    }

    /// The events of `text`, in file order.
    package static func events(in text: String) throws(ExportError) -> [CalendarFileEvent] {
        let calendar = try ICalComponent(parsing: text)
        let lines = eventLines(in: text)
        var events: [CalendarFileEvent] = []
        var child = libical.pointee.icalcomponent_get_first_component(calendar.pointer, ICAL_VEVENT_COMPONENT)
        while let event = child {
            events.append(read(event, line: events.count < lines.count ? lines[events.count] : 1))
            child = libical.pointee.icalcomponent_get_next_component(calendar.pointer, ICAL_VEVENT_COMPONENT)
        }
        return events
    }

    /// The 1-based lines of the `BEGIN:VEVENT`s of `text`.
    static func eventLines(in text: String) -> [Int] {
        var lines: [Int] = []
        var number = 0
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
            if String(decoding: trimmed, as: UTF8.self).uppercased() == "BEGIN:VEVENT" { lines.append(number) }
        }
        return lines
    }

    private static func read(_ event: OpaquePointer, line: Int) -> CalendarFileEvent {
        func first(_ kind: icalproperty_kind) -> OpaquePointer? { libical.pointee.icalcomponent_get_first_property(event, kind) }
        func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        let summary = first(ICAL_SUMMARY_PROPERTY).flatMap { string(libical.pointee.icalproperty_get_summary($0)) } ?? ""
        let uid = first(ICAL_UID_PROPERTY).flatMap { string(libical.pointee.icalproperty_get_uid($0)) }
        let time = libical.pointee.icalcomponent_get_dtstart(event)
        let start = time.is_date != 0 ? LocalDate(year: Int(time.year), month: Int(time.month), day: Int(time.day)) : nil
        var yearly = false
        var otherCalendar = false
        var lastDayOfFebruary = false
        if let rule = first(ICAL_RRULE_PROPERTY).flatMap(value) {
            var parts: [String: String] = [:]
            for part in rule.uppercased().split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2 { parts[String(pair[0])] = String(pair[1]) }
            }
            otherCalendar = parts["RSCALE"] != nil
            lastDayOfFebruary = parts["BYMONTH"] == "2" && parts["BYMONTHDAY"] == "-1"
            // Our feed's Feb 29 under `leap-day mar1`: every fourth year from a Feb 29.
            let everyFourth = parts["INTERVAL"] == "4" && start?.month == 2 && start?.day == 29
            yearly = parts["FREQ"] == "YEARLY" && ((parts["INTERVAL"] ?? "1") == "1" || everyFourth) && !otherCalendar
        }
        var categories: [String] = []
        var property = first(ICAL_CATEGORIES_PROPERTY)
        while let current = property {
            if let text = value(current) { categories += text.split(separator: ",").map { String($0) } }
            property = libical.pointee.icalcomponent_get_next_property(event, ICAL_CATEGORIES_PROPERTY)
        }
        var knownYear: Int?
        var unknownYear = false
        var label: String?
        var deathDate: String?
        property = first(ICAL_X_PROPERTY)
        while let current = property {
            let name = string(libical.pointee.icalproperty_get_x_name(current))?.uppercased()
            let text = string(libical.pointee.icalproperty_get_x(current))
            switch name {
            case "X-BIRTHDAYS-YEAR": knownYear = text.flatMap { Int($0) }
            case "X-BIRTHDAYS-UNKNOWN-YEAR": unknownYear = text == "1"
            case "X-BIRTHDAYS-CALENDAR": otherCalendar = true
            case "X-BIRTHDAYS-LABEL": label = text.map { $0.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : $0 }
            case "X-BIRTHDAYS-DEATHDATE": deathDate = text.map { $0.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : $0 }
            default: break
            }
            property = libical.pointee.icalcomponent_get_next_property(event, ICAL_X_PROPERTY)
        }
        var read = CalendarFileEvent(
            line: line,
            uid: uid,
            summary: summary,
            start: start,
            yearly: yearly,
            otherCalendar: otherCalendar,
            categories: categories,
            knownYear: knownYear,
            unknownYear: unknownYear
        )
        read.lastDayOfFebruary = lastDayOfFebruary
        read.label = label
        read.deathDate = deathDate
        return read
    }

    /// A property's value as text, as libical writes it.
    private static func value(_ property: OpaquePointer) -> String? {
        guard let text = libical.pointee.icalproperty_get_value_as_string_r(property) else { return nil }
        defer { libical.pointee.icalmemory_free_buffer(text) }
        return String(cString: text)
    }
}
