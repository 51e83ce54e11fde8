import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where blocking work runs: SQLite calls, reading contact files, exporting.
///
/// On a pool of threads of its own (``BlockingPool/shared``), never on the
/// calling thread: in `birthdays run` and `serve` Swift concurrency runs on
/// NIO's event loops (ARCHITECTURE.md says why), and a blocked event loop
/// would hold up every connection and timer on it. The pool needs nothing
/// but Foundation's threads, so the store links no event-loop library.
///
/// Rules:
/// - Work never runs on the caller's thread, whatever happens.
/// - ``run(ifCancelled:_:)``: a task cancelled before its work has started
///   gets `cancelled` thrown and the work never runs (cancellation ends the
///   work; it does not move it elsewhere). Work that has started runs to its
///   end: SQLite cannot be interrupted half-way through a transaction.
/// - ``run(_:)`` runs the work to its end even when the task is cancelled, for
///   callers that need its result (parsing, exporting, compressing).
package enum Blocking {
    /// Runs `work` on the pool unless the task is cancelled before it starts,
    /// in which case `cancelled` is thrown and `work` never runs.
    package static func run<T: Sendable, E: Error>(
        ifCancelled cancelled: E,
        _ work: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let job = BlockingPool.Job()
        let work = TakenOnce(work)
        let result: Result<T, E>? = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>?, Never>) in
                BlockingPool.shared.submit(job) { shouldRun in
                    let taken = work.take()
                    guard shouldRun, let taken else { return continuation.resume(returning: nil) }
                    continuation.resume(returning: Self.result(of: taken))
                }
            }
        } onCancel: {
            job.cancel()
        }
        guard let result else { throw cancelled }
        return try result.get()
    }

    /// Runs `work` on the pool to its end, cancelled or not.
    package static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let work = TakenOnce(work)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>?, Never>) in
            BlockingPool.shared.submit(BlockingPool.Job()) { _ in
                continuation.resume(returning: work.take().map { Self.result(of: $0) })
            }
        }
        // The pool runs every job it takes, so there is always a result.
        guard let result else { preconditionFailure("a blocking job ran without its work") }
        return try result.get()
    }

    /// What `work` returns or throws, with `work` itself (and whatever it
    /// holds: a database) released before the caller is resumed. Else the
    /// pool's thread could let go of the last reference after the command
    /// had ended and the process exited, and the database would never be
    /// closed: its write-ahead log left beside the file.
    private static func result<T, E>(of work: consuming @escaping @Sendable () throws(E) -> T) -> Result<T, E> {
        var work: (@Sendable () throws(E) -> T)? = work
        let result: Result<T, E>
        do throws(E) {
            result = .success(try work!())
        } catch {
            result = .failure(error)
        }
        work = nil
        _ = work
        return result
    }
}

/// A closure a pool thread takes once: the box lets go of it when taken, so
/// the job's own copy holds nothing after it ran.
private final class TakenOnce<Work: Sendable>: @unchecked Sendable {
    // Taken by the one pool thread that runs the job, after `submit`'s lock
    // handed it over; never read again.
    private var work: Work?

    init(_ work: Work) { self.work = work }

    func take() -> Work? {
        defer { work = nil }
        return work
    }
}

/// A fixed set of threads that run blocking jobs in the order they come.
///
/// The threads start with the first job and then stay; an idle one waits on a
/// condition variable and costs no wakeups. Their number is
/// `BIRTHDAYS_BLOCKING_THREADS` when set (`make test` sets 8: the test process
/// runs hundreds of stores at once), else the number of cores, at least 2.
package final class BlockingPool: Sendable {
    /// One job's cancellation flag.
    package final class Job: Sendable {
        private let cancelled = Mutex(false)

        package init() {}

        func cancel() { cancelled.withLock { $0 = true } }
        var isCancelled: Bool { cancelled.withLock { $0 } }
    }

    private struct Entry: @unchecked Sendable {
        var job: Job
        /// Called with whether the job should run (false: it was cancelled before it started).
        var body: (Bool) -> Void
    }

    private struct State {
        var queue: [Entry] = []
        var head = 0
        var started = false
    }

    package static let shared = BlockingPool(threads: BlockingPool.defaultThreads())

    private let threads: Int
    private let condition = NSCondition()
    // Guarded by `condition`; a Mutex would need a second lock to wait on.
    private nonisolated(unsafe) var state = State()

    init(threads: Int) {
        self.threads = max(1, threads)
    }

    static func defaultThreads() -> Int {
        if let value = ProcessInfo.processInfo.environment["BIRTHDAYS_BLOCKING_THREADS"], let count = Int(value), count > 0 {
            return min(count, 64)
        }
        return max(2, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Queues `body`; it is called on a pool thread with whether `job` may run.
    func submit(_ job: Job, _ body: @escaping @Sendable (Bool) -> Void) {
        condition.lock()
        state.queue.append(Entry(job: job, body: body))
        let start = !state.started
        state.started = true
        condition.signal()
        condition.unlock()
        if start {
            for index in 0..<threads {
                let thread = Thread { [self] in
                    // Linux's name for the thread, at most 15 bytes, written by the thread itself:
                    // Foundation's `name` did not reach it (too long, and set before the thread
                    // knew itself), and the thread kept its creator's, an event loop's `NIO-SGLTN-…`.
                    if let comm = fopen("/proc/thread-self/comm", "w") {
                        fputs("birthdays-io-\(index)", comm)
                        fclose(comm)
                    }
                    work()
                }
                thread.start()
            }
        }
    }

    private func work() {
        while true {
            condition.lock()
            while state.head == state.queue.count { condition.wait() }
            let entry = state.queue[state.head]
            state.head += 1
            if state.head == state.queue.count {
                state.queue.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 256 && state.head * 2 >= state.queue.count {
                // Under steady load the queue is never empty: drop what was taken, so it cannot grow.
                state.queue.removeFirst(state.head)
                state.head = 0
            }
            condition.unlock()
            entry.body(!entry.job.isCancelled)
        }
    }
}
