import BirthdayCore
import Foundation
import GRDB

/// The greetings to friends (`birthdays greet`): the choices (``Greeting``),
/// the skipped years, and who they reach (``GreetingRoster``). Who is
/// greeted is core's rule (``GreetingRules``); the people read here carry
/// no note (a greeting never does).
extension AppDatabase {
    /// Every greeting choice, oldest first, each as the person it greets is
    /// shown (``GreetingRecord/allAsShown(_:)``): what ``GreetingRules`` decide on.
    package func greetings() async throws(StoreError) -> [Greeting] {
        try await read { db in try GreetingRecord.allAsShown(db) }
    }

    /// The choice for `target`, if any (a person's: their own, else one made on a card shown as them).
    package func greeting(for target: Greeting.Target) async throws(StoreError) -> Greeting? {
        try await read { db in try GreetingRecord.find(target, db) }
    }

    /// Every choice that greets person `id`: their own, then those made on a card shown as them (`greet remove` takes them all).
    package func greetings(ofPerson id: String) async throws(StoreError) -> [Greeting] {
        try await read { db in try GreetingRecord.ofPerson(id, db) }
    }

    /// Stores `greeting`; the choice as stored (with its id), or `nil` when
    /// its person or group is greeted already (nothing is written then).
    package func addGreeting(_ greeting: Greeting, now: Date) async throws(StoreError) -> Greeting? {
        try await write { db in try GreetingRecord.add(greeting, now: now, db) }
    }

    /// Removes the choice with `id`; whether there was one.
    @discardableResult
    package func removeGreeting(id: Int64) async throws(StoreError) -> Bool {
        try await write { db in try GreetingRecord.remove(id: id, db) }
    }

    /// Skips person `id`'s greeting of `year` (the year of their birthday); false when it was skipped already.
    package func skipGreeting(personID id: String, year: Int) async throws(StoreError) -> Bool {
        try await write { db in try GreetingSkipRecord.skip(personID: id, year: year, db) }
    }

    /// Skips person `id`'s greeting of `day` (the desktop's "Skip greeting"),
    /// unless the ledger holds that day's greeting in a state other than due
    /// or retrying (sent, being sent, missed, …): a greeting that has gone is
    /// not marked skipped. Whether it was skipped now.
    package func skipGreeting(personID id: String, unlessSentOn day: LocalDate) async throws(StoreError) -> Bool {
        try await write { db in
            if let last = try DeliveryRecord.latestGreetings(db)[id], last.day == day, last.state != .queued, last.state != .retrying {
                return false
            }
            return try GreetingSkipRecord.skip(personID: id, year: day.year, db)
        }
    }

    /// The skipped years, by person id.
    package func greetingSkips() async throws(StoreError) -> [String: Set<Int>] {
        try await read { db in try GreetingSkipRecord.skips(db) }
    }

    /// Every choice with the people it reaches at `now` (``GreetingRoster``),
    /// under the stored settings (`greeting-time`, `leap-day`, `time-zone`,
    /// else `systemTimeZone`).
    package func greetingRoster(now: Date, systemTimeZone: TimeZone) async throws(StoreError) -> GreetingRoster {
        try await read { db in
            let settings = try SettingRecord.settings(db)
            // As the people are shown (issue 43): a card shown as another person is not listed on its own.
            let greetings = try GreetingRecord.allAsShown(db)
            let hidden = greetings.isEmpty ? [:] : try PersonLinkRecord.all(db)
            // With the birthday chosen among a person's cards, as reminders and the scheduler's greetings have it.
            let chosen = greetings.isEmpty ? [:] : try PersonLinks.read(db).birthdays
            var people = greetings.isEmpty ? [] : try PersonRecord.people(db).filter { hidden[$0.id] == nil }.map(Self.withoutNote)
            for index in people.indices where chosen[people[index].id] != nil { people[index].birthday = chosen[people[index].id] }
            return GreetingRoster(
                greetings: greetings,
                people: people,
                skips: try GreetingSkipRecord.skips(db),
                plan: GreetingPlan(settings: settings),
                owner: settings.resolvedTimeZone(system: systemTimeZone),
                now: now,
                ledger: try DeliveryRecord.latestGreetings(db)
            )
        }
    }

    /// `person` without the owner's note: nothing that greets reads one.
    package static func withoutNote(_ person: Person) -> Person {
        var person = person
        person.note = nil
        return person
    }

