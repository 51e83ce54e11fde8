import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// Groups read where contacts keep them (`CATEGORIES` in vCard 3.0 and 4.0,
/// Google's and Outlook's CSV columns, Apple's and vCard 4's group cards),
/// and the one precedence table of rules (``RulePrecedence``).
@Suite struct GroupReadingTests {
    private func parse(_ text: String, file: String = "contacts.vcf") -> ParseResult {
        ContactReader.parse(Data(text.utf8), file: file, referenceYear: 2026)
    }

    private func people(_ text: String, file: String = "contacts.vcf") -> (people: [Person], report: ImportReport) {
        let result = parse(text, file: file)
        var report = ImportReport()
        report.problems = result.problems
        var people = ContactMerge.people(from: result.contacts, report: &report)
        ContactGroups.apply(ContactMerge.groupCards(in: result.contacts), to: &people)
        return (people, report)
    }

    @Test func categoriesInVCard3WithEscapedCommasAndSeveralLines() {
        let read = people(
            """
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:ada\r
            FN:Ada\r
            BDAY:1990-03-11\r
            CATEGORIES:Family, Chess club ,Smith\\, Jones & Co\r
            CATEGORIES:Family,,Work\r
            END:VCARD\r

            """
        )
        #expect(read.people.map(\.groups) == [["Chess club", "Family", "Smith, Jones & Co", "Work"]])
        #expect(read.report.problems.isEmpty)
    }

    @Test func categoriesInVCard4AsNextcloudWritesThem() {
        let read = people(
            """
            BEGIN:VCARD\r
            VERSION:4.0\r
            PRODID:-//Sabre//Sabre VObject 4.5.4//EN\r
            UID:7c2f-ada\r
            FN:Ada\r
            BDAY:--0311\r
            item1.CATEGORIES:Friends,Family\r
            END:VCARD\r

            """
        )
        #expect(read.people.map(\.groups) == [["Family", "Friends"]])
    }

    @Test func googleLabelsDropMyContactsAndNameTheSystemGroups() {
        let csv = """
            First Name,Last Name,Birthday,Labels
            Ada,Lovelace,1990-03-11,* myContacts ::: Family ::: * starred
            Bob,Builder,1985-07-01,* myContacts
            Cy,Young,1970-01-02,Book club ::: * friends ::: * unknownSystemGroup

            """
        let read = people(csv, file: "google.csv")
        #expect(read.people.map(\.groups) == [["Family", "Starred"], [], ["Book club", "Friends"]])
    }

    @Test func legacyGoogleGroupMembershipAndOutlookCategories() {
        let legacy = """
            Name,Given Name,Family Name,Birthday,Group Membership
            Ada Lovelace,Ada,Lovelace,1990-03-11,* My Contacts ::: Coworkers ::: * coworkers

            """
        #expect(people(legacy, file: "legacy.csv").people.map(\.groups) == [["Coworkers"]])
        let outlook = """
            First Name,Last Name,E-mail Address,Birthday,Categories
            Ada,Lovelace,ada@example.org,3/11/1990,Family;Holiday cards

            """
        #expect(people(outlook, file: "outlook.csv").people.map(\.groups) == [["Family", "Holiday cards"]])
    }

    @Test func anAppleGroupCardIsNoPersonAndPutsItsMembersInTheGroup() {
        let read = people(
            """
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:ada\r
            FN:Ada\r
            BDAY:1990-03-11\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:3.0\r
            UID:bob\r
            FN:Bob\r
            BDAY:1985-07-01\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:3.0\r
            PRODID:-//Apple Inc.//iOS 17.0//EN\r
            N:Family\r
            FN:Family\r
            X-ADDRESSBOOKSERVER-KIND:group\r
            X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:ada\r
            X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:not-in-this-file\r
            UID:E1C6A1B2-group\r
            REV:2026-01-01T00:00:00Z\r
            END:VCARD\r

            """
        )
        #expect(read.people.map(\.id) == ["ada", "bob"])
        #expect(read.people.map(\.groups) == [["Family"], []])
        #expect(read.report.withoutDates == 0, "a group card is not a contact without dates")
        #expect(read.report.problems.isEmpty)
        let card = parse(
            """
            BEGIN:VCARD\r
            VERSION:3.0\r
            FN:Family\r
            X-ADDRESSBOOKSERVER-KIND:group\r
            X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:ada\r
            UID:g\r
            END:VCARD\r

            """
        ).contacts[0].groupCard
        #expect(card == GroupCard(name: "Family", members: ["ada"]))
    }

    @Test func aVCard4GroupCardWithABirthdayIsStillNoPerson() {
        let read = people(
            """
            BEGIN:VCARD\r
            VERSION:4.0\r
            UID:urn:uuid:0b6e-ada\r
            FN:Ada\r
            BDAY:19900311\r
            END:VCARD\r
            BEGIN:VCARD\r
            VERSION:4.0\r
            KIND:group\r
            FN:Chess club\r
            BDAY:20000101\r
            MEMBER:urn:uuid:0b6e-ada\r
            MEMBER:mailto:someone@example.org\r
            UID:urn:uuid:chess\r
            END:VCARD\r

            """
        )
        #expect(read.people.map(\.id) == ["0b6e-ada"])
        #expect(read.people[0].groups == ["Chess club"])
        #expect(ContactMerge.datelessIDs(in: parse("BEGIN:VCARD\r\nVERSION:4.0\r\nKIND:group\r\nFN:G\r\nUID:g\r\nEND:VCARD\r\n").contacts).isEmpty)
    }
}

