import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation

extension BirthdaysCommand {
    struct Announce: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "announce",
            _superCommandName: "birthdays",
            abstract: "A team room: one 'Happy birthday' message a day, naming everyone of a group whose birthday it is.",
            discussion: """
                A room is a chat room reached through an Apprise URL (slack://, mmost://, discord://, msteams://, \
                matrixs://, rocket://, …) or an https webhook that gets JSON. On each day someone of the room's group has \
                a birthday, 'birthdays run' sends one message at the delivery time: "🎂 Happy birthday, Ada Lovelace and \
                Alan Turing!", in the room's language; never a year, an age (unless --ages), a contact point or a note, \
                and nothing on a day without birthdays. Each room gets at most one message a day; one that fails is \
                retried until the day ends, as a channel is. The URL carries the room's token: it is kept in a 0600 file \
                in the database's own folder DATABASE.secrets, never in the database, an argument list or a log. \
                'birthdays exclude PERSON --announce NAME' leaves a person out of a room.
                """,
            subcommands: [AnnounceList.self, AnnounceAdd.self, AnnounceRemove.self, AnnounceTest.self],
            defaultSubcommand: AnnounceList.self
        )
    }
}

extension BirthdaysCommand.Announce {
    struct AnnounceAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a team room: an Apprise URL or an https webhook, and the group whose birthdays it gets.",
            discussion: """
                An Apprise URL is checked with 'apprise --dry-run' (Debian package apprise) and given to apprise with -c \
                at each message. An https:// (or http://) URL is a webhook: it gets a POST of \
                {"text": MESSAGE, "day": "YYYY-MM-DD", "room": NAME}, sent by birthdays-network, which Slack's, \
                Mattermost's, Rocket.Chat's and Teams' incoming webhooks show as the message. \
                A birthday on a Saturday or a Sunday is announced on the Friday before (--weekend friday, the default), \
                on the Monday after (monday), or on the day itself (off).
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp(
                "The room's Apprise URL (slack://…) or webhook (https://…); '-' reads it from standard input, out of your shell's history.",
                valueName: "url"
            )
        )
        var url: String

        @Option(
            help: ArgumentHelp("The group whose birthdays the room gets (see birthdays groups).", valueName: "group"),
            completion: Completions.groups
        )
        var group: String

        @Option(help: ArgumentHelp("The room's name (default: the group's name, in lower case).", valueName: "name"))
        var name: String?

        @Flag(help: "Say the age each person turns, when the year is known (never by default).")
        var ages = false

        @Option(help: ArgumentHelp("Where a weekend birthday is announced: friday (before, the default), monday (after) or off.", valueName: "rule"))
        var weekend: AnnounceWeekend = .friday

        @Option(help: ArgumentHelp("The room's language (de, fr, ja, zh-Hans, …; default: the language setting).", valueName: "language"))
        var language: String?

        /// The name, when given, else the group's in lower case with anything else than a-z and 0-9 as '-'.
        var roomName: String {
            if let name { return name }
            let lowered = group.lowercased().map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? $0 : "-" }
            return String(String(lowered).split(separator: "-").joined(separator: "-").prefix(32))
        }

        func validate() throws {
            if url != "-", case .failure(let problem) = AnnounceRoom.kind(of: url) { throw ValidationError(problem.description) }
            if let problem = AnnounceRoom.problem(withName: roomName) {
                throw ValidationError(name == nil ? "the group's name makes no room name (\(problem)): give --name" : problem)
            }
            if let language, Language.match(language, available: StringCatalog.embedded.languages) == nil {
                let known = StringCatalog.embedded.languages.joined(separator: ", ")
                throw ValidationError("'\(SafeText.line(language))' is not a language birthdays writes in; the languages are \(known)")
            }
        }

        func run() async throws {
            let url = self.url == "-" ? (readLine(strippingNewline: true) ?? "").trimmingWhitespace() : self.url
            let kind: AnnounceRoom.Kind
            switch AnnounceRoom.kind(of: url) {
            case .success(let found): kind = found
            case .failure(let problem): throw ValidationError(problem.description + " (read from standard input)")
            }
            let context = try Context(global)
            let groupName: String
            if case .group(let found)? = try await context.scope(group: group, source: nil) { groupName = found } else { groupName = group }
            let room = AnnounceRoom(
                name: roomName,
                group: groupName,
                kind: kind,
                target: AnnounceRoom.maskedURL(url),
                ages: ages,
                weekend: weekend,
                language: language.flatMap { Language.match($0, available: StringCatalog.embedded.languages) }
            )
            do {
                _ = try await AnnounceRooms(database: context.database, environment: context.environment).add(room, url: url, now: context.now)
            } catch {
                throw CLIError(error.description)
            }
            _ = try await context.scheduler().reschedule()
            let summary = try await context.database.announceSummaries(now: context.now, systemTimeZone: context.systemTimeZone)
                .first { $0.room.name == room.name }
            let next =
                summary?.next.map { "; its next message is on \(AnnounceOutput.day($0)) (\(Wording.count($0.people.count, "person", "people")))" }
                ?? ""
            try output(
                "Added \(room.name) (\(room.target) → the group \(SafeText.line(groupName)))\(next). Try it: birthdays announce test \(room.name)"
            )
        }
    }

    struct AnnounceList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the team rooms: group, target (secrets masked), weekend rule, next message, last success and last error."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the rooms as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (_, zone) = try await context.settings()
            let rooms = try await context.database.announceSummaries(now: context.now, systemTimeZone: context.systemTimeZone)
            if json {
                try output(JSONOutput.string(rooms.map { AnnounceOutput.Listed($0, zone: zone) }, pretty: true))
            } else {
                try output(AnnounceOutput.table(rooms, zone: zone))
            }
        }
    }

    struct AnnounceRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a team room (and its URL's file); who was left out of it is forgotten too."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The room's name (see 'birthdays announce list').")
        var name: String

        func run() async throws {
            let context = try Context(global)
            guard try await AnnounceRooms(database: context.database, environment: context.environment).remove(named: name) else {
                throw CLIError("there is no room named '\(SafeText.line(name))'; see 'birthdays announce list'")
            }
            _ = try await context.scheduler().reschedule()
            try output("Removed \(name).")
        }
    }

    struct AnnounceTest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Send a test message to the named rooms (or every room) now, and say OK or FAIL for each.",
            discussion: """
                The message names the room's group, not a person. The delivery ledger and the pending messages stay as \
                they are; a success is recorded as the room's last success. Exits 1 when one failed.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The rooms to test (default: every room).")
        var names: [String] = []