    /// The people the stored choices may greet (people of their own, the
    /// greeted groups' members), ordered by id, with only what greeting them
    /// reads (``PersonRecord/greetingPeople(ids:rules:emails:_:)``): as
    /// their groups, the greeted groups they are in (what ``GreetingRules``
    /// chooses among); empty without a choice.
    static func greetedPeople(_ greetings: [Greeting], _ db: Database) throws -> [Person] {
        guard !greetings.isEmpty else { return [] }
        var ids: [String] = []
        var groupNames: [String] = []
        // A member is a card shown as another person counted as that person, as their groups are read.
        var members: [[String]] = []
        for greeting in greetings {
            switch greeting.target {
            case .person(let id): ids.append(id)
            case .group(let name):
                groupNames.append(name)
                members.append(try PersonGroupRecord.memberCards(of: name, db))
            }
        }
        let onlyMembers = ids.isEmpty
        for group in members { ids.append(contentsOf: group) }
        // A card shown as another person (linked cards, ``PersonLinkRecord``) is greeted as that person, once.
        let shownAs = try PersonLinkRecord.all(db)
        if !shownAs.isEmpty { ids = ids.map { shownAs[$0] ?? $0 } }
        // Sorted, each once: the people are read in id order, so their plans come sorted.
        ids.sort()
        var unique: [String] = []
        unique.reserveCapacity(ids.count)
        for id in ids where unique.last != id { unique.append(id) }
        let emails = greetings.contains { greeting in
            if case .email(address: nil) = greeting.way { return true }
            return false
        }
        // Only those named: a greeted group of ten thousand is not a read of everyone.
        var people = try PersonRecord.greetingPeople(ids: unique, rules: try SharedRuleRecord.rulesByPerson(db), emails: emails, db)
        if groupNames.count == 1, onlyMembers, shownAs.isEmpty {
            // One greeted group and nobody else: everyone read is its member.
            for index in people.indices { people[index].groups = groupNames }
        } else if !groupNames.isEmpty {
            var groups: [String: [String]] = [:]
            for (name, cards) in zip(groupNames, members) {
                for member in cards where groups[member]?.last != name { groups[member, default: []].append(name) }
            }
            for index in people.indices { people[index].groups = groups[people[index].id] ?? [] }
        }
        return people
    }

    /// ``greetedPeople(_:_:)`` among the people `ids` alone (sorted, each
    /// once, none a card shown as another person): those of them a choice
    /// greets, by one of their own or a greeted group one of their cards is
    /// in, read as the whole read reads them, with only the greeted groups
    /// they are in as their groups, and the rules of their own groups and
    /// sources (``SharedRuleRecord/rulesByPerson(ids:groups:_:)``).
    static func greetedPeople(_ greetings: [Greeting], among ids: [String], _ db: Database) throws -> [Person] {
        guard !greetings.isEmpty, !ids.isEmpty else { return [] }
        var own: Set<String> = []
        var greetedGroups: Set<String> = []
        for greeting in greetings {
            switch greeting.target {
            case .person(let id): own.insert(id)
            case .group(let name): greetedGroups.insert(name)
            }
        }
        var groups: [String: [String]] = [:]
        for chunk in ids.chunked(900) {
            groups.merge(try PersonGroupRecord.groupsByPerson(ids: Array(chunk), db)) { first, _ in first }
        }
        var greeted: [String] = []
        var greetedGroupsOf: [String: [String]] = [:]
        for id in ids {
            let named = (groups[id] ?? []).filter(greetedGroups.contains)
            guard own.contains(id) || !named.isEmpty else { continue }
            greeted.append(id)
            greetedGroupsOf[id] = named
        }
        guard !greeted.isEmpty else { return [] }
        let emails = greetings.contains { greeting in
            if case .email(address: nil) = greeting.way { return true }
            return false
        }
        let rules = try SharedRuleRecord.rulesByPerson(ids: greeted, groups: groups, db)
        var people = try PersonRecord.greetingPeople(ids: greeted, rules: rules, emails: emails, db)
        for index in people.indices { people[index].groups = greetedGroupsOf[people[index].id] ?? [] }
        return people
    }

