import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation

extension BirthdaysCommand {
    struct Greet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "greet",
            _superCommandName: "birthdays",
            abstract: "Greet a friend on their birthday: 'Happy birthday, Ana!' to Ana at 09:00 her time, only when you chose it.",
            discussion: """
                Nobody is greeted unless you add them, or a group of theirs. A greeting goes by e-mail through your \
                e-mail channel (its mail program and its --from), to the address on the friend's card or --to, or \
                through an Apprise URL (--url: Signal, Telegram, Matrix, WhatsApp through their Apprise services), kept \
                in a 0600 file in DATABASE.secrets, never in the database, an argument list or a log. It comes at the \
                greeting-time setting (default 09:00) on the friend's own clock, in their zone. An excluded or deceased \
                person is never greeted, even in a greeted group; a greeting never carries your note, their other dates \
                or a link to your page. See docs/greetings.md.
                """,
            subcommands: [GreetList.self, GreetAdd.self, GreetRemove.self, GreetSkip.self, GreetTest.self],
            defaultSubcommand: GreetList.self
        )
    }
}

extension BirthdaysCommand.Greet {
    struct GreetAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Greet a person (or everyone of --group) on each birthday from now on, by e-mail or through --url.",
            discussion: """
                --message is your own text: {first} is the first name, {name} the whole name, {age} the age they turn \
                (only where you write it; a greeting carries no age otherwise), {{ a brace. Without it the greeting is \
                one warm sentence with the first name in --language (default: your language setting). \
                --url '-' reads the Apprise URL from standard input, out of your shell's history; it is checked with \
                'apprise --dry-run'.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: ArgumentHelp("An id, a reminder id, or a name or part of one (any case); or --group.", valueName: "person"),
            completion: Completions.people
        )
        var person: String?

        @Option(help: ArgumentHelp("Greet everyone of this group, each at their own birthday.", valueName: "group"), completion: Completions.groups)
        var group: String?

        @Option(help: ArgumentHelp("The friend's e-mail address (default: the first on their card).", valueName: "address"))
        var to: String?

        @Option(
            help: ArgumentHelp("An Apprise URL to send the greeting through instead of e-mail; '-' reads it from standard input.", valueName: "url")
        )
        var url: String?

        @Option(help: ArgumentHelp("Your own words, with {first}, {name} and {age}.", valueName: "text"))
        var message: String?

        @Option(help: ArgumentHelp("The default text's language (de, fr, ja, zh-Hans, …; default: the language setting).", valueName: "language"))
        var language: String?

        func validate() throws {
            guard (person == nil) != (group == nil) else { throw ValidationError("give a PERSON or --group GROUP, not both") }
            if to != nil && url != nil { throw ValidationError("give --to ADDRESS (e-mail) or --url URL (Apprise), not both") }
            if group != nil && (to != nil || url != nil) {
                throw ValidationError("a group's greetings go by e-mail to each member's own address: --to and --url are for one person")
            }
            if let to, EmailAddress(parsing: to) == nil {
                throw ValidationError("--to '\(SafeText.line(to))' is not an e-mail address (like ana@example.org)")
            }
            if let url, url != "-", let problem = Self.urlProblem(url) { throw ValidationError(problem) }
            if let message {
                do {
                    _ = try GreetingTemplate(message)
                } catch {
                    throw ValidationError(error.description)
                }
            }
            if let language, Language.match(language, available: StringCatalog.embedded.languages) == nil {
                let known = StringCatalog.embedded.languages.joined(separator: ", ")
                throw ValidationError("'\(SafeText.line(language))' is not a language birthdays writes in; the languages are \(known)")
            }
        }

        /// Why `url` is no Apprise URL (never quoting it: it holds a token); `nil` when it looks like one.
        static func urlProblem(_ url: String) -> String? {
            guard let scheme = url.range(of: "://"), !url[..<scheme.lowerBound].isEmpty, !url.contains(where: \.isWhitespace) else {
                return "the Apprise URL must look like SCHEME://… (tgram://, matrixs://, signal://, json://…), without spaces"
            }
            return nil
        }

        func run() async throws {
            var secret: String?
            if let url {
                let read = url == "-" ? (readLine(strippingNewline: true) ?? "").trimmingWhitespace() : url
                if let problem = Self.urlProblem(read) { throw ValidationError(problem + (url == "-" ? " (read from standard input)" : "")) }
                secret = read
            }
            let context = try Context(global)
            let template = try message.map { try GreetingTemplate($0) }
            let greeting: Greeting
            let who: String
            if let group {
                let name = try await context.group(named: group)
                greeting = Greeting(target: .group(name), message: template, language: chosenLanguage)
                who = "the group " + SafeText.line(name)
            } else {
                let found = try await Self.greeted(person ?? "", context)
                who = SafeText.line(found.name)
                if PersonTraits(found).excluded {
                    throw CLIError("\(who) is excluded, and an excluded person is never greeted ('birthdays include' first)")
                }
                if found.isDeceased { throw CLIError("\(who) has died; a deceased person is never greeted") }
                guard let birthday = found.birthday else { throw CLIError("\(who) has no birthday to be greeted on") }
                if template?.usesAge == true && birthday.year == nil {
                    throw ValidationError("--message writes {age}, but \(who)'s birthday has no year; leave {age} out")
                }
                let way: Greeting.Way = secret == nil ? .email(address: to) : .apprise
                if secret == nil, GreetingRules.emailAddress(of: found, way: way) == nil {
                    throw ValidationError(
                        "\(who)'s card has no e-mail address; give one with --to ADDRESS, or send through Apprise with --url URL "
                            + "('-' reads it from standard input)"
                    )
                }
                greeting = Greeting(target: .person(found.id), way: way, message: template, language: chosenLanguage)
            }
            let choices = GreetingChoices(database: context.database, environment: context.environment)
            let stored: Greeting
            do {
                stored = try await choices.add(greeting, url: secret, who: who, now: context.now)
            } catch {
                throw CLIError(error.description)
            }
            // The greeting is planned at once (a running daemon hears the write and plans it too).
            _ = try await context.scheduler().reschedule()
            let roster = try await context.database.greetingRoster(now: context.now, systemTimeZone: context.systemTimeZone)
            let entries = roster.choices.first { $0.greeting.id == stored.id }?.people ?? []
            try output(
                "Added: " + GreetOutput.summary(stored, entries: entries) + ". Try it: birthdays greet test \(GreetOutput.testName(stored, entries))"
            )
        }

        /// The language `--language` names, as the catalog spells it.
        var chosenLanguage: String? { language.flatMap { Language.match($0, available: StringCatalog.embedded.languages) } }
    }

    struct GreetList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List who is greeted: the next greeting's time on their clock, how it goes, and who is left out and why."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the greetings as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let roster = try await context.database.greetingRoster(now: context.now, systemTimeZone: context.systemTimeZone)
            if json {
                try output(JSONOutput.string(roster.choices.map(GreetOutput.Listed.init), pretty: true))
            } else {
                try output(GreetOutput.table(roster))
            }
        }
    }

    struct GreetRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Stop greeting a person (or --group): their choice and its Apprise URL's file are removed."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The person greeted; or --group.", valueName: "person"), completion: Completions.people)
        var person: String?

        @Option(help: ArgumentHelp("The group greeted.", valueName: "group"), completion: Completions.groups)
        var group: String?

        func validate() throws {
            guard (person == nil) != (group == nil) else { throw ValidationError("give a PERSON or --group GROUP, not both") }
        }

        func run() async throws {
            let context = try Context(global)
            let greetings: [Greeting]
            let who: String
            if let group {
                let greeted = try await context.database.greetings().compactMap { greeting -> String? in
                    if case .group(let name) = greeting.target { return name }
                    return nil
                }
                let name = NameChoice.match(group, in: greeted) ?? group
                greetings = try await context.database.greeting(for: .group(name)).map { [$0] } ?? []
                who = "the group " + SafeText.line(name)
            } else {
                // The person's own choice and any made on a card of theirs (issue 43): each greets them.
                let found = try await context.person(matching: person ?? "")
                greetings = try await context.database.greetings(ofPerson: found.id)
                who = SafeText.line(found.name)
            }
            let choices = GreetingChoices(database: context.database, environment: context.environment)
            var removed = false
            for greeting in greetings {
                if try await choices.remove(greeting) { removed = true }
            }
            guard removed else { throw CLIError("\(who) is not greeted; see 'birthdays greet list'") }
            _ = try await context.scheduler().reschedule()
            try output("\(who) is no longer greeted.")
        }
    }

    struct GreetSkip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "skip",
            abstract: "Skip a person's next greeting (this year's); the one after goes as usual."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The person greeted.", valueName: "person"), completion: Completions.people)
        var person: String

        func run() async throws {
            let context = try Context(global)
            let found = try await context.person(matching: person)
            let who = SafeText.line(found.name)
            let roster = try await context.database.greetingRoster(now: context.now, systemTimeZone: context.systemTimeZone)
            let entry = roster.choices.lazy.flatMap(\.people).first { $0.person.id == found.id && $0.state != .ownChoice }
            guard let entry else { throw CLIError("\(who) is not greeted; see 'birthdays greet list'") }
            guard entry.state == .greeted || entry.state == .noAddress else {
                throw CLIError("\(who) is not greeted (\(GreetOutput.stateWords(entry.state))); nothing to skip")
            }
            if let skipped = entry.skipped {
                throw CLIError("\(who)'s greeting of \(skipped) is skipped already")
            }
            guard let next = entry.next else { throw CLIError("\(who) has no greeting ahead to skip") }
            _ = try await context.database.skipGreeting(personID: found.id, year: next.day.year)
            _ = try await context.scheduler().reschedule()
            try output("Skipped \(who)'s greeting on \(GreetOutput.day(next.day)); the next one goes as usual.")
        }
    }

    struct GreetTest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Send a person's greeting to you now, as they would get it: to your own e-mail address, or through the Apprise URL.",
            discussion: """
                By e-mail the greeting goes through your e-mail channel To that channel's own address, so you see \
                exactly what the friend would get. An Apprise greeting goes through its URL (a test reaches whoever \
                the URL reaches). Nothing is recorded. Exits 1 when it failed.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The person greeted.", valueName: "person"), completion: Completions.people)
        var person: String

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let found = try await GreetAdd.greeted(person, context)
            let who = SafeText.line(found.name)
            let (settings, zone) = try await context.settings()
            let rules = GreetingRules(try await context.database.greetings())
            let greeting: Greeting
            switch rules.decision(for: found) {
            case .greeted(let chosen): greeting = chosen
            case .notOptedIn: throw CLIError("\(who) is not greeted; add the greeting first: birthdays greet add \(SafeText.line(person))")
            case .excluded: throw CLIError("\(who) is excluded, and an excluded person is never greeted")
            case .deceased: throw CLIError("\(who) has died; a deceased person is never greeted")
            case .noBirthday: throw CLIError("\(who) has no birthday to be greeted on")
            }
            let choices = GreetingChoices(database: context.database, environment: context.environment)
            let route: GreetingSender.Route?
            do {
                route = try await choices.route(for: greeting, person: found, toOwner: true)
            } catch {
                throw CLIError(error.description)
            }
            guard let route else { throw CLIError("the greeting of \(who) has no way to go; remove it and add it again") }
            let theirZone = GreetingPlan.zone(of: found, owner: zone)
            let next = found.birthday.flatMap { GreetingPlan(settings: settings).next(of: $0, zone: theirZone, at: context.now) }
            let localizer = Localizer(setting: greeting.language ?? settings.language, systemLocale: context.systemLocale)
            let words = GreetingWords(greeting: greeting, person: AppDatabase.withoutNote(found), age: next?.age, localizer: localizer)
            do {
                try await GreetingSender.send(words, by: route, environment: context.environment, now: context.now, timeZone: theirZone)
            } catch {
                throw CLIError("FAIL: the greeting of \(who) was not sent: \(error.description)")
            }
            switch route {
            case .email(let channel, let to):
                try output("OK: the greeting of \(who) went to you (\(to.headerAddress)) through \(channel.name), as \(who) would get it.")
            case .apprise:
                try output("OK: the greeting of \(who) went through its Apprise URL.")
            }
        }
    }
}

