import BirthdayCore
internal import CWake
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The one way `birthdays` runs another program: the command channel, the
/// password command, the network helper and `systemctl` all start, feed,
/// wait for and stop their child here.
///
/// Rules:
/// - **argv only.** `argv[0]` is a path and nothing is parsed by a shell; a
///   caller that runs a user's shell command passes `["/bin/sh", "-c", command]`.
/// - **Exactly `environment`.** Nothing is inherited that the caller did not pass.
/// - **Standard descriptors only.** Standard input is `input` (written to a
///   pipe, then closed) or `/dev/null`; output and error go where the caller
///   says (``Output``, ``ErrorOutput``), `/dev/null` by default, so output
///   that may hold names is never read unless asked for. Descriptors above 2
///   are closed in the child; signal dispositions and the signal mask are
///   reset to the defaults, so a daemon that ignores SIGTERM or SIGPIPE does
///   not pass that on.
/// - **One supervision rule.** The child leads a process group of its own. At
///   `timeout` (on `clock`) the group gets SIGTERM, and SIGKILL `killGrace`
///   later if the child still runs; cancelling the calling task sends SIGKILL
///   to the group at once. Either way the child is always waited for, so no
///   zombie stays behind, and a signal never reaches a process group after
///   its leader was reaped (its number could have been reused).
/// - **One waiting thread per child, started with it and ending with it.** It
///   feeds the input, reads the output and calls `waitpid`; nothing stays
///   behind in the idle daemon, and a child that runs for its whole timeout
///   never holds up a database call. The timeout sleeps on the caller's
///   clock, so the daemon's event-loop clock keeps libdispatch's pool asleep.
enum ChildProcess {
    /// How a child ended.
    enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        /// Decodes a `waitpid` status (the `WIFEXITED` macros do not import into Swift).
        init(waitStatus status: Int32) {
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        }
    }

    /// Where the child's standard output goes.
    enum Output: Sendable, Equatable {
        /// `/dev/null`.
        case discard
        /// A pipe read to its end by this process; at most `limit` bytes are
        /// kept, the rest is read and dropped (so the child never blocks on a full pipe).
        case capture(limit: Int)
        /// This process's own standard output.
        case inherit
    }

    /// Where the child's standard error goes.
    enum ErrorOutput: Sendable, Equatable {
        /// `/dev/null`.
        case discard
        /// This process's own standard error (the network helper's log lines reach the caller's log).
        case inherit
        /// Wherever standard output goes (`systemctl`'s messages, read with its output).
        case withOutput
    }

    /// How a run ended.
    struct Outcome: Sendable, Equatable {
        var termination: Termination
        /// What the child printed, with ``Output/capture(limit:)``; else empty.
        var output: [UInt8]
        /// Whether the timeout stopped it.
        var timedOut: Bool
    }

    /// Why the child could not be started: `argv[0]` and the system's reason.
    struct SpawnFailure: Error, Sendable, Equatable, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Runs `argv` to its end under the rules above.
    ///
    /// - Parameters:
    ///   - argv: the program's path and its arguments.
    ///   - environment: the child's whole environment.
    ///   - input: bytes for its standard input (a password, a message for
    ///     `sendmail`), written as the child reads them; `nil` for `/dev/null`.
    ///   - timeout: how long the child may run before SIGTERM.
    ///   - killGrace: how long after SIGTERM before SIGKILL.
    ///   - clock: the clock of the timeout and the grace.
    /// - Throws: ``SpawnFailure`` when the program cannot be started; how it
    ///   ended (a status, a signal, the timeout) is in the ``Outcome``.
    static func run(
        _ argv: [String],
        environment: [String: String],
        input: [UInt8]? = nil,
        output: Output = .discard,
        stderr: ErrorOutput = .discard,
        timeout: Duration,
        killGrace: Duration = .seconds(2),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(SpawnFailure) -> Outcome {
        let child = try Child.start(argv, environment: environment, input: input, output: output, stderr: stderr)
        return await withTaskCancellationHandler {
            await supervise(child, timeout: timeout, killGrace: killGrace, clock: clock)
        } onCancel: {
            child.kill(SIGKILL)
        }
    }

    private enum Event: Sendable {
        case ended(termination: Termination, output: [UInt8])
        case timeout
        case graceOver
        case sleepEnded
    }

    /// Waits for `child`, stopping it at the timeout; returns only once it is reaped.
    private static func supervise(_ child: Child, timeout: Duration, killGrace: Duration, clock: any Clock<Duration>) async -> Outcome {
        await withTaskGroup(of: Event.self) { group in
            group.addTask {
                // However late the clock's sleeps run (a starved executor), the child never outlives this.
                let (termination, output) = await child.wait(backstop: ContinuousClock.now + timeout + killGrace + .seconds(5))
                return .ended(termination: termination, output: output)
            }
            group.addTask {
                do { try await clock.sleep(for: timeout) } catch { return .sleepEnded }
                return .timeout
            }
            var timedOut = false
            while let event = await group.next() {
                switch event {
                case .ended(let termination, let output):
                    group.cancelAll()
                    return Outcome(termination: termination, output: output, timedOut: timedOut)
                case .timeout:
                    timedOut = true
                    child.kill(SIGTERM)
                    group.addTask {
                        do { try await clock.sleep(for: killGrace) } catch { return .sleepEnded }
                        return .graceOver
                    }
                case .graceOver:
                    child.kill(SIGKILL)
                case .sleepEnded:
                    continue
                }
            }
            // Unreachable: the wait above always ends, and ends the loop.
            return Outcome(termination: .signalled(SIGKILL), output: [], timedOut: timedOut)
        }
    }
}

