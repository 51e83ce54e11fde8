import ArgumentParser
import BirthdayCore
import BirthdaySystem
import BirthdayUseCases
import Foundation

extension BirthdaysCommand {
    struct Users: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "users",
            _superCommandName: "birthdays",
            abstract: "Many people on one server: add, list and remove users, each with a folder of their own.",
            discussion: """
                Each user has a folder in the users root ($BIRTHDAYS_USERS_DIR, else users/ beside the default database: \
                ~/.local/share/birthdays/users): their database and their channels', rooms' and greetings' secrets, \
                the folder 0700 and each file 0600. Every command works on one user's data with --user NAME (before or \
                after the command's name) or BIRTHDAYS_USER, instead of --database. A name is 1 to 32 lowercase letters, \
                digits, '-' or '_', starting with a letter or a digit. See docs/server.md.
                """,
            subcommands: [UsersList.self, UsersAdd.self, UsersRemove.self, UsersMove.self],
            defaultSubcommand: UsersList.self
        )
    }
}

extension BirthdaysCommand.Users {
    /// The users commands work on the users root, not on one database:
    /// `--database` or `--user` given to one is a usage error (they are
    /// taken, hidden, so that it is said in words before the command's name as after it).
    static func refuseDatabase(_ global: GlobalOptions) throws {
        guard global.database == nil && global.user == nil else {
            throw ValidationError("the users commands work on every user's folder, not on one database: --database and --user do not go with them")
        }
    }

    /// `NAME` checked as a user's name: a bad one is a usage error (exit 64).
    static func name(_ text: String) throws -> UserName {
        do {
            return try UserName(text)
        } catch {
            throw ValidationError(error.description)
        }
    }

    struct UsersAdd: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a user: their folder (0700) with an empty database (0600)."
        )

        @OptionGroup(visibility: .hidden) var global: GlobalOptions

        @Argument(help: ArgumentHelp("The user's name: 1 to 32 lowercase letters, digits, '-' or '_'.", valueName: "name"))
        var name: String

        func run() throws {
            try BirthdaysCommand.Users.refuseDatabase(global)
            let user = try BirthdaysCommand.Users.name(name)
            let accounts = Context.users(ProcessInfo.processInfo.environment)
            do {
                try accounts.add(user)
            } catch {
                throw CLIError(error.description)
            }
            try output("Added \(user) (\(accounts.folders.folder(user))). Start with: birthdays --user \(user) onboard")
        }
    }

    struct UsersList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the users and their folders."
        )

        @OptionGroup(visibility: .hidden) var global: GlobalOptions

        @Flag(help: "Print the users as JSON.")
        var json = false

        /// One user in `users list --json`.
        struct Listed: Encodable {
            var name: String
            var folder: String
            var database: String
        }

        func run() throws {
            try BirthdaysCommand.Users.refuseDatabase(global)
            let accounts = Context.users(ProcessInfo.processInfo.environment)
            let users: [UserAccounts.Listed]
            do {
                users = try accounts.list()
            } catch {
                throw CLIError(error.description)
            }
            if json {
                try output(JSONOutput.string(users.map { Listed(name: $0.name.rawValue, folder: $0.folder, database: $0.database) }, pretty: true))
            } else if users.isEmpty {
                try output("No users yet in \(accounts.folders.root). Add one with: birthdays users add NAME")
            } else {
                try output(Table.render(users.map { [$0.name.rawValue, $0.folder] }, header: ["NAME", "FOLDER"], shrinkable: []))
            }
            for folder in accounts.folders.unfinishedMoves() {
                printError(
                    "Warning: \(accounts.folders.root)/\(folder) is left by a users move that did not finish, and holds a user's data; "
                        + "see 'Moving a user' in docs/server.md"
                )
            }
        }
    }

    struct UsersRemove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a user and their folder (with --keep-data, the folder is renamed NAME.removed and kept)."
        )

        @OptionGroup(visibility: .hidden) var global: GlobalOptions

        @Argument(help: ArgumentHelp("The user's name (see 'birthdays users list').", valueName: "name"))
        var name: String

        @Flag(help: "Keep the user's folder (renamed NAME.removed in the users root, where it is no user), instead of deleting it.")
        var keepData = false

        func run() throws {
            try BirthdaysCommand.Users.refuseDatabase(global)
            let user = try BirthdaysCommand.Users.name(name)
            let kept: String?
            do {
                kept = try Context.users(ProcessInfo.processInfo.environment).remove(user, keepData: keepData)
            } catch {
                throw CLIError(error.description)
            }
            try output(kept.map { "Removed \(user); their data is kept in \($0)." } ?? "Removed \(user) and their data.")
        }
    }

    struct UsersMove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Hand a user's folder to another users root (another machine's share, another run --all-users).",
            discussion: """
                Copies the user's database with SQLite's online backup (with the record of what was sent) and their \
                secrets with their modes into the other root, checks the copies, then makes the user appear there and \
                removes their folder here. A run --all-users of this root lets the user go first (the move waits for \
                it), and one following the other root serves them from then on: no reminder is missed or sent twice. \
                Refused while birthdays run or serve runs for the user alone. See docs/server.md.
                """
        )

        @OptionGroup(visibility: .hidden) var global: GlobalOptions

        @Argument(help: ArgumentHelp("The user's name (see 'birthdays users list').", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("The users root to move them to: a folder of this account, 0700, holding users.", valueName: "folder"))
        var to: String

        func run() throws {
            try BirthdaysCommand.Users.refuseDatabase(global)
            let user = try BirthdaysCommand.Users.name(name)
            let environment = ProcessInfo.processInfo.environment
            let target = UserAccounts(folders: UserFolders(root: Context.absolute(to)))
            let moved: UserAccounts.Moved
            do {
                // Ctrl-C or SIGTERM while waiting puts the user back; once copying, the move is finished first.
                moved = try StopSignals.catching { caught throws(UserAccounts.AccountError) in
                    try Context.users(environment).move(user, to: target, stopped: caught)
                }
            } catch {
                throw CLIError(error.description)
            }
            if let leftBehind = moved.leftBehind { printError("Warning: the old folder was not removed: \(leftBehind)") }
            try output("Moved \(user) to \(moved.folder).")
        }
    }
}