/// The words of `greet`: English, like the rest of the command's output.
enum GreetOutput {
    /// "Tue 10 Mar 2026".
    static func day(_ day: LocalDate) -> String { Localizer.english.shortDate(day) + " " + String(day.year) }

    /// "Tue 10 Mar 2026 09:00 Tokyo": a greeting's moment on the friend's clock, with their zone.
    static func moment(_ next: GreetingPlan.Occurrence) -> String {
        day(next.day) + " " + FireTime.clock(of: next.instant, in: next.timeZone) + " " + zoneName(next.timeZone)
    }

    /// The zone as `zone` and `people` name it: the city of an IANA name, else its offset.
    static func zoneName(_ zone: TimeZone) -> String {
        (PersonZone(name: zone.identifier) ?? PersonZone(secondsFromGMT: zone.secondsFromGMT())).map(\.displayName) ?? zone.identifier
    }

    /// "e-mail to ana@example.org", "e-mail (no address)", "apprise".
    static func how(_ greeting: Greeting, address: String?) -> String {
        switch greeting.way {
        case .apprise: "apprise"
        case .email: "e-mail to " + (address.map { SafeText.line($0) } ?? "(no address)")
        }
    }

    /// What a state means, in words.
    static func stateWords(_ state: GreetingRoster.State) -> String {
        switch state {
        case .greeted: "greeted"
        case .excluded: "excluded: never greeted"
        case .deceased: "deceased: never greeted"
        case .noBirthday: "no birthday"
        case .noAddress: "no e-mail address: give --to, or greet through --url"
        case .ownChoice: "greeted by a choice of their own"
        }
    }

