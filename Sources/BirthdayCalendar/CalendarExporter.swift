import BirthdayCore
import CLibical
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds the birthday calendar as an iCalendar feed
/// ([RFC 5545](https://www.rfc-editor.org/rfc/rfc5545)) with libical.
///
/// Every component and property is made with libical's constructors and the
/// text is libical's serialization (`icalcomponent_as_ical_string_r`): lines
/// end in CRLF, are folded at 75 octets, and TEXT values are escaped by
/// libical. No line is written by hand: each `VEVENT` (with its `VALARM`s) is
/// built, serialized by libical and freed on its own, and the events' texts,
/// in UID order, go between the lines of the calendar's own libical text (a
/// `VCALENDAR` with no events, cut before its `END:VCALENDAR`). libical writes
/// a component as its `BEGIN` line, its properties, its sub-components and its
/// `END` line, so this is the text of the whole calendar serialized at once,
/// without holding thousands of events in memory.
///
/// ## The calendar
/// `VERSION:2.0`, a `PRODID` naming the project, `CALSCALE:GREGORIAN`, the
/// calendar name as RFC 7986 `NAME` and as `X-WR-CALNAME`, and a refresh hint
/// of one day as RFC 7986 `REFRESH-INTERVAL;VALUE=DURATION:P1D` and as
/// `X-PUBLISHED-TTL:P1D`. There is no `METHOD`: a subscribed feed is not an
/// iTIP message, and iTIP's `PUBLISH` would require an `ORGANIZER`.
///
/// ## One event per date
/// Each birthday, and each anniversary when ``Settings/anniversaries`` is on,
/// becomes one `VEVENT` with the UID `<person id>-birthday@birthdays` or
/// `<person id>-anniversary@birthdays`, so a re-import updates the event
/// instead of adding another. Events are all-day and *floating*
/// (`DTSTART;VALUE=DATE` with no time zone, `DTEND` the next day): a birthday
/// is a calendar day, not an instant, and must not move when the reader
/// travels. They repeat with `RRULE:FREQ=YEARLY`, are `TRANSP:TRANSPARENT`
/// (not busy), `CLASS:PRIVATE`, and carry `CATEGORIES:Birthday` or
/// `Anniversary`. The title is "🎂 Ada" / "💍 Ada", or "Ada's birthday" /
/// "Ada's anniversary" with ``Settings/emoji`` off (in the localizer's
/// language, as are the descriptions and alarm texts); it never contains an
/// age, because one recurring event cannot show a different age each year.
///
/// ## Years
/// A known year is the `DTSTART` year, and is also given as
/// `X-BIRTHDAYS-YEAR:1990` and `DESCRIPTION:born 1990` (anniversaries:
/// "since 1990"), so clients can compute ages. An unknown year starts the
/// series in ``unknownYearBase`` (1972, a leap year, so February 29 exists)
/// and is marked `X-BIRTHDAYS-UNKNOWN-YEAR:1`; 1972 is never shown as a year.
/// A year outside ``EventDate/yearRange`` (1…3000: libical writes no later
/// date, but `DTSTART:00000000T000000`) is treated as unknown; the readers
/// never produce one.
///
/// ## February 29
/// `FREQ=YEARLY` alone would skip common years (RFC 5545 drops invalid
/// dates), so a Feb 29 date gets an explicit encoding, per ``Settings/leapDay``,
/// chosen so that libical, python-icalendar with dateutil and
/// recurring-ical-events, khal, calcurse and sabre/vobject (Nextcloud's
/// library) all expand it the same way:
/// - ``LeapDayPolicy/feb28``: `FREQ=YEARLY;BYMONTHDAY=-1;BYMONTH=2`, the last
///   day of February: Feb 29 in leap years, Feb 28 otherwise.
/// - ``LeapDayPolicy/mar1``: four events, each `FREQ=YEARLY;INTERVAL=4`: the
///   person's usual UID starting on the Feb 29, and `<stem>-mar1-1`, `-2` and
///   `-3` starting on Mar 1 one, two and three years later. No single rule
///   works everywhere: `BYYEARDAY=60` is lost by calcurse and sabre/vobject
///   (no event at all in common years), `BYSETPOS` and `RDATE`/`EXDATE` by
///   others. The year 2100, common but divisible by 4, gets no event.
/// The Feb 29 `DTSTART` is the first instance of the series that starts there.
///
/// ## Alarms
/// Unless alarms are turned off, each event has a `VALARM` (`ACTION:DISPLAY`)
/// on the day at ``Settings/deliveryTime`` and, when ``Settings/dayBefore`` is
/// on, one the day before at the same time. Triggers are durations relative
/// to the floating midnight start: 09:00 is `PT9H` and `-PT15H`, 08:30 is
/// `PT8H30M` and `-PT15H30M`, midnight is `PT0S` and `-P1D`. The clock time
/// holds in the reader's zone; on a day when daylight-saving time starts or
/// ends before the delivery time, clients that add exact hours fire an hour
/// early or late.
///
/// ## Who is left out
/// People without a readable date (only ``Person/invalidDates``) get no event.
/// There is no per-person exclusion here: the caller passes only the people
/// that belong in the feed, which is where an "exclude from calendar" choice
/// is applied.
///
/// ## Determinism
/// Events are sorted by UID and `DTSTAMP` is `lastChange`, so the same people
/// and settings always give byte-identical text, which keeps HTTP `ETag`s and
/// files stable.
public struct CalendarExporter: Sendable {
    /// The year that starts the series of a date without a year: a leap
    /// year, so that February 29 exists.
    public static let unknownYearBase = 1972

