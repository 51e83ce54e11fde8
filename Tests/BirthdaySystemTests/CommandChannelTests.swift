import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem

#if canImport(Glibc)
import Glibc
#endif

extension DeliveryTests {
    @Suite(.timeLimit(.minutes(10)))
    struct CommandChannelTests {
        @Test func theReminderArrivesInEnvironmentVariables() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let out = directory.file("env.txt")
            let channel = CommandChannel(
                command: "env | grep '^BIRTHDAYS_' | sort > \"$OUT\"",
                environment: [
                    "PATH": "/usr/bin:/bin", "OUT": out, "BIRTHDAYS_TITLE": "stale value from the parent", "BIRTHDAYS_ZONE": "stale zone",
                ]
            )

            try await channel.deliver(sampleReminder(id: "r-9", personID: "p-9", title: "Ada's birthday", body: "Ada turns 37 today", late: true))

            let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(
                lines == [
                    "BIRTHDAYS_BODY=Ada turns 37 today",
                    "BIRTHDAYS_FIRE_AT=2026-03-10T09:00:00+01:00",
                    "BIRTHDAYS_ID=r-9",
                    "BIRTHDAYS_KIND=birthday",
                    "BIRTHDAYS_LATE=1",
                    "BIRTHDAYS_PERSON_ID=p-9",
                    "BIRTHDAYS_TITLE=Ada's birthday",
                    "BIRTHDAYS_WHEN=day-of",
                ]
            )
        }

        /// Someone with a zone of their own: `BIRTHDAYS_ZONE` holds it, as stored (a name or an offset).
        @Test(arguments: ["Asia/Tokyo", "-05:00"])
        func thePersonsZoneIsInBirthdaysZone(_ zone: String) throws {
            let channel = CommandChannel(command: "true", environment: ["PATH": "/usr/bin:/bin"])
            var reminder = sampleReminder()
            let parsed: PersonZone = try #require(PersonZone(cardValue: zone))
            reminder.personZone = parsed
            #expect(channel.environment(for: reminder)["BIRTHDAYS_ZONE"] == zone)
        }

        /// Linux refuses an environment string over 128 KiB (E2BIG): a title
        /// or body that long (a ledger row from before names were cut, or a
        /// body built from one) is cut, so the reminder is delivered instead
        /// of failing for good; line breaks in it become spaces.
        @Test func longOrMultiLineTextIsCutToOneShortLine() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let out = directory.file("title.txt")
            let channel = CommandChannel(
                command: "printf '%s' \"$BIRTHDAYS_TITLE\" > \"$OUT\"; printf '%s' \"$BIRTHDAYS_BODY\" > \"$OUT.body\"",
                environment: ["PATH": "/usr/bin:/bin", "OUT": out]
            )
            let long = String(repeating: "é", count: 140 * 1024)
            try await channel.deliver(sampleReminder(title: long + "'s Birthday!", body: "Eve\r\nX-Injected: yes turns 37 today"))

            let title = try String(contentsOfFile: out, encoding: .utf8)
            #expect(title.utf8.count <= CommandChannel.maxValueBytes)
            #expect(title.hasPrefix("éé") && title.hasSuffix("…"))
            #expect(try String(contentsOfFile: out + ".body", encoding: .utf8) == "Eve X-Injected: yes turns 37 today")
        }

        @Test func theCommandSeesNoInputAndOnlyStandardDescriptors() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let out = directory.file("fds.txt")
            let channel = CommandChannel(command: "ls /proc/self/fd > \"$OUT\"; cat > /dev/null", environment: ["PATH": "/usr/bin:/bin", "OUT": out])

            try await channel.deliver(sampleReminder())

            // 0 1 2, plus the descriptor ls uses to read the directory.
            let fds = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
            #expect(fds.filter { $0 > 2 }.count <= 1, "inherited descriptors: \(fds)")
        }

        @Test(arguments: [(1, DeliveryError.commandFailed(status: 1)), (42, .commandFailed(status: 42))])
        func aNonZeroExitIsAFailure(status: Int, expected: DeliveryError) async {
            let channel = CommandChannel(command: "echo 'Ada' >&2; exit \(status)", environment: [:])
            await #expect(throws: expected) { try await channel.deliver(sampleReminder()) }
            #expect(expected.description == "the notification command exited with status \(status)")
        }

        @Test func aCommandThatIsKilledIsAFailure() async {
            let channel = CommandChannel(command: "kill -9 $$", environment: [:])
            await #expect(throws: DeliveryError.commandKilled(signal: SIGKILL)) { try await channel.deliver(sampleReminder()) }
        }

        @Test func aCommandThatRunsTooLongIsStoppedWithItsChildren() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let pidFile = directory.file("child.pid")
            // The shell starts a background child and waits; both must be stopped. Five seconds, not a
            // fraction of one: the shell must have written the child's pid first, on a loaded machine too.
            let channel = CommandChannel(
                command: "sleep 600 & echo $! > \"$OUT\"; wait",
                environment: ["PATH": "/usr/bin:/bin", "OUT": pidFile],
                timeout: .seconds(5)
            )

            await #expect(throws: DeliveryError.commandTimedOut(after: .seconds(5))) { try await channel.deliver(sampleReminder()) }

            let pid = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            // kill(2) returns before the signalled process is gone: wait (bounded) for it to exit.
            let deadline = ContinuousClock.now + .seconds(60)
            while isRunning(pid) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(!isRunning(pid), "the background child survived the timeout")
        }

        @Test func aCommandIgnoringSIGTERMIsKilledAfterTheGrace() async {
            let channel = CommandChannel(
                command: "trap '' TERM; while :; do sleep 1; done",
                environment: ["PATH": "/usr/bin:/bin"],
                timeout: .milliseconds(200),
                killGrace: .milliseconds(200)
            )
            await #expect(throws: DeliveryError.commandTimedOut(after: .milliseconds(200))) { try await channel.deliver(sampleReminder()) }
        }

        @Test func aMissingShellOrEmptyCommandIsReported() async {
            let missing = CommandChannel(command: "true", environment: [:], shell: "/nonexistent/sh")
            await #expect(throws: DeliveryError.commandNotStarted(reason: "/nonexistent/sh: No such file or directory")) {
                try await missing.deliver(sampleReminder())
            }
            let empty = CommandChannel(command: "  ", environment: [:])
            await #expect(throws: DeliveryError.noCommand) { try await empty.deliver(sampleReminder()) }
        }

        @Test func cancellationStopsTheCommand() async throws {
            let channel = CommandChannel(command: "exec sleep 600", environment: ["PATH": "/usr/bin:/bin"])
            // (A `Task` with a typed-throws closure crashes the 6.3.1 compiler, so untyped here.)
            let task = Task { try await channel.deliver(sampleReminder()) }
            task.cancel()
            await #expect(throws: DeliveryError.cancelled) { try await task.value }
        }

        /// Alive and not a zombie waiting for its (gone) parent to reap it.
        private func isRunning(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
            guard let close = stat.lastIndex(of: ")") else { return false }
            let state = stat[stat.index(close, offsetBy: 2)]
            return state != "Z" && state != "X"
        }
    }
}
