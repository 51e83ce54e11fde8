import NIOPosix

/// Where blocking work runs: SQLite calls, reading contact files, exporting.
///
/// On NIO's thread pool (`NIOThreadPool.singleton`), never on the calling
/// thread: in `birthdays run` and `serve` Swift concurrency runs on NIO's
/// event loops (ARCHITECTURE.md says why), and a blocked event loop would
/// hold up every connection and timer on it. Idle pool threads wait on a
/// condition variable and cost no wakeups.
package enum Blocking {
    /// Runs `work` on the thread pool and returns what it returned or threw.
    /// Should the pool not be running, `work` runs on the calling thread.
    package static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let outcome = try? await NIOThreadPool.singleton.runIfActive { () -> Result<T, E> in
            do throws(E) { return .success(try work()) } catch { return .failure(error) }
        }
        return try
            (outcome
            ?? { () -> Result<T, E> in
                do throws(E) { return .success(try work()) } catch { return .failure(error) }
            }()).get()
    }
}
