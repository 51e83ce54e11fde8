import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct NameDaysCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "name-days",
            _superCommandName: "birthdays",
            abstract: "Show whose first name or nickname has a name day, on which day and from which list; correct one person's.",
            discussion: """
                Turn name days on with: birthdays settings set name-days lv (a comma list of countries; off turns them off). \
                A name is compared without case and accents. A name a list gives two days is listed as asked about and \
                gets no name day until you choose one with: birthdays name-days set PERSON MM-DD.
                """,
            subcommands: [List.self, Off.self, SetDay.self, Reset.self, Import.self],
            defaultSubcommand: List.self
        )
    }
}

extension BirthdaysCommand.NameDaysCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Show what matched (the default).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("Only this person (an id, or a name or part of one).", valueName: "person"), completion: Completions.people)
        var person: String?

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (settings, _, localizer) = try await context.settingsAndLanguage()
            guard !settings.nameDays.isEmpty else {
                try output(localizer(.nameDaysOff(allLists: NameDayList.builtInCodes.joined(separator: ","))))
                return
            }
            let nameDays = try await context.database.nameDays(for: settings)
            let people: [Person]
            if let person {
                people = [try await context.person(matching: person)]
            } else {
                people = try await context.database.people()
            }
            var rows: [[String]] = []
            for person in people where !person.excluded {
                let who = [person.id, PersonChoice.display(person)]
                switch nameDays.choices[person.id] {
                case .off:
                    rows.append(who + ["-", "-", "-", localizer(.plain(.nameDaysRowOff))])
                    continue
                case .day(let day):
                    rows.append(who + ["-", Self.day(day), "-", localizer(.plain(.nameDaysRowSet))])
                    continue
                case nil:
                    break
                }
                for match in NameDays.match(person, in: nameDays.lists) {
                    rows.append(
                        who + [
                            SafeText.line(match.name, maxCharacters: 40), match.days.map(Self.day).joined(separator: ", "), match.country,
                            match.day == nil ? localizer(.nameDaysAsked(days: match.days.count)) : "",
                        ]
                    )
                }
            }
            guard !rows.isEmpty else {
                try output(localizer(.nameDaysNone(lists: settings.nameDays.count)))
                return
            }
            let header: [Message.Key] = [.nameDaysHeaderID, .nameDaysHeaderName, .nameDaysHeaderMatched, .nameDaysHeaderDay, .nameDaysHeaderList]
            try output(Table.render(rows, header: header.map { localizer($0) } + [""], shrinkable: [1]))
        }

        static func day(_ date: EventDate) -> String { String(format: "%02d-%02d", date.month, date.day) }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "off", abstract: "Give this person no name day (imports keep this choice).")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("An id, or a name or part of one.", valueName: "person"), completion: Completions.people)
        var person: String

        func run() async throws { try await Context(global).setNameDay(.off, of: person) }
    }

    struct SetDay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Give this person their name day on MM-DD, whatever the lists say."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("An id, or a name or part of one.", valueName: "person"), completion: Completions.people)
        var person: String

        @Argument(help: ArgumentHelp("The day, MM-DD (06-24).", valueName: "day"))
        var day: String

        func validate() throws {
            guard case .day? = NameDayChoice(text: day) else {
                throw ValidationError("'\(SafeText.line(day))' is not a day written MM-DD, such as 06-24")
            }
        }

        func run() async throws {
            guard let choice = NameDayChoice(text: day) else { return }
            try await Context(global).setNameDay(choice, of: person)
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Take a name-day list of your own (MM-DD,name,name… a line) for CODE, and turn it on.",
            discussion:
                "A line that is not a day and names is reported with the file and line; the others are kept. Importing again replaces the list."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The list: MM-DD,name,name… one day a line; # starts a comment.", valueName: "file"), completion: .file())
        var file: String

        @Option(help: ArgumentHelp("The code it goes by in the name-days setting: 2 to 8 letters (cz, hu).", valueName: "code"))
        var country: String

        func validate() throws {
            guard NameDayList.isCode(country.lowercased()) else { throw ValidationError("--country needs 2 to 8 letters a-z, such as cz") }
        }

        func run() async throws {
            let context = try Context(global)
            let localizer = try await context.localizer()
            let data: Data
            do {
                data = try ContactFiles.read(file, limit: NameDayList.maxFileBytes)
            } catch {
                let reason = if case .cannotRead(_, let reason) = error { reason } else { error.description }
                throw CLIError(localizer(.nameDaysImportUnreadable(file: SafeText.line(file), reason: SafeText.line(reason))))
            }
            let name = URL(fileURLWithPath: file).lastPathComponent
            let (list, problems) = NameDayList.parse(
                String(decoding: data, as: UTF8.self),
                country: country.lowercased(),
                file: name,
                localizer: localizer
            )
            for problem in problems { printError(problem.description) }
            guard list.count > 0 else { throw CLIError(localizer(.nameDaysImportEmpty(file: SafeText.line(name)))) }
            let settings = try await context.database.importNameDayList(list, now: context.now, rescheduling: context.scheduler())
            try output(
                localizer(.nameDaysImported(country: list.country, names: list.count, setting: settings.text(for: .nameDays)))
                    + (problems.isEmpty ? "" : "; " + localizer(.nameDaysImportProblems(problems.count)))
            )
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Let the lists decide this person's name day again.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("An id, or a name or part of one.", valueName: "person"), completion: Completions.people)
        var person: String

        func run() async throws { try await Context(global).setNameDay(nil, of: person) }
    }
}

extension Context {
    /// `name-days off`, `set` and `reset`: records the choice for the person `query` names, and says what it does.
    func setNameDay(_ choice: NameDayChoice?, of query: String) async throws {
        let found = try await person(matching: query)
        let settings = try await database.setNameDayChoice(choice, personID: found.id, now: now, rescheduling: scheduler())
        let localizer = settings.localizer(systemLocale: systemLocale)
        let name = SafeText.line(found.name)
        let off = settings.nameDays.isEmpty ? " " + localizer(.plain(.nameDaysPersonOffHint)) : ""
        let said: Message
        switch choice {
        case .off: said = .nameDayChoice(name: name, off: true, day: nil)
        case .day(let day): said = .nameDayChoice(name: name, off: false, day: BirthdaysCommand.NameDaysCommand.List.day(day))
        case nil: said = .nameDayChoice(name: name, off: false, day: nil)
        }
        try output(localizer(said) + off)
    }
}
