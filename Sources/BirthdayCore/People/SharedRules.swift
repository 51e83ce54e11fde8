/// Where a rule shared by several people is set: a group of contacts
/// (`birthdays exclude --group Family`) or a whole source, an address book
/// added with `birthdays sources add` (`birthdays exclude --source work`).
///
/// Rules are kept by the group's or the source's name, not by its members:
/// whoever is in the group at the last import or sync gets its rule, so a
/// card that joins or leaves a group on the phone gains or loses the rule at
/// the next sync.
public enum RuleScope: Hashable, Sendable, Comparable, CustomStringConvertible {
    case group(String)
    case source(String)

    /// The group's or the source's name.
    public var name: String {
        switch self {
        case .group(let name), .source(let name): name
        }
    }

    /// `group` or `source`.
    public var kind: String {
        switch self {
        case .group: "group"
        case .source: "source"
        }
    }

    /// The same scope with its name made safe for a terminal (``SafeText/line(_:maxCharacters:)``).
    public var safe: RuleScope {
        switch self {
        case .group(let name): .group(SafeText.line(name))
        case .source(let name): .source(SafeText.line(name))
        }
    }

    /// `group 'Family'`, `source 'work'` (names made safe for a terminal).
    public var description: String { "\(kind) '\(SafeText.line(name))'" }
}

/// A rule for everyone in a group or a source: `exclude --group`, `include
/// --group`, `remind --group NAME --days`, and the same with `--source`.
public struct SharedRule: Hashable, Sendable {
    public var scope: RuleScope
    /// `exclude` or `include`; `nil` says nothing about exclusion.
    public var exclusion: Exclusion.Choice?
    /// Reminder days for the members; `nil` says nothing about them.
    public var reminderDays: ReminderDays?

    public init(scope: RuleScope, exclusion: Exclusion.Choice? = nil, reminderDays: ReminderDays? = nil) {
        self.scope = scope
        self.exclusion = exclusion
        self.reminderDays = reminderDays
    }

    /// A rule that says nothing (the store keeps no such rule).
    public var isEmpty: Bool { exclusion == nil && reminderDays == nil }
}

/// What decides whether a person is left out and on which days they are
/// reminded, once the person's own rules and those of their groups and
/// sources are weighed (``RulePrecedence/decide(exclusion:reminderDays:shared:)``).
public struct RuleDecision: Hashable, Sendable {
    /// Who decided the exclusion (or the inclusion).
    public enum ExclusionOrigin: Hashable, Sendable {
        /// `birthdays exclude PERSON` or `include PERSON`.
        case person
        /// The card's `X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR`.
        case card
        /// A group's or a source's rule (the first by name of those that
        /// decided: for an inclusion, the first `include`).
        case shared(RuleScope)
    }

    /// Left out of reminders, the feed and `upcoming` (the date is kept).
    public var excluded: Bool
    /// What made ``excluded`` what it is; `nil` when no rule says anything
    /// (the person is in).
    public var exclusionBy: ExclusionOrigin?
    /// The reminder days that apply; `nil` follows the `reminders` setting.
    public var reminderDays: ReminderDays?
    /// The groups and sources whose days make up ``reminderDays``; empty
    /// when the person's own days apply or the setting does.
    public var reminderDaysBy: [RuleScope]

    public init(excluded: Bool, exclusionBy: ExclusionOrigin? = nil, reminderDays: ReminderDays? = nil, reminderDaysBy: [RuleScope] = []) {
        self.excluded = excluded
        self.exclusionBy = exclusionBy
        self.reminderDays = reminderDays
        self.reminderDaysBy = reminderDaysBy
    }
}