    /// Every greeted friend's next greeting (see ``NotificationScheduler``):
    /// ``GreetingPlan/next(of:zone:at:skipping:)`` in their zone, skips
    /// passed over, today's still planned after its time while it is their
    /// day unless the ledger holds it (then next year's). Nobody the rules leave
    /// out (``GreetingRules``), and nobody greeted by e-mail without an
    /// address. By person id.
    static func greetingPlans(_ db: Database, settings: Settings, timeZone: TimeZone, now: Date) throws -> [PlannedGreeting] {
        let greetings = try GreetingRecord.allAsShown(db)
        guard !greetings.isEmpty else { return [] }
        return try greetingPlans(db, greetings: greetings, skips: try GreetingSkipRecord.skips(db), settings: settings, timeZone: timeZone, now: now)
    }

    /// ``greetingPlans(_:settings:timeZone:now:)`` of the choices `greetings` (not empty) and the skipped years `skips`.
    static func greetingPlans(
        _ db: Database,
        greetings: [Greeting],
        skips: [String: Set<Int>],
        settings: Settings,
        timeZone: TimeZone,
        now: Date
    ) throws -> [PlannedGreeting] {
        let ledger = try DeliveryRecord.latestGreetings(db)
        return plans(
            of: try greetedPeople(greetings, db),
            greetings: greetings,
            skips: skips,
            ledger: ledger,
            settings: settings,
            timeZone: timeZone,
            now: now
        )
    }

    /// The next greetings of `people` (read by ``greetedPeople(_:_:)``, in
    /// id order), as ``greetingPlans(_:settings:timeZone:now:)`` plans them,
    /// the ledger's latest greeting of each friend in `ledger`.
    static func plans(
        of people: [Person],
        greetings: [Greeting],
        skips: [String: Set<Int>],
        ledger: [String: (day: LocalDate, state: DeliveryEntry.State)],
        settings: Settings,
        timeZone: TimeZone,
        now: Date
    ) -> [PlannedGreeting] {
        let rules = GreetingRules(greetings)
        // Each day's instants in each zone once: thousands of friends share a few hundred days.
        var plan = GreetingPlan.Batch(plan: GreetingPlan(settings: settings), now: now)
        var plans: [PlannedGreeting] = []
        for person in people {
            guard case .greeted(let greeting) = rules.decision(for: person), let birthday = person.birthday else { continue }
            if case .email = greeting.way, GreetingRules.emailAddress(of: person, way: greeting.way) == nil { continue }
            let zone = GreetingPlan.zone(of: person, owner: timeZone)
            var passOver = skips[person.id] ?? []
            // Today's, once the ledger holds it (sent, missed, …): the next year's instead.
            if let handled = ledger[person.id]?.day, let next = plan.next(of: birthday, zone: zone, skipping: passOver), next.day == handled {
                passOver.insert(handled.year)
            }
            guard let next = plan.next(of: birthday, zone: zone, skipping: passOver) else { continue }
            plans.append(PlannedGreeting(personID: person.id, name: person.name, next: next))
        }
        // In id order already (the people are read so); sorted again all the same, which costs little on a sorted array.
        return plans.sorted { $0.personID < $1.personID }
    }
}

/// The greetings a reschedule plans (``AppDatabase/scheduleGreetings(_:settings:timeZone:now:)``).
struct GreetingSchedule {
    /// Every greeted friend's next greeting, planned now, by person id; empty when ``kept``.
    var planned: [PlannedGreeting] = []
    /// The plan of an earlier reschedule still holds (``GreetingPlan/Stamp``): the pending greetings stay as
    /// they are, but for those of the few people a change named, planned again and written already (the stamp
    /// as it is now).
    var kept: GreetingPlan.Stamp?
}

