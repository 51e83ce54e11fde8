import BirthdayCore
import Foundation
import GRDB

/// One group as `birthdays groups` lists it.
package struct GroupSummary: Sendable, Equatable {
    package var name: String
    /// How many people are in it now (0 for a rule kept for a group nobody is in).
    package var people: Int
    /// Its rule; `nil` when it has none.
    package var rule: SharedRule?
}

extension AppDatabase {
    /// Every group someone is in, and every group with a rule, by name.
    package func groups() async throws(StoreError) -> [GroupSummary] {
        try await read { db in
            let counts = try PersonGroupRecord.counts(db)
            var rules: [String: SharedRule] = [:]
            for rule in try SharedRuleRecord.all(db) {
                if case .group(let name) = rule.scope { rules[name] = rule }
            }
            return Set(counts.keys).union(rules.keys).sorted().map { name in
                GroupSummary(name: name, people: counts[name] ?? 0, rule: rules[name])
            }
        }
    }

    /// The rules kept for whole sources (`exclude --source`), by name.
    package func sourceRules() async throws(StoreError) -> [SharedRule] {
        try await read { db in try SharedRuleRecord.all(db).filter { if case .source = $0.scope { true } else { false } } }
    }

    /// Everyone in the group `name`, ordered by name then id.
    package func people(inGroup name: String) async throws(StoreError) -> [Person] {
        try await read { db in
            let members = Set(try PersonGroupRecord.members(of: name, db))
            return try PersonRecord.people(db).filter { members.contains($0.id) }
        }
    }

    /// Records a rule for everyone in a group or a source (`exclude --group`,
    /// `include --source`, `remind --group NAME --days`): `exclusion` and
    /// `days` each `.keep` or `.set` (`nil` says nothing again). The rule is
    /// kept by the name, whoever is in it now, and what it does is
    /// ``RulePrecedence``'s. The feed's revision is bumped and, with a
    /// `scheduler`, the reminders are rescheduled in the same transaction.
    ///
    /// - Returns: the rule as now kept (empty when it says nothing), and the reschedule.
    package func setSharedRule(
        _ scope: RuleScope,
        exclusion: ChoiceChange<Exclusion.Choice>,
        days: ChoiceChange<ReminderDays>,
        now: Date,
        rescheduling scheduler: NotificationScheduler? = nil
    ) async throws(StoreError) -> (rule: SharedRule, rescheduled: RescheduleResult?) {
        let result = try await write(at: now) { db -> (SharedRule, RescheduleResult?) in
            var rule = try SharedRuleRecord.rule(scope, db)
            rule.exclusion = exclusion.applied(to: rule.exclusion)
            rule.reminderDays = days.applied(to: rule.reminderDays)
            try SharedRuleRecord.save(rule, db)
            return (rule, try scheduler?.reschedule(db))
        }
        if let rescheduled = result.1 { scheduler?.log(rescheduled) }
        return (result.0, result.1)
    }
}