/// The precedence of rules, in this one place (every reader of a person's
/// rules, the reminders, the feed, `upcoming`, `show`, goes through it):
///
/// | rules that apply | outcome |
/// |---|---|
/// | the person's own choice (`exclude PERSON`, `include PERSON`) | it wins over everything else |
/// | else the card's `X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR` | left out, whatever the groups and sources say |
/// | else any group or source the person is in says `include` | in |
/// | else any of them says `exclude` | left out |
/// | the person's own days (`remind PERSON --days`) | those days |
/// | else groups and sources with days | the union of their days (the nearest ``ReminderDays/maximumCount``) |
/// | else | the `reminders` setting |
///
/// A source's rule ranks with the rules of groups: a person in a source
/// that says `exclude` and a group that says `include` is in.
public enum RulePrecedence {
    /// What applies to a person whose own rules are `exclusion` and
    /// `reminderDays` and who is in the groups and sources of `shared`.
    public static func decide(exclusion: Exclusion, reminderDays: ReminderDays?, shared: [SharedRule]) -> RuleDecision {
        var decision = RuleDecision(excluded: false)
        let ordered = shared.sorted { $0.scope < $1.scope }
        if let choice = exclusion.choice {
            decision.excluded = choice == .exclude
            decision.exclusionBy = .person
        } else if exclusion.card {
            decision.excluded = true
            decision.exclusionBy = .card
        } else if let include = ordered.first(where: { $0.exclusion == .include }) {
            decision.exclusionBy = .shared(include.scope)
        } else if let exclude = ordered.first(where: { $0.exclusion == .exclude }) {
            decision.excluded = true
            decision.exclusionBy = .shared(exclude.scope)
        }
        if let reminderDays {
            decision.reminderDays = reminderDays
        } else {
            let withDays = ordered.filter { $0.reminderDays != nil }
            if !withDays.isEmpty {
                decision.reminderDays = union(withDays.compactMap(\.reminderDays))
                decision.reminderDaysBy = withDays.map(\.scope)
            }
        }
        return decision
    }

    /// Every day of `lists`, the nearest ``ReminderDays/maximumCount`` of them.
    static func union(_ lists: [ReminderDays]) -> ReminderDays? {
        let days = Set(lists.flatMap(\.days)).sorted().prefix(ReminderDays.maximumCount)
        return ReminderDays(Array(days))
    }
}

extension PersonTraits {
    /// The traits of a person whose own rules are `exclusion` and
    /// `reminderDays`, in the groups and sources of `shared`
    /// (``RulePrecedence``).
    public init(
        exclusion: Exclusion,
        reminderDays: ReminderDays?,
        shared: [SharedRule],
        deceased: Bool,
        weekend: WeekendRule?,
        zone: PersonZone? = nil
    ) {
        let decision = RulePrecedence.decide(exclusion: exclusion, reminderDays: reminderDays, shared: shared)
        self.init(excluded: decision.excluded, deceased: deceased, reminderDays: decision.reminderDays, weekend: weekend, zone: zone)
    }
}

extension Person {
    /// What applies to the person once their own rules and those of their
    /// groups and sources (``sharedRules``) are weighed (``RulePrecedence``).
    public var decision: RuleDecision {
        RulePrecedence.decide(exclusion: exclusion, reminderDays: reminderDays, shared: sharedRules)
    }
}

/// What a group or source name typed on the command line names.
public enum NameChoice {
    /// The name among `names` that `typed` means: the same name, else the
    /// only one that differs from it in case, accents and spacing alone;
    /// `nil` otherwise.
    public static func match(_ typed: String, in names: [String]) -> String? {
        if names.contains(typed) { return typed }
        let folded = PersonLookup.fold(typed)
        let found = names.filter { PersonLookup.fold($0) == folded }
        return found.count == 1 ? found[0] : nil
    }

    /// Up to `limit` of `names` within a few typing mistakes of `typed`
    /// (as ``PersonLookup/suggestions(for:in:limit:)`` measures), nearest first.
    public static func suggestions(for typed: String, in names: [String], limit: Int = 3) -> [String] {
        let noSource = ContactSource(file: "", index: 0, line: 0)
        let candidates = names.enumerated().map { Person(id: String($0.offset), name: $0.element, source: noSource) }
        return PersonLookup.suggestions(for: typed, in: candidates, limit: limit).map(\.name)
    }
}