    /// The `PRODID` of every feed.
    public static let productID = "-//birthdays//birthdays 1.0//EN"

    public let settings: Settings
    public let includeAlarms: Bool
    /// The language of titles, descriptions and alarm texts.
    public let localizer: Localizer

    /// - Parameters:
    ///   - settings: the name, title style, leap-day policy, reminder time and
    ///     which reminders and event kinds to include.
    ///   - includeAlarms: whether events carry `VALARM`s; turn off for feeds
    ///     whose readers remind on their own.
    ///   - localizer: the language of the texts (``Settings/localizer(systemLocale:)``).
    public init(settings: Settings, includeAlarms: Bool = true, localizer: Localizer = .english) {
        self.settings = settings
        self.includeAlarms = includeAlarms
        self.localizer = localizer
    }

    /// The calendar as iCalendar text.
    ///
    /// - Parameters:
    ///   - people: who belongs in the feed (the caller leaves out anyone excluded).
    ///   - lastChange: the data's last change; used as `DTSTAMP` so identical
    ///     input gives byte-identical output.
    /// - Throws: ``ExportError`` when two people share an id, or libical fails
    ///   to allocate.
    public func export(_ people: [Person], lastChange: Date) throws(ExportError) -> String {
        String(decoding: try exportBytes(people, lastChange: lastChange), as: UTF8.self)
    }

