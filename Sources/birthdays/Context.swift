import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation
import Logging

/// Options every command takes, after its name or before it
/// (`birthdays --database PATH channels add …`: ``BirthdaysCommand/movingGlobalOptions(_:)``).
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file.", valueName: "path"))
    var database: String?

    @Option(
        name: .long,
        help: ArgumentHelp("The user whose database and secrets to use (birthdays users add NAME; not with --database).", valueName: "name")
    )
    var user: String?

    /// The long names of the options above, each of which takes a value: an
    /// option added here is named here too, and then works before the
    /// command's name as well.
    static let names = ["--database", "--user"]

    /// The options of `--user NAME` alone (`--all-users`: each user's).
    static func user(_ name: UserName) -> GlobalOptions {
        var options = GlobalOptions()
        options.database = nil
        options.user = name.rawValue
        return options
    }

    /// `--all-users` (`run`, `deliver`) chooses every user: `--user` and
    /// `--database` beside it are a usage error. (`BIRTHDAYS_USER` and
    /// `BIRTHDAYS_DATABASE`, weaker than an option, are not read.)
    static func refuseWithAllUsers(_ options: GlobalOptions) throws {
        if options.user != nil || options.database != nil {
            throw ValidationError("--all-users serves every user; it cannot be given with --user or --database")
        }
    }
}

/// What a command needs from the outside world, gathered in one place:
/// the only code that reads the real clock, the system time zone, the
/// locale and the environment.
///
/// ## Pretend time
/// With `BIRTHDAYS_NOW` set, a command that writes (`run`, `deliver`,
/// `snooze`, `dismiss`, `reschedule`, `import`, `settings set`, …) works on
/// a throwaway copy of the database (``TrialCopy``), says so on standard
/// error, and the copy is deleted when it exits: a trial never changes what
/// real time will see, neither the ledger nor the pending reminders nor
/// `status`. Commands that only read use the database itself. Tests and
/// scripts that want pretend time to write a database of their own set
/// `BIRTHDAYS_NOW_WRITES=1` as well.
struct Context: Sendable {
    let database: AppDatabase
    /// The database file the user named (`--database`, `BIRTHDAYS_DATABASE` or
    /// the default), even when ``database`` is a throwaway copy of it.
    let databasePath: String
    /// The user whose database this is (``database(_:environment:)``), or
    /// `nil`: a user's database is never created here.
    let user: UserName?
    /// The throwaway copy a pretend-time command works on, or `nil`.
    let trial: TrialCopy?
    let environment: [String: String]
    /// The current instant (or BIRTHDAYS_NOW).
    let now: Date
    /// The zone from the environment (TZ) or the system, before settings apply.
    let systemTimeZone: TimeZone
    /// The locale for messages from the environment (LC_ALL, LC_MESSAGES, LANG)
    /// as a BCP 47 tag, before the `language` setting applies; `nil` is English.
    let systemLocale: String?