extension AppDatabase {
    /// The greetings a reschedule at `now` plans: every greeted friend's next
    /// one (``greetingPlans(_:settings:timeZone:now:)``), or none when the plan
    /// the last reschedule made still holds (``GreetingPlan/Stamp``: not taken
    /// away by a change that may alter anyone's greeting, ``GreetingPlanTriggers``; the same
    /// inputs, the migrations applied among them, no greeting due since, less
    /// than a day ago); then the greetings pending stay as they are, but
    /// those of the people the changes since named, which are planned again
    /// and written here (``replanGreetings(of:stamp:greetings:skips:settings:timeZone:now:_:)``),
    /// before the reminders' day-before lines read them. What to do is core's
    /// (``GreetingPlan/Stamp/verdict(stored:inputs:at:changed:)``). A new plan's stamp is stored
    /// (``InternalValue/greetingPlan``, which moves no revision) once
    /// `saved` says which of its greetings went into the pending requests.
    static func scheduleGreetings(
        _ db: Database,
        settings: Settings,
        timeZone: TimeZone,
        now: Date
    ) throws -> (schedule: GreetingSchedule, inputs: UInt64?) {
        let greetings = try GreetingRecord.allAsShown(db)
        let stored = try SettingRecord.value(.greetingPlan, db)
        guard !greetings.isEmpty else {
            if stored != nil { try GreetingPlanTriggers.drop(db) }
            return (GreetingSchedule(), nil)
        }
        let skips = try GreetingSkipRecord.skips(db)
        let plan = GreetingPlan(settings: settings)
        let inputs = GreetingPlan.Stamp.inputs(
            schema: try AppDatabase.migrator.appliedIdentifiers(db),
            plan: plan,
            owner: timeZone,
            greetings: greetings,
            skips: skips,
            // Only where a person's row does not say it: a change of their rows is noted by the triggers.
            birthdays: try PersonLinks.read(db).overrides
        )
        let changed: Set<String> = stored == nil ? [] : try GreetingPlanTriggers.changedCards(db)
        switch GreetingPlan.Stamp.verdict(stored: stored.flatMap(GreetingPlan.Stamp.init(text:)), inputs: inputs, at: now, changed: changed) {
        case .keep(let stamp):
            return (GreetingSchedule(kept: stamp), inputs)
        case .replan(let stamp, let cards):
            let replanned = try replanGreetings(
                of: cards,
                stamp: stamp,
                greetings: greetings,
                skips: skips,
                settings: settings,
                timeZone: timeZone,
                now: now,
                db
            )
            return (GreetingSchedule(kept: replanned), inputs)
        case .planAll:
            let planned = try greetingPlans(db, greetings: greetings, skips: skips, settings: settings, timeZone: timeZone, now: now)
            return (GreetingSchedule(planned: planned), inputs)
        }
    }

    /// Plans again the greetings of the people the cards `cards` are or are
    /// shown as (the cards a change named since the plan `stamp` was made,
    /// ``GreetingPlanTriggers``) and writes them among the pending requests
    /// (``PendingNotificationRecord/replaceGreetings(of:with:_:)``), as a
    /// plan of everyone would have them: a card shown as another person has
    /// no greeting of its own, someone no longer greeted none, and a greeting
    /// the ledger holds is not pending again. Stores and returns the stamp
    /// that counts them (``GreetingPlan/Stamp/replanned(instants:removed:added:first:last:)``)
    /// and forgets the cards.
    static func replanGreetings(
        of cards: Set<String>,
        stamp: GreetingPlan.Stamp,
        greetings: [Greeting],
        skips: [String: Set<Int>],
        settings: Settings,
        timeZone: TimeZone,
        now: Date,
        _ db: Database
    ) throws -> GreetingPlan.Stamp {
        let links = try PersonLinkRecord.all(db)
        var people = cards
        for card in cards { if let shown = links[card] { people.insert(shown) } }
        let ids = people.sorted()
        let planned = plans(
            of: try greetedPeople(greetings, among: ids.filter { links[$0] == nil }, db),
            greetings: greetings,
            skips: skips,
            ledger: try DeliveryRecord.latestGreetings(personIDs: ids, db),
            settings: settings,
            timeZone: timeZone,
            now: now
        )
        var requests = planned.map(\.request)
        let known = try DeliveryRecord.keys(of: requests, db)
        if !known.isEmpty { requests.removeAll { known.contains($0.id + "|" + $0.occurrenceDate.description) } }
        let (before, after) = try PendingNotificationRecord.replaceGreetings(of: ids, with: requests, db)
        let span = try PendingNotificationRecord.greetingSpan(db)
        let replanned = stamp.replanned(instants: planned.lazy.map(\.next.instant), removed: before, added: after, first: span.first, last: span.last)
        if replanned != stamp { try SettingRecord.set(replanned.text, for: .greetingPlan, db) }
        try GreetingPlanTriggers.clearChanges(db)
        return replanned
    }

