import CLibical
import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore
@testable import BirthdayText

/// The feed's events are written as text (`ICalLine`, with libical only for
/// the lines that need it); publishing and this suite build the same events
/// as libical objects. Both must give the same bytes, for every kind of
/// event, setting and text: escapes, lines long enough to fold, control
/// characters, other calendars, labelled dates, alarms.
@Suite struct EventTextTests {
    static let today = LocalDate(year: 2026, month: 11, day: 21)!

    /// Names whose `SUMMARY` and alarm lines fall on both sides of libical's
    /// folding length, with every character libical escapes, and the rest of
    /// the kinds of events.
    static var people: [Person] {
        var people = AddressBook.people
        for length in 50...80 {
            let name = String(repeating: "x", count: length - 10) + ", é;\\ 🎂"
            people.append(AddressBook.person("long-\(length)", name, birthday: EventDate(year: 1950 + length, month: 1 + length % 12, day: 10)))
        }
        people.append(AddressBook.person("tab", "Tab\tand\u{7}bell", birthday: EventDate(year: 1980, month: 3, day: 3)))
        people.append(AddressBook.person("year-one", "Year One", birthday: EventDate(year: 1, month: 1, day: 1)))
        var noted = AddressBook.person("noted", "Noted Person", birthday: EventDate(year: 1976, month: 12, day: 1))
        noted.note = "likes tea, not coffee; ask about \\the garden\\"
        people.append(noted)
        var labelled = AddressBook.person("labelled", "Labelled", anniversary: EventDate(year: 1996, month: 11, day: 30))
        labelled.labelledDates = [
            LabelledDate(label: "Child's birthday", date: EventDate(year: 2015, month: 12, day: 1)!),
            LabelledDate(label: "Started work, again; \\ " + String(repeating: "long ", count: 14), date: EventDate(year: nil, month: 2, day: 29)!),
        ]
        people.append(labelled)
        var week = AddressBook.person("week", "Week Reminded", birthday: EventDate(year: 1996, month: 12, day: 24))
        week.reminderDays = ReminderDays("14,7,3,1,0")
        people.append(week)
        var gone = AddressBook.person("gone", "Gone Person", birthday: EventDate(year: 1936, month: 12, day: 2))
        gone.deathDate = "2020-01-01"
        people.append(gone)
        people.append(contentsOf: CalendarDatesFeedTests.people)
        return people
    }

    static let configurations: [String] = [
        "default", "without ages", "emoji off", "mar1", "rscale", "alarms off", "midnight", "08:30", "notes", "round 30", "remember", "de", "ja",
    ]

    static func exporter(_ configuration: String) -> CalendarExporter {
        var settings = Settings()
        settings.anniversaries = true
        var alarms = true
        var localizer = Localizer.english
        switch configuration {
        case "without ages": settings.calendarAges = false
        case "emoji off": settings.emoji = false
        case "mar1": settings.leapDay = .mar1
        case "rscale": settings.calendarRules = .rscale
        case "alarms off": alarms = false
        case "midnight": settings.deliveryTime = TimeOfDay("00:00")!
        case "08:30": settings.deliveryTime = TimeOfDay("08:30")!
        case "notes": settings.notesOnChannels = true
        case "round 30": settings.roundBirthdays = 30
        case "remember": settings.deceased = .remember
        case "de", "ja": localizer = Localizer(language: configuration)
        default: break
        }
        return CalendarExporter(settings: settings, includeAlarms: alarms, localizer: localizer, today: today)
    }

    @Test(arguments: configurations)
    func theFeedsEventsAreLibicalsTextOfTheSameEvents(configuration: String) throws {
        let exporter = Self.exporter(configuration)
        let people = Self.people
        let feed = try exporter.exportBytes(people, lastChange: AddressBook.lastChange)
        let events = try exporter.libicalEventTexts(people, lastChange: AddressBook.lastChange)
        #expect(events.count > people.count)
        let text = String(decoding: feed, as: UTF8.self)
        let first = try #require(text.range(of: "BEGIN:VEVENT\r\n"))
        let last = try #require(text.range(of: "END:VCALENDAR\r\n", options: .backwards))
        let written = String(text[first.lowerBound..<last.lowerBound])
        let libicals = events.map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(written == libicals, "\(configuration): the written events differ from libical's")
        // Some lines took libical's way (folded, or with a control character) and some did not.
        #expect(written.contains("\r\n "))
        #expect(written.contains(",") && written.contains("\\;"))

        let published = try exporter.events(people, lastChange: AddressBook.lastChange)
        #expect(published.count == events.count)
        for (event, libical) in zip(published, events) {
            let text = String(decoding: event.bytes, as: UTF8.self)
            #expect(text.contains(String(decoding: libical, as: UTF8.self)), "\(event.uid)")
        }
    }

    @Test func aLargeFeedOnTwoThreadsIsLibicalsText() throws {
        let people = (0..<2500).map { index in
            AddressBook.person(
                "p\(index)",
                String(repeating: "Name, ", count: index % 13) + "Person \(index)",
                birthday: EventDate(year: index % 3 == 0 ? nil : 1940 + index % 60, month: 1 + index % 12, day: 1 + index % 28),
                anniversary: index % 2 == 0 ? EventDate(year: 2000 + 4 * (index % 5), month: 2, day: 29) : nil
            )
        }
        let exporter = Self.exporter("default")
        let text = String(decoding: try exporter.exportBytes(people, lastChange: AddressBook.lastChange), as: UTF8.self)
        let events = try exporter.libicalEventTexts(people, lastChange: AddressBook.lastChange)
        #expect(events.count > 5000)
        let start = try #require(text.range(of: "BEGIN:VEVENT\r\n"))
        let end = try #require(text.range(of: "END:VCALENDAR\r\n", options: .backwards))
        #expect(String(text[start.lowerBound..<end.lowerBound]) == events.map { String(decoding: $0, as: UTF8.self) }.joined())
    }

    /// Every byte (and the lengths around the fold) written as a plain line
    /// is what libical writes for the same property; the rest is refused.
    @Test func aPlainLineIsLibicalsLine() throws {
        try ICalComponent.loadLibical()
        var values: [String] = (1..<128).map { "a" + String(UnicodeScalar(UInt8($0))) + "b" }
        values += (55...70).map { String(repeating: "y", count: $0) }
        values += (20...34).map { String(repeating: "é,", count: $0) }
        values += ["", "🎂 Ada", "Doe, John; \"JJ\" \\o/", "line\nbreak"]
        var written = 0
        for value in values {
            let text = try ICalLine.property("SUMMARY") { value.withCString { libical.pointee.icalproperty_new_summary($0) } }
            var plain: [UInt8] = []
            if ICalLine.appendPlain("SUMMARY", value, escaping: .text, to: &plain) {
                written += 1
                #expect(plain == text, "\(value.debugDescription)")
            } else {
                #expect(plain.isEmpty)
                #expect(text.count > ICalLine.longestUnfolded + 2 || value.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "\(value.debugDescription)")
            }
            let x = try ICalLine.property("X-BIRTHDAYS-LABEL") {
                let property = value.withCString { libical.pointee.icalproperty_new_x($0) }
                if let property { "X-BIRTHDAYS-LABEL".withCString { libical.pointee.icalproperty_set_x_name(property, $0) } }
                return property
            }
            var plainX: [UInt8] = []
            if ICalLine.appendPlain("X-BIRTHDAYS-LABEL", value, escaping: .extensionValue, to: &plainX) {
                #expect(plainX == x, "\(value.debugDescription)")
            }
        }
        #expect(written > 100)
    }
}