    /// - Parameters:
    ///   - readOnly: the command only reads the database, so a database it
    ///     cannot write (its file or folder) is opened read-only instead of
    ///     failing, and a missing one is an error (exit 1) that creates nothing.
    ///     Unless `longLived`, a current database is opened read-only even
    ///     when it can be written, so the command writes nothing at all.
    ///   - emptyIfMissing: with `readOnly`, a missing database reads as an
    ///     empty one (in memory) instead of failing (`import --dry-run`).
    ///   - longLived: `run` and `serve`: the file is not read through a
    ///     mapping (``AppDatabase/openFile(at:create:readOnlyIfNotWritable:mapped:)``).
    ///   - ignoringChoiceVariables: `BIRTHDAYS_USER` and `BIRTHDAYS_DATABASE`
    ///     choose nothing (`--all-users` names each user itself).
    ///   - oneConnection: a database that can be written is opened with one
    ///     connection, not a pool (``AppDatabase/openFile(at:create:readOnlyIfNotWritable:mapped:readsOnly:oneConnection:)``):
    ///     `run --all-users` keeps every user's open.
    init(
        _ options: GlobalOptions,
        readOnly: Bool = false,
        emptyIfMissing: Bool = false,
        longLived: Bool = false,
        ignoringChoiceVariables: Bool = false,
        oneConnection: Bool = false
    ) throws {
        environment = ProcessInfo.processInfo.environment
        systemTimeZone = Context.systemTimeZone(environment)
        systemLocale = Language.fromEnvironment(environment)
        now = try Context.pretendNow(environment) ?? Date()
        var choiceEnvironment = environment
        if ignoringChoiceVariables {
            choiceEnvironment["BIRTHDAYS_USER"] = nil
            choiceEnvironment["BIRTHDAYS_DATABASE"] = nil
        }
        (databasePath, user) = try Context.database(options, environment: choiceEnvironment)
        if readOnly {
            trial = nil
            if emptyIfMissing && !FileManager.default.fileExists(atPath: databasePath) {
                database = try AppDatabase.inMemory()
            } else {
                database = try AppDatabase.openFile(
                    at: databasePath,
                    create: false,
                    readOnlyIfNotWritable: true,
                    mapped: !longLived,
                    readsOnly: !longLived
                )
            }
        } else if Context.isTrial(environment) {
            let copy = try TrialCopy(of: databasePath, environment: environment, oneConnection: oneConnection)
            trial = copy
            database = copy.database
            printError(
                "note: BIRTHDAYS_NOW is set, so this works on a throwaway copy of the database; nothing is saved "
                    + "(BIRTHDAYS_NOW_WRITES=1 writes the database itself)"
            )
        } else {
            trial = nil
            database = try AppDatabase.openFile(at: databasePath, create: user == nil, mapped: !longLived, oneConnection: oneConnection)
        }
    }

    /// The context of `run` and `serve`, opened on the store's blocking
    /// threads: their every task runs on an event loop (ARCHITECTURE.md,
    /// "Threads"), which must never wait for SQLite to open, copy or
    /// migrate the file.
    static func offTheLoop(
        _ options: GlobalOptions,
        readOnly: Bool = false,
        ignoringChoiceVariables: Bool = false,
        oneConnection: Bool = false
    ) async throws -> Context {
        let (path, user) = (options.database, options.user)
        return try await Blocking.run { () throws(any Error) -> Context in
            var options = GlobalOptions()
            options.database = path
            options.user = user
            return try Context(
                options,
                readOnly: readOnly,
                longLived: true,
                ignoringChoiceVariables: ignoringChoiceVariables,
                oneConnection: oneConnection
            )
        }
    }

    /// The database file `options` name (`--database`, else
    /// `BIRTHDAYS_DATABASE`, else the default; or a user's with `--user` or
    /// `BIRTHDAYS_USER`: ``DatabaseChoice``), absolute, so the network
    /// helper opens the same file whatever its working directory.
    ///
    /// - Throws: a `ValidationError` (exit 64) for `--user` with `--database`
    ///   or a name that is no user's name; a ``CLIError`` (one line, exit 1)
    ///   for a user that does not exist or whose folder is not safe to use.
    static func databasePath(_ options: GlobalOptions, environment: [String: String]) throws -> String {
        try database(options, environment: environment).path
    }

    /// The database file `options` name (``databasePath(_:environment:)``)
    /// and the user it belongs to: the one `--user` or `BIRTHDAYS_USER`
    /// names, or the one whose folder in the users root a `--database`
    /// path is in (``UserFolders/user(containing:)``), checked as `--user`
    /// checks them. A user's database is never created by a command (only
    /// `users add` makes one), so the daemon of a removed user never makes
    /// them again.
    ///
    /// - Parameter checkingUser: `false` names a user's database without
    ///   looking at their folder (`service uninstall` of a removed user's daemon).
    /// - Throws: as ``databasePath(_:environment:)``; a path in the folder
    ///   of a user who does not exist is the error `--user` gives for them.
    static func database(
        _ options: GlobalOptions,
        environment: [String: String],
        checkingUser: Bool = true
    ) throws -> (path: String, user: UserName?) {
        let choice: DatabaseChoice
        do {
            choice = try DatabaseChoice.choose(database: options.database, user: options.user, environment: environment)
        } catch {
            throw ValidationError(error.description)
        }
        let accounts = users(environment)
        let path: String
        switch choice {
        case .file(let file): path = absolute(file)
        case .standard: path = absolute(AppDatabase.defaultPath(environment: environment))
        case .user(let name):
            guard checkingUser else { return (accounts.folders.database(name), name) }
            do {
                return (absolute(try accounts.database(name)), name)
            } catch {
                throw CLIError(error.description)
            }
        }
        guard let name = accounts.folders.user(containing: path) else { return (path, nil) }
        guard checkingUser else { return (path, name) }
        do {
            _ = try accounts.database(name)
        } catch {
            throw CLIError(error.description)
        }
        return (path, name)
    }

