import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// Who is greeted (issue 44): only people opted in, themselves or through a
/// group; never an excluded or deceased person, even in a greeted group;
/// a person's own choice wins over a group's (pure, no I/O).
@Suite struct GreetingRulesTests {
    static func person(_ id: String, groups: [String] = [], birthday: EventDate? = event(1990, 3, 10), email: String? = nil) -> Person {
        var person = Person(id: id, name: id.capitalized, source: ContactSource(file: "x", index: 0, line: 1), birthday: birthday)
        person.groups = groups
        person.contactPoints = email.map { [ContactPoint(kind: .email, value: $0)] } ?? []
        return person
    }

    static let family = Greeting(id: 1, target: .group("Family"))
    static let ana = Greeting(id: 2, target: .person("ana"), way: .email(address: "ana@elsewhere.example"))

    @Test func nobodyIsGreetedUnlessOptedIn() {
        let rules = GreetingRules([Self.family])
        #expect(rules.decision(for: Self.person("bob", groups: ["Work"])) == .notOptedIn)
        #expect(GreetingRules([]).decision(for: Self.person("ana")) == .notOptedIn)
        #expect(rules.decision(for: Self.person("cem", groups: ["Family"])) == .greeted(Self.family))
    }

    /// Ana is in Family and has a greeting of her own: hers wins.
    @Test func aPersonsOwnChoiceWinsOverAGroups() {
        let rules = GreetingRules([Self.family, Self.ana])
        #expect(rules.decision(for: Self.person("ana", groups: ["Family"])) == .greeted(Self.ana))
    }

    /// Excluded by the user, by the card, or by a group's rule; deceased:
    /// never greeted, in a greeted group or with a greeting of their own.
    @Test func excludedAndDeceasedAreNeverGreeted() {
        let rules = GreetingRules([Self.family, Self.ana])
        var byChoice = Self.person("dan", groups: ["Family"])
        byChoice.exclusion = Exclusion(choice: .exclude)
        #expect(rules.decision(for: byChoice) == .excluded)
        var byCard = Self.person("ana", groups: ["Family"])
        byCard.exclusion = Exclusion(card: true)
        #expect(rules.decision(for: byCard) == .excluded, "her own greeting does not override an exclusion")
        var byGroupRule = Self.person("eve", groups: ["Family"])
        byGroupRule.sharedRules = [SharedRule(scope: .group("Family"), exclusion: .exclude)]
        #expect(rules.decision(for: byGroupRule) == .excluded)
        var deceased = Self.person("fay", groups: ["Family"])
        deceased.deathDate = "2020-05-01"
        #expect(rules.decision(for: deceased) == .deceased)
        // Included again by the user: greeted.
        var included = Self.person("gus", groups: ["Family"])
        included.exclusion = Exclusion(card: true, choice: .include)
        #expect(rules.decision(for: included) == .greeted(Self.family))
    }

    @Test func noBirthdayNoGreeting() {
        #expect(GreetingRules([Self.family]).decision(for: Self.person("hal", groups: ["Family"], birthday: nil)) == .noBirthday)
    }

    /// The address: `--to`, else the card's first e-mail address; none for Apprise.
    @Test func theAddressIsToElseTheCards() {
        let carded = Self.person("ana", email: "ana@example.org")
        #expect(GreetingRules.emailAddress(of: carded, way: .email(address: nil)) == "ana@example.org")
        #expect(GreetingRules.emailAddress(of: carded, way: .email(address: "a@b.example")) == "a@b.example")
        #expect(GreetingRules.emailAddress(of: Self.person("bob"), way: .email(address: nil)) == nil)
        #expect(GreetingRules.emailAddress(of: carded, way: .apprise) == nil)
    }

    /// The roster `greet list` shows: a group's members each with their
    /// state, the next greeting in their own zone, a skip passed over.
    @Test func theRosterListsEachMemberWithTheirState() throws {
        var tokyo = Self.person("mei", groups: ["Family"], email: "mei@example.org")
        tokyo.cardZone = PersonZone(name: "Asia/Tokyo")
        var excluded = Self.person("dan", groups: ["Family"], email: "dan@example.org")
        excluded.exclusion = Exclusion(choice: .exclude)
        let noAddress = Self.person("zed", groups: ["Family"])
        let ana = Self.person("ana", groups: ["Family"])
        let now = try #require(ReferenceTime.parse("2026-01-05T12:00:00Z", timeZone: TimeZone(identifier: "UTC")!))
        let roster = GreetingRoster(
            greetings: [Self.family, Self.ana],
            people: [ana, excluded, tokyo, noAddress],
            skips: ["mei": [2026]],
            plan: GreetingPlan(),
            owner: TimeZone(identifier: "Europe/Berlin")!,
            now: now
        )
        let family = try #require(roster.choices.first)
        let states = Dictionary(uniqueKeysWithValues: family.people.map { ($0.person.id, $0.state) })
        #expect(states == ["ana": .ownChoice, "dan": .excluded, "mei": .greeted, "zed": .noAddress])
        let mei = try #require(family.people.first { $0.person.id == "mei" })
        #expect(mei.skipped == 2026)
        #expect(mei.next.map { ISOInstant.format($0.instant, in: $0.timeZone) } == "2027-03-10T09:00:00+09:00")
        #expect(family.people.first { $0.person.id == "dan" }?.next == nil, "an excluded person has no next greeting")
        let own = try #require(roster.choices.last?.people.first)
        #expect(own.state == .greeted)
        #expect(own.address == "ana@elsewhere.example")
        #expect(own.next.map { ISOInstant.format($0.instant, in: $0.timeZone) } == "2026-03-10T09:00:00+01:00", "the owner's zone")
    }

    /// Once the ledger has done with today's greeting (sent, interrupted,
    /// missed), the roster's next is next year's; while it is still due or
    /// being sent, today's.
    @Test(arguments: [
        (DeliveryEntry.State.delivered, "2027-03-10"), (.interrupted, "2027-03-10"), (.missed, "2027-03-10"),
        (.sending, "2026-03-10"), (.retrying, "2026-03-10"),
    ])
    func aGreetingDoneTodayMakesNextYearsTheNext(_ state: DeliveryEntry.State, _ next: String) throws {
        let ana = Self.person("ana", email: "ana@example.org")
        let now = try #require(ReferenceTime.parse("2026-03-10T12:00:00Z", timeZone: TimeZone(identifier: "UTC")!))
        let today = try #require(LocalDate(year: 2026, month: 3, day: 10))
        let roster = GreetingRoster(
            greetings: [Greeting(id: 2, target: .person("ana"))],
            people: [ana],
            skips: [:],
            plan: GreetingPlan(),
            owner: TimeZone(identifier: "Europe/Berlin")!,
            now: now,
            ledger: ["ana": (day: today, state: state)]
        )
        let entry = try #require(roster.choices.first?.people.first)
        #expect(entry.next?.day.description == next)
        #expect(entry.last?.day == today)
    }
}