    /// The calendar as UTF-8 bytes: the same text as ``export(_:lastChange:)``
    /// without building a `String`, for writing to a file or standard output.
    ///
    /// - Parameters:
    ///   - people: who belongs in the feed (the caller leaves out anyone excluded).
    ///   - lastChange: the data's last change (see ``export(_:lastChange:)``).
    /// - Throws: ``ExportError`` when two people share an id, or libical fails
    ///   to allocate.
    public func exportBytes(_ people: [Person], lastChange: Date) throws(ExportError) -> [UInt8] {
        try ICalComponent.loadLibical()
        let entries = try self.entries(for: people)
        let frame = try calendarFrame()
        // Made here, on the calling thread: the first call sets up libical's built-in zones.
        let stamp = libical.pointee.icaltime_from_timet_with_zone(
            time_t(lastChange.timeIntervalSince1970.rounded(.down)),
            0,
            libical.pointee.icaltimezone_get_utc_timezone()
        )
        let values = EventValues(
            stamp: stamp,
            rules: Rules(),
            triggers: Triggers(deliveryTime: settings.deliveryTime, dayBefore: settings.dayBefore),
            texts: Texts(localizer)
        )

        let eventSizeEstimate = includeAlarms ? 600 : 400
        let parts = entries.count >= Self.entriesPerThread * 2 ? min(2, max(1, ProcessInfo.processInfo.activeProcessorCount)) : 1
        guard parts > 1 else {
            var output: [UInt8] = []
            output.reserveCapacity(frame.head.count + frame.tail.count + entries.count * eventSizeEstimate)
            output += frame.head
            try appendEvents(entries[...], values: values, to: &output)
            output += frame.tail
            return output
        }
        // Contiguous slices of the sorted entries, each built on its own thread
        // and joined in order, so the text does not depend on the threads.
        let bounds = (0...parts).map { entries.count * $0 / parts }
        // The first slice goes straight after the calendar's head, in a buffer
        // sized for the whole text, so only the later slices are copied.
        let slots = Mutex([Result<[UInt8], ExportError>](repeating: .success([]), count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let result = Result { () throws(ExportError) in
                var bytes: [UInt8] = []
                if part == 0 {
                    bytes.reserveCapacity(frame.head.count + frame.tail.count + entries.count * eventSizeEstimate)
                    bytes += frame.head
                }
                try appendEvents(entries[bounds[part]..<bounds[part + 1]], values: values, to: &bytes)
                return bytes
            }
            slots.withLock { $0[part] = result }
        }
        // Taken out of the lock so that the first buffer is uniquely referenced and grows in place.
        var results = slots.withLock { slots in
            defer { slots = [] }
            return slots
        }
        var output = try results.removeFirst().get()
        for result in results {
            output += try result.get()
        }
        output += frame.tail
        return output
    }

    /// Writes the calendar to `path` atomically.
    ///
    /// The text goes to a temporary file in the same directory, which is
    /// flushed to disk (`fsync`) and then renamed over `path`; the directory
    /// is synced too. Readers see either the old file or the new one, never a
    /// partial one. The file is created readable by the owner only (`0600`):
    /// it lists people's birthdays.
    /// - Parameters:
    ///   - people: who belongs in the feed.
    ///   - lastChange: the data's last change (see ``export(_:lastChange:)``).
    ///   - path: where to write; its directory must exist.
    /// - Throws: ``ExportError`` when exporting fails or a file-system step does.
    public func write(_ people: [Person], lastChange: Date, to path: String) throws(ExportError) {
        let bytes = try exportBytes(people, lastChange: lastChange)
        try AtomicFile.write(bytes, to: path)
    }

    // MARK: Building

    /// Below twice this many events the export stays on one thread: starting
    /// a second one would cost more than it saves.
    private static let entriesPerThread = 1000

    /// What every event of one export shares.
    ///
    /// Plain C values, copied into each thread. Their only pointers are
    /// libical's static UTC zone (in `stamp`) and unset ones, and nothing
    /// writes through them: sharing is safe. The texts are `Sendable` values.
    private struct EventValues: @unchecked Sendable {
        let stamp: icaltimetype
        let rules: Rules
        let triggers: Triggers
        let texts: Texts
    }

    /// The texts of every event, parsed once per export (thousands of events
    /// fill the same few templates).
    private struct Texts {
        let birthdayTitle: MessageTemplate
        let anniversaryTitle: MessageTemplate
        let born: MessageTemplate
        let since: MessageTemplate
        let birthdayToday: MessageTemplate
        let birthdayTomorrow: MessageTemplate
        let anniversaryToday: MessageTemplate
        let anniversaryTomorrow: MessageTemplate

        init(_ localizer: Localizer) {
            birthdayTitle = localizer.template(.feedBirthdayTitle)
            anniversaryTitle = localizer.template(.feedAnniversaryTitle)
            born = localizer.template(.feedBorn)
            since = localizer.template(.feedSince)
            birthdayToday = localizer.template(.birthdayToday)
            birthdayTomorrow = localizer.template(.birthdayTomorrow)
            anniversaryToday = localizer.template(.anniversaryToday)
            anniversaryTomorrow = localizer.template(.anniversaryTomorrow)
        }
    }

    /// Builds, serializes and frees the events of `entries` one at a time,
    /// appending their text to `bytes`.
    ///
    /// Safe to run on several threads at once for different entries: each
    /// thread uses only components it made, and libical (built with pthreads,
    /// as Debian's is) keeps its error state and temporary-string ring per
    /// thread.
    private func appendEvents(_ entries: ArraySlice<Entry>, values: EventValues, to bytes: inout [UInt8]) throws(ExportError) {
        for entry in entries {
            let event = try makeEvent(entry, values: values)
            try event.appendSerialized(to: &bytes)
        }
    }

    /// One event to write: a person's date of one kind, or one of the
    /// series that together make a Feb 29 date under `leap-day mar1`.
    private struct Entry: Sendable {
        let uid: String
        let person: Person
        let kind: EventKind
        let date: EventDate
        /// The first day of the series.
        let start: LocalDate
        let recurrence: Recurrence
    }

    /// How an event repeats.
    enum Recurrence: Sendable {
        /// `FREQ=YEARLY`.
        case yearly
        /// `FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1`: Feb 29 in leap years, Feb 28 otherwise.
        case lastDayOfFebruary
        /// `FREQ=YEARLY;INTERVAL=4`: one of the four series of a Feb 29 date under `mar1`.
        case everyFourthYear
    }

    /// libical's text of a `VCALENDAR` with the calendar's properties and no
    /// events, split before its `END:VCALENDAR` line so the events' texts can
    /// go in between: libical writes a component's properties, then its
    /// sub-components, then its `END` line.
    private func calendarFrame() throws(ExportError) -> (head: [UInt8], tail: [UInt8]) {
        let calendar = try ICalComponent(kind: ICAL_VCALENDAR_COMPONENT)
        try addCalendarProperties(to: calendar.root)
        var text: [UInt8] = []
        try calendar.appendSerialized(to: &text)
        let end = Array("END:VCALENDAR\r\n".utf8)
        guard text.count >= end.count, text.suffix(end.count).elementsEqual(end) else {
            throw ExportError(.libical(what: "a calendar ending in END:VCALENDAR"))
        }
        return (Array(text.dropLast(end.count)), end)
    }

    private func entries(for people: [Person]) throws(ExportError) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(people.count * (settings.anniversaries ? 2 : 1))
        for person in people {
            if let date = person.birthday {
                appendEntries(for: date, kind: .birthday, of: person, to: &entries)
            }
            if settings.anniversaries, let date = person.anniversary {
                appendEntries(for: date, kind: .anniversary, of: person, to: &entries)
            }
        }
        // Swift orders strings by their normalized Unicode scalars: the same on every machine, never by locale.
        entries.sort { $0.uid < $1.uid }
        for index in entries.indices.dropFirst() where entries[index].uid == entries[index - 1].uid {
            throw ExportError(.duplicateID(entries[index].person.id))
        }
        return entries
    }

