import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import BirthdayUseCases
import Foundation

extension BirthdaysCommand {
    struct Invites: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "invites",
            _superCommandName: "birthdays",
            abstract: "The answers that arrived through invitation links: list, accept or reject them.",
            discussion: """
                'birthdays invites' lists the answers that wait, with the number 'invites accept' and 'invites reject' \
                take. An answer whose name is the name of someone you have, undated or with the same date, is \
                offered as them. Accepting one gives the date to that person when exactly one matches (or, with \
                --as, to someone you name), else adds the person (always, with --as new), in the invitation's \
                group, and reschedules the reminders.
                """,
            subcommands: [InvitesList.self, InvitesAccept.self, InvitesReject.self],
            defaultSubcommand: InvitesList.self
        )
    }
}

extension BirthdaysCommand.Invites {
    struct InvitesList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the answers that wait (--all: every answer).")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Also the answers accepted or rejected.")
        var all = false

        @Flag(help: "Print a JSON array.")
        var json = false

        /// One element of `invites --json`.
        struct Listed: Encodable {
            var id: Int64
            var invitation: String
            var name: String
            var date: String
            var arrived: String
            var state: String
            var person: String?
            /// The people a waiting answer may be (``AppDatabase/invitationMatches()``).
            var matches: [Match]
        }

        /// A person a waiting answer may be: their id, where they come from, their birthday ("" when undated).
        struct Match: Encodable {
            var id: String
            var source: String
            var birthday: String
        }

        /// "Vera Vdir: matches your contact vera-vdir (Phone, no date)", or the namesakes an accept does not choose between.
        static func offer(_ answer: InvitationAnswer, _ matches: [PersonMatch]) -> String {
            let name = answer.name.isEmpty ? String(answer.id) : SafeText.line(answer.name)
            func described(_ match: PersonMatch) -> String {
                "\(match.id) (\(SafeText.line(match.source)), \(match.birthday.map(Wording.date) ?? "no date"))"
            }
            if matches.count == 1, let match = matches.first { return "\(name): matches your contact \(described(match))" }
            return "\(name): has the name of \(matches.count) of your contacts, "
                + matches.map(described).joined(separator: ", ")
                + "; accepting adds a new person unless --as names one"
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let answers = try await context.database.invitationAnswers(all: all)
            let matches = try await context.database.invitationMatches()
            let zone = try await context.settings().1
            if json {
                let listed = answers.map {
                    Listed(
                        id: $0.id,
                        invitation: $0.invitationName,
                        name: $0.name,
                        date: $0.date?.description ?? "",
                        arrived: ISOInstant.format($0.arrivedAt, in: zone),
                        state: $0.state.rawValue,
                        person: $0.personID,
                        matches: (matches[$0.id] ?? []).map { Match(id: $0.id, source: $0.source, birthday: $0.birthday?.description ?? "") }
                    )
                }
                try output(JSONOutput.string(listed, pretty: true))
                return
            }
            guard !answers.isEmpty else {
                try output(all ? "No answers yet." : "No answers wait. Make a link with: birthdays invite Friends")
                return
            }
            let rows = answers.map { answer -> [String] in
                var row = [
                    String(answer.id),
                    answer.name.isEmpty ? "-" : SafeText.line(answer.name),
                    answer.date.map(Wording.date) ?? "-",
                    SafeText.line(answer.invitationName),
                    String(ISOInstant.format(answer.arrivedAt, in: zone).prefix(16)),
                ]
                if all { row.append(answer.state.rawValue) }
                return row
            }
            let header = ["ID", "NAME", "BIRTHDAY", "INVITATION", "ARRIVED"] + (all ? ["STATE"] : [])
            try output(Table.render(rows, header: header, shrinkable: [1]))
            for answer in answers { if let found = matches[answer.id] { try output(Self.offer(answer, found)) } }
            if !all { try output("Accept one with: birthdays invites accept ID (--as PERSON to give the date to someone you have)") }
        }
    }

    struct InvitesAccept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Accept an answer: add the person (or give the date to --as PERSON), in the invitation's group."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The answer's number (see birthdays invites).")
        var id: Int64

        @Option(
            name: .customLong("as"),
            help: ArgumentHelp(
                "Give the date to this person (a name or id, as 'show' takes); 'new' adds a new person even when the name matches someone.",
                valueName: "person"
            )
        )
        var person: String?

        @Flag(help: "Keep the date here only: do not write it to the person's card in a followed vdir folder or CardDAV book.")
        var noWriteBack = false

        /// A person as every command names them: their name, and the id that picks them out ("Bob Builder (bob)").
        static func named(_ name: String?, _ id: String) -> String {
            guard let name, !name.isEmpty else { return id }
            return "\(SafeText.line(name)) (\(id))"
        }

        func run() async throws {
            let context = try Context(global)
            let asNew = person == "new"
            let target = try await person.flatMap { asNew ? nil : $0 }.asyncMap { try await context.person(matching: $0) }
            let answerName = try await context.database.invitationAnswers(all: true).first { $0.id == id }?.name
            let matches = target == nil ? try await context.database.invitationMatches()[id] ?? [] : []
            let result = try await context.database.acceptInvitationAnswer(
                id: id,
                personID: target?.id,
                asNew: asNew,
                now: context.now,
                rescheduling: context.scheduler()
            )
            switch result {
            case .unknown:
                throw CLIError("there is no answer \(id); see birthdays invites --all")
            case .decided(let state):
                throw CLIError("answer \(id) was already \(state.rawValue); see birthdays invites --all")
            case .noPerson:
                throw CLIError("the person to give the date to is gone; see birthdays people")
            case .cardHasBirthday(let personID, let birthday, let followed):
                let who = Self.named(target?.name, personID)
                let origin =
                    followed
                    ? "from their card (\(birthday)), which its next sync would bring back; nothing was changed. Change the card"
                    : "from the file they were imported from (\(birthday)), which importing it again would bring back; nothing was changed. Change the file"
                throw CLIError("\(who) already has a birthday \(origin), or reject the answer with: birthdays invites reject \(id)")
            case .alreadyDated(let personID, let group, let birthday):
                let joined = group.map { " in group \(SafeText.quoted($0))" } ?? ""
                let who = Self.named(matches.first?.name, personID)
                try output("Answer \(id) accepted as your contact \(who)\(joined), who has this birthday already (\(Wording.date(birthday))).")
            case .accepted(let personID, let isNew, let group, let date):
                let joined = group.map { " in group \(SafeText.quoted($0))" } ?? ""
                let matched = target == nil && !isNew ? matches.first { $0.id == personID } : nil
                let who = Self.named(target?.name ?? matched?.name ?? answerName, personID)
                if let matched {
                    try output(
                        "Answer \(id) accepted as your contact \(who) (\(SafeText.line(matched.source))): the birthday was given to them\(joined)."
                    )
                } else {
                    try output(
                        isNew
                            ? "Answer \(id) accepted: added \(who)\(joined)."
                            : "Answer \(id) accepted: the birthday was given to \(who)\(joined)."
                    )
                }
                if isNew, matches.count > 1 {
                    try output(
                        "It has the name of \(matches.count) of your contacts (\(matches.map(\.id).joined(separator: ", "))); "
                            + "if it is one of them: birthdays link \(matches[0].id) \(personID)"
                    )
                }
                // The date is stored (above, in one transaction); now the person's card gets it too,
                // unless asked not to. A person the answer added has no card anywhere yet.
                guard !isNew, !noWriteBack else { return }
                let writeBack = CardWriteBack(
                    database: context.database,
                    environment: context.environment,
                    logger: context.logger("birthdays.writeback")
                )
                let outcome = await writeBack.writeBirthday(personID: personID, date)
                let line = try await context.localizer()(Message.writeBack(outcome))
                if case .failed = outcome { printError(line) } else { try output(line) }
            }
        }
    }

    struct InvitesReject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reject", abstract: "Reject an answer: nothing is added.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The answer's number (see birthdays invites).")
        var id: Int64

        func run() async throws {
            let context = try Context(global)
            switch try await context.database.rejectInvitationAnswer(id: id, now: context.now, systemLocale: context.systemLocale) {
            case nil: throw CLIError("there is no answer \(id); see birthdays invites --all")
            case .waiting?: try output("Answer \(id) rejected; nothing was added.")
            case let state?: throw CLIError("answer \(id) was already \(state.rawValue); see birthdays invites --all")
            }
        }
    }
}

extension Optional {
    /// The value mapped by an async throwing `transform`, or `nil`.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async throws -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
