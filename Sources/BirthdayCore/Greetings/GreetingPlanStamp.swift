import Foundation

extension GreetingPlan {
    /// What a reschedule remembers of the greetings it planned, so that the
    /// next one plans them again only when that plan may have changed
    /// (issue 44: ten thousand friends are not read again each time).
    ///
    /// ## The rules
    /// The greetings planned at ``plannedAt`` still hold at a later instant
    /// when all of these are true:
    /// - **still there**: the store takes the stamp away at a change that
    ///   reaches everyone's greeting (``GreetingPlan/Change``, ``GreetingPlan/Reach/everyone``:
    ///   a rule that includes or excludes, a setting given another value),
    ///   and at a change that reaches a few people (a greeted friend's row or
    ///   e-mail addresses, who is in a greeted group, a link) it only notes
    ///   whom (the store's `GreetingPlanTriggers`): their greetings alone are
    ///   planned again (``verdict(stored:inputs:at:changed:)``); a change of
    ///   someone not greeted is nothing, so an import or a sync that touches
    ///   no greeted friend keeps the plan whole;
    /// - **the same inputs** (``inputs``, ``inputs(schema:plan:owner:greetings:skips:birthdays:)``):
    ///   the migrations applied (one that
    ///   rewrites the pending requests is a new plan), the `greeting-time`
    ///   and `leap-day`, the owner's zone, the choices, the skipped years and
    ///   the birthdays chosen among linked cards where they are not the
    ///   birthday of the card the person is shown as (a change of that card's
    ///   row is noted by the store like any greeted friend's);
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
    /// cannot end before its own instant. A friend planned again since
    /// (``replanned(instants:removed:added:first:last:)``) is planned at
    /// that later instant, which keeps these true: the plan still ends at
    /// ``plannedAt`` and a day, or sooner at their new greeting.
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
            // Every value written out by hand: printing a value by reflection (an enum, a struct without a
            // description) looks up its conformances, which costs a reschedule more than the whole stamp.
            var hash = StableHash.Running()
            hash.add("\(plan.time)|\(plan.leapDay.rawValue)|\(owner.identifier)")
            for migration in schema.sorted() { hash.add("|m:\(migration)") }
            for greeting in greetings { hash.add("|g:" + greeting.stampText) }
            for (id, years) in skips.sorted(by: { $0.key < $1.key }) {
                hash.add("|s:\(id):" + years.sorted().map(String.init).joined(separator: ","))
            }
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

extension GreetingPlan.Stamp {
    /// What a reschedule does with the greetings' plan it finds.
    public enum Verdict: Hashable, Sendable {
        /// The plan holds and no change since names anyone: the greetings pending stay as they are.
        case keep(GreetingPlan.Stamp)
        /// The plan holds but for the people these cards are or are shown
        /// as: their greetings are planned again, everyone else's stay.
        case replan(GreetingPlan.Stamp, cards: Set<String>)
        /// Every greeting is planned again.
        case planAll
    }

    /// How many cards a change may name before every greeting is planned
    /// again instead (a group renamed, a sync of most of the book): each
    /// friend planned alone costs a few lookups by key, as the whole plan
    /// does for each friend, and the store stops noting names after this many.
    public static let replanLimit = 1_000

    /// What a reschedule at `now` does with the plan `stored` (none: the
    /// store took it away, or never had one) when the plan would be made
    /// from `inputs` and the changes since name the cards `changed`
    /// (``GreetingPlan/Change``, ``GreetingPlan/Reach/itsPeople``): kept
    /// when it holds (``holds(inputs:at:)``) and nobody is named, planned
    /// again for those named when there are at most ``replanLimit``, else
    /// planned again whole.
    public static func verdict(stored: GreetingPlan.Stamp?, inputs: UInt64, at now: Date, changed: Set<String>) -> Verdict {
        guard let stored, stored.holds(inputs: inputs, at: now), changed.count <= replanLimit else { return .planAll }
        return changed.isEmpty ? .keep(stored) : .replan(stored, cards: changed)
    }

    /// The stamp once some friends' greetings were planned again at a
    /// later instant: their next greetings are due at `instants`, `removed`
    /// of their requests left the pending ones and `added` came in, and the
    /// greetings pending now span `first` to `last`. It still ends at
    /// ``validUntil`` (a day after ``plannedAt`` at most), or sooner at one of `instants`.
    public func replanned(instants: some Sequence<Date>, removed: Int, added: Int, first: Date?, last: Date?) -> GreetingPlan.Stamp {
        var stamp = self
        if let soonest = instants.min() { stamp.validUntil = min(validUntil, soonest) }
        stamp.saved = saved - removed + added
        stamp.first = first
        stamp.last = last
        return stamp
    }
}

extension GreetingPlan {
    /// A change the store sees to what a greeting is made from, and whom
    /// it reaches (``reach``): the store's `GreetingPlanTriggers` note the
    /// cards a change of ``Reach/itsPeople`` names, whose greetings the next
    /// reschedule plans again alone (``Stamp/verdict(stored:inputs:at:changed:)``),
    /// and take the plan away at a change of ``Reach/everyone``.
    ///
    /// Nothing else is a change: someone not greeted, a rule that only
    /// sets reminder days (it decides no greeting: ``GreetingRules`` reads a
    /// rule's exclusion alone), who is in a group that is neither greeted
    /// nor under such a rule, a setting written with the value it had, the
    /// contact points other than e-mail addresses. The choices, the skipped
    /// years, the birthdays chosen among linked cards, the settings the plan
    /// reads, the zone and the migrations are the stamp's own inputs
    /// (``Stamp/inputs(schema:plan:owner:greetings:skips:birthdays:)``).
    public enum Change: CaseIterable, Hashable, Sendable {
        /// A greeted friend's row (a column other than bookkeeping), or of a
        /// card shown as them or they are shown as, or such a card deleted.
        case friend
        /// An e-mail address of a greeted friend's card: where their greeting goes.
        case emailAddress
        /// A card that joins or leaves a greeted group, or a group whose rule
        /// includes or excludes (by its categories or a source's group card).
        case membership
        /// A card shown as another person, or no longer, where one of the two is greeted.
        case link
        /// A source that starts or stops having a card: its group cards count
        /// only the cards it has, and its rule reaches them.
        case holding
        /// A rule of a group or a source that includes or excludes, set,
        /// changed or taken away.
        case rule
        /// One of the user's settings given another value.
        case setting

        /// Whose greetings the change may alter.
        public var reach: Reach {
            switch self {
            case .friend, .emailAddress, .membership, .link, .holding: .itsPeople
            case .rule, .setting: .everyone
            }
        }
    }

    /// Whose greetings a ``Change`` may alter.
    public enum Reach: Hashable, Sendable {
        /// The people of the cards it names: those cards and the people they are shown as.
        case itsPeople
        /// Anyone's.
        case everyone
    }
}
