/// One future (or today's) birthday or anniversary of one person.
public struct Occurrence: Hashable, Sendable {
    public let personID: String
    public let name: String
    public let kind: EventKind
    /// The day it falls on, after the leap-day policy.
    public let date: LocalDate
    /// The date as the contact carries it.
    public let eventDate: EventDate
    /// The age turned (or years married) on ``date``; `nil` when the year is unknown.
    public let age: Int?
    /// Days from today to ``date``: 0 today, 1 tomorrow.
    public let daysUntil: Int

    /// The order of upcoming events: soonest first; on the same day
    /// birthdays before anniversaries, then by name, then by id, so the
    /// order never depends on how the store returned the rows.
    public static func precedes(_ a: Occurrence, _ b: Occurrence) -> Bool {
        if a.daysUntil != b.daysUntil { return a.daysUntil < b.daysUntil }
        if a.kind != b.kind { return a.kind < b.kind }
        if a.name != b.name { return a.name < b.name }
        return a.personID < b.personID
    }
}

/// Which events come next.
public struct UpcomingEvents: Sendable {
    public var today: LocalDate
    public var leapDay: LeapDayPolicy
    /// Whether anniversaries are listed next to birthdays.
    public var includeAnniversaries: Bool

    public init(today: LocalDate, leapDay: LeapDayPolicy = .feb28, includeAnniversaries: Bool = true) {
        self.today = today
        self.leapDay = leapDay
        self.includeAnniversaries = includeAnniversaries
    }

    /// The occurrences of `person`'s dates on or after today.
    public func occurrences(of person: Person) -> [Occurrence] {
        var result: [Occurrence] = []
        for kind in EventKind.allCases {
            guard kind == .birthday || includeAnniversaries, let date = person.date(of: kind) else { continue }
            result.append(occurrence(of: date, kind: kind, personID: person.id, name: person.name))
        }
        return result
    }

    /// The occurrence of one date on or after today.
    public func occurrence(of date: EventDate, kind: EventKind, personID: String, name: String) -> Occurrence {
        let next = date.nextOccurrence(onOrAfter: today, leapDay: leapDay)
        return Occurrence(
            personID: personID,
            name: name,
            kind: kind,
            date: next,
            eventDate: date,
            age: date.age(in: next.year),
            daysUntil: today.days(to: next)
        )
    }

    /// Upcoming events of `people`, soonest first (see ``Occurrence/precedes(_:_:)``).
    ///
    /// - Parameters:
    ///   - withinDays: keep events at most this many days away (0 = today only).
    ///   - limit: keep at most this many; selected with a bounded heap, so a
    ///     small limit over many people does not sort them all.
    public func list(_ people: some Sequence<Person>, withinDays: Int? = nil, limit: Int? = nil) -> [Occurrence] {
        var selector = NearestSelector(limit: limit)
        for person in people where !person.excluded {
            for occurrence in occurrences(of: person) {
                if let withinDays, occurrence.daysUntil > withinDays { continue }
                selector.insert(occurrence)
            }
        }
        return selector.sorted()
    }
}

/// Keeps the `limit` smallest occurrences seen (all of them without a limit)
/// in a max-heap, so selecting k of n costs O(n log k).
struct NearestSelector {
    private let limit: Int?
    private var heap: [Occurrence] = []

    init(limit: Int?) {
        self.limit = limit
        if let limit { heap.reserveCapacity(limit + 1) }
    }

    mutating func insert(_ item: Occurrence) {
        guard let limit else {
            heap.append(item)
            return
        }
        guard limit > 0 else { return }
        if heap.count < limit {
            heap.append(item)
            siftUp(heap.count - 1)
        } else if Occurrence.precedes(item, heap[0]) {
            heap[0] = item
            siftDown(0)
        }
    }

    /// The selection in ``Occurrence/precedes(_:_:)`` order. Sorts indices on
    /// an integer key (day, then kind) and compares names only on ties, so
    /// thousands of occurrences are not copied around while sorting.
    func sorted() -> [Occurrence] {
        let keys = heap.map { $0.daysUntil &* 2 &+ ($0.kind == .birthday ? 0 : 1) }
        let order = heap.indices.sorted { a, b in
            if keys[a] != keys[b] { return keys[a] < keys[b] }
            if heap[a].name != heap[b].name { return heap[a].name < heap[b].name }
            return heap[a].personID < heap[b].personID
        }
        return order.map { heap[$0] }
    }

    // Max-heap on `precedes`: the root is the one that comes last.
    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard Occurrence.precedes(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var largest = parent
            if left < heap.count && Occurrence.precedes(heap[largest], heap[left]) { largest = left }
            if right < heap.count && Occurrence.precedes(heap[largest], heap[right]) { largest = right }
            if largest == parent { return }
            heap.swapAt(parent, largest)
            parent = largest
        }
    }
}
