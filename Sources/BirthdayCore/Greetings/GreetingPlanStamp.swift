import Foundation

extension GreetingPlan {
    /// What a reschedule remembers of the greetings it planned, so that the
    /// next one plans them again only when that plan may have changed
    /// (issue 44: ten thousand friends are not read again each time).
    ///
    /// ## The rules
    /// The greetings planned at ``plannedAt`` still hold at a later instant
    /// when all of these are true:
    /// - **still there**: the store takes the stamp away at any change a
    ///   greeting may be made from (a greeted friend's row or contact
    ///   points, a greeted group's members, rules, links, settings: the
    ///   store's `GreetingPlanTriggers`), not at any change of anyone, so an
    ///   import or a sync that touches no greeted friend keeps the plan;
    /// - **the same inputs** (``inputs``, ``inputs(schema:plan:owner:greetings:skips:birthdays:)``):
    ///   the migrations applied (one that
    ///   rewrites the pending requests is a new plan), the `greeting-time`
    ///   and `leap-day`, the owner's zone, the choices, the skipped years and
    ///   the birthdays chosen among linked cards;
    /// - **no greeting due since**: the instant is before the soonest planned
    ///   greeting (``validUntil``): a greeting whose instant has come goes
    ///   into the ledger, and that friend's next one is next year's;
    /// - **the clock went forward, by less than a day**: not before
    ///   ``plannedAt`` (a pretend time, a clock set back), and at most
    ///   ``horizon`` after it, so a birthday whose year lay too far ahead is
    ///   looked at again each day.
    ///
    /// Until any of these fails the next greeting of every friend is the one
    /// planned: the first whose day has not ended where they are, and that day
    /// cannot end before its own instant.
    public struct Stamp: Hashable, Sendable {
        /// How long a plan holds at most: a day.
        public static let horizon: TimeInterval = 86_400

        /// What the plan was made from (``inputs(schema:plan:owner:greetings:skips:birthdays:)``).
        public var inputs: UInt64
        /// When it was made.
        public var plannedAt: Date
        /// Until when it holds: the soonest planned greeting's instant, at most ``horizon`` after ``plannedAt``.
        public var validUntil: Date
        /// How many greetings went into the pending requests, and the soonest
        /// and latest instant among them: what `reschedule` counts of them
        /// while they are kept.
        public var saved: Int
        public var first: Date?
        public var last: Date?

        /// The stamp of a plan made at `plannedAt` from `inputs`, whose
        /// greetings are due at `instants`, of which those at `saved` went
        /// into the pending requests (the ledger holds the others already).
        public init(inputs: UInt64, plannedAt: Date, instants: some Sequence<Date>, saved: [Date]) {
            self.inputs = inputs
            self.plannedAt = plannedAt
            validUntil = min(instants.min() ?? .distantFuture, plannedAt.addingTimeInterval(Self.horizon))
            self.saved = saved.count
            first = saved.min()
            last = saved.max()
        }

        /// Whether the plan still holds at `now` for `inputs` (see the type's rules).
        public func holds(inputs: UInt64, at now: Date) -> Bool {
            inputs == self.inputs && plannedAt <= now && now < validUntil
        }

        /// What the plan is made from, as one value: any of these changed is another plan.
        public static func inputs(
            schema: Set<String>,
            plan: GreetingPlan,
            owner: TimeZone,
            greetings: [Greeting],
            skips: [String: Set<Int>],
            birthdays: [String: EventDate]
        ) -> UInt64 {
            var hash = StableHash.Running()
            hash.add("\(plan.time)|\(plan.leapDay)|\(owner.identifier)")
            for migration in schema.sorted() { hash.add("|m:\(migration)") }
            for greeting in greetings { hash.add("|g:\(greeting)") }
            for (id, years) in skips.sorted(by: { $0.key < $1.key }) { hash.add("|s:\(id):\(years.sorted())") }
            for (id, date) in birthdays.sorted(by: { $0.key < $1.key }) { hash.add("|b:\(id):\(date)") }
            return hash.value
        }

        /// As the store keeps it: numbers separated by spaces.
        public var text: String {
            let first = first.map { "\($0.timeIntervalSince1970)" } ?? "-"
            let last = last.map { "\($0.timeIntervalSince1970)" } ?? "-"
            return "\(inputs) \(plannedAt.timeIntervalSince1970) \(validUntil.timeIntervalSince1970) \(saved) \(first) \(last)"
        }

        /// The stamp `text` holds; `nil` for anything else (the plan is made again).
        public init?(text: String) {
            let parts = text.split(separator: " ").map(String.init)
            guard parts.count == 6, let inputs = UInt64(parts[0]), let plannedAt = Double(parts[1]), let validUntil = Double(parts[2]),
                let saved = Int(parts[3])
            else { return nil }
            func instant(_ part: String) -> Date?? {
                if part == "-" { return .some(nil) }
                return Double(part).map { .some(Date(timeIntervalSince1970: $0)) }
            }
            guard let first = instant(parts[4]), let last = instant(parts[5]) else { return nil }
            self.inputs = inputs
            self.plannedAt = Date(timeIntervalSince1970: plannedAt)
            self.validUntil = Date(timeIntervalSince1970: validUntil)
            self.saved = saved
            self.first = first
            self.last = last
        }
    }
}
