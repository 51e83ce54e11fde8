/// How a server that keeps many users lays out their data: one folder per
/// user under one root, each a self-contained copy of what a single user
/// has beside their database, so moving, backing up or removing a user is
/// moving, copying or removing a folder.
///
/// ```
/// ROOT/                          0700  ($BIRTHDAYS_USERS_DIR, else users/ beside the default database)
///   NAME/                        0700  one per user (UserName), a real folder, never a link
///     birthdays.sqlite           0600  the database (-wal and -shm beside it while it is open)
///     birthdays.sqlite.secrets/  0700  the channels', rooms' and greetings' URLs, each 0600
///     birthdays.sqlite.lock      0600  held by the daemon of this user
///     birthdays.sqlite.serve     0600  where this user's feed server listens
///   NAME.removed/                      a folder `users remove NAME --keep-data` kept: no user
///   .all-users.lock              0600  held by `birthdays run --all-users`, one per root
///   .NAME.adding-XXXXXX/               a user `users add` is making, renamed to NAME once whole: no user
///   .NAME.removing-XXXXXX/             a user `users remove` is deleting: no user
/// ```
///
/// Nothing in a user's folder or its secrets folder may be a symbolic link:
/// a link planted there would make one user's commands read or write
/// another's files.
public enum UserLayout {
    /// The name of the database file in a user's folder.
    public static let databaseFile = "birthdays.sqlite"
    /// The name of the users root beside the default database.
    public static let rootName = "users"
    /// The environment variable that names another users root.
    public static let rootVariable = "BIRTHDAYS_USERS_DIR"
    /// The mode of the root and of each user's folder.
    public static let folderMode: UInt16 = 0o700
    /// The mode of each file in a user's folder.
    public static let fileMode: UInt16 = 0o600
    /// What a kept folder's name gets (`users remove NAME --keep-data`):
    /// a dot, which no user's name holds, so it is never taken for a user.
    public static let keptSuffix = ".removed"

    /// The name the lock of `birthdays run --all-users` is taken under in
    /// the root (the daemon lock adds `.lock`): a dot first, so no user's.
    public static let allUsersDaemon = ".all-users"

    /// User `name`'s folder under `root`.
    public static func folder(_ name: UserName, root: String) -> String { joined(root, name.rawValue) }

    /// User `name`'s database under `root`.
    public static func database(_ name: UserName, root: String) -> String { folder(name, root: root) + "/" + databaseFile }

    /// The name a kept folder of `name` gets, the `attempt`-th free one:
    /// `NAME.removed`, then `NAME.removed-2`, `NAME.removed-3`, …
    public static func keptName(_ name: UserName, attempt: Int) -> String {
        name.rawValue + keptSuffix + (attempt <= 1 ? "" : "-" + String(attempt))
    }

    /// The user whose folder `path` is in, read from the words of both
    /// paths (absolute, or both from one folder): `ROOT/NAME/…` with `NAME`
    /// a user's name and something below it, after `.`, `..` and repeated
    /// slashes are read as a file system would without links; `nil` for a
    /// path outside the root, in it directly, or in a folder whose name is
    /// no user's (a kept `NAME.removed`).
    ///
    /// A database a command would create there is a user's, and a user is
    /// made only by `users add`: that is how a removed user's daemon never
    /// makes them again.
    public static func user(containing path: String, root: String) -> UserName? {
        let words = normalized(path)
        let rootWords = normalized(root)
        guard words.count > rootWords.count + 1, Array(words.prefix(rootWords.count)) == rootWords else { return nil }
        return try? UserName(words[rootWords.count])
    }

    /// The words of `path` with `.` and empty ones left out and each `..`
    /// taking the word before it away (above the top of an absolute path
    /// it stays there); a first word "/" for an absolute path.
    public static func normalized(_ path: String) -> [String] {
        var words: [String] = path.hasPrefix("/") ? ["/"] : []
        let base = words.count
        for word in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch word {
            case ".": continue
            case "..":
                if words.count > base, words.last != ".." {
                    words.removeLast()
                } else if base == 0 {
                    words.append("..")
                }
            default: words.append(String(word))
            }
        }
        return words
    }

    private static func joined(_ root: String, _ name: String) -> String {
        (root.hasSuffix("/") ? root : root + "/") + name
    }
}

/// Which database a command works on, from its options and its environment:
/// a user's (``UserName``), a file, or the default.
///
/// An option is stronger than a variable of the environment: `--user` is
/// taken over `BIRTHDAYS_DATABASE`, `--database` over `BIRTHDAYS_USER`.
/// Both of one strength name two databases and are refused: `--user` with
/// `--database`, or `BIRTHDAYS_USER` with `BIRTHDAYS_DATABASE` (an empty
/// variable is an unset one).
public enum DatabaseChoice: Sendable, Equatable {
    /// A user's database (`--user`, else `BIRTHDAYS_USER`).
    case user(UserName)
    /// A database file (`--database`, else `BIRTHDAYS_DATABASE`).
    case file(String)
    /// Neither: the default database.
    case standard

    /// The choice `database` (`--database`) and `user` (`--user`) make under `environment`.
    ///
    /// - Throws: ``DatabaseChoiceError`` for two choices of one strength or a name that is no user's name.
    public static func choose(database: String?, user: String?, environment: [String: String]) throws(DatabaseChoiceError) -> DatabaseChoice {
        let variable = { (key: String) in environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        if let user {
            if database != nil { throw .both(options: true) }
            return try .user(name(user))
        }
        if let database { return .file(database) }
        let userVariable = variable("BIRTHDAYS_USER")
        let databaseVariable = variable("BIRTHDAYS_DATABASE")
        if let userVariable {
            if databaseVariable != nil { throw .both(options: false) }
            return try .user(name(userVariable))
        }
        if let databaseVariable { return .file(databaseVariable) }
        return .standard
    }

    private static func name(_ text: String) throws(DatabaseChoiceError) -> UserName {
        do {
            return try UserName(text)
        } catch {
            throw .badName(error)
        }
    }
}

/// Why the options and the environment choose no one database.
public enum DatabaseChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A user and a database both, as options (`true`) or as variables.
    case both(options: Bool)
    case badName(UserNameError)

    public var description: String {
        switch self {
        case .both(true): "--user and --database both choose a database; give one of them"
        case .both(false): "BIRTHDAYS_USER and BIRTHDAYS_DATABASE are both set and both choose a database; unset one of them"
        case .badName(let error): error.description
        }
    }
}