    /// The events of one date: one yearly series; for Feb 29 under `leap-day
    /// mar1`, four (see the type's documentation).
    private func appendEntries(for date: EventDate, kind: EventKind, of person: Person, to entries: inout [Entry]) {
        let stem = person.id + "-" + kind.rawValue
        let knownYear = date.year.flatMap { EventDate.yearRange.contains($0) ? $0 : nil }
        let first = knownYear ?? Self.unknownYearBase
        guard date.isLeapDay else {
            entries.append(
                Entry(
                    uid: stem + "@birthdays",
                    person: person,
                    kind: kind,
                    date: date,
                    start: LocalDate(unchecked: first, date.month, date.day),
                    recurrence: .yearly
                )
            )
            return
        }
        switch settings.leapDay {
        case .feb28:
            entries.append(
                Entry(
                    uid: stem + "@birthdays",
                    person: person,
                    kind: kind,
                    date: date,
                    start: LocalDate(unchecked: first, 2, 29),
                    recurrence: .lastDayOfFebruary
                )
            )
        case .mar1:
            entries.append(
                Entry(
                    uid: stem + "@birthdays",
                    person: person,
                    kind: kind,
                    date: date,
                    start: LocalDate(unchecked: first, 2, 29),
                    recurrence: .everyFourthYear
                )
            )
            for offset in 1...3 where first + offset <= 9999 {
                entries.append(
                    Entry(
                        uid: stem + "-mar1-\(offset)@birthdays",
                        person: person,
                        kind: kind,
                        date: date,
                        start: LocalDate(unchecked: first + offset, 3, 1),
                        recurrence: .everyFourthYear
                    )
                )
            }
        }
    }

