/// Which users `birthdays run --all-users` serves, as a value: what the
/// users root lists, what became of each user's daemon, and what to do
/// next. The daemon's loop only lists the root, starts and stops each
/// user's daemon and sleeps until a retry; every decision is here.
///
/// Rules:
/// - A user listed and not served is started; a user served and no longer
///   listed is stopped (gracefully: a reminder being handed over finishes).
/// - A user whose daemon could not start (their database does not open, is
///   not a database, their lock is held by a `run --user` of theirs) or
///   ended by itself is started again after ``retryDelay(failures:)``,
///   while they are still listed; each failure doubles the wait, up to
///   ``longestRetry``, and a daemon that started resets it.
/// - A user removed and added again before their old daemon has stopped is
///   started again once it has: one daemon per user at any moment.
/// - A user is known by their name and their folder (``Identity``): a name
///   listed again on another folder or database (removed and added again,
///   or removed with `--keep-data` and added, between two listings) is
///   another user, so the daemon of the one before is stopped and theirs
///   started once it has.
/// - Memory is handed back once for every user (``Action/releaseMemory``),
///   when each user whose daemon is built or runs rests (``rested(_:)``) and
///   one of them passed since the last time, never once per user.
public struct UserRoster: Sendable, Equatable {
    /// Which folder and database a user's name stands for, as the kernel
    /// knows them (device and inode): another one under the same name is
    /// another user. A database that is missing has none.
    public struct Identity: Sendable, Hashable {
        public var folder: FileIdentity
        public var database: FileIdentity?

        public init(folder: FileIdentity, database: FileIdentity?) {
            self.folder = folder
            self.database = database
        }
    }

    /// A file however it is named: its device and inode.
    public struct FileIdentity: Sendable, Hashable {
        public var device: UInt64
        public var inode: UInt64

        public init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// One user as the root lists them.
    public struct Listed: Sendable, Hashable {
        public var name: UserName
        public var identity: Identity

        public init(name: UserName, identity: Identity) {
            self.name = name
            self.identity = identity
        }
    }

    /// What the roster knows of one user.
    public enum State: Sendable, Equatable {
        /// Their daemon is being built or runs; `failures` in a row before it.
        case running(failures: Int)
        /// Asked to stop; `restart` when they were listed again meanwhile.
        case stopping(restart: Bool)
        /// Their daemon failed `failures` times in a row; a retry is pending.
        case waiting(failures: Int)
    }

    /// What the loop does.
    public enum Action: Sendable, Equatable {
        /// Build and run the user's daemon.
        case start(UserName)
        /// Shut the user's daemon down gracefully.
        case stop(UserName)
        /// Sleep `after`, then call ``retryDue(_:)`` for the user.
        case retry(UserName, after: Duration)
        /// Hand the memory every user rests without back to the kernel, once.
        case releaseMemory
    }

    /// Each user the roster knows, by name.
    public private(set) var users: [UserName: State] = [:]
    /// The folder each user's daemon is (or is to be) built on.
    private var identities: [UserName: Identity] = [:]
    /// The users whose daemon rests since its last pass.
    private var resting: Set<UserName> = []
    /// Whether memory was handed back since the last pass of any user.
    private var released = false

    /// The first wait after a failure.
    public static let firstRetry = Duration.seconds(5)
    /// The longest wait between two attempts.
    public static let longestRetry = Duration.seconds(300)

    public init() {}

    /// The wait before the next attempt after `failures` failures in a row (at least one):
    /// 5 s, 10 s, 20 s, … up to 5 minutes.
    public static func retryDelay(failures: Int) -> Duration {
        let doublings = min(max(failures, 1) - 1, 16)
        return min(firstRetry * (1 << doublings), longestRetry)
    }

    /// The users the root lists now: who to start and who to stop.
    public mutating func listed(_ listing: some Sequence<Listed>) -> [Action] {
        var listed: [UserName: Identity] = [:]
        for user in listing { listed[user.name] = user.identity }
        var actions: [Action] = []
        for (name, identity) in listed.sorted(by: { $0.key < $1.key }) {
            let same = identities[name] == identity
            identities[name] = identity
            switch users[name] {
            case nil:
                users[name] = .running(failures: 0)
                actions.append(.start(name))
            case .stopping:
                users[name] = .stopping(restart: true)
            case .running where !same:
                // Another user of the same name: the daemon of the one before stops, theirs starts once it has.
                users[name] = .stopping(restart: true)
                resting.remove(name)
                actions.append(.stop(name))
            case .waiting where !same:
                // Another user's folder: tried at once, their own failures still to come.
                users[name] = .running(failures: 0)
                actions.append(.start(name))
            case .running, .waiting:
                break
            }
        }
        for (name, state) in users.sorted(by: { $0.key < $1.key }) where listed[name] == nil {
            switch state {
            case .running:
                users[name] = .stopping(restart: false)
                resting.remove(name)
                actions.append(.stop(name))
            case .stopping:
                users[name] = .stopping(restart: false)
            case .waiting:
                // Its pending retry finds it gone.
                users[name] = nil
                identities[name] = nil
            }
        }
        return actions
    }

    /// The user's daemon was built and runs: their failures are forgotten.
    /// A user asked to stop while it was being built is stopped now.
    public mutating func started(_ name: UserName) -> [Action] {
        // Its start read what no one had read: memory is worth handing back once it rests.
        released = false
        switch users[name] {
        case .running: users[name] = .running(failures: 0)
        case .stopping: return [.stop(name)]
        case .waiting, nil: break
        }
        return []
    }

    /// The user's daemon ended: it could not be built, threw, or returned.
    public mutating func ended(_ name: UserName) -> [Action] {
        resting.remove(name)
        switch users[name] {
        case .running(let failures):
            // Nothing asked it to stop: it is retried, whether it threw or returned.
            let failures = failures + 1
            users[name] = .waiting(failures: failures)
            return [.retry(name, after: Self.retryDelay(failures: failures))]
        case .stopping(let restart):
            guard restart else {
                users[name] = nil
                identities[name] = nil
                return []
            }
            users[name] = .running(failures: 0)
            return [.start(name)]
        case .waiting, nil:
            return []
        }
    }

    /// A retry's wait is over: the user is started again if still listed and still waiting.
    public mutating func retryDue(_ name: UserName) -> [Action] {
        guard case .waiting(let failures) = users[name] else { return [] }
        users[name] = .running(failures: failures)
        return [.start(name)]
    }

    /// The user's daemon rests after a pass: once every user's does, memory
    /// is handed back, unless it was already and no one passed since.
    public mutating func rested(_ name: UserName) -> [Action] {
        guard case .running = users[name] else { return [] }
        resting.insert(name)
        guard !released, served.allSatisfy(resting.contains) else { return [] }
        released = true
        return [.releaseMemory]
    }

    /// The user's daemon passes again after resting.
    public mutating func woke(_ name: UserName) {
        resting.remove(name)
        released = false
    }

    /// The users whose daemon is being built or runs.
    public var served: [UserName] {
        users.compactMap { name, state in
            if case .running = state { name } else { nil }
        }.sorted()
    }
}
