import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs the user's command for each reminder: `/bin/sh -c COMMAND`, with the
/// reminder in environment variables.
///
/// Variables (set for every run, overriding inherited ones of the same name; one
/// that is unset here is removed, never inherited):
///
/// | Variable | Value |
/// |---|---|
/// | `BIRTHDAYS_ID` | the notification id |
/// | `BIRTHDAYS_TITLE` | the title, such as "Ada's birthday" |
/// | `BIRTHDAYS_BODY` | the body text |
/// | `BIRTHDAYS_PERSON_ID` | the person's id |
/// | `BIRTHDAYS_FIRE_AT` | ISO 8601 with offset, `2026-03-10T09:00:00+01:00` |
/// | `BIRTHDAYS_KIND` | `birthday` or `anniversary` |
/// | `BIRTHDAYS_WHEN` | `day-before` or `day-of` |
/// | `BIRTHDAYS_LATE` | `1` when delivered after its time, else `0` |
/// | `BIRTHDAYS_ZONE` | the person's own zone (`Asia/Tokyo`, `+09:00`); unset for your own |
///
/// Title and body are on one line (``SafeText/line(_:maxCharacters:)``: no
/// line breaks or control characters, whatever the contact held) and at most
/// ``maxValueBytes`` bytes each, cut with `…`: Linux refuses to start a
/// program whose environment holds a string over 128 KiB, and a reminder
/// must never fail for good because of a long name.
///
/// Rules:
/// - Exit status 0 is success; any other status, a signal, or running past
///   `timeout` is a failure the daemon retries (see ``RetryPolicy``).
/// - At the timeout the command's process group gets SIGTERM, and SIGKILL
///   `killGrace` later if it is still running (``ChildProcess``'s one rule).
/// - Standard input, output and error are `/dev/null`: output could contain
///   names, so it is never read or logged; only the exit status is reported.
///   Redirect inside the command to keep it (`cmd >>"$HOME/birthdays.log" 2>&1`).
package struct CommandChannel: NotificationSink {
    package let command: String
    package let timeout: Duration
    package let killGrace: Duration
    private let baseEnvironment: [String: String]
    private let shell: String
    private let clock: any Clock<Duration>

    /// - Parameters:
    ///   - command: the shell command line.
    ///   - environment: what the command inherits besides the `BIRTHDAYS_*`
    ///     variables; the CLI passes the daemon's own environment.
    ///   - timeout: how long the command may run. Default 30 s.
    ///   - killGrace: time between SIGTERM and SIGKILL. Default 2 s.
    ///   - shell: the shell; `/bin/sh` unless a test says otherwise.
    package init(
        command: String,
        environment: [String: String],
        timeout: Duration = .seconds(30),
        killGrace: Duration = .seconds(2),
        shell: String = "/bin/sh",
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.command = command
        self.baseEnvironment = environment
        self.timeout = timeout
        self.killGrace = killGrace
        self.shell = shell
        self.clock = clock
    }

    /// The most UTF-8 bytes `BIRTHDAYS_TITLE` or `BIRTHDAYS_BODY` holds.
    package static let maxValueBytes = 8 * 1024

    /// The environment the command runs with for `reminder`.
    package func environment(for reminder: Reminder) -> [String: String] {
        var environment = baseEnvironment
        environment["BIRTHDAYS_ID"] = reminder.id
        environment["BIRTHDAYS_TITLE"] = Self.value(reminder.title)
        // Your command may forward anywhere: a digest's note lines only under notes-on-channels, as for the added channels.
        environment["BIRTHDAYS_BODY"] = Self.value(reminder.sharedBody, keepingLines: reminder.digest != nil)
        // A digest is about no one person: the variable is not set.
        environment["BIRTHDAYS_PERSON_ID"] = reminder.digest == nil ? reminder.personID : nil
        environment["BIRTHDAYS_FIRE_AT"] = reminder.fireAtISO8601
        environment["BIRTHDAYS_KIND"] = reminder.kindName
        environment["BIRTHDAYS_WHEN"] = reminder.when.rawValue
        environment["BIRTHDAYS_LATE"] = reminder.late ? "1" : "0"
        environment["BIRTHDAYS_ZONE"] = reminder.personZone?.storedValue
        return environment
    }

    /// `text` on one line (or, `keepingLines`, its lines each made safe: a
    /// digest's body), cut to at most ``maxValueBytes`` UTF-8 bytes (ending in `…`).
    static func value(_ text: String, keepingLines: Bool = false) -> String {
        let line = keepingLines ? text : SafeText.line(text)
        guard line.utf8.count > maxValueBytes else { return line }
        var cut = ""
        var bytes = "…".utf8.count
        for character in line {
            bytes += character.utf8.count
            if bytes > maxValueBytes { break }
            cut.append(character)
        }
        return cut + "…"
    }

    package func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        guard !command.trimmingWhitespace().isEmpty else { throw .noCommand }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                [shell, "-c", command],
                environment: environment(for: reminder),
                timeout: timeout,
                killGrace: killGrace,
                clock: clock
            )
        } catch {
            throw .commandNotStarted(reason: error.reason)
        }
        if outcome.timedOut { throw .commandTimedOut(after: timeout) }
        switch outcome.termination {
        case .exited(0): return
        case .exited(let status): throw .commandFailed(status: status)
        case .signalled(let signal): throw Task.isCancelled ? .cancelled : .commandKilled(signal: signal)
        }
    }
}
