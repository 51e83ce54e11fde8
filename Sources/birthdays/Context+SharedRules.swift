import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

/// `--group NAME` and `--source NAME` of `exclude`, `include`, `remind` and `people`.
struct SharedRuleOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("A group of contacts (see birthdays groups) instead of one person.", valueName: "name"),
        completion: Completions.groups
    )
    var group: String?

    @Option(
        help: ArgumentHelp("A whole source, an address book of birthdays sources, instead of one person.", valueName: "name"),
        completion: Completions.sources
    )
    var source: String?

    /// Checks that exactly one of PERSON, `--group` and `--source` is given.
    func validate(person: String?) throws {
        let given = [person != nil, group != nil, source != nil].filter { $0 }.count
        if given == 0 { throw ValidationError("name a person, or give --group NAME or --source NAME") }
        if given > 1 { throw ValidationError("name a person, a --group or a --source: only one of them") }
    }
}

extension Context {
    /// The scope `options` names, as the store knows it: a group someone is
    /// in or that has a rule, a source added or with a rule; `nil` when
    /// neither option is given. A name that fits none is a usage error
    /// with the closest names.
    func scope(_ options: SharedRuleOptions) async throws -> RuleScope? {
        try await scope(group: options.group, source: options.source)
    }

    /// The scope `--group` or `--source` names (see ``scope(_:)``).
    func scope(group: String?, source: String?) async throws -> RuleScope? {
        if let typed = group { return .group(try await self.group(named: typed)) }
        if let typed = source {
            let added = try await database.sources(counting: false).map(\.name)
            let ruled = try await database.sourceRules().map(\.scope.name)
            let names = Array(Set(added + ruled)).sorted()
            return .source(try Self.choose(typed, in: names, kind: "source", list: "birthdays sources list"))
        }
        return nil
    }

    /// The group `typed` names (`--group` of every command that takes one):
    /// one someone is in or that has a rule. A name that fits none is a
    /// usage error with the closest names.
    func group(named typed: String) async throws -> String {
        let names = try await database.groups().map(\.name)
        return try Self.choose(typed, in: names, kind: "group", list: "birthdays groups")
    }

    /// The group `typed` names for `invite --group`, whose answers may
    /// start a group: one that exists (as ``group(named:)`` finds it), else
    /// `typed` itself as a new group when it is near no group's name ; a name near one is a typing mistake, a usage error with
    /// the nearest names.
    func groupOrNew(named typed: String) async throws -> (name: String, new: Bool) {
        let names = try await database.groups().map(\.name)
        if NameChoice.match(typed, in: names) == nil, NameChoice.suggestions(for: typed, in: names).isEmpty { return (typed, true) }
        return (try Self.choose(typed, in: names, kind: "group", list: "birthdays groups"), false)
    }

    private static func choose(_ typed: String, in names: [String], kind: String, list: String) throws -> String {
        if let found = NameChoice.match(typed, in: names) { return found }
        let head = "no \(kind) is called '\(SafeText.line(typed))'"
        let close = NameChoice.suggestions(for: typed, in: names)
        if close.isEmpty { throw ValidationError(head + (names.isEmpty ? "; there are none yet" : "; see: \(list)")) }
        throw ValidationError(head + "; did you mean " + close.map { "'\(SafeText.line($0))'" }.joined(separator: " or ") + "?")
    }

    /// `exclude --group`/`--source` and `include --group`/`--source`: keeps
    /// `choice` for everyone in `scope` and prints the rule.
    func setSharedExclusion(_ choice: Exclusion.Choice, for scope: RuleScope, json: Bool) async throws {
        let result = try await database.setSharedRule(scope, exclusion: .set(choice), days: .keep, now: now, rescheduling: scheduler())
        if json {
            try output(JSONOutput.string(SharedRuleOutput(result.rule), pretty: true))
            return
        }
        let verb = choice == .exclude ? "Left out" : "Taken in"
        try output("\(verb): everyone in the \(scope) (a rule on a person still wins; the dates are kept).")
    }
}

/// A group's or a source's rule in `--json` output: `{"scope": "group",
/// "name": "Family", "exclusion": "exclude", "reminder_days": [7, 1, 0]}`.
struct SharedRuleOutput: Encodable {
    var scope: String
    var name: String
    /// `"exclude"`, `"include"`, or `null`.
    var exclusion: String?
    /// `null` says nothing about the days.
    var reminder_days: [Int]?

    init(_ rule: SharedRule) {
        scope = rule.scope.kind
        name = rule.scope.name
        exclusion = rule.exclusion?.rawValue
        reminder_days = rule.reminderDays?.days
    }

    /// `excluded`, `included`, `reminders 7,1,0`, joined with `; `; `-` for none.
    static func words(_ rule: SharedRule?) -> String {
        guard let rule else { return "-" }
        var words: [String] = []
        if let exclusion = rule.exclusion { words.append(exclusion == .exclude ? "excluded" : "included") }
        if let days = rule.reminderDays { words.append("reminders " + days.description) }
        return words.isEmpty ? "-" : words.joined(separator: "; ")
    }
}
