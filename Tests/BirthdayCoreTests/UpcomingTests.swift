import TestSupport
import Testing

@testable import BirthdayCore

@Suite struct UpcomingTests {
    func person(_ id: String, _ name: String, birthday: EventDate? = nil, anniversary: EventDate? = nil, excluded: Bool = false) -> Person {
        Person(
            id: id,
            name: name,
            source: ContactSource(file: "f", index: 0, line: 1),
            birthday: birthday,
            anniversary: anniversary,
            exclusion: Exclusion(choice: excluded ? .exclude : nil)
        )
    }

    @Test func nearestFirstWithDeterministicTies() {
        let people = [
            person("3", "Zoe", birthday: event(1990, 11, 22)),
            person("2", "Ann", birthday: event(1990, 11, 22), anniversary: event(2010, 11, 21)),
            person("1", "Ann", birthday: event(1985, 11, 22)),
            person("4", "Old", birthday: event(1950, 11, 20)),
            person("5", "Hidden", birthday: event(1990, 11, 21), excluded: true),
        ]
        let list = UpcomingEvents(today: date(2026, 11, 21)).list(people)
        #expect(list.map(\.personID) == ["2", "1", "2", "3", "4"])
        #expect(list.map(\.kind) == [.anniversary, .birthday, .birthday, .birthday, .birthday])
        #expect(list.map(\.daysUntil) == [0, 1, 1, 1, 364])
        #expect(list[0].age == 16)
    }

    @Test func withinDaysAndAnniversarySwitch() {
        let people = [
            person("1", "A", birthday: event(nil, 11, 21), anniversary: event(2000, 11, 25)), person("2", "B", birthday: event(1990, 12, 25)),
        ]
        let upcoming = UpcomingEvents(today: date(2026, 11, 21), includeAnniversaries: false)
        #expect(upcoming.list(people, withinDays: 0).map(\.personID) == ["1"])
        #expect(upcoming.list(people, withinDays: 30).count == 1)
        #expect(UpcomingEvents(today: date(2026, 11, 21)).list(people, withinDays: 30).count == 2)
    }

    @Test(arguments: [1, 7, 64, 500, 2_000])
    func boundedSelectionEqualsFullSort(limit: Int) {
        var people: [Person] = []
        var seed: UInt64 = 42
        for i in 0..<1_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let month = Int(seed >> 33) % 12 + 1
            let day = Int(seed >> 40) % 28 + 1
            people.append(
                person(
                    "p\(i)",
                    "N\(i % 50)",
                    birthday: event(1950 + i % 50, month, day),
                    anniversary: i % 7 == 0 ? event(2000, day % 12 + 1, month) : nil
                )
            )
        }
        let upcoming = UpcomingEvents(today: date(2026, 11, 21))
        let all = upcoming.list(people)
        #expect(upcoming.list(people, limit: limit) == Array(all.prefix(limit)))
    }
}