extension ChildProcess {
    /// Every pipe ``ChildProcess/run(_:environment:input:output:stderr:timeout:killGrace:clock:)``
    /// makes while this task's witness is set, by its inode, so a test can
    /// ask whether any of them is still open in this process. A count of
    /// open descriptors cannot tell: other tests open and close their own
    /// meanwhile, and a pipe's inode is its own for as long as either end lives.
    final class PipeWitness: Sendable {
        @TaskLocal static var current: PipeWitness?
        private let inodes = Mutex<Set<UInt64>>([])

        init() {}

        func saw(_ fd: Int32) {
            var info = stat()
            guard fstat(fd, &info) == 0 else { return }
            inodes.withLock { _ = $0.insert(UInt64(info.st_ino)) }
        }

        /// How many pipes were seen.
        var count: Int { inodes.withLock { $0.count } }

        /// The descriptors of this process that are still an end of a pipe seen.
        func stillOpen() -> [Int32] {
            let seen = inodes.withLock { $0 }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return names.compactMap(Int32.init).filter { fd in
                var info = stat()
                return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO && seen.contains(UInt64(info.st_ino))
            }
        }
    }

    /// A started child, the pipe ends this process keeps, and whether it was reaped.
    fileprivate final class Child: Sendable {
        let pid: pid_t
        /// Our end of the child's standard input, and what to write there.
        private let input: (fd: Int32, bytes: [UInt8])?
        /// Our end of the child's standard output, and how much of it to keep.
        private let output: (fd: Int32, limit: Int)?
        /// Once true, the pid may belong to another process: no more signals.
        private let reaped = Mutex(false)
        /// Written to when the child is killed, so the pipes are left even if
        /// something outside the group still holds them open.
        private let stop: (read: Int32, write: Int32)?

        private init(pid: pid_t, input: (fd: Int32, bytes: [UInt8])?, output: (fd: Int32, limit: Int)?, stop: (read: Int32, write: Int32)?) {
            self.pid = pid
            self.input = input
            self.output = output
            self.stop = stop
        }

        static func start(
            _ argv: [String],
            environment: [String: String],
            input: [UInt8]?,
            output: Output,
            stderr: ErrorOutput
        ) throws(SpawnFailure) -> Child {
            guard let program = argv.first else { throw SpawnFailure(reason: "no program to run") }
            var opened: [Int32] = []
            func makePipe() throws(SpawnFailure) -> (read: Int32, write: Int32) {
                var ends: [Int32] = [-1, -1]
                // Close-on-exec from the start: a child another thread starts meanwhile must not
                // inherit an end (it would hold our reader's end of file open for as long as it lives).
                let result = cwake_pipe_cloexec(&ends)
                guard result == 0 else {
                    let reason = String(cString: strerror(-result))
                    for fd in opened { close(fd) }
                    throw SpawnFailure(reason: "cannot make a pipe: " + reason)
                }
                opened += ends
                PipeWitness.current?.saw(ends[0])
                return (ends[0], ends[1])
            }
            var feed: (read: Int32, write: Int32)?
            if input != nil { feed = try makePipe() }
            var capture: (pipe: (read: Int32, write: Int32), limit: Int)?
            if case .capture(let limit) = output {
                let ends = try makePipe()
                capture = (ends, limit)
            }
            var stop: (read: Int32, write: Int32)?
            if feed != nil || capture != nil { stop = try makePipe() }

            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            if let feed {
                posix_spawn_file_actions_adddup2(&actions, feed.read, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            switch output {
            case .discard: posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            case .capture: if let capture { posix_spawn_file_actions_adddup2(&actions, capture.pipe.write, 1) }
            case .inherit: break
            }
            switch stderr {
            case .discard: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            case .inherit: break
            case .withOutput: posix_spawn_file_actions_adddup2(&actions, 1, 2)
            }
            let (status, pid) = spawn(program, argv, environment: environment, actions: &actions, flags: POSIX_SPAWN_SETPGROUP)
            // The child's ends are its own now (or nobody's).
            if let feed { close(feed.read) }
            if let capture { close(capture.pipe.write) }
            guard status == 0 else {
                for fd in [feed?.write, capture?.pipe.read, stop?.read, stop?.write] { if let fd { close(fd) } }
                throw SpawnFailure(reason: program + ": " + String(cString: strerror(status)))
            }
            if let feed { _ = fcntl(feed.write, F_SETFL, fcntl(feed.write, F_GETFL) | O_NONBLOCK) }
            return Child(
                pid: pid,
                input: feed.map { (fd: $0.write, bytes: input ?? []) },
                output: capture.map { (fd: $0.pipe.read, limit: $0.limit) },
                stop: stop
            )
        }

        /// Sends `signal` to the child's process group, unless the child was reaped.
        func kill(_ signal: Int32) {
            reaped.withLock { reaped in
                guard !reaped else { return }
                _ = Glibc.kill(-pid, signal)
                // And the child itself, should it have left its process group (setpgid); once only, else it got it above.
                if getpgid(pid) != pid { _ = Glibc.kill(pid, signal) }
                if signal == SIGKILL, let stop {
                    var byte: UInt8 = 1
                    _ = Glibc.write(stop.write, &byte, 1)
                }
            }
        }

        /// Feeds, reads and reaps the child on a thread started for it, which ends with it.
        func wait(backstop: ContinuousClock.Instant) async -> (Termination, [UInt8]) {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: self.attend(backstop: backstop)) }
                thread.name = "birthdays-child"
                thread.start()
            }
        }