        func run() async throws {
            let context = try Context(global)
            let (settings, _) = try await context.settings()
            let rooms = try await context.database.announceRooms()
            for name in names where !rooms.contains(where: { $0.name == name }) {
                let known = rooms.map(\.name).joined(separator: ", ")
                throw ValidationError(
                    "there is no room named '\(SafeText.line(name))'"
                        + (known.isEmpty ? "; add one with 'birthdays announce add'" : "; the rooms are \(known)")
                )
            }
            let chosen = names.isEmpty ? rooms : rooms.filter { names.contains($0.name) }
            if chosen.isEmpty { throw CLIError("there is no room yet; add one with 'birthdays announce add URL --group GROUP'") }
            var failed = false
            for room in chosen {
                let localizer = room.localizer(settings: settings, systemLocale: context.systemLocale)
                let today = LocalDate.today(at: context.now, in: settings.resolvedTimeZone(system: context.systemTimeZone))
                let reminder = Reminder(
                    id: room.notificationID,
                    personID: "",
                    kind: .birthday,
                    when: .dayOf,
                    fireAt: context.now,
                    timeZone: context.systemTimeZone,
                    title: room.name,
                    body: localizer(.announceTest(group: SafeText.line(room.group))),
                    late: false,
                    occurrenceDate: today,
                    logID: room.name
                )
                let sink = AnnounceRooms.sink(
                    for: room,
                    databasePath: context.database.path,
                    environment: context.environment,
                    clock: ContinuousClock()
                )
                let error: DeliveryError?
                do throws(DeliveryError) {
                    try await sink.deliver(reminder)
                    error = nil
                } catch let failure {
                    error = failure
                }
                if let error {
                    failed = true
                    try output("FAIL  \(room.name): \(error.description)")
                } else {
                    try await context.database.recordChannelOutcomes([(room.stateName, nil)], at: context.now)
                    try output("OK    \(room.name)")
                }
            }
            if failed { throw ExitCode.failure }
        }
    }
}

/// What `announce list` shows.
enum AnnounceOutput {
    /// "Fri 13 Mar 2026": a message's day, in English like the rest of `announce`.
    static func day(_ announcement: Announcement) -> String {
        Localizer.english.shortDate(announcement.day) + " " + String(announcement.day.year)
    }

    static func table(_ rooms: [AnnounceRoomSummary], zone: TimeZone) -> String {
        guard !rooms.isEmpty else { return "No team rooms. Add one with: birthdays announce add URL --group GROUP" }
        let rows = rooms.map { summary -> [String] in
            let room = summary.room
            return [
                room.name,
                room.group,
                room.target,
                room.weekend.rawValue + (room.ages ? ", ages" : "") + (room.language.map { ", " + $0 } ?? ""),
                summary.next.map { day($0) + " (\($0.people.count))" } ?? "none",
                summary.status?.lastSuccess.map { Wording.wallClock($0, zone: zone) } ?? "never",
                summary.status?.lastError.map { SafeText.line($0, maxCharacters: 120) } ?? "",
            ]
        }
        return Table.render(
            rows,
            header: ["NAME", "GROUP", "TARGET", "WEEKEND", "NEXT", "LAST SUCCESS", "LAST ERROR"],
            shrinkable: [1, 6]
        )
    }

    /// One room in `announce list --json`.
    struct Listed: Encodable {
        var name: String
        var group: String
        var kind: String
        var target: String
        var weekend: String
        var ages: Bool
        var language: String?
        var excluded: Int
        /// The next message's day (YYYY-MM-DD) and how many people it names.
        var next_day: String?
        var next_people: Int?
        var last_success: String?
        var last_error: String?
        var last_error_at: String?

        init(_ summary: AnnounceRoomSummary, zone: TimeZone) {
            let room = summary.room
            name = room.name
            group = room.group
            kind = room.kind.rawValue
            target = room.target
            weekend = room.weekend.rawValue
            ages = room.ages
            language = room.language
            excluded = summary.excluded
            next_day = summary.next?.day.description
            next_people = summary.next?.people.count
            last_success = summary.status?.lastSuccess.map { ISOInstant.format($0, in: zone) }
            last_error = summary.status?.lastError
            last_error_at = summary.status?.lastErrorAt.map { ISOInstant.format($0, in: zone) }
        }
    }
}

extension AnnounceWeekend: ExpressibleByArgument {}
