import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct Exclude: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "exclude",
            _superCommandName: "birthdays",
            abstract: "Leave a person out: no reminders, no feed events (imports keep this choice).",
            discussion: """
                Undo it with: birthdays include PERSON. It wins over a card's X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR either way. \
                --group NAME or --source NAME leaves out everyone in a group or a source instead, kept by the name as \
                people join and leave it; a rule on a person wins, and an include of another of their groups or sources \
                takes them back in. --label TEXT leaves out the dates cards keep under that label (compared without \
                case), for everyone, whatever the labelled-dates setting. The dates are kept: show and people still list them.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case).", valueName: "person"),
            completion: Completions.people
        )
        var person: String?

        @OptionGroup var shared: SharedRuleOptions

        @Option(
            help: ArgumentHelp("A team room (see birthdays announce list): leave the person out, for that room's messages only.", valueName: "room")
        )
        var announce: String?

        @Option(
            help: ArgumentHelp(
                "The label of dates the cards keep (\"Started work\", any case) instead of a person: their dates get no reminders and no feed events, even with labelled-dates on.",
                valueName: "text"
            )
        )
        var label: String?

        @Flag(help: "Print the person as `people --json` does (with --group or --source: the rule).")
        var json = false

        /// What the command names (``ExclusionTarget``).
        var target: ExclusionTarget { ExclusionTarget(person: person, shared: shared, announce: announce, label: label) }

        func validate() throws { try target.validate() }

        func run() async throws { try await Context(global).set(.exclude, for: target, json: json) }
    }
}

/// What `exclude` and `include` name: a label's dates, a person for one
/// team room, a group or a source, or a person; exactly one of them.
struct ExclusionTarget {
    var person: String?
    var shared: SharedRuleOptions
    var announce: String?
    var label: String?

    /// Checks that one thing is named: a `--label` alone, or one of PERSON,
    /// `--group` and `--source`, with `--announce ROOM` only for a person.
    func validate() throws {
        if let label {
            if person != nil || shared.group != nil || shared.source != nil || announce != nil {
                throw ValidationError("name a person, a --group, a --source or a --label: only one of them")
            }
            if LabelledDate.key(label).isEmpty { throw ValidationError("--label needs the text of a label, such as \"Started work\"") }
            return
        }
        try shared.validate(person: person)
        if announce != nil, person == nil { throw ValidationError("--announce ROOM takes one person, not --group or --source") }
    }
}

extension Context {
    /// `birthdays exclude` (`.exclude`) and `include` (`.include`): records
    /// the choice for what `target` names and says what it does.
    func set(_ choice: Exclusion.Choice, for target: ExclusionTarget, json: Bool) async throws {
        if let label = target.label {
            try await setLabelRule(label, included: choice == .include)
        } else if let room = target.announce, let person = target.person {
            try await setAnnounceExclusion(choice == .exclude, of: person, room: room)
        } else if let scope = try await scope(target.shared) {
            try await setSharedExclusion(choice, for: scope, json: json)
        } else if let person = target.person {
            try await setExclusion(choice, of: person, json: json)
        }
    }
}

extension Context {
    /// `birthdays exclude --label` and `include --label`: records the
    /// label's choice, rescheduling, and says what it does.
    func setLabelRule(_ label: String, included: Bool) async throws {
        let result = try await database.setLabelRule(label, included: included, now: now, rescheduling: scheduler())
        let localizer = try await localizer()
        let shown = SafeText.line(label.trimmingWhitespace(), maxCharacters: 60)
        try output(localizer(included ? .labelIncluded(shown, dates: result.dates) : .labelExcluded(shown, dates: result.dates)))
    }

    /// `birthdays exclude` and `include`: records `choice` for the person
    /// `query` names, tells a running daemon, and prints the person
    /// (`people --json`'s object) or one sentence.
    func setExclusion(_ choice: Exclusion.Choice, of query: String, json: Bool) async throws {
        let found = try await person(matching: query)
        let result = try await database.setExclusion(choice, personID: found.id, now: now, rescheduling: scheduler())
        guard let result else { throw CLIError("no person has the id '\(found.id)'") }
        let localizer = try await localizer()
        let name = SafeText.line(result.person.name)
        try output(
            json
                ? JSONOutput.string(PersonOutput(result.person), pretty: true)
                : localizer(choice == .exclude ? .personExcluded(name: name) : .personIncluded(name: name))
        )
    }
}

extension Context {
    /// `exclude PERSON --announce ROOM` (`excluded`) and `include PERSON
    /// --announce ROOM`: leaves the person out of that room's messages, or
    /// takes them back in, and reschedules; one sentence.
    func setAnnounceExclusion(_ excluded: Bool, of query: String, room: String) async throws {
        let found = try await person(matching: query)
        guard try await database.setAnnounceExclusion(room: room, personID: found.id, excluded: excluded, rescheduling: scheduler()) != nil else {
            throw CLIError("there is no room named '\(SafeText.line(room))'; see 'birthdays announce list'")
        }
        let localizer = try await localizer()
        try output(localizer(.personAnnounce(name: SafeText.line(found.name), room: room, excluded: excluded)))
    }
}
