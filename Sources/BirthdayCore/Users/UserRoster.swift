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
public struct UserRoster: Sendable, Equatable {
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
    }

    /// Each user the roster knows, by name.
    public private(set) var users: [UserName: State] = [:]

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
    public mutating func listed(_ names: some Sequence<UserName>) -> [Action] {
        let listed = Set(names)
        var actions: [Action] = []
        for name in listed.sorted() {
            switch users[name] {
            case nil:
                users[name] = .running(failures: 0)
                actions.append(.start(name))
            case .stopping:
                users[name] = .stopping(restart: true)
            case .running, .waiting:
                break
            }
        }
        for (name, state) in users.sorted(by: { $0.key < $1.key }) where !listed.contains(name) {
            switch state {
            case .running:
                users[name] = .stopping(restart: false)
                actions.append(.stop(name))
            case .stopping:
                users[name] = .stopping(restart: false)
            case .waiting:
                // Its pending retry finds it gone.
                users[name] = nil
            }
        }
        return actions
    }

    /// The user's daemon was built and runs: their failures are forgotten.
    /// A user asked to stop while it was being built is stopped now.
    public mutating func started(_ name: UserName) -> [Action] {
        switch users[name] {
        case .running: users[name] = .running(failures: 0)
        case .stopping: return [.stop(name)]
        case .waiting, nil: break
        }
        return []
    }

    /// The user's daemon ended: it could not be built, threw, or returned.
    public mutating func ended(_ name: UserName) -> [Action] {
        switch users[name] {
        case .running(let failures):
            // Nothing asked it to stop: it is retried, whether it threw or returned.
            let failures = failures + 1
            users[name] = .waiting(failures: failures)
            return [.retry(name, after: Self.retryDelay(failures: failures))]
        case .stopping(let restart):
            guard restart else {
                users[name] = nil
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

    /// The users whose daemon is being built or runs.
    public var served: [UserName] {
        users.compactMap { name, state in
            if case .running = state { name } else { nil }
        }.sorted()
    }
}
