import Foundation
import TestSupport
import Testing

@testable import BirthdaySystem

#if canImport(Glibc)
import Glibc
#endif

/// The one rule every child runs under, with real shells: the timeout and
/// the kill grace on the caller's clock (a manual one here, so the test
/// decides when each comes), the output cap, the input.
@Suite(.timeLimit(.minutes(10)))
struct ChildProcessTests {
    private let environment = ["PATH": "/usr/bin:/bin"]

    @Test func atTheTimeoutTheGroupGetsSIGTERMThenSIGKILLAfterTheGrace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let ready = directory.file("ready")
        let terminated = directory.file("terminated")
        let clock = ManualClock(origin: Date(timeIntervalSince1970: 0))
        // Traps TERM (noting it), so only SIGKILL stops it.
        let script = """
            trap 'echo TERM; : > "$TERMINATED"' TERM
            : > "$READY"
            while :; do sleep 1; done
            """
        // (A `Task` with a typed-throws closure crashes the 6.3.1 compiler, so untyped here.)
        let run = Task { () async throws -> ChildProcess.Outcome in
            try await ChildProcess.run(
                ["/bin/sh", "-c", script],
                environment: environment.merging(["READY": ready, "TERMINATED": terminated]) { $1 },
                output: .capture(limit: 1024),
                // Long, on the manual clock: the real-time backstop (timeout + grace + 5 s) must not
                // come first on a loaded machine while the test waits for the trap.
                timeout: .seconds(600),
                killGrace: .seconds(600),
                clock: clock
            )
        }
        try await eventually("the trap set") { FileManager.default.fileExists(atPath: ready) && clock.sleeping == 1 }

        clock.advance(by: .seconds(600))
        try await eventually("the SIGTERM trapped") { FileManager.default.fileExists(atPath: terminated) }
        try await eventually("the grace begun") { clock.sleeping == 1 }
        clock.advance(by: .seconds(600))

        let outcome = try await run.value
        #expect(outcome.timedOut)
        #expect(outcome.termination == .signalled(SIGKILL))
        #expect(String(decoding: outcome.output, as: UTF8.self) == "TERM\n")
    }

    @Test func aChildThatEndsInTimeIsNotSignalled() async throws {
        let outcome = try await ChildProcess.run(["/bin/sh", "-c", "exit 3"], environment: environment, timeout: .seconds(60))
        #expect(outcome == ChildProcess.Outcome(termination: .exited(3), output: [], timedOut: false))
    }

    @Test func theCapturedOutputIsCappedAndTheChildStillRunsToItsEnd() async throws {
        // 1 MiB of output, far past the pipe's buffer and the cap: the rest is read and dropped.
        let outcome = try await ChildProcess.run(
            ["/bin/sh", "-c", "head -c 1048576 /dev/zero; echo done >&2; exit 7"],
            environment: environment,
            output: .capture(limit: 100),
            stderr: .discard,
            timeout: .seconds(60)
        )
        #expect(outcome.output == [UInt8](repeating: 0, count: 100))
        #expect(outcome.termination == .exited(7))
        #expect(!outcome.timedOut)
    }

    @Test func theInputIsDeliveredAndTheExitStatusRead() async throws {
        // A message larger than a pipe's buffer, as `sendmail` would get one,
        // read while the child writes back: neither side blocks the other.
        let message = Array(String(repeating: "Subject: Ada's birthday\n", count: 20_000).utf8)
        let outcome = try await ChildProcess.run(
            ["/bin/sh", "-c", "cat; exit 5"],
            environment: environment,
            input: message,
            output: .capture(limit: 1 << 20),
            timeout: .seconds(60)
        )
        #expect(outcome.output == message)
        #expect(outcome.termination == .exited(5))
    }

    @Test func aChildThatIgnoresItsInputDoesNotStopThisProcess() async throws {
        let outcome = try await ChildProcess.run(
            ["/bin/sh", "-c", "exec 0<&-; exit 0"],
            environment: environment,
            input: [UInt8](repeating: 65, count: 1 << 20),
            timeout: .seconds(60)
        )
        #expect(outcome.termination == .exited(0))
    }

    @Test func standardErrorCanJoinTheOutput() async throws {
        let outcome = try await ChildProcess.run(
            ["/bin/sh", "-c", "echo out; echo err >&2"],
            environment: environment,
            output: .capture(limit: 1024),
            stderr: .withOutput,
            timeout: .seconds(60)
        )
        #expect(String(decoding: outcome.output, as: UTF8.self) == "out\nerr\n")
    }

    @Test func noDescriptorIsLeftOpenInThisProcess() async throws {
        // By the pipes' own inodes, not a count of open descriptors: other suites
        // run in parallel and open and close their own meanwhile (CI once saw 59 more).
        let witness = ChildProcess.PipeWitness()
        try await ChildProcess.PipeWitness.$current.withValue(witness) {
            for _ in 0..<20 {
                _ = try await ChildProcess.run(
                    ["/bin/sh", "-c", "cat"],
                    environment: environment,
                    input: Array("x".utf8),
                    output: .capture(limit: 10),
                    timeout: .seconds(60)
                )
            }
            await #expect(throws: ChildProcess.SpawnFailure.self) {
                try await ChildProcess.run(["/nonexistent/sh"], environment: [:], input: [1], output: .capture(limit: 1), timeout: .seconds(1))
            }
        }
        // Input, output and the stop pipe, for 21 runs.
        #expect(witness.count == 63)
        #expect(witness.stillOpen() == [])
    }

    @Test func aProgramThatCannotStartIsASpawnFailure() async {
        await #expect(throws: ChildProcess.SpawnFailure(reason: "/nonexistent/sh: No such file or directory")) {
            try await ChildProcess.run(["/nonexistent/sh"], environment: [:], input: [1], output: .capture(limit: 1), timeout: .seconds(1))
        }
    }
}
