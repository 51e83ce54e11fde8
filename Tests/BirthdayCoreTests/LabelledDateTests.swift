import Foundation
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Labelled dates (issue 34): every dated property a card keeps under a label
/// of its own, read from Apple, Android, Google CSV, Outlook CSV and vCard 4
/// cards as those programs write them; what `show` says of them; how the
/// merge rule keeps them.
@Suite struct LabelledDateTests {
    static func vcard(_ lines: [String], file: String = "contacts.vcf") -> ParseResult {
        VCardParser.parse(Data((lines.joined(separator: "\r\n") + "\r\n").utf8), file: file)
    }

    static func csv(_ text: String, file: String = "contacts.csv") -> ParseResult {
        CSVContactParser.parse(Data(text.utf8), file: file, referenceYear: 2026)
    }

    static func labelled(_ label: String, _ year: Int?, _ month: Int, _ day: Int) throws -> LabelledDate {
        LabelledDate(label: label, date: try #require(EventDate(year: year, month: month, day: day)))
    }

    /// An iPhone export (iOS 18) of a contact with Apple's own labels and custom ones.
    static let apple = [
        "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 18.0//EN", "N:Appleseed;Johnny;;;", "FN:Johnny Appleseed",
        "BDAY:1980-04-12",
        "item1.X-ABDATE;type=pref:2008-06-21", "item1.X-ABLabel:_$!<Anniversary>!$_",
        "item2.X-ABDATE:2015-12-01", "item2.X-ABLabel:Child's birthday",
        "item3.X-ABDATE:2019-03-03", "item3.X-ABLabel:Started work",
        "item4.X-ABDATE:--06-24", "item4.X-ABLabel:Name day",
        "item5.X-ABDATE:2001-09-09", "item5.X-ABLabel:_$!<Other>!$_",
        "END:VCARD",
    ]

    // MARK: - Reading

    @Test func appleKeepsEveryLabelledDate() throws {
        let result = Self.vcard(Self.apple)
        #expect(result.problems.isEmpty, "\(result.problems)")
        let contact = try #require(result.contacts.first)
        #expect(contact.anniversary == EventDate(year: 2008, month: 6, day: 21))
        #expect(
            contact.labelledDates == [
                try Self.labelled("Child's birthday", 2015, 12, 1), try Self.labelled("Name day", nil, 6, 24),
                try Self.labelled("Other", 2001, 9, 9), try Self.labelled("Started work", 2019, 3, 3),
            ]
        )
        #expect(contact.labelledDates.map(\.isBirthday) == [true, false, false, false])
    }

