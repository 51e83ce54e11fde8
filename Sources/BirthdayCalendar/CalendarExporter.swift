import BirthdayCore
import BirthdayText
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
/// The text is libical's serialization (`icalcomponent_as_ical_string_r`)
/// byte for byte: lines end in CRLF, are folded at 75 octets, and TEXT values
/// are escaped as libical escapes them. Building each event as libical
/// objects cost more than everything else of an export (allocating and
/// freeing each property and value, growing the text), so each `VEVENT` is
/// written as text (``ICalLine``): the lines every event shares (`DTSTAMP`,
/// the rules, `CATEGORIES`, `CLASS`, `TRANSP`, `ACTION`, each trigger) are
/// libical's text made once per export, dates and plain values are written
/// directly, and a line that libical would fold or whose value has a control
/// character is made by libical. The events' texts, in UID order, go between
/// the lines of the calendar's own libical text (a `VCALENDAR` with no events,
/// cut before its `END:VCALENDAR`). libical writes a component as its `BEGIN`
/// line, its properties, its sub-components and its `END` line, so this is
/// the text of the whole calendar serialized at once, without holding
/// thousands of events in memory; the tests compare every event with the same
/// event built as libical objects (their `LibicalEventBuilder.swift`).
///
/// Which events exist (their UIDs, years, the February 29 series, the
/// years with ages, the years of other calendars) is ``CalendarEventPlan``'s,
/// a pure value in core that the feed, the JSON twin and the publisher read
/// too; this type only turns each planned event into libical components, as
/// the sections below describe.
///
/// ## The calendar
/// `VERSION:2.0`, a `PRODID` naming the project, `CALSCALE:GREGORIAN`, the
/// calendar name as RFC 7986 `NAME` and as `X-WR-CALNAME`, and a refresh hint
/// of one day as RFC 7986 `REFRESH-INTERVAL;VALUE=DURATION:P1D` and as
/// `X-PUBLISHED-TTL:P1D`. There is no `METHOD`: a subscribed feed is not an
/// iTIP message, and iTIP's `PUBLISH` would require an `ORGANIZER`.
///
/// ## One event per date
/// Each date that the rules keep (``Settings/treatment(of:for:)``: not
/// excluded, anniversaries only while ``Settings/anniversaries`` is on,
/// deceased people per ``Settings/deceased``) becomes one `VEVENT` with the UID `<person id>-birthday@birthdays` or
/// `<person id>-anniversary@birthdays`, so a re-import updates the event
/// instead of adding another. Events are all-day and *floating*
/// (`DTSTART;VALUE=DATE` with no time zone, `DTEND` the next day): a birthday
/// is a calendar day, not an instant, and must not move when the reader
/// travels. They repeat with `RRULE:FREQ=YEARLY`, are `TRANSP:TRANSPARENT`
/// (not busy), `CLASS:PRIVATE`, and carry `CATEGORIES:Birthday` or
/// `Anniversary`. The title is "🎂 Ada" / "💍 Ada", or "Ada's birthday" /
/// "Ada's anniversary" with ``Settings/emoji`` off (in the localizer's
/// language, as are the descriptions and alarm texts); a recurring event's
/// title never contains an age, because one recurring event cannot show a
/// different age each year (see *Ages* below for the years that do).
/// The name is the nickname under ``Settings/names`` `nickname` when the
/// person has one. A deceased person's birthday under `deceased remember` is
/// "🕯️ Ada" / "In memory of Ada", with one alarm, on the day ("Today would
/// have been Ada's birthday."), and carries the death date as the person has
/// it (`X-BIRTHDAYS-DEATHDATE:1852-11-27`), so that an import of the export
/// keeps the death.
///
/// ## Years
/// A known year is the `DTSTART` year, and is also given as
/// `X-BIRTHDAYS-YEAR:1990` and `DESCRIPTION:born 1990` (anniversaries:
/// "since 1990"), so clients can compute ages. Under `notes-on-channels`
/// the person's note (``Person/note``) is a line of `DESCRIPTION` too. An unknown year starts the
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
/// ## Ages
/// Under ``Settings/calendarAges`` (the default), a Gregorian birthday or
/// anniversary with a known year (``EventDate/year``: placeholder years are
/// already `nil`; not a memorial under `deceased remember`) is written as
/// one event per year for ``today``'s year and the next two
/// (``agedYears``), each titled with the age turned or the years married
/// ("🎂 Ada (36)", "💍 Ada (7)", "Ada's birthday (36)"; the form is the
/// language's `feed.age.birthday` / `feed.age.anniversary`), with no
/// `RRULE` and the same description and alarms as the recurring event. Its
/// day in a common year follows ``Settings/leapDay`` for Feb 29 (and under
/// `mar1` a common year divisible by 4, 2100, has none, as its series have
/// none). The UID names the year with a `y`:
/// `<person id>-birthday-y2026@birthdays`. The part after the last `-` is
/// made by the exporter in every scheme and never contains one: `birthday`
/// or `anniversary` for the recurring event, `1`…`3` under `mar1`, only
/// digits for a year of another calendar (`…-chinese-birthday-4663`) and
/// `y` and digits here, so no id can make a year's UID equal to a UID of
/// another scheme, and a date's three UIDs differ in the year.
/// The recurring event without an age keeps its UID and starts on the first
/// occurrence after the three years (each of the four `mar1` series on its
/// own first instance from then, never on a Feb 29 that does not exist), so
/// the feed holds the same days as without ages. No event comes before the
/// date itself: for a date in the future the series starts on it, and the
/// event of the year of birth (or of the wedding), the date itself, is kept
/// without an age rather than titled "(0)". A round birthday's year
/// (``Occurrence/isRound(age:)``: 18, multiples of 10, 100 and more) gets
/// one more alarm ``Settings/roundBirthdays`` days before at the delivery
/// time, with the words of the round reminder ("Ada turns 50 in 2 weeks! A
/// round birthday: time to plan."), unless that day is a reminder day or
/// the setting is `off`. Dates without a year, memorials and dates in other
/// calendars keep their events without ages (an expanded year of another
/// calendar could name its age, but its title already carries the
/// calendar's name, and the other calendars' years are not the ones people
/// count: they are left as they were). Such a feed moves on each January 1
/// (``dependsOnYear(_:)``). With ``Settings/calendarAges`` off the feed is
/// the same, byte for byte, as before ages existed.
///
/// ## Dates in other calendars
/// A lunar, Hebrew, Hijri… birthday or anniversary (``Person/alternateDates``)
/// is an event of its own, titled with its calendar ("🎂 Ada (lunar)", or
/// "Ada's lunar birthday" with ``Settings/emoji`` off) and marked
/// `X-BIRTHDAYS-CALENDAR:chinese`. ``Settings/calendarRules`` says how it repeats:
/// - ``CalendarRules/expanded`` (the default): one event per year of its
///   calendar for ten years, the first being the first occurrence on or
///   after January 1 of ``today``'s year, each on the Gregorian day
///   ``CalendarDate/occurrence(inYear:)`` computes (a missing day falls on
///   the month's last day, a missing leap month in the ordinary month of the
///   same number). No `RRULE`; the UID names the calendar's year,
///   `<person id>-chinese-birthday-4663@birthdays` (the Chinese year that
///   began in 2026), so each year's event keeps its UID from one export to
///   the next. Every calendar app reads these; the feed moves on by a year
///   each January 1.
/// - ``CalendarRules/rscale``: one event, `<person id>-chinese-birthday@birthdays`,
///   starting on the birth date (on its first occurrence from 1972 when the
///   year is unknown), with an RFC 7529 rule that the reader expands:
///   `RRULE:RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=4L;BYMONTHDAY=10;SKIP=BACKWARD`.
///   `SKIP=BACKWARD` puts a missing day on the month's last day and a
///   missing leap month in the ordinary month before it, as the rules above
///   do; Hebrew Adar I (`BYMONTH=5L`, RFC 7529's numbering: Adar I is `5L`,
///   Adar `6`, Nisan `7` … Elul `12`) takes `SKIP=FORWARD`, to Adar (so 30
///   Adar I falls on 1 Nisan in common years there, not 29 Adar). Apple
///   Calendar and libical expand it; Google Calendar, Thunderbird and khal
///   do not, and Debian 12's libical uses the Chinese data of ICU 72, which
///   is a day off in some years (2027, 2030) that ICU 76 has right.
///
/// ## Alarms
/// Unless alarms are turned off, each event has one `VALARM`
/// (`ACTION:DISPLAY`) per reminder day, the same days the reminders come
/// (the person's own, else ``Settings/reminders``; default the day before
/// and the day of), each at ``Settings/deliveryTime``: the day of first,
/// then the days before, nearest first. Triggers are durations relative to the floating
/// midnight start: at 09:00 the day of is `PT9H`, the day before `-PT15H`
/// and a week before `-P6DT15H`; at 08:30, `PT8H30M`, `-PT15H30M` and
/// `-P6DT15H30M`; at midnight `PT0S`, `-P1D` and `-P7D`. The clock time
/// holds in the reader's zone; on a day when daylight-saving time starts or
/// ends before the delivery time, clients that add exact hours fire an hour
/// early or late.
///
/// ## Who is left out
/// People without a readable date (only ``Person/invalidDates``) get no
/// event; excluded people and, under `deceased skip`, deceased people get
/// none either (``Settings/treatment(of:for:)``, the rules the reminders follow).
///
/// ## Determinism
/// Events are sorted by UID and `DTSTAMP` is `lastChange`, so the same people
/// and settings always give byte-identical text, which keeps HTTP `ETag`s and
/// files stable.
package struct CalendarExporter: Sendable {
    /// The year that starts the series of a date without a year (``CalendarEventPlan/unknownYearBase``).
    package static let unknownYearBase = CalendarEventPlan.unknownYearBase

    /// The `PRODID` of every feed.
    package static let productID = "-//birthdays//birthdays 1.0//EN"

    /// How many years of a date in another calendar the expanded feed lists (``CalendarEventPlan/expandedYears``).
    package static let expandedYears = CalendarEventPlan.expandedYears

    /// How many years carry the age in their titles (``CalendarEventPlan/agedYears``).
    package static let agedYears = CalendarEventPlan.agedYears

    /// One planned event (which events exist is the plan's, in core).
    typealias Entry = CalendarEventPlan.Event
    typealias Recurrence = CalendarEventPlan.Recurrence

    package let settings: Settings
    package let includeAlarms: Bool
    /// The language of titles, descriptions and alarm texts.
    package let localizer: Localizer
    /// Today in the user's zone: expanded events start in its year. `nil`:
    /// the year of the data's last change (in UTC).
    package let today: LocalDate?

    /// - Parameters:
    ///   - settings: the name, title style, leap-day policy, reminder time and
    ///     which reminders and event kinds to include.
    ///   - includeAlarms: whether events carry `VALARM`s; turn off for feeds
    ///     whose readers remind on their own.
    ///   - localizer: the language of the texts (``Settings/localizer(systemLocale:)``).
    ///   - today: the day expanded events of other calendars are counted from (``Settings/calendarRules``).
    package init(settings: Settings, includeAlarms: Bool = true, localizer: Localizer = .english, today: LocalDate? = nil) {
        self.settings = settings
        self.includeAlarms = includeAlarms
        self.localizer = localizer
        self.today = today
    }

    /// Whether the feed of `feed` depends on the year (not only on the
    /// data): it has expanded events of other calendars, or events with ages
    /// (``Settings/calendarAges``), whose window moves on each January 1
    /// (``CalendarEventPlan/dependsOnYear(_:)``).
    package func dependsOnYear(_ feed: [FeedEvent]) -> Bool {
        plan.dependsOnYear(feed)
    }

    /// ``dependsOnYear(_:)`` of the events of `people`.
    package func dependsOnYear(_ people: [Person]) -> Bool {
        dependsOnYear(events(of: people))
    }

    /// The events of `people` under these settings (``FeedEvent/events(of:rules:)``):
    /// for callers that hold people as values rather than the store's walk.
    func events(of people: [Person]) -> [FeedEvent] {
        FeedEvent.events(of: people, rules: settings.treatmentRules)
    }

    /// Which events exist: the plan in core, for these settings and today.
    var plan: CalendarEventPlan { CalendarEventPlan(settings: settings, today: today) }

    /// The planned events of `feed`, sorted by UID.
    func entries(for feed: [FeedEvent], lastChange: Date) throws(ExportError) -> [Entry] {
        do throws(CalendarPlanError) {
            return try plan.events(for: feed, lastChange: lastChange)
        } catch {
            throw ExportError(.duplicateID(error.duplicateID))
        }
    }

    /// The planned events of `people`, sorted by UID.
    func entries(for people: [Person], lastChange: Date) throws(ExportError) -> [Entry] {
        try entries(for: events(of: people), lastChange: lastChange)
    }

    /// When the feed of `feed` last changed: `changedAt`, the data's last
    /// change, or January 1 (00:00 UTC) of ``today``'s year when that is
    /// later and the feed ``dependsOnYear(_:)``. Pass it as `lastChange`
    /// (`DTSTAMP`, and HTTP's `Last-Modified`).
    package func lastChange(of feed: [FeedEvent], changedAt: Date) -> Date {
        guard let today, dependsOnYear(feed) else { return changedAt }
        let newYear = Date(timeIntervalSince1970: Double(LocalDate(unchecked: today.year, 1, 1).dayNumber) * 86_400)
        return max(changedAt, newYear)
    }

    /// ``lastChange(of:changedAt:)`` of the events of `people`.
    package func lastChange(of people: [Person], changedAt: Date) -> Date {
        lastChange(of: events(of: people), changedAt: changedAt)
    }

    /// The calendar as iCalendar text.
    ///
    /// - Parameters:
    ///   - feed: the dates the calendar holds (the store's walk: ``FeedEvent``).
    ///   - lastChange: the data's last change; used as `DTSTAMP` so identical
    ///     input gives byte-identical output.
    /// - Throws: ``ExportError`` when two people share an id, or libical fails
    ///   to allocate.
    package func export(_ feed: [FeedEvent], lastChange: Date) throws(ExportError) -> String {
        String(decoding: try exportBytes(feed, lastChange: lastChange), as: UTF8.self)
    }

    /// ``export(_:lastChange:)`` of the events of `people` (the caller leaves out anyone excluded).
    package func export(_ people: [Person], lastChange: Date) throws(ExportError) -> String {
        try export(events(of: people), lastChange: lastChange)
    }

    /// The calendar as UTF-8 bytes: the same text as ``export(_:lastChange:)``
    /// without building a `String`, for writing to a file or standard output.
    ///
    /// - Parameters:
    ///   - feed: the dates the calendar holds (``FeedEvent``).
    ///   - lastChange: the data's last change (see ``export(_:lastChange:)``).
    /// - Throws: ``ExportError`` when two people share an id, or libical fails
    ///   to allocate.
    package func exportBytes(_ feed: [FeedEvent], lastChange: Date) throws(ExportError) -> [UInt8] {
        try ICalComponent.loadLibical()
        let entries = try self.entries(for: feed, lastChange: lastChange)
        let frame = try calendarFrame()
        // Made here, on the calling thread: the first call sets up libical's built-in zones.
        let values = eventValues(lastChange: lastChange)

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

    /// ``exportBytes(_:lastChange:)`` of the events of `people`.
    package func exportBytes(_ people: [Person], lastChange: Date) throws(ExportError) -> [UInt8] {
        try exportBytes(events(of: people), lastChange: lastChange)
    }

    /// Writes the calendar to `path` atomically.
    ///
    /// The text goes to a temporary file in the same directory, which is
    /// flushed to disk (`fsync`) and then renamed over `path`; the directory
    /// is synced too. Readers see either the old file or the new one, never a
    /// partial one. The file is created readable by the owner only (`0600`):
    /// it lists people's birthdays.
    /// - Parameters:
    ///   - feed: the dates the calendar holds (``FeedEvent``).
    ///   - lastChange: the data's last change (see ``export(_:lastChange:)``).
    ///   - path: where to write; its directory must exist.
    /// - Throws: ``ExportError`` when exporting fails or a file-system step does.
    package func write(_ feed: [FeedEvent], lastChange: Date, to path: String) throws(ExportError) {
        let bytes = try exportBytes(feed, lastChange: lastChange)
        try AtomicFile.write(bytes, to: path)
    }

    /// ``write(_:lastChange:to:)`` of the events of `people`.
    package func write(_ people: [Person], lastChange: Date, to path: String) throws(ExportError) {
        try write(events(of: people), lastChange: lastChange, to: path)
    }

    /// The calendar's events one by one, for publishing to CalDAV (one
    /// resource per UID): each a `VCALENDAR` with `VERSION`, `PRODID` and
    /// `CALSCALE` around one `VEVENT` and its `VALARM`s, written exactly as the
    /// feed's (same UIDs, same text), in UID order.
    /// A Feb 29 date under `leap-day mar1` is several events, each its own.
    ///
    /// - Parameters:
    ///   - feed: the dates the calendar holds (``FeedEvent``).
    ///   - lastChange: the data's last change (`DTSTAMP`, see ``export(_:lastChange:)``).
    /// - Throws: ``ExportError`` as ``export(_:lastChange:)``.
    package func events(_ feed: [FeedEvent], lastChange: Date) throws(ExportError) -> [PublishEvent] {
        try ICalComponent.loadLibical()
        let entries = try self.entries(for: feed, lastChange: lastChange)
        let calendar = try ICalComponent(kind: ICAL_VCALENDAR_COMPONENT)
        try calendar.root.add("VERSION", text: "2.0") { libical.pointee.icalproperty_new_version($0) }
        try calendar.root.add("PRODID", text: Self.productID) { libical.pointee.icalproperty_new_prodid($0) }
        try calendar.root.add("CALSCALE", text: "GREGORIAN") { libical.pointee.icalproperty_new_calscale($0) }
        var frame: [UInt8] = []
        try calendar.appendSerialized(to: &frame)
        let end = Array("END:VCALENDAR\r\n".utf8)
        guard frame.count >= end.count, frame.suffix(end.count).elementsEqual(end) else {
            throw ExportError(.libical(what: "a calendar ending in END:VCALENDAR"))
        }
        let head = Array(frame.dropLast(end.count))
        let values = eventValues(lastChange: lastChange)
        var lines = try EventLines(values)
        var events: [PublishEvent] = []
        events.reserveCapacity(entries.count)
        for entry in entries {
            var bytes = head
            try appendEvent(content(of: entry, values: values), values: values, lines: &lines, to: &bytes)
            bytes += end
            events.append(PublishEvent(uid: entry.uid, bytes: bytes))
        }
        return events
    }

    /// ``events(_:lastChange:)`` of the events of `people`.
    package func events(_ people: [Person], lastChange: Date) throws(ExportError) -> [PublishEvent] {
        try events(events(of: people), lastChange: lastChange)
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
    struct EventValues: @unchecked Sendable {
        let stamp: icaltimetype
        let rules: Rules
        let triggers: Triggers
        let texts: Texts
    }

    /// Writes the events of `entries` one at a time, appending their text to
    /// `bytes` (``appendEvent(_:values:lines:to:)``).
    ///
    /// Safe to run on several threads at once for different entries: each
    /// thread has its own lines and uses only the libical properties it made,
    /// and libical (built with pthreads, as Debian's is) keeps its error state
    /// and temporary-string ring per thread.
    private func appendEvents(_ entries: ArraySlice<Entry>, values: EventValues, to bytes: inout [UInt8]) throws(ExportError) {
        var lines = try EventLines(values)
        for entry in entries {
            try appendEvent(content(of: entry, values: values), values: values, lines: &lines, to: &bytes)
        }
    }

    /// What every event of an export with this `lastChange` shares; libical must be loaded.
    func eventValues(lastChange: Date) -> EventValues {
        let stamp = libical.pointee.icaltime_from_timet_with_zone(
            time_t(lastChange.timeIntervalSince1970.rounded(.down)),
            0,
            libical.pointee.icaltimezone_get_utc_timezone()
        )
        return EventValues(
            stamp: stamp,
            rules: Rules(),
            triggers: Triggers(deliveryTime: settings.deliveryTime),
            texts: Texts(localizer)
        )
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
}
