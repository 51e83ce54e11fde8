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
/// event built as libical objects (``libicalEventTexts(_:lastChange:)``).
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

    /// Whether the feed of `people` depends on the year (not only on the
    /// data): it has expanded events of other calendars, or events with ages
    /// (``Settings/calendarAges``), whose window moves on each January 1.
    package func dependsOnYear(_ people: [Person]) -> Bool {
        if settings.calendarRules == .expanded,
            people.contains(where: { person in person.alternateDates.contains { $0.kind == .birthday || settings.anniversaries } })
        {
            return true
        }
        guard settings.calendarAges else { return false }
        let rules = settings.treatmentRules
        return people.contains { person in
            let traits = PersonTraits(person)
            return EventKind.allCases.contains { kind in
                guard let year = person.date(of: kind)?.year, EventDate.yearRange.contains(year),
                    let treatment = rules.treatment(of: kind, for: traits)
                else { return false }
                return plan.agesApply(to: treatment)
            }
        }
    }

    /// Which events exist: the plan in core, for these settings and today.
    var plan: CalendarEventPlan { CalendarEventPlan(settings: settings, today: today) }

    /// The planned events of `people`, sorted by UID.
    private func entries(for people: [Person], lastChange: Date) throws(ExportError) -> [Entry] {
        do throws(CalendarPlanError) {
            return try plan.events(for: people, lastChange: lastChange)
        } catch {
            throw ExportError(.duplicateID(error.duplicateID))
        }
    }

    /// When the feed of `people` last changed: `changedAt`, the data's last
    /// change, or January 1 (00:00 UTC) of ``today``'s year when that is
    /// later and the feed ``dependsOnYear(_:)``. Pass it as `lastChange`
    /// (`DTSTAMP`, and HTTP's `Last-Modified`).
    package func lastChange(of people: [Person], changedAt: Date) -> Date {
        guard let today, dependsOnYear(people) else { return changedAt }
        let newYear = Date(timeIntervalSince1970: Double(LocalDate(unchecked: today.year, 1, 1).dayNumber) * 86_400)
        return max(changedAt, newYear)
    }

    /// The calendar as iCalendar text.
    ///
    /// - Parameters:
    ///   - people: who belongs in the feed (the caller leaves out anyone excluded).
    ///   - lastChange: the data's last change; used as `DTSTAMP` so identical
    ///     input gives byte-identical output.
    /// - Throws: ``ExportError`` when two people share an id, or libical fails
    ///   to allocate.
    package func export(_ people: [Person], lastChange: Date) throws(ExportError) -> String {
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
    package func exportBytes(_ people: [Person], lastChange: Date) throws(ExportError) -> [UInt8] {
        try ICalComponent.loadLibical()
        let entries = try self.entries(for: people, lastChange: lastChange)
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
    package func write(_ people: [Person], lastChange: Date, to path: String) throws(ExportError) {
        let bytes = try exportBytes(people, lastChange: lastChange)
        try AtomicFile.write(bytes, to: path)
    }

    /// The calendar's events one by one, for publishing to CalDAV (one
    /// resource per UID): each a `VCALENDAR` with `VERSION`, `PRODID` and
    /// `CALSCALE` around one `VEVENT` and its `VALARM`s, written exactly as the
    /// feed's (same UIDs, same text), in UID order.
    /// A Feb 29 date under `leap-day mar1` is several events, each its own.
    ///
    /// - Parameters:
    ///   - people: who belongs in the calendar (the caller leaves out anyone excluded).
    ///   - lastChange: the data's last change (`DTSTAMP`, see ``export(_:lastChange:)``).
    /// - Throws: ``ExportError`` as ``export(_:lastChange:)``.
    package func events(_ people: [Person], lastChange: Date) throws(ExportError) -> [PublishEvent] {
        try ICalComponent.loadLibical()
        let entries = try self.entries(for: people, lastChange: lastChange)
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
        let memorialTitle: MessageTemplate
        let born: MessageTemplate
        let since: MessageTemplate
        let birthdayToday: MessageTemplate
        let birthdayTomorrow: MessageTemplate
        let birthdayAhead: MessageTemplate
        let birthdayWeeks: MessageTemplate
        let anniversaryToday: MessageTemplate
        let anniversaryTomorrow: MessageTemplate
        let anniversaryAhead: MessageTemplate
        let anniversaryWeeks: MessageTemplate
        let memorialToday: MessageTemplate
        /// The same for dates in other calendars, with the calendar's name.
        let calendarBirthdayTitle: MessageTemplate
        let calendarAnniversaryTitle: MessageTemplate
        let calendarBirthdayToday: MessageTemplate
        let calendarBirthdayTomorrow: MessageTemplate
        let calendarAnniversaryToday: MessageTemplate
        let calendarAnniversaryTomorrow: MessageTemplate
        let calendarNames: [CalendarSystem: String]
        /// "%@ (%lld)": a title and the age turned or the years married.
        let ageBirthday: MessageTemplate
        let ageAnniversary: MessageTemplate

        init(_ localizer: Localizer) {
            birthdayTitle = localizer.template(.feedBirthdayTitle)
            anniversaryTitle = localizer.template(.feedAnniversaryTitle)
            memorialTitle = localizer.template(.feedMemorialTitle)
            born = localizer.template(.feedBorn)
            since = localizer.template(.feedSince)
            birthdayToday = localizer.template(.birthdayToday)
            birthdayTomorrow = localizer.template(.birthdayTomorrow)
            birthdayAhead = localizer.template(.birthdayAhead)
            birthdayWeeks = localizer.template(.birthdayWeeks)
            anniversaryToday = localizer.template(.anniversaryToday)
            anniversaryTomorrow = localizer.template(.anniversaryTomorrow)
            anniversaryAhead = localizer.template(.anniversaryAhead)
            anniversaryWeeks = localizer.template(.anniversaryWeeks)
            memorialToday = localizer.template(.memorialToday)
            calendarBirthdayTitle = localizer.template(.feedCalendarBirthdayTitle)
            calendarAnniversaryTitle = localizer.template(.feedCalendarAnniversaryTitle)
            calendarBirthdayToday = localizer.template(.calendarBirthdayToday)
            calendarBirthdayTomorrow = localizer.template(.calendarBirthdayTomorrow)
            calendarAnniversaryToday = localizer.template(.calendarAnniversaryToday)
            calendarAnniversaryTomorrow = localizer.template(.calendarAnniversaryTomorrow)
            calendarNames = Dictionary(uniqueKeysWithValues: CalendarSystem.allCases.map { ($0, localizer($0.nameKey)) })
            ageBirthday = localizer.template(.feedAgeBirthday)
            ageAnniversary = localizer.template(.feedAgeAnniversary)
        }

        /// The alarm text `days` before a `kind` event of `name`, without an
        /// age (one alarm serves every year): "Ada's birthday is in a week!".
        /// A date in another calendar names it on the day and the day before
        /// ("Today is Ada's lunar birthday!"); further ahead its words are the
        /// ordinary ones, as in ``NotificationContent``.
        func alarm(_ kind: EventKind, daysBefore days: Int, name: String, memorial: Bool, calendar: String?) -> String {
            let who = MessageArgument.text(name)
            if let calendar, days <= 1 {
                let which = MessageArgument.text(calendar)
                switch (kind, days) {
                case (.birthday, 0): return calendarBirthdayToday.render([who, which])
                case (.birthday, _): return calendarBirthdayTomorrow.render([who, which])
                case (.anniversary, 0), (.labelled, 0): return calendarAnniversaryToday.render([who, which])
                case (.anniversary, _), (.labelled, _): return calendarAnniversaryTomorrow.render([who, which])
                }
            }
            switch (kind, days) {
            case (.birthday, 0): return (memorial ? memorialToday : birthdayToday).render([who])
            case (.birthday, 1): return birthdayTomorrow.render([who])
            case (.anniversary, 0), (.labelled, 0): return anniversaryToday.render([who])
            case (.anniversary, 1), (.labelled, 1): return anniversaryTomorrow.render([who])
            case (_, let days):
                let weeks = days % 7 == 0
                let template =
                    kind == .birthday ? (weeks ? birthdayWeeks : birthdayAhead) : (weeks ? anniversaryWeeks : anniversaryAhead)
                return template.render([who, .number(weeks ? days / 7 : days)])
            }
        }
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

    /// The events of `people` as libical writes their objects (the way the
    /// feed was written before ``appendEvent(_:values:lines:to:)``): one
    /// `VEVENT` text per event, in UID order, for comparing the two.
    func libicalEventTexts(_ people: [Person], lastChange: Date) throws(ExportError) -> [[UInt8]] {
        try ICalComponent.loadLibical()
        let values = eventValues(lastChange: lastChange)
        return try entries(for: people, lastChange: lastChange).map { entry throws(ExportError) in
            var bytes: [UInt8] = []
            try makeEvent(content(of: entry, values: values), values: values).appendSerialized(to: &bytes)
            return bytes
        }
    }

    /// What every event of an export with this `lastChange` shares; libical must be loaded.
    private func eventValues(lastChange: Date) -> EventValues {
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

    /// What one `VEVENT` says: decided once per event, then written as text
    /// (``appendEvent(_:values:lines:to:)``, the feed) or as libical objects
    /// (``makeEvent(_:values:)``, each published event), the same bytes either way.
    private struct EventContent {
        let uid: String
        let start: LocalDate
        let recurrence: Recurrence
        let summary: String
        /// The year line and the note (joined by a line break), if any.
        let description: String?
        /// `CATEGORIES:Birthday`, else `Anniversary`.
        let countsAge: Bool
        let knownYear: Int?
        let calendar: CalendarSystem?
        /// The label of a labelled date, sanitized.
        let label: String?
        /// A memorial's death date as the person has it, sanitized: `X-BIRTHDAYS-DEATHDATE`.
        let deathDate: String?
        /// The day of first, then the days before, nearest first, then a round birthday's.
        let alarms: [(daysBefore: Int, text: String)]
    }

    private func content(of entry: Entry, values: EventValues) -> EventContent {
        let texts = values.texts
        let knownYear = entry.knownYear
        let name = Self.sanitized(settings.names.pick(name: entry.person.name, nickname: entry.person.nickname))
        let isBirthday = entry.kind == .birthday
        // A labelled date counts an age when its label says birthday, else years since it.
        let countsAge = isBirthday || entry.labelled?.isBirthday == true

        let calendarName = entry.calendar.flatMap { texts.calendarNames[$0] }
        var summary =
            entry.labelled.map { labelledSummary(name: name, label: $0.label) }
            ?? summary(name: name, kind: entry.kind, memorial: entry.treatment.memorial, calendar: calendarName, texts: texts)
        if let age = entry.age {
            summary = (countsAge ? texts.ageBirthday : texts.ageAnniversary).render([.text(summary), .number(age)])
        }
        // The person's note only under `notes-on-channels`: the feed leaves the machine.
        let note = settings.notesOnChannels ? entry.person.note.map { SafeText.line($0) } : nil
        let born = knownYear.map { (countsAge ? texts.born : texts.since).render([.number($0)]) }
        let description = [born, note].compactMap { $0 }.joined(separator: "\n")

        var alarms: [(daysBefore: Int, text: String)] = []
        if includeAlarms {
            // The name as it is (an empty one stays empty): the texts of reminders without a year.
            // The day of first, then the days before, nearest first (the order of earlier feeds).
            for days in entry.treatment.reminderDays.days.reversed() {
                let text =
                    entry.labelled.map { labelled in
                        NotificationContent.make(
                            name: name,
                            kind: .labelled,
                            timing: NotificationRequest.Timing(daysBefore: days),
                            age: nil,
                            labelled: labelled,
                            in: localizer
                        ).body
                    } ?? texts.alarm(entry.kind, daysBefore: days, name: name, memorial: entry.treatment.memorial, calendar: calendarName)
                alarms.append((days, text))
            }
            // A round birthday's year gets one more alarm, as its reminders do (``ReminderPlanner``): none on a day a reminder day has.
            if isBirthday, let age = entry.age, Occurrence.isRound(age: age), let lead = settings.roundBirthdays,
                !entry.treatment.reminderDays.days.contains(lead)
            {
                let words = NotificationContent.make(
                    name: name,
                    kind: .birthday,
                    timing: NotificationRequest.Timing(daysBefore: lead, round: true),
                    age: age,
                    in: localizer
                )
                alarms.append((lead, words.body))
            }
        }
        return EventContent(
            uid: entry.uid,
            start: entry.start,
            recurrence: entry.recurrence,
            summary: summary,
            description: description.isEmpty ? nil : description,
            countsAge: countsAge,
            knownYear: knownYear,
            calendar: entry.calendar,
            label: entry.labelled.map { Self.sanitized($0.label) },
            deathDate: entry.treatment.memorial ? entry.person.deathDate.map(Self.sanitized) : nil,
            alarms: alarms
        )
    }

    /// Appends one `VEVENT`'s text (with its `VALARM`s) to `bytes`, the same
    /// bytes libical writes for ``makeEvent(_:values:)``'s objects: the
    /// properties whose text never changes come from `lines` (made by libical
    /// once per export), dates and plain text are written here, and a value
    /// that needs folding or a control character's escape goes through
    /// libical (``ICalLine``).
    private func appendEvent(_ event: EventContent, values: EventValues, lines: inout EventLines, to bytes: inout [UInt8]) throws(ExportError) {
        bytes += "BEGIN:VEVENT\r\n".utf8
        try ICalLine.appendText("UID", event.uid, to: &bytes) { libical.pointee.icalproperty_new_uid($0) }
        bytes += lines.stamp
        let end = event.start.adding(days: 1)
        ICalLine.appendDate("DTSTART", event.start.year, event.start.month, event.start.day, to: &bytes)
        ICalLine.appendDate("DTEND", end.year, end.month, end.day, to: &bytes)
        switch event.recurrence {
        case .once:
            break
        case .rscale(let date):
            let (rule, rscale) = Rules.rscale(date, base: values.rules.plain)
            bytes += try ICalLine.property("RRULE") { Self.rscaleProperty(rule, rscale) }
        case .yearly:
            bytes += lines.yearly
        case .lastDayOfFebruary:
            bytes += lines.lastDayOfFebruary
        case .everyFourthYear:
            bytes += lines.everyFourthYear
        }
        try ICalLine.appendText("SUMMARY", event.summary, to: &bytes) { libical.pointee.icalproperty_new_summary($0) }
        if let description = event.description {
            try ICalLine.appendText("DESCRIPTION", description, to: &bytes) { libical.pointee.icalproperty_new_description($0) }
        }
        bytes += event.countsAge ? lines.birthdayCategory : lines.anniversaryCategory
        bytes += lines.classAndTransparency
        if let knownYear = event.knownYear {
            bytes += "X-BIRTHDAYS-YEAR:".utf8
            ICalLine.appendDigits(knownYear, count: 1, to: &bytes)
            bytes += "\r\n".utf8
        } else {
            bytes += "X-BIRTHDAYS-UNKNOWN-YEAR:1\r\n".utf8
        }
        if let calendar = event.calendar {
            try ICalLine.appendExtension("X-BIRTHDAYS-CALENDAR", calendar.rawValue, to: &bytes)
        }
        if let label = event.label {
            try ICalLine.appendExtension("X-BIRTHDAYS-LABEL", label, to: &bytes)
        }
        if let deathDate = event.deathDate {
            try ICalLine.appendExtension("X-BIRTHDAYS-DEATHDATE", deathDate, to: &bytes)
        }
        for alarm in event.alarms {
            bytes += "BEGIN:VALARM\r\n".utf8
            bytes += lines.action
            try ICalLine.appendText("DESCRIPTION", alarm.text, to: &bytes) { libical.pointee.icalproperty_new_description($0) }
            bytes += try lines.trigger(daysBefore: alarm.daysBefore, values.triggers)
            bytes += "END:VALARM\r\n".utf8
        }
        bytes += "END:VEVENT\r\n".utf8
    }

    /// The text of the properties every event of one export shares, made by
    /// libical once (and each alarm trigger once per thread).
    private struct EventLines {
        let stamp: [UInt8]
        let yearly: [UInt8]
        let lastDayOfFebruary: [UInt8]
        let everyFourthYear: [UInt8]
        let birthdayCategory: [UInt8]
        let anniversaryCategory: [UInt8]
        /// `CLASS:PRIVATE` and `TRANSP:TRANSPARENT`.
        let classAndTransparency: [UInt8]
        let action: [UInt8]
        private var triggers: [Int: [UInt8]] = [:]

        init(_ values: EventValues) throws(ExportError) {
            let (stamp, rules) = (values.stamp, values.rules)
            self.stamp = try ICalLine.property("DTSTAMP") { libical.pointee.icalproperty_new_dtstamp(stamp) }
            yearly = try ICalLine.property("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: .yearly)) }
            lastDayOfFebruary = try ICalLine.property("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: .lastDayOfFebruary)) }
            everyFourthYear = try ICalLine.property("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: .everyFourthYear)) }
            birthdayCategory = try ICalLine.property("CATEGORIES") { "Birthday".withCString { libical.pointee.icalproperty_new_categories($0) } }
            anniversaryCategory = try ICalLine.property("CATEGORIES") {
                "Anniversary".withCString { libical.pointee.icalproperty_new_categories($0) }
            }
            classAndTransparency =
                try ICalLine.property("CLASS") { libical.pointee.icalproperty_new_class(ICAL_CLASS_PRIVATE) }
                + ICalLine.property("TRANSP") { libical.pointee.icalproperty_new_transp(ICAL_TRANSP_TRANSPARENT) }
            action = try ICalLine.property("ACTION") { libical.pointee.icalproperty_new_action(ICAL_ACTION_DISPLAY) }
        }

        /// `TRIGGER;RELATED=START:…` `days` before, made once.
        mutating func trigger(daysBefore days: Int, _ triggers: Triggers) throws(ExportError) -> [UInt8] {
            if let line = self.triggers[days] { return line }
            let trigger = triggers.trigger(daysBefore: days)
            let line = try ICalLine.property("TRIGGER") {
                libical.pointee.icalproperty_new_trigger(trigger)
            } configure: { property throws(ExportError) in
                try ICalNode.addParameter(to: property, "RELATED=START") { libical.pointee.icalparameter_new_related(ICAL_RELATED_START) }
            }
            self.triggers[days] = line
            return line
        }
    }

    /// An `RSCALE` rule's property: libical copies the `RSCALE` text into it
    /// (icalvalue_set_recur strdups it).
    private static func rscaleProperty(_ rule: icalrecurrencetype, _ rscale: String) -> OpaquePointer? {
        rscale.withCString { name in
            var rule = rule
            rule.rscale = UnsafeMutablePointer(mutating: name)
            return libical.pointee.icalproperty_new_rrule(rule)
        }
    }

    /// One `VEVENT` (with its `VALARM`s) as libical objects, to be serialized
    /// and freed before the next one is built.
    private func makeEvent(_ event: EventContent, values: EventValues) throws(ExportError) -> ICalComponent {
        let (stamp, rules, triggers) = (values.stamp, values.rules, values.triggers)
        let component = try ICalComponent(kind: ICAL_VEVENT_COMPONENT)
        let root = component.root
        try root.add("UID", text: event.uid) { libical.pointee.icalproperty_new_uid($0) }
        try root.add("DTSTAMP") { libical.pointee.icalproperty_new_dtstamp(stamp) }
        try root.add("DTSTART") { libical.pointee.icalproperty_new_dtstart(Self.icalDate(event.start)) }
        try root.add("DTEND") { libical.pointee.icalproperty_new_dtend(Self.icalDate(event.start.adding(days: 1))) }
        switch event.recurrence {
        case .once:
            break
        case .rscale(let date):
            let (rule, rscale) = Rules.rscale(date, base: rules.plain)
            try root.add("RRULE") { Self.rscaleProperty(rule, rscale) }
        default:
            try root.add("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: event.recurrence)) }
        }
        try root.add("SUMMARY", text: event.summary) { libical.pointee.icalproperty_new_summary($0) }
        if let description = event.description {
            try root.add("DESCRIPTION", text: description) { libical.pointee.icalproperty_new_description($0) }
        }
        try root.add("CATEGORIES", text: event.countsAge ? "Birthday" : "Anniversary") { libical.pointee.icalproperty_new_categories($0) }
        try root.add("CLASS") { libical.pointee.icalproperty_new_class(ICAL_CLASS_PRIVATE) }
        try root.add("TRANSP") { libical.pointee.icalproperty_new_transp(ICAL_TRANSP_TRANSPARENT) }
        if let knownYear = event.knownYear {
            try root.addExtension("X-BIRTHDAYS-YEAR", value: String(knownYear))
        } else {
            try root.addExtension("X-BIRTHDAYS-UNKNOWN-YEAR", value: "1")
        }
        if let calendar = event.calendar {
            try root.addExtension("X-BIRTHDAYS-CALENDAR", value: calendar.rawValue)
        }
        if let label = event.label {
            try root.addExtension("X-BIRTHDAYS-LABEL", value: label)
        }
        if let deathDate = event.deathDate {
            try root.addExtension("X-BIRTHDAYS-DEATHDATE", value: deathDate)
        }
        for alarm in event.alarms {
            try addAlarm(to: root, trigger: triggers.trigger(daysBefore: alarm.daysBefore), text: alarm.text)
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

    /// "📅 Johnny Appleseed: Started work", or without emoji "Johnny Appleseed: Started work" (``Message/Key/labelledTitle``).
    private func labelledSummary(name: String, label: String) -> String {
        let label = Self.sanitized(label)
        return settings.emoji ? "📅 " + name + ": " + label : localizer(.labelledTitle(name: name, label: label))
    }

    /// "🎂 Ada", "Ada's birthday", "🕯️ Ada" in memory of someone; with a
    /// calendar's name, "🎂 Ada (lunar)", "Ada's lunar birthday".
    private func summary(name: String, kind: EventKind, memorial: Bool, calendar: String?, texts: Texts) -> String {
        if let calendar {
            switch (kind, settings.emoji) {
            case (.birthday, true): return "🎂 " + name + " (" + calendar + ")"
            case (.anniversary, true), (.labelled, true): return "💍 " + name + " (" + calendar + ")"
            case (.birthday, false): return texts.calendarBirthdayTitle.render([.text(name), .text(calendar)])
            case (.anniversary, false), (.labelled, false): return texts.calendarAnniversaryTitle.render([.text(name), .text(calendar)])
            }
        }
        switch (kind, settings.emoji) {
        case (.birthday, true) where memorial: return "🕯️ " + name
        case (.birthday, false) where memorial: return texts.memorialTitle.render([.text(name)])
        case (.birthday, true): return "🎂 " + name
        case (.anniversary, true), (.labelled, true): return "💍 " + name
        case (.birthday, false): return texts.birthdayTitle.render([.text(name)])
        case (.anniversary, false), (.labelled, false): return texts.anniversaryTitle.render([.text(name)])
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
            case .yearly, .once, .rscale: plain
            case .lastDayOfFebruary: lastDayOfFebruary
            case .everyFourthYear: everyFourthYear
            }
        }

        /// libical's flag on a `BYMONTH` value for a leap month (`5L`).
        static let leapMonthFlag: Int16 = 0x1000

        /// The RFC 7529 rule of `date` (without its `RSCALE` text, which the
        /// caller sets while the property is made) and that text.
        ///
        /// Months are RFC 7529's (CLDR's month codes): the same as
        /// Foundation's except for Hebrew, where Foundation counts 1 Tishri …
        /// 6 Adar I, 7 Adar … 13 Elul, and RFC 7529 has Adar I as the leap
        /// month `5L` and Adar as `6` … Elul as `12`.
        static func rscale(_ date: CalendarDate, base: icalrecurrencetype) -> (icalrecurrencetype, String) {
            var rule = base
            var month = Int16(date.month)
            var skip = ICAL_SKIP_BACKWARD
            if date.calendar == .hebrew {
                switch date.month {
                case 6:
                    month = 5 | leapMonthFlag
                    skip = ICAL_SKIP_FORWARD
                case 7...: month = Int16(date.month - 1)
                default: break
                }
            } else if date.isLeapMonth {
                month |= leapMonthFlag
            }
            rule.by_month.0 = month
            rule.by_month_day.0 = Int16(date.day)
            rule.skip = skip
            return (rule, date.calendar.rscale)
        }
    }

    /// Alarm triggers relative to the floating midnight that starts the day.
    private struct Triggers {
        let minutes: Int

        init(deliveryTime: TimeOfDay) {
            minutes = deliveryTime.minutesSinceMidnight
        }

        /// The delivery time `days` days before the event's day: `PT9H` on
        /// the day, `-PT15H` the day before, `-P6DT15H` a week before (at 09:00).
        func trigger(daysBefore days: Int) -> icaltriggertype {
            var duration = libical.pointee.icaldurationtype_null_duration()
            guard days > 0 else {
                duration.hours = UInt32(minutes / 60)
                duration.minutes = UInt32(minutes % 60)
                return Self.trigger(duration)
            }
            duration.is_neg = 1
            if minutes == 0 {
                // Nominal days keep midnight midnight across a DST change; exact hours would not.
                duration.days = UInt32(days)
            } else {
                // Whole days back to the day before, then the hours before its midnight.
                duration.days = UInt32(days - 1)
                duration.hours = UInt32((24 * 60 - minutes) / 60)
                duration.minutes = UInt32((24 * 60 - minutes) % 60)
            }
            return Self.trigger(duration)
        }

        private static func trigger(_ duration: icaldurationtype) -> icaltriggertype {
            icaltriggertype(time: libical.pointee.icaltime_null_time(), duration: duration)
        }
    }
}