    /// "Ana Lima, next on Tue 10 Mar 2026 09:00 Tokyo, by e-mail to ana@example.org" or a group's count.
    static func summary(_ greeting: Greeting, entries: [GreetingRoster.Entry]) -> String {
        switch greeting.target {
        case .person:
            guard let entry = entries.first else { return "the greeting" }
            let next = entry.next.map { ", next on " + moment($0) + " their time" } ?? ""
            return SafeText.line(entry.person.name) + next + ", by " + how(greeting, address: entry.address)
        case .group(let name):
            let greeted = entries.filter { $0.state == .greeted }.count
            return "the group \(SafeText.line(name)) (\(Wording.count(greeted, "person", "people")) greeted, each at their own birthday, by e-mail)"
        }
    }

    /// The PERSON to give `greet test` in the hint: the person's id, or the first member greeted.
    static func testName(_ greeting: Greeting, _ entries: [GreetingRoster.Entry]) -> String {
        (entries.first { $0.state == .greeted } ?? entries.first).map(\.person.id) ?? "PERSON"
    }

    static func table(_ roster: GreetingRoster) -> String {
        guard !roster.choices.isEmpty else { return "Nobody is greeted. Greet a friend with: birthdays greet add PERSON" }
        var rows: [[String]] = []
        for choice in roster.choices {
            let via: String
            switch choice.greeting.target {
            case .person: via = "own"
            case .group(let name): via = "group " + SafeText.line(name)
            }
            if choice.people.isEmpty { rows.append(["(nobody)", via, "", how(choice.greeting, address: nil), "no members", ""]) }
            for entry in choice.people {
                let next = entry.next.map(moment) ?? ""
                let skipped = entry.skipped.map { " (\($0) skipped)" } ?? ""
                rows.append([
                    SafeText.line(entry.person.name), via, next + skipped, how(choice.greeting, address: entry.address), stateWords(entry.state),
                    entry.last.map { $0.outcome.rawValue + " " + day($0.day) } ?? "",
                ])
            }
        }
        return Table.render(rows, header: ["WHO", "VIA", "NEXT (THEIR TIME)", "HOW", "STATE", "LAST"], shrinkable: [0, 4])
    }