    /// The users of this server: the folders of `BIRTHDAYS_USERS_DIR`, else
    /// of `users` beside the default database (``UserFolders/root(environment:dataFolder:)``).
    static func users(_ environment: [String: String]) -> UserAccounts {
        let root = UserFolders.root(environment: environment, dataFolder: AppDatabase.dataFolder(environment: environment))
        return UserAccounts(folders: UserFolders(root: absolute(root)))
    }

    /// Whether commands that write work on a throwaway copy: `BIRTHDAYS_NOW`
    /// is set and `BIRTHDAYS_NOW_WRITES=1` is not.
    static func isTrial(_ environment: [String: String]) -> Bool {
        environment["BIRTHDAYS_NOW"].map { !$0.isEmpty } == true && environment["BIRTHDAYS_NOW_WRITES"] != "1"
    }

    /// `path` from the working directory, so that the daemon lock and the
    /// network helper name the same file (with getcwd: Foundation's URLs would
    /// cost the idle daemon resident pages).
    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), let directory = getcwd(nil, 0) else { return path }
        defer { free(directory) }
        let base = String(cString: directory)
        return (base.hasSuffix("/") ? base : base + "/") + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    static func systemTimeZone(_ environment: [String: String]) -> TimeZone {
        if var tz = environment["TZ"], !tz.isEmpty {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if let zone = TimeZone(identifier: tz) { return zone }
        }
        return TimeZone.current
    }

    /// The user's settings and the zone they resolve to.
    func settings() async throws -> (Settings, TimeZone) {
        let settings = try await database.settings()
        return (settings, settings.resolvedTimeZone(system: systemTimeZone))
    }

    /// The user's settings, the zone and the language they resolve to.
    func settingsAndLanguage() async throws -> (Settings, TimeZone, Localizer) {
        let (settings, zone) = try await settings()
        return (settings, zone, settings.localizer(systemLocale: systemLocale))
    }

    /// The language of the user's words (the `language` setting, else the environment).
    func localizer() async throws -> Localizer {
        try await settingsAndLanguage().2
    }

    /// Today in the user's zone.
    func today() async throws -> LocalDate {
        let (_, zone) = try await settings()
        return LocalDate.today(at: now, in: zone)
    }

    /// `BIRTHDAYS_NOW`, or `nil` when it is not set.
    ///
    /// - Throws: a ``CLIError`` when it is not a date-time.
    static func pretendNow(_ environment: [String: String]) throws -> Date? {
        guard let override = environment["BIRTHDAYS_NOW"], !override.isEmpty else { return nil }
        guard let date = ReferenceTime.parse(override, timeZone: systemTimeZone(environment)) else {
            throw CLIError("BIRTHDAYS_NOW '\(override)' is not an ISO 8601 date-time such as 2026-03-10T08:00:00Z")
        }
        return date
    }

    /// ``flowingNow()`` for a process that makes many contexts (`run --all-users`): one clock for all of them.
    static func flowingNow(_ environment: [String: String]) throws -> @Sendable () -> Date {
        guard let base = try pretendNow(environment) else { return { Date() } }
        let start = ContinuousClock.now
        return { base.addingTimeInterval((ContinuousClock.now - start).timeInterval) }
    }

    /// The current instant for a long-running command. With BIRTHDAYS_NOW set,
    /// time starts there and flows (BIRTHDAYS_NOW + time elapsed since start,
    /// on the monotonic clock that counts suspension), so a test can start at
    /// 08:59:57 and see the 09:00 reminder three seconds later.
    func flowingNow() -> @Sendable () -> Date {
        guard let override = environment["BIRTHDAYS_NOW"], !override.isEmpty else { return { Date() } }
        let base = now
        let start = ContinuousClock.now
        return { base.addingTimeInterval((ContinuousClock.now - start).timeInterval) }
    }

    /// The system zone, read again on each call: TZ when set, else the
    /// system's (after `NSTimeZone.resetSystemTimeZone()`, since Foundation caches it).
    func liveSystemTimeZone() -> @Sendable () -> TimeZone {
        if let tz = environment["TZ"], !tz.isEmpty {
            let zone = Context.systemTimeZone(environment)
            return { zone }
        }
        return {
            NSTimeZone.resetSystemTimeZone()
            return TimeZone.current
        }
    }

    /// A logger on standard error; `BIRTHDAYS_LOG_LEVEL` (trace … critical) sets its level, default `level`.
    func logger(_ label: String, level: Logger.Level = .warning) -> Logger {
        Context.logger(label, level: level, environment: environment)
    }

    /// ``logger(_:level:)`` before a context exists (`--all-users`: a logger for every user's).
    static func logger(_ label: String, level: Logger.Level = .warning, environment: [String: String]) -> Logger {
        var logger = Logger(label: label) { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = environment["BIRTHDAYS_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? level
        return logger
    }

    /// A logger for the daemon: level `notice` unless BIRTHDAYS_LOG_LEVEL says otherwise.
    func daemonLogger(_ label: String) -> Logger {
        logger(label, level: .notice)
    }

    /// ``daemonLogger(_:)`` before a context exists.
    static func daemonLogger(_ label: String, environment: [String: String]) -> Logger {
        logger(label, level: .notice, environment: environment)
    }

    /// The scheduler over this context's database, clock and system zone.
    func scheduler() -> NotificationScheduler {
        let now = self.now
        let zone = systemTimeZone
        return NotificationScheduler(
            database: database,
            now: { now },
            systemTimeZone: { zone },
            systemLocale: systemLocale,
            logger: logger("birthdays.scheduler")
        )
    }
}

extension Context {
    /// Syncs sources from this context's database at its instant; CardDAV
    /// password commands inherit the environment (`password`: one already read).
    func sourceSync(password: String? = nil) -> SourceSync {
        let now = self.now
        let zone = systemTimeZone
        return .standard(
            database: database,
            environment: environment,
            now: { now },
            systemTimeZone: { zone },
            systemLocale: systemLocale,
            // The command reports failures itself; the log adds details at info.
            logger: logger("birthdays.sources", level: .error),
            password: password
        )
    }
}

extension FileHandle {
    /// Whether the descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}

/// A throwaway copy of the database for a command run at pretend time
/// (see ``Context``): made in a private folder under `TMPDIR` (mode 0700),
/// removed with everything in it when the command is done with it. The
/// database's secret files (``ChannelSecrets``: an Apprise or ntfy
/// URL, a team room's URL) are copied beside it, each 0600 in a 0700 folder, so a trial delivers through them as `birthdays run` would.
final class TrialCopy: Sendable {
    let folder: String
    let database: AppDatabase

    init(of path: String, environment: [String: String], oneConnection: Bool = false) throws {
        let base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/birthdays-trial-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.map { mkdtemp($0) } ?? nil }) != nil else {
            throw CLIError("cannot make a folder for the throwaway copy in \(base): \(String(cString: strerror(errno)))")
        }
        folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do {
            let copy = folder + "/birthdays.sqlite"
            database = try AppDatabase.openCopy(of: path, at: copy, oneConnection: oneConnection)
            do throws(ChannelSecretError) {
                try ChannelSecrets(databasePath: path).copy(to: ChannelSecrets(databasePath: copy))
            } catch {
                throw CLIError("cannot copy the channels' secrets for the throwaway copy: \(error)")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