/// Group names are contact text: hostile ones reach a terminal only made safe.
@Suite struct HostileGroupNameTests {
    @Test func controlCharactersNeverReachShowsLines() {
        let text = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ada\r\nFN:Ada\r\nBDAY:1990-03-11\r\nCATEGORIES:Evil\u{1B}[2J,\u{7}Bell\r\nEND:VCARD\r\n"
        let result = ContactReader.parse(Data(text.utf8), file: "f.vcf", referenceYear: 2026)
        var report = ImportReport()
        var person = ContactMerge.people(from: result.contacts, report: &report)[0]
        #expect(person.groups.count == 2)
        person.sharedRules = [SharedRule(scope: .group(person.groups[1]), exclusion: .exclude)]
        let lines = PersonDetails.lines(for: person, today: date(2026, 3, 10), leapDay: .feb28)
        #expect(lines.count == 3)
        #expect(!lines.joined().unicodeScalars.contains(where: SafeText.isUnsafe))
    }
}

/// The precedence of a person's own rules over those of their groups and
/// sources, case by case (the table in ``RulePrecedence`` and docs/reminders.md).
@Suite struct RulePrecedenceTests {
    static let family = SharedRule(scope: .group("Family"), exclusion: .include)
    static let work = SharedRule(scope: .group("Work"), exclusion: .exclude, reminderDays: ReminderDays([7, 0]))
    static let book = SharedRule(scope: .source("work-book"), exclusion: .exclude)
    static let chess = SharedRule(scope: .group("Chess"), reminderDays: ReminderDays([3, 1]))

    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var exclusion: Exclusion
        var days: ReminderDays?
        var shared: [SharedRule]
        var excluded: Bool
        var by: RuleDecision.ExclusionOrigin?
        var expectedDays: [Int]?
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "no rule at all", exclusion: Exclusion(), shared: [], excluded: false, by: nil),
        Case(label: "a group excludes", exclusion: Exclusion(), shared: [work], excluded: true, by: .shared(.group("Work")), expectedDays: [7, 0]),
        Case(label: "a source excludes", exclusion: Exclusion(), shared: [book], excluded: true, by: .shared(.source("work-book"))),
        Case(
            label: "include beats exclude between groups",
            exclusion: Exclusion(),
            shared: [work, family],
            excluded: false,
            by: .shared(.group("Family")),
            expectedDays: [7, 0]
        ),
        Case(
            label: "a group's include beats a source's exclude",
            exclusion: Exclusion(),
            shared: [book, family],
            excluded: false,
            by: .shared(.group("Family"))
        ),
        Case(
            label: "the person's include beats a group's exclude",
            exclusion: Exclusion(choice: .include),
            shared: [work],
            excluded: false,
            by: .person,
            expectedDays: [7, 0]
        ),
        Case(
            label: "the person's exclude beats a group's include",
            exclusion: Exclusion(choice: .exclude),
            shared: [family],
            excluded: true,
            by: .person
        ),
        Case(label: "the card's exclusion beats a group's include", exclusion: Exclusion(card: true), shared: [family], excluded: true, by: .card),
        Case(
            label: "days of several groups are joined",
            exclusion: Exclusion(),
            shared: [chess, family, work],
            excluded: false,
            by: .shared(.group("Family")),
            expectedDays: [7, 3, 1, 0]
        ),
        Case(
            label: "the person's own days win",
            exclusion: Exclusion(),
            days: ReminderDays([2]),
            shared: [chess, work],
            excluded: true,
            by: .shared(.group("Work")),
            expectedDays: [2]
        ),
    ]

    @Test(arguments: cases) func theTable(_ row: Case) {
        let decision = RulePrecedence.decide(exclusion: row.exclusion, reminderDays: row.days, shared: row.shared)
        #expect(decision.excluded == row.excluded)
        #expect(decision.exclusionBy == row.by)
        #expect(decision.reminderDays?.days == row.expectedDays)
        // The traits every reader of the rules uses agree with the table.
        let traits = PersonTraits(exclusion: row.exclusion, reminderDays: row.days, shared: row.shared, deceased: false, weekend: nil)
        #expect(traits.excluded == row.excluded)
        #expect(TreatmentRules().treatment(of: .birthday, for: traits)?.reminderDays.days == (row.excluded ? nil : row.expectedDays ?? [1, 0]))
    }

    @Test func theUnionKeepsTheNearestDaysWhenThereAreTooMany() throws {
        let far = SharedRule(scope: .group("A"), reminderDays: ReminderDays([60, 50, 40, 30, 20]))
        let near = SharedRule(scope: .group("B"), reminderDays: ReminderDays([10, 5, 3, 1, 0]))
        let decision = RulePrecedence.decide(exclusion: Exclusion(), reminderDays: nil, shared: [far, near])
        #expect(decision.reminderDays?.days == [40, 30, 20, 10, 5, 3, 1, 0])
        #expect(decision.reminderDaysBy == [.group("A"), .group("B")])
    }

    @Test func aDeceasedPersonInAnIncludedGroupStillFollowsTheDeceasedSetting() {
        let traits = PersonTraits(exclusion: Exclusion(), reminderDays: nil, shared: [Self.family, Self.chess], deceased: true, weekend: nil)
        #expect(TreatmentRules(deceased: .skip).treatment(of: .birthday, for: traits) == nil)
        #expect(TreatmentRules(deceased: .remember).treatment(of: .birthday, for: traits)?.memorial == true)
    }

    @Test func groupNamesTypedOnTheCommandLine() {
        let names = ["Chess club", "Family", "Familie"]
        #expect(NameChoice.match("Family", in: names) == "Family")
        #expect(NameChoice.match("family", in: names) == "Family")
        #expect(NameChoice.match("chess  CLUB", in: names) == "Chess club")
        #expect(NameChoice.match("Fam", in: names) == nil)
        #expect(NameChoice.suggestions(for: "Famly", in: names).first == "Family")
    }
}