    @Test func aDateWithoutALabelIsKeptAsOtherAndSaidSo() throws {
        let result = Self.vcard(["BEGIN:VCARD", "VERSION:3.0", "FN:Ada", "X-ABDATE:1776-07-04", "item2.X-ABDATE:2000-01-01", "END:VCARD"])
        let contact = try #require(result.contacts.first)
        // Sorted by label, then by month and day.
        #expect(contact.labelledDates == [try Self.labelled("Other", 2000, 1, 1), try Self.labelled("Other", 1776, 7, 4)])
        #expect(
            result.problems.map(\.description) == [
                "contacts.vcf:4: X-ABDATE has no X-ABLabel; kept as a date labelled 'Other'",
                "contacts.vcf:5: X-ABDATE has no X-ABLabel (group ITEM2); kept as a date labelled 'Other'",
            ]
        )
    }

    @Test func anUnreadableLabelledDateIsAProblemNamingItsLabel() throws {
        let result = Self.vcard([
            "BEGIN:VCARD", "VERSION:3.0", "FN:Ada", "item1.X-ABDATE:2019-13-45", "item1.X-ABLabel:Started work", "END:VCARD",
        ])
        let contact = try #require(result.contacts.first)
        #expect(contact.labelledDates.isEmpty)
        #expect(contact.invalidDates == ["2019-13-45"])
        #expect(result.problems.map(\.description) == ["contacts.vcf:4: X-ABDATE labelled 'Started work' '2019-13-45' is not a date"])
    }

    @Test func androidEventsOfOtherTypesAreLabelled() throws {
        let result = Self.vcard([
            "BEGIN:VCARD", "VERSION:2.1", "FN:Jürgen",
            "X-ANDROID-CUSTOM:vnd.android.cursor.item/contact_event;2001-05-19;1;;;;;;;;;;;;;",
            "X-ANDROID-CUSTOM:vnd.android.cursor.item/contact_event;2010-02-01;0;Started work;;;;;;;;;;;;",
            "X-ANDROID-CUSTOM:vnd.android.cursor.item/contact_event;1999-09-09;2;;;;;;;;;;;;;",
            "END:VCARD",
        ])
        let contact = try #require(result.contacts.first)
        #expect(contact.anniversary == EventDate(year: 2001, month: 5, day: 19))
        #expect(contact.labelledDates == [try Self.labelled("Other", 1999, 9, 9), try Self.labelled("Started work", 2010, 2, 1)])
        #expect(result.problems.isEmpty)
    }

    @Test func vCard4AnniversaryStaysTheAnniversary() throws {
        let result = Self.vcard(["BEGIN:VCARD", "VERSION:4.0", "FN:Simon", "ANNIVERSARY:20090808", "END:VCARD"])
        let contact = try #require(result.contacts.first)
        #expect(contact.anniversary == EventDate(year: 2009, month: 8, day: 8))
        #expect(contact.labelledDates.isEmpty)
    }

    /// Google Contacts' export (2024 columns): three events, one of them the anniversary.
    @Test func googleEventColumns() throws {
        let text = """
            First Name,Last Name,Birthday,Event 1 - Label,Event 1 - Value,Event 2 - Label,Event 2 - Value,Event 3 - Label,Event 3 - Value
            Johnny,Appleseed,1980-04-12,Anniversary,2008-06-21,Started work,2019-03-03,,--06-24
            Ada,Lovelace,,* Child's birthday,2015-12-01,Started work,2019-02-30,,

            """
        let result = Self.csv(text)
        #expect(result.contacts.count == 2)
        let johnny = try #require(result.contacts.first)
        #expect(johnny.anniversary == EventDate(year: 2008, month: 6, day: 21))
        #expect(johnny.labelledDates == [try Self.labelled("Other", nil, 6, 24), try Self.labelled("Started work", 2019, 3, 3)])
        let ada = try #require(result.contacts.last)
        #expect(ada.labelledDates == [try Self.labelled("Child's birthday", 2015, 12, 1)])
        #expect(ada.invalidDates == ["2019-02-30"])
        #expect(result.problems.map(\.description) == ["contacts.csv:3: Event 2 - Value labelled 'Started work' '2019-02-30' is not a date"])
    }

    /// Outlook's CSV export has one `Anniversary` column: the anniversary.
    @Test func outlookAnniversaryColumn() throws {
        let text = """
            First Name,Middle Name,Last Name,E-mail Address,Birthday,Anniversary
            Johnny,,Appleseed,johnny@example.org,4/12/1980,6/21/2008

            """
        let contact = try #require(Self.csv(text).contacts.first)
        #expect(contact.birthday == EventDate(year: 1980, month: 4, day: 12))
        #expect(contact.anniversary == EventDate(year: 2008, month: 6, day: 21))
        #expect(contact.labelledDates.isEmpty)
    }

    @Test func labelKeysAndIDs() {
        #expect(LabelledDate.key("  Started   WORK ") == "started work")
        #expect(LabelledDate.label(fromCard: "_$!<Other>!$_") == "Other")
        let id = LabelledDate.idPart(key: "started work", ordinal: 1)
        #expect(id.hasPrefix("date-") && id.count == 13)
        #expect(LabelledDate.idPart(key: "started work", ordinal: 2) == id + "-2")
        #expect(LabelledDate.idPart(key: "name day", ordinal: 1) != id)
    }

    // MARK: - Show

    @Test func showSaysTurnsForABirthdayLabelAndYearsOtherwise() throws {
        var person = Person(id: "johnny", name: "Johnny Appleseed", source: ContactSource(file: "a.vcf", index: 0, line: 1))
        person.labelledDates = [try Self.labelled("Child's birthday", 2015, 12, 1), try Self.labelled("Started work", 2019, 3, 3)]
        let today = try #require(LocalDate(iso: "2026-11-28"))
        let lines = PersonDetails.lines(for: person, today: today, leapDay: .feb28)
        #expect(lines.contains("Child's birthday: 2015-12-01; next 2026-12-01 (in 3 days), turns 11"), "\(lines)")
        #expect(lines.contains("Started work: 2019-03-03; next 2027-03-03 (in 95 days), 8 years"), "\(lines)")
        let german = PersonDetails.lines(for: person, today: today, leapDay: .feb28, in: Localizer(language: "de"))
        #expect(german.contains { $0.hasPrefix("Started work: 2019-03-03; nächstes Mal 2027-03-03 (") && $0.hasSuffix("), 8 Jahre") }, "\(german)")
        #expect(
            german.contains { $0.hasPrefix("Child's birthday: 2015-12-01; nächstes Mal 2026-12-01 (") && $0.hasSuffix("), wird 11") },
            "\(german)"
        )
    }

    // MARK: - Reminders

    @Test(arguments: Language.available)
    func reminderWordsInEveryLanguage(language: String) throws {
        let localizer = Localizer(language: language)
        let work = try Self.labelled("Started work", 2019, 3, 3)
        let child = try Self.labelled("Child's birthday", 2015, 12, 1)
        for timing in [NotificationRequest.Timing.dayOf, .dayBefore, NotificationRequest.Timing(daysBefore: 7)] {
            for (date, years) in [(work, 8), (child, 11)] {
                let known = NotificationContent.make(name: "Jānis", kind: .labelled, timing: timing, age: years, labelled: date, in: localizer)
                let unknown = NotificationContent.make(name: "Jānis", kind: .labelled, timing: timing, age: nil, labelled: date, in: localizer)
                for content in [known, unknown] {
                    #expect(content.title.contains("Jānis") && content.title.contains(date.label), "\(language) \(content)")
                    #expect(content.body.contains(date.label) && content.body.contains(localizer(.days(timing.daysBefore))), "\(language) \(content)")
                }
                #expect(known.body.contains(String(years)) && !unknown.body.contains(String(years)), "\(language) \(known.body)")
            }
        }
        if language == "en" {
            let content = NotificationContent.make(name: "Johnny", kind: .labelled, timing: .dayBefore, age: 8, labelled: work)
            #expect(content == (title: "Johnny: Started work", body: "Started work, 8 years (tomorrow)"))
        }
    }

    /// The planner offers labelled dates like birthdays, under ids the label names (the rule of
    /// ``NotificationRequest/identifier(personID:kind:timing:calendar:labelID:)``), which survive a
    /// round trip through the stored kind (``DeliveryKind/storedValue``).
    @Test func plannedRemindersCarryTheLabelAndItsID() throws {
        let zone = try #require(TimeZone(identifier: "UTC"))
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-28T08:00:00Z"))
        var planner = ReminderPlanner(settings: Settings(), timeZone: zone, now: now)
        let treatment = EventTreatment(reminderDays: .standard)
        let first = try Self.labelled("Child's birthday", 2015, 12, 1)
        let second = try Self.labelled("Child's birthday", 2018, 12, 2)
        planner.offer(first, ordinal: 1, treatment: treatment) { ("johnny", "Johnny", "") }
        planner.offer(second, ordinal: 2, treatment: treatment) { ("johnny", "Johnny", "") }
        let requests = planner.requests()
        let part = LabelledDate.idPart(key: "child's birthday", ordinal: 1)
        #expect(
            requests.map(\.id) == [
                "johnny-\(part)-daybefore", "johnny-\(part)-dayof", "johnny-\(part)-2-daybefore", "johnny-\(part)-2-dayof",
            ]
        )
        #expect(requests.allSatisfy { $0.kind == .labelled && $0.label == "Child's birthday" })
        #expect(requests.first?.body == "Child's birthday, turns 11 (tomorrow)")
        let stored = try #require(requests.last)
        let read = NotificationRequest(
            personID: stored.personID,
            kind: stored.kind,
            timing: stored.timing,
            fireAt: stored.fireAt,
            occurrenceDate: stored.occurrenceDate,
            title: stored.title,
            body: stored.body,
            deliveryKind: try #require(DeliveryKind(storedValue: stored.deliveryKind.storedValue)),
            userInfo: stored.userInfo
        )
        #expect(read.id == stored.id)
    }

    @Test func labelRulesWinOverTheSetting() throws {
        var rules = LabelRules()
        rules.choose("Started  Work", included: false)
        #expect(!rules.counts("started work") && rules.counts("name day"))
        rules.on = false
        rules.choose("Name day", included: true)
        #expect(rules.counts("name day") && !rules.counts("other"))
        #expect(LabelRules(on: false, stored: rules.storedValue) == rules)
        let treatment = TreatmentRules(labels: rules)
        #expect(treatment.treatment(of: try Self.labelled("NAME DAY", nil, 6, 24), for: PersonTraits()) != nil)
        #expect(treatment.treatment(of: try Self.labelled("Name day", nil, 6, 24), for: PersonTraits(deceased: true)) == nil)
        #expect(treatment.treatment(of: try Self.labelled("Other", nil, 6, 24), for: PersonTraits()) == nil)
    }

    // MARK: - Merging

    @Test func anotherFileKeepsTheStoredLabelsItLacks() throws {
        var stored = Person(id: "johnny", name: "Johnny", source: ContactSource(file: "phone.vcf", index: 0, line: 1))
        stored.labelledDates = [try Self.labelled("Started work", 2019, 3, 3), try Self.labelled("Name day", nil, 6, 24)]
        var incoming = Person(id: "johnny", name: "Johnny", source: ContactSource(file: "google.csv", index: 0, line: 2))
        incoming.labelledDates = [try Self.labelled("Started work", 2020, 1, 6)]
        let merged = ContactMerge.merge(incoming, into: ContactMerge.Stored(stored))
        #expect(merged.labelledDates == [try Self.labelled("Name day", nil, 6, 24), try Self.labelled("Started work", 2020, 1, 6)])
        // From the same file the card is the truth.
        incoming.source.file = "phone.vcf"
        #expect(ContactMerge.merge(incoming, into: ContactMerge.Stored(stored)).labelledDates == [try Self.labelled("Started work", 2020, 1, 6)])
    }
}