        /// The waiting thread's work: the pipes until both are done (or the
        /// child was killed), then the exit.
        ///
        /// The backstop is kept here, on real time, apart from the timeout
        /// on the caller's clock: a child still there at `backstop` gets
        /// SIGKILL, even when the caller's executor is too busy to run its
        /// timer (it can be, in a loaded test process).
        private func attend(backstop: ContinuousClock.Instant) -> (Termination, [UInt8]) {
            let bytes = pump(backstop: backstop)
            let pidfd = cwake_pidfd_open(pid)
            if pidfd >= 0 {
                defer { cwake_close(pidfd) }
                while true {
                    var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                    let ready = poll(&entry, 1, Self.milliseconds(until: backstop))
                    if ready > 0 { break }
                    if ready == 0 {
                        kill(SIGKILL)
                        break
                    }
                    if errno != EINTR { break }
                }
            }
            // Wait without reaping, then reap under the lock that signals take:
            // a signal is sent before the pid is released or not at all.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 {
                if errno != EINTR { break }
            }
            var status: Int32 = 0
            let reapedOK = reaped.withLock { reaped in
                reaped = true
                while waitpid(pid, &status, 0) == -1 {
                    if errno != EINTR { return false }
                }
                return true
            }
            if let stop {
                close(stop.read)
                close(stop.write)
            }
            return (reapedOK ? Termination(waitStatus: status) : .signalled(SIGKILL), bytes)
        }

        /// Milliseconds from now until `deadline` for `poll` (0 once it has passed).
        static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return 0 }
            return Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        }

        /// Writes the input and reads the output until both pipes are closed,
        /// or until the child is killed (whatever else holds them).
        private func pump(backstop: ContinuousClock.Instant) -> [UInt8] {
            guard let stop else { return [] }
            var inputFD = input?.fd ?? -1
            var outputFD = output?.fd ?? -1
            let bytes = input?.bytes ?? []
            let limit = output?.limit ?? 0
            var written = 0
            var kept: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            // A child that stops reading its input must not stop this process
            // with SIGPIPE: blocked here, it is taken back below.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            if bytes.isEmpty, inputFD >= 0 {
                close(inputFD)
                inputFD = -1
            }
            while inputFD >= 0 || outputFD >= 0 {
                var entries = [
                    pollfd(fd: stop.read, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0),
                    pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&entries, nfds_t(entries.count), Self.milliseconds(until: backstop))
                if ready == 0 {
                    // The backstop passed: the kill writes to the stop pipe, which ends this loop.
                    kill(SIGKILL)
                    continue
                }
                if ready < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if entries[0].revents != 0 {
                    // Killed: what the child wrote before is kept (a loaded machine may not have read it yet), but
                    // the pipe is not waited on to its end (whatever else holds it open may never close it).
                    while outputFD >= 0 {
                        var entry = pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)
                        guard poll(&entry, 1, 0) > 0 else { break }
                        let count = buffer.withUnsafeMutableBytes { read(outputFD, $0.baseAddress, $0.count) }
                        guard count > 0 else { break }
                        if kept.count < limit { kept += buffer[0..<min(count, limit - kept.count)] }
                    }
                    break
                }
                if entries[1].revents != 0 {
                    let count = bytes.withUnsafeBytes { write(inputFD, $0.baseAddress! + written, $0.count - written) }
                    if count > 0 { written += count }
                    if (count < 0 && errno != EINTR && errno != EAGAIN) || written == bytes.count {
                        if count < 0 && errno == EPIPE {
                            var none = timespec()
                            _ = sigtimedwait(&pipeSignal, nil, &none)
                        }
                        close(inputFD)
                        inputFD = -1
                    }
                }
                if entries[2].revents != 0 {
                    let count = buffer.withUnsafeMutableBytes { read(outputFD, $0.baseAddress, $0.count) }
                    if count > 0 {
                        if kept.count < limit { kept += buffer[0..<min(count, limit - kept.count)] }
                    } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                        close(outputFD)
                        outputFD = -1
                    }
                }
            }
            if inputFD >= 0 { close(inputFD) }
            if outputFD >= 0 { close(outputFD) }
            return kept
        }
    }
}

extension ChildProcess {
    /// `posix_spawn` of `program` with `argv` and exactly `environment`, the
    /// child's signal dispositions reset to their defaults and its mask
    /// emptied, descriptors above 2 closed, `actions` applied before, and
    /// `flags` added (`POSIX_SPAWN_SETPGROUP` for a group of its own led by
    /// the child, or the session flag). The C strings are freed after.
    ///
    /// - Returns: `posix_spawn`'s status (0 when started) and the child's pid.
    static func spawn(
        _ program: String,
        _ argv: [String],
        environment: [String: String],
        actions: inout posix_spawn_file_actions_t,
        flags: Int32
    ) -> (status: Int32, pid: pid_t) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) | flags))
        _ = cwake_spawn_add_closefrom(&actions, 3)

        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.sorted { $0.key < $1.key }.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            for item in arguments { free(item) }
            for item in variables { free(item) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, &attributes, arguments, variables)
        return (status, pid)
    }
}
