import ArgumentParser
import BirthdayCore
import BirthdayStore
import CExecutorHook
import Foundation
import NIOCore
import NIOPosix

/// `birthdays`: the command-line front end. Commands parse arguments, call
/// the library and print; the rules live in BirthdayCore and BirthdayStore.
@main
struct BirthdaysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "birthdays",
        abstract: "Never miss a birthday: import contact exports, list upcoming birthdays, get reminded.",
        discussion: """
            Data lives in one SQLite file: --database PATH (before the command's name or after it), else $BIRTHDAYS_DATABASE, \
            else $XDG_DATA_HOME/birthdays/birthdays.sqlite (~/.local/share/...); on a server that keeps many users, \
            --user NAME (or $BIRTHDAYS_USER) is that user's own (birthdays users). \
            BIRTHDAYS_NOW (ISO 8601) overrides the current time for every command; commands that write then work \
            on a throwaway copy of the database, so a trial never changes what real time will see.
            """,
        version: BuildInfo.versionText,
        // Grouped in `--help` by what a person does; the order within a group is the order of a first week.
        groupedSubcommands: [
            CommandGroup(
                name: "Contacts",
                subcommands: [
                    Import.self, Sources.self, People.self, Show.self, Groups.self, NameDaysCommand.self, Note.self, Zone.self,
                    Exclude.self, Include.self, Duplicates.self, Link.self, Unlink.self,
                ]
            ),
            CommandGroup(
                name: "Reminders",
                subcommands: [
                    Upcoming.self, DigestCommand.self, Remind.self, Status.self, Pending.self, Snooze.self, Dismiss.self, Channels.self,
                    Announce.self, Greet.self, Notifications.self, Run.self, Deliver.self, Reschedule.self,
                ]
            ),
            CommandGroup(
                name: "Calendar and sharing",
                subcommands: [Export.self, Feed.self, Serve.self, Publish.self, ShareCommand.self, Invite.self, Invites.self]
            ),
            CommandGroup(name: "Setup", subcommands: [Onboard.self, SettingsCommand.self, ServiceCommand.self, Users.self]),
        ]
    )

    @OptionGroup var global: GlobalOptions

    /// Bare `birthdays`. While there is nobody to remind (no database at
    /// `--database`, else `$BIRTHDAYS_DATABASE`, else the default path, or one without people)
    /// it says what to do first; once there are people, it prints the help,
    /// as it always did. Either way the status is 0.
    func run() async throws {
        let path = try Context.databasePath(global, environment: ProcessInfo.processInfo.environment)
        guard FileManager.default.fileExists(atPath: path) else {
            try output(Self.firstSteps)
            return
        }
        // A database that cannot be read is for the commands that use it to report: here it is the help.
        guard let database = try? AppDatabase.openFile(at: path, create: false, readOnlyIfNotWritable: true, readsOnly: true),
            (try? await database.peopleCount()) == 0
        else { throw CleanExit.helpRequest(self) }
        let onboarded = (try? await database.onboardingMachine().step) == .complete
        try output(onboarded ? Self.noContactsYet : Self.firstSteps)
    }

    /// What bare `birthdays` prints before there is anyone to remind.
    static let firstSteps = """
        No contacts yet. Start with: birthdays onboard
        Every command: birthdays --help
        """

    /// ``firstSteps`` once the onboarding is complete (it skipped the contacts).
    static let noContactsYet = """
        No contacts yet. Import some with: birthdays import PATH (or follow an address book: birthdays sources add PATH|URL)
        Every command: birthdays --help
        """

    /// Parses the command line, then runs the command. The long-running
    /// commands (`run` and `serve`) first put Swift concurrency on NIO's
    /// event loops (``installEventLoopExecutor()``); the others keep the
    /// default executor.
    ///
    /// A usage error the command finds only as it runs (a name that fits no
    /// group, a setting that does not exist) is told as one found while
    /// parsing is: the error, then the usage of the command the person typed,
    /// not the top-level one, and exit status 64 (``usageError(_:in:)``).
    static func main() async {
        // `birthdays --version` alone is answered before the command tree is
        // built (ArgumentParser reads every command's options and help for
        // that): what ArgumentParser prints for it, at a third of the cost.
        if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--version" {
            print(BuildInfo.versionText)
            return
        }
        let arguments = movingGlobalOptions(Array(CommandLine.arguments.dropFirst()))
        var command: any ParsableCommand
        do {
            if let typed = parseTypedBranch(arguments) {
                command = typed
            } else {
                // A command name that names none (`birthdays upcomin`, `help nonexistent`) is told with the nearest ones.
                if let unknown = unknownCommand(in: arguments) {
                    printError(usageError(unknown.error, in: unknown.parent))
                    Foundation.exit(ExitCode.validationFailure.rawValue)
                }
                command = try parseAsRoot(arguments)
            }
        } catch {
            exit(withError: error)
        }
        do {
            if command is Run || command is Serve { installEventLoopExecutor() }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            printError(usageError(error, in: type(of: command)))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    /// The command `arguments` name, parsed with only the branch of the tree
    /// below their first word (`upcoming`, or `settings` for `settings set
    /// …`), or `nil` to parse them from the root. ArgumentParser reads the
    /// options of every command in the tree it is given (their property
    /// wrappers, through `Mirror` and the runtime's conformance lookups),
    /// about half of a short command's start; the branch holds one command,
    /// or a few. Only a command parsed without any objection is taken:
    /// anything else (no such command, a usage error, `--help`, `help`, a
    /// completion request) is parsed again from the root, so what is printed
    /// then, and its exit status, are the root's, word for word. Each command
    /// under the root names `birthdays` as its `_superCommandName`, which
    /// ArgumentParser reads only of the command a parse starts from: a branch
    /// then skips the two parsers that look for `--generate-completion-script`
    /// (a tenth of `upcoming`'s start), and the root still answers it.
    static func parseTypedBranch(_ arguments: [String]) -> sending (any ParsableCommand)? {
        guard let name = arguments.first, !name.hasPrefix("-") else { return nil }
        guard let branch = subcommand(name, of: self),
            let command = try? branch.parseAsRoot(Array(arguments.dropFirst())),
            contains(type(of: command), in: branch)
        else { return nil }
        return command
    }

    /// `arguments` with the options every command takes (``GlobalOptions``)
    /// that come before the command's name moved after it: `--database PATH
    /// channels add NAME` is `channels add --database PATH NAME`, which is
    /// what ArgumentParser reads, the typed branch included. The command's
    /// name is its words down the tree (`channels add`); options after it,
    /// and everything when no command is named, are left as they are (the
    /// root takes them too, for bare `birthdays --database PATH`).
    static func movingGlobalOptions(_ arguments: [String]) -> [String] {
        let index = globalOptionsFirst(arguments)
        guard index > 0 else { return arguments }
        var command: any ParsableCommand.Type = self
        var end = index
        while end < arguments.count, let child = subcommand(arguments[end], of: command) {
            command = child
            end += 1
        }
        guard end > index else { return arguments }
        return Array(arguments[index..<end]) + arguments[..<index] + Array(arguments[end...])
    }

    /// How many of the first words of `arguments` are options every command
    /// takes (``GlobalOptions/names``: `--database PATH`, `--database=PATH`).
    private static func globalOptionsFirst(_ arguments: [String]) -> Int {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if GlobalOptions.names.contains(where: { word.hasPrefix($0 + "=") }) {
                index += 1
            } else if GlobalOptions.names.contains(word), index + 1 < arguments.count {
                index += 2
            } else {
                break
            }
        }
        return index
    }

    /// The subcommand of `command` that `name` names (its name or an alias), if any.
    private static func subcommand(_ name: String, of command: any ParsableCommand.Type) -> (any ParsableCommand.Type)? {
        command.configuration.subcommands.first { subcommand in
            let configuration = subcommand.configuration
            return configuration.commandName == name || configuration.aliases.contains(name)
        }
    }

    /// The usage error of a word where a command's name is due that names
    /// none (`birthdays upcomin`, `birthdays help nonexistent`, `birthdays
    /// channels ad`), with the nearest names, and the command whose usage
    /// goes with it; `nil` when the words name commands. Below a command
    /// with a default subcommand (`invite Friends` is `invite add Friends`)
    /// only a word near one of its subcommands' names is taken for a typo.
    static func unknownCommand(in arguments: [String]) -> (error: ValidationError, parent: any ParsableCommand.Type)? {
        var words = arguments.dropFirst(globalOptionsFirst(arguments))
        let help = words.first == "help"
        if help { words = words.dropFirst() }
        var parent: any ParsableCommand.Type = self
        var path: [String] = []
        while let word = words.first, !word.hasPrefix("-") {
            if let child = subcommand(word, of: parent) {
                parent = child
                path.append(word)
                words = words.dropFirst()
                continue
            }
            let children = parent.configuration.subcommands.filter { $0.configuration.shouldDisplay }
            guard !children.isEmpty else { return nil }
            let near = NameChoice.suggestions(for: word, in: children.map { $0._commandName })
            guard help || parent.configuration.defaultSubcommand == nil || !near.isEmpty else { return nil }
            let named = { (name: String) in "'" + (path + [name]).joined(separator: " ") + "'" }
            let head = "no command is called " + named(SafeText.line(word))
            let tail =
                near.isEmpty
                ? " (every command: " + (["birthdays"] + path + ["--help"]).joined(separator: " ") + ")"
                : "; did you mean " + near.map(named).joined(separator: " or ") + "?"
            return (ValidationError(head + tail), parent)
        }
        return nil
    }

    /// Whether `command` is `branch` or one of the subcommands below it
    /// (ArgumentParser's own `help` and completion commands are not).
    private static func contains(_ command: any ParsableCommand.Type, in branch: any ParsableCommand.Type) -> Bool {
        ObjectIdentifier(command) == ObjectIdentifier(branch)
            || branch.configuration.subcommands.contains { contains(command, in: $0) }
    }

    /// What ArgumentParser prints for a usage error found while parsing
    /// `command`: `Error: <message>`, its usage line, and where its help is.
    static func usageError(_ error: ValidationError, in command: any ParsableCommand.Type) -> String {
        let names = ([self] + path(to: command, from: self)).map { $0._commandName }.joined(separator: " ")
        return "Error: \(error.message)\nUsage: \(usageString(for: command))\n  See '\(names) --help' for more information."
    }

    /// The subcommands from `root` down to `command` (`[SettingsCommand, SettingsSet]`); empty for `root` itself.
    private static func path(to command: any ParsableCommand.Type, from root: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
        for child in root.configuration.subcommands {
            if ObjectIdentifier(child) == ObjectIdentifier(command) { return [child] }
            let below = path(to: command, from: child)
            if !below.isEmpty { return [child] + below }
        }
        return []
    }

    /// Makes NIO's singleton event loops Swift concurrency's global executor
    /// (ARCHITECTURE.md, "Threads", says why): libdispatch's worker pool
    /// starts a monitor on its first job that wakes the process every second
    /// for good, and `birthdays run` must stay asleep between reminders. It
    /// has to happen before the first job is enqueued.
    ///
    /// NIO offers the same switch, but finds the runtime's hook with `dlsym`,
    /// which fails silently when the runtime is linked into the executable
    /// (the release build); `CExecutorHook` refers to it directly. The
    /// compiler guard is NIO's: the hook's signature is known to hold for
    /// these runtime versions only, and a newer compiler stops the build
    /// rather than build a daemon that wakes every second.
    ///
    /// It fails loudly: when the hook cannot be installed (another one was
    /// there first), the command stops with exit status 70 and one line,
    /// instead of running on an executor that keeps the machine awake.
    static func installEventLoopExecutor() {
        #if compiler(<6.6)
        guard birthdays_install_global_executor(enqueueOnEventLoop) else {
            FileHandle.standardError.write(
                Data(
                    ("Error: cannot put Swift concurrency on the event loops (another executor hook is installed); "
                        + "birthdays run and serve would wake the machine every second, so they do not start\n").utf8
                )
            )
            Foundation.exit(70)
        }
        #else
        #error("CExecutorHook: check swift_task_enqueueGlobal_hook's signature for this compiler (as SwiftNIO does), then raise this bound")
        #endif
    }
}

/// Swift concurrency's global executor: an event loop of NIO's singleton
/// group. A global function, so that it carries no actor isolation into the
/// threads that call it.
private func enqueueOnEventLoop(_ job: UnsafeMutableRawPointer) {
    MultiThreadedEventLoopGroup.singleton.any().enqueue(ExecutorJob(unsafeBitCast(job, to: UnownedJob.self)))
}