    /// Stores the stamp of the greetings planned from `inputs` at `now`, of
    /// which those of `saved` went into the pending requests; nothing is
    /// written when it is the stamp stored.
    static func stampGreetings(_ planned: [PlannedGreeting], inputs: UInt64, saved: [NotificationRequest], now: Date, _ db: Database) throws {
        let stamp = GreetingPlan.Stamp(inputs: inputs, plannedAt: now, instants: planned.lazy.map(\.next.instant), saved: saved.map(\.fireAt))
        if try SettingRecord.value(.greetingPlan, db) != stamp.text { try SettingRecord.set(stamp.text, for: .greetingPlan, db) }
        // The cards noted before it are planned in it; what is written after it in this transaction is noted.
        try GreetingPlanTriggers.clearChanges(db)
        try GreetingPlanTriggers.install(db)
    }

    /// The greetings kept pending of the friends among `personIDs` (a few:
    /// the people of the planned reminders), by person id, as they were
    /// planned: their day from the pending request, its instants in the
    /// friend's zone now (the same, as the plan holds), their name.
    static func keptGreetings(of personIDs: [String], settings: Settings, timeZone: TimeZone, _ db: Database) throws -> [PlannedGreeting] {
        let days = try PendingNotificationRecord.days(ids: personIDs.map(Greeting.notificationID(personID:)), db)
        guard !days.isEmpty else { return [] }
        let ids = personIDs.filter { days[Greeting.notificationID(personID: $0)] != nil }.sorted()
        let plan = GreetingPlan(settings: settings)
        return try PersonRecord.greetingPeople(ids: ids, rules: [:], emails: false, db).compactMap { person in
            guard let day = days[Greeting.notificationID(personID: person.id)],
                let next = plan.occurrence(on: day, age: nil, zone: GreetingPlan.zone(of: person, owner: timeZone))
            else { return nil }
            return PlannedGreeting(personID: person.id, name: person.name, next: next)
        }
    }
}

extension GreetingDue {
    /// The day of the greeting not sent yet of each of `personIDs` who has
    /// one, by person id: the ledger's row still to be sent (due, or being
    /// retried), else the pending request. A reminder of that day may skip
    /// it (``GreetingPlan/skippable(_:greetingDay:)``).
    static func unsentDays(personIDs: [String], _ db: Database) throws -> [String: LocalDate] {
        guard !personIDs.isEmpty else { return [:] }
        let ids = personIDs.map(Greeting.notificationID(personID:))
        let pending = try PendingNotificationRecord.days(ids: ids, db)
        let ledger = try DeliveryRecord.unsentDays(ids: ids, db)
        var days: [String: LocalDate] = [:]
        for (id, personID) in zip(ids, personIDs) { days[personID] = ledger[id] ?? pending[id] }
        return days
    }
}

/// One friend's next greeting, as the scheduler plans it.
struct PlannedGreeting {
    var personID: String
    var name: String
    var next: GreetingPlan.Occurrence

    /// Its pending request, titled with the friend's name for `pending`.
    var request: NotificationRequest { next.request(personID: personID, title: SafeText.line(name), body: "") }
}

/// What the delivery engine needs of a greeting's ledger row as it goes out
/// (``AppDatabase/collectDue(now:systemTimeZone:)``), read then: the friend,
/// the choice that greets them now, and their skipped years.
package struct GreetingDue: Sendable {
    /// The friend, without the owner's note.
    package var person: Person
    /// The choice that greets them now (``GreetingRules``); `nil` when they are no longer greeted.
    package var greeting: Greeting?
    /// The years `greet skip` passed over.
    package var skipped: Set<Int>

    /// Each greeted friend of `personIDs` who still exists, by id.
    static func read(personIDs: [String], _ db: Database) throws -> [String: GreetingDue] {
        guard !personIDs.isEmpty else { return [:] }
        let rules = GreetingRules(try GreetingRecord.allAsShown(db))
        let skips = try GreetingSkipRecord.skips(db)
        // The birthday chosen among a person's cards, as the greeting was planned on.
        let chosen = try PersonLinks.read(db).birthdays
        var found: [String: GreetingDue] = [:]
        for id in personIDs {
            guard var person = try PersonRecord.person(id: id, db).map(AppDatabase.withoutNote) else { continue }
            person.birthday = chosen[id] ?? person.birthday
            found[id] = GreetingDue(person: person, greeting: rules.decision(for: person).greeting, skipped: skips[id] ?? [])
        }
        return found
    }
}