    private func addCalendarProperties(to root: ICalNode) throws(ExportError) {
        let name = Self.sanitized(settings.calendarName)
        try root.add("VERSION", text: "2.0") { libical.pointee.icalproperty_new_version($0) }
        try root.add("PRODID", text: Self.productID) { libical.pointee.icalproperty_new_prodid($0) }
        try root.add("CALSCALE", text: "GREGORIAN") { libical.pointee.icalproperty_new_calscale($0) }
        try root.add("NAME", text: name) { libical.pointee.icalproperty_new_name($0) }
        try root.addExtension("X-WR-CALNAME", value: name)
        var day = libical.pointee.icaldurationtype_null_duration()
        day.days = 1
        let refresh = try root.add("REFRESH-INTERVAL") { libical.pointee.icalproperty_new_refreshinterval(day) }
        try ICalNode.addParameter(to: refresh, "VALUE=DURATION") { libical.pointee.icalparameter_new_value(ICAL_VALUE_DURATION) }
        try root.addExtension("X-PUBLISHED-TTL", value: "P1D")
    }

    /// One `VEVENT` (with its `VALARM`s) on its own, to be serialized and freed
    /// before the next one is built.
    private func makeEvent(_ entry: Entry, values: EventValues) throws(ExportError) -> ICalComponent {
        let (stamp, rules, triggers, texts) = (values.stamp, values.rules, values.triggers, values.texts)
        let date = entry.date
        let knownYear = date.year.flatMap { EventDate.yearRange.contains($0) ? $0 : nil }
        let start = entry.start
        let end = start.adding(days: 1)
        let name = Self.sanitized(entry.person.name)
        let isBirthday = entry.kind == .birthday

        let component = try ICalComponent(kind: ICAL_VEVENT_COMPONENT)
        let event = component.root
        try event.add("UID", text: entry.uid) { libical.pointee.icalproperty_new_uid($0) }
        try event.add("DTSTAMP") { libical.pointee.icalproperty_new_dtstamp(stamp) }
        try event.add("DTSTART") { libical.pointee.icalproperty_new_dtstart(Self.icalDate(start)) }
        try event.add("DTEND") { libical.pointee.icalproperty_new_dtend(Self.icalDate(end)) }
        try event.add("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: entry.recurrence)) }
        try event.add("SUMMARY", text: summary(name: name, kind: entry.kind, texts: texts)) { libical.pointee.icalproperty_new_summary($0) }
        if let knownYear {
            let description = (isBirthday ? texts.born : texts.since).render([.number(knownYear)])
            try event.add("DESCRIPTION", text: description) { libical.pointee.icalproperty_new_description($0) }
        }
        try event.add("CATEGORIES", text: isBirthday ? "Birthday" : "Anniversary") { libical.pointee.icalproperty_new_categories($0) }
        try event.add("CLASS") { libical.pointee.icalproperty_new_class(ICAL_CLASS_PRIVATE) }
        try event.add("TRANSP") { libical.pointee.icalproperty_new_transp(ICAL_TRANSP_TRANSPARENT) }
        if let knownYear {
            try event.addExtension("X-BIRTHDAYS-YEAR", value: String(knownYear))
        } else {
            try event.addExtension("X-BIRTHDAYS-UNKNOWN-YEAR", value: "1")
        }

        guard includeAlarms else { return component }
        // The name as it is (an empty one stays empty): the texts of reminders without a year.
        let who: [MessageArgument] = [.text(name)]
        try addAlarm(to: event, trigger: triggers.dayOf, text: (isBirthday ? texts.birthdayToday : texts.anniversaryToday).render(who))
        if let dayBefore = triggers.dayBefore {
            try addAlarm(to: event, trigger: dayBefore, text: (isBirthday ? texts.birthdayTomorrow : texts.anniversaryTomorrow).render(who))
        }
        return component
    }

    private func addAlarm(to event: ICalNode, trigger: icaltriggertype, text: String) throws(ExportError) {
        let alarm = try event.addComponent(ICAL_VALARM_COMPONENT)
        try alarm.add("ACTION") { libical.pointee.icalproperty_new_action(ICAL_ACTION_DISPLAY) }
        try alarm.add("DESCRIPTION", text: text) { libical.pointee.icalproperty_new_description($0) }
        let property = try alarm.add("TRIGGER") { libical.pointee.icalproperty_new_trigger(trigger) }
        try ICalNode.addParameter(to: property, "RELATED=START") { libical.pointee.icalparameter_new_related(ICAL_RELATED_START) }
    }

    private func summary(name: String, kind: EventKind, texts: Texts) -> String {
        switch (kind, settings.emoji) {
        case (.birthday, true): "🎂 " + name
        case (.anniversary, true): "💍 " + name
        case (.birthday, false): texts.birthdayTitle.render([.text(name)])
        case (.anniversary, false): texts.anniversaryTitle.render([.text(name)])
        }
    }

    // MARK: Values

    /// A floating DATE value (no time, no zone).
    static func icalDate(_ date: LocalDate) -> icaltimetype {
        // icaltime_null_date() sets the time fields to -1, which libical's
        // recurrence code normalizes to the day before; a date is midnight.
        var time = libical.pointee.icaltime_null_date()
        time.year = Int32(date.year)
        time.month = Int32(date.month)
        time.day = Int32(date.day)
        time.hour = 0
        time.minute = 0
        time.second = 0
        return time
    }

    /// Text without characters iCalendar TEXT cannot carry: NUL and other
    /// control characters are dropped, line breaks become spaces (titles are
    /// one line).
    static func sanitized(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x0D, 0x09: result.unicodeScalars.append(" ")
            case 0x00..<0x20, 0x7F: continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The yearly rules, made once per export.
    private struct Rules {
        let plain: icalrecurrencetype
        let lastDayOfFebruary: icalrecurrencetype
        let everyFourthYear: icalrecurrencetype

        init() {
            var plain = icalrecurrencetype()
            libical.pointee.icalrecurrencetype_clear(&plain)
            plain.freq = ICAL_YEARLY_RECURRENCE
            self.plain = plain

            // icalrecurrencetype_clear fills every BY… array with the end marker,
            // so setting element 0 gives a one-element list.
            var february = plain
            february.by_month.0 = 2
            february.by_month_day.0 = -1
            lastDayOfFebruary = february

            var fourth = plain
            fourth.interval = 4
            everyFourthYear = fourth
        }

        func rule(for recurrence: Recurrence) -> icalrecurrencetype {
            switch recurrence {
            case .yearly: plain
            case .lastDayOfFebruary: lastDayOfFebruary
            case .everyFourthYear: everyFourthYear
            }
        }
    }

    /// Alarm triggers relative to the floating midnight that starts the day.
    private struct Triggers {
        let dayOf: icaltriggertype
        let dayBefore: icaltriggertype?

        init(deliveryTime: TimeOfDay, dayBefore: Bool) {
            let minutes = deliveryTime.minutesSinceMidnight
            var dayOf = libical.pointee.icaldurationtype_null_duration()
            dayOf.hours = UInt32(minutes / 60)
            dayOf.minutes = UInt32(minutes % 60)
            self.dayOf = Self.trigger(dayOf)

            guard dayBefore else {
                self.dayBefore = nil
                return
            }
            var before = libical.pointee.icaldurationtype_null_duration()
            before.is_neg = 1
            if minutes == 0 {
                // A nominal day keeps midnight midnight across a DST change; 24 exact hours would not.
                before.days = 1
            } else {
                before.hours = UInt32((24 * 60 - minutes) / 60)
                before.minutes = UInt32((24 * 60 - minutes) % 60)
            }
            self.dayBefore = Self.trigger(before)
        }

        private static func trigger(_ duration: icaldurationtype) -> icaltriggertype {
            icaltriggertype(time: libical.pointee.icaltime_null_time(), duration: duration)
        }
    }
}
