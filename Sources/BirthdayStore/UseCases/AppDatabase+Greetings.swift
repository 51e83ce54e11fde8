import BirthdayCore
import Foundation
import GRDB

/// The greetings to friends (`birthdays greet`): the choices (``Greeting``),
/// the skipped years, and who they reach (``GreetingRoster``). Who is
/// greeted is core's rule (``GreetingRules``); the people read here carry
/// no note (a greeting never does).
extension AppDatabase {
    /// Every greeting choice, oldest first.
    package func greetings() async throws(StoreError) -> [Greeting] {
        try await read { db in try GreetingRecord.all(db) }
    }

    /// The choice for `target`, if any.
    package func greeting(for target: Greeting.Target) async throws(StoreError) -> Greeting? {
        try await read { db in try GreetingRecord.find(target, db) }
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
            let greetings = try GreetingRecord.all(db)
            let people = greetings.isEmpty ? [] : try PersonRecord.people(db).map(Self.withoutNote)
            return GreetingRoster(
                greetings: greetings,
                people: people,
                skips: try GreetingSkipRecord.skips(db),
                plan: GreetingPlan(settings: settings),
                owner: settings.resolvedTimeZone(system: systemTimeZone),
                now: now
            )
        }
    }

    /// `person` without the owner's note: nothing that greets reads one.
    package static func withoutNote(_ person: Person) -> Person {
        var person = person
        person.note = nil
        return person
    }
}