    /// One choice in `greet list --json`.
    struct Listed: Encodable {
        var id: Int64?
        var person: String?
        var group: String?
        var way: String
        var to: String?
        var message: String?
        var language: String?
        var people: [Member]

        struct Member: Encodable {
            var id: String
            var name: String
            var state: String
            /// The next greeting's instant with the friend's offset (`2026-03-10T09:00:00+09:00`), their day and zone.
            var next: String?
            var next_day: String?
            var zone: String?
            var address: String?
            var skipped_year: Int?
            /// What became of the last greeting: `sent`, `skipped`, `missed`, `failed`, `interrupted`, `dismissed` or `due`; and its day.
            var last: String?
            var last_day: String?
        }

        init(_ choice: GreetingRoster.Choice) {
            let greeting = choice.greeting
            id = greeting.id
            switch greeting.target {
            case .person(let personID): (person, group) = (personID, nil)
            case .group(let name): (person, group) = (nil, name)
            }
            switch greeting.way {
            case .apprise: (way, to) = ("apprise", nil)
            case .email(let address): (way, to) = ("email", address)
            }
            message = greeting.message?.text
            language = greeting.language
            people = choice.people.map { entry in
                Member(
                    id: entry.person.id,
                    name: entry.person.name,
                    state: entry.state.rawValue,
                    next: entry.next.map { ISOInstant.format($0.instant, in: $0.timeZone) },
                    next_day: entry.next?.day.description,
                    zone: entry.next?.timeZone.identifier,
                    address: entry.address,
                    skipped_year: entry.skipped,
                    last: entry.last?.outcome.rawValue,
                    last_day: entry.last?.day.description
                )
            }
        }
    }
}

extension BirthdaysCommand.Greet.GreetAdd {
    /// The person `query` names, with the birthday chosen among their cards
    /// (as `show`, reminders and the scheduler's greetings have it): a card
    /// with no birthday of its own is greeted on its linked card's.
    static func greeted(_ query: String, _ context: Context) async throws -> Person {
        var found = try await context.person(matching: query)
        found.birthday = try await context.database.origins(of: found.id).birthday ?? found.birthday
        return found
    }
}
