import Foundation

/// Every greeting choice with the people it reaches, as `greet list` shows
/// them: for each person, what ``GreetingRules`` decide, where an e-mail
/// would go, and when their next greeting is due in their zone
/// (``GreetingPlan``). Pure: the store hands it the people, the choices and
/// the skips.
public struct GreetingRoster: Sendable {
    /// One choice and the people it names.
    public struct Choice: Sendable {
        public let greeting: Greeting
        /// The person or the group's members, by name; a person's own
        /// choice wins over a group's, so a member greeted by their own is
        /// listed under that one alone.
        public let people: [Entry]
    }

    /// One person under a choice.
    public struct Entry: Sendable {
        public let person: Person
        public let state: State
        /// Their next greeting (``GreetingPlan/next(of:zone:at:skipping:)``); `nil` when not greeted.
        public let next: GreetingPlan.Occurrence?
        /// Where an e-mail greeting goes (`--to`, else the card's first address); `nil` for Apprise or none.
        public let address: String?
        /// The year whose greeting `greet skip` passed over, when it is the next one's.
        public let skipped: Int?
        /// What became of their last greeting (``Last``); `nil` before the first.
        public var last: Last? = nil
    }

    /// What became of a friend's last greeting: its day and outcome, from
    /// the delivery ledger, or a skipped year whose day has passed.
    public struct Last: Hashable, Sendable {
        public let day: LocalDate
        public let outcome: Outcome

        public init(day: LocalDate, outcome: Outcome) {
            self.day = day
            self.outcome = outcome
        }
    }

    /// A last greeting's outcome.
    public enum Outcome: String, Hashable, Sendable, Codable {
        case sent
        /// `greet skip` passed over it.
        case skipped
        /// Their day ended before it could be sent.
        case missed
        /// Its route refused it, or it kept failing until their day ended.
        case failed
        /// A daemon stopped (a crash, `kill -9`, a power cut) while handing
        /// it over: it may have gone out or not, and it is never sent again
        /// (at most once: a second greeting is worse than a missing one).
        case interrupted
        /// Not sent: the greeting was removed or the friend left out after it was planned.
        case dismissed
        /// Under way: due, being sent or retried.
        case due

        /// The outcome a ledger row's state stands for.
        public init(_ state: DeliveryEntry.State, skipped: Bool) {
            switch state {
            case .delivered: self = .sent
            case .missed: self = .missed
            case .failed: self = .failed
            case .interrupted: self = .interrupted
            case .dismissed, .snoozed: self = skipped ? .skipped : .dismissed
            case .queued, .sending, .retrying: self = .due
            }
        }
    }

    /// What becomes of a person's greeting.
    public enum State: String, Sendable, Codable {
        /// Their next greeting goes out.
        case greeted
        /// Left out (rule 2 of ``GreetingRules``).
        case excluded
        /// Deceased (rule 3).
        case deceased
        /// No birthday known.
        case noBirthday = "no-birthday"
        /// By e-mail, but neither `--to` nor their card gives an address.
        case noAddress = "no-address"
        /// A group's member greeted by a choice of their own instead.
        case ownChoice = "own-choice"
    }

    public let choices: [Choice]

    /// The roster of `greetings` over `people` at `now`: `skips` are the
    /// skipped years by person id, `owner` the owner's zone (for people
    /// without one of their own).
    /// `ledger` holds each friend's latest greeting row in the delivery
    /// ledger (its day and state), by person id.
    public init(
        greetings: [Greeting],
        people: [Person],
        skips: [String: Set<Int>],
        plan: GreetingPlan,
        owner: TimeZone,
        now: Date,
        ledger: [String: (day: LocalDate, state: DeliveryEntry.State)] = [:]
    ) {
        let rules = GreetingRules(greetings)
        var byID: [String: Person] = [:]
        var byGroup: [String: [Person]] = [:]
        for person in people {
            byID[person.id] = person
            for group in person.groups { byGroup[group, default: []].append(person) }
        }
        func last(of person: Person) -> Last? {
            let skipped = skips[person.id] ?? []
            let recorded = ledger[person.id].map { Last(day: $0.day, outcome: Outcome($0.state, skipped: skipped.contains($0.day.year))) }
            guard let birthday = person.birthday else { return recorded }
            let zone = GreetingPlan.zone(of: person, owner: owner)
            // The latest skipped year whose day has ended where they are.
            let passed = skipped.sorted(by: >).lazy.compactMap { plan.occurrence(of: birthday, in: $0, zone: zone) }.first { $0.ends <= now }
            guard let passed, passed.day > (recorded?.day ?? LocalDate(unchecked: 1, 1, 1)) else { return recorded }
            return Last(day: passed.day, outcome: .skipped)
        }
        func entry(_ person: Person, under greeting: Greeting) -> Entry {
            var made = made(person, under: greeting)
            made.last = last(of: person)
            return made
        }
        func made(_ person: Person, under greeting: Greeting) -> Entry {
            let address = GreetingRules.emailAddress(of: person, way: greeting.way)
            var state: State
            switch rules.decision(for: person) {
            case .greeted(let chosen): state = chosen == greeting ? .greeted : .ownChoice
            case .excluded: state = .excluded
            case .deceased: state = .deceased
            case .noBirthday: state = .noBirthday
            case .notOptedIn: state = .ownChoice
            }
            if state == .greeted, case .email = greeting.way, address == nil { state = .noAddress }
            guard state == .greeted || state == .noAddress, let birthday = person.birthday else {
                return Entry(person: person, state: state, next: nil, address: address, skipped: nil)
            }
            let zone = GreetingPlan.zone(of: person, owner: owner)
            let skipped = skips[person.id] ?? []
            var passOver = skipped
            // Today's, once the ledger has done with it (sent, missed, interrupted, …): the next year's is next.
            if let done = ledger[person.id], Outcome(done.state, skipped: false) != .due,
                let today = plan.next(of: birthday, zone: zone, at: now, skipping: skipped), today.day == done.day
            {
                passOver.insert(done.day.year)
            }
            let next = plan.next(of: birthday, zone: zone, at: now, skipping: passOver)
            let unskipped = plan.next(of: birthday, zone: zone, at: now)
            let passed = unskipped.flatMap { skipped.contains($0.day.year) ? $0.day.year : nil }
            return Entry(person: person, state: state, next: next, address: address, skipped: passed)
        }
        choices = greetings.map { greeting in
            switch greeting.target {
            case .person(let id):
                return Choice(greeting: greeting, people: byID[id].map { [entry($0, under: greeting)] } ?? [])
            case .group(let name):
                return Choice(greeting: greeting, people: (byGroup[name] ?? []).map { entry($0, under: greeting) })
            }
        }
    }
}
