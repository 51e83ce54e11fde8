import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Delivers a reminder through one Apprise URL (Telegram, Matrix, Signal,
/// Pushover, Discord, e-mail and a hundred more) with Debian's `apprise`
/// command, the well-kept library for those services.
///
/// Rules:
/// - One call per channel, so one URL per call: apprise's exit status cannot
///   say which of several URLs failed, and a retry must not send again to
///   one that worked.
/// - The URL (it carries tokens and passwords) is read by apprise from the
///   channel's 0600 file (``ChannelSecrets``)
///   given with `-c`: never in an argument list, an environment or a log.
/// - The reminder's title and text (which name the person and the day) go
///   on standard input, never as an argument: another user's `ps` would
///   show a name in an argument list. apprise's command line takes a title
///   only as an argument (`-t`), so when `apprise` is a Python script
///   (Debian's), its interpreter runs apprise's own command line
///   (`apprise.cli.main`) through a short fixed program (``titledProgram``)
///   that reads the title from the first line of standard input and the
///   body from the rest: the same options, exit statuses and words, and the
///   title arrives as the title. Any other `apprise` gets the title as the
///   body's first line. The program runs with an argument list, never a shell.
/// - Names, notes and a link's label in them cannot ping a room or disguise
///   a link on the service Apprise posts to: mention and link syntax is
///   shown, not parsed (``ChatText``).
/// - Exit status 0 is delivered; 1 (a service failed) is retried
///   (``DeliveryError/remoteUnavailable(channel:reason:)``); 2 (bad
///   arguments) and 3 (nothing matched: an empty or unreadable file) are
///   refusals that waiting will not fix (``DeliveryError/remoteRefused(channel:reason:)``).
///   A signal, the timeout, or a program that cannot start is retried; no
///   `apprise` at all is a refusal naming the Debian package.
/// - Its output is read only for the last line of what it said, kept as the
///   reason (one line, at most 300 characters), with every part of the URL
///   four characters or longer masked: the reason reaches `status` and the log.
package struct AppriseChannel: NotificationSink {
    package let name: String
    /// The apprise config file holding the URL.
    package let configuration: String
    private let environment: [String: String]
    private let clock: any Clock<Duration>
    private let timeout: Duration
    private let program: String?

    package init(
        name: String,
        configuration: String,
        environment: [String: String],
        clock: any Clock<Duration> = ContinuousClock(),
        timeout: Duration = .seconds(60),
        program: String? = nil
    ) {
        self.name = name
        self.configuration = configuration
        self.environment = environment
        self.clock = clock
        self.timeout = timeout
        self.program = program ?? AppriseChannel.program(environment: environment)
    }

    /// `apprise` on the `PATH` of `environment`, else /usr/bin/apprise, when executable.
    package static func program(environment: [String: String]) -> String? {
        let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init) + ["/usr/bin"]
        return folders.map { $0 + "/apprise" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The message's body: the reminder's body (a digest's lines), then,
    /// with `notes-on-channels` on, the person's note, and with
    /// `contact-links` on, a line with the person's first contact link.
    /// Names, notes and the link's label cannot ping a room or disguise a
    /// link (``ChatText``): Apprise hands them to Slack, Discord, Matrix and
    /// the others as they are; the link's own address is left whole.
    static func body(of reminder: Reminder) -> String {
        let contact = reminder.sharedContactLink.map { SafeText.line(ChatText.harmless($0.label) + ": " + $0.uri) }
        return ChatText.harmless(reminder.sharedBody) + (reminder.sharedNoteLine.map { "\n" + ChatText.harmless($0) } ?? "")
            + (contact.map { "\n" + $0 } ?? "")
    }

    /// The title as Apprise gets it: one line, its mention and link syntax shown, not parsed (``ChatText``).
    static func title(of reminder: Reminder) -> String {
        ChatText.harmless(SafeText.line(reminder.title))
    }

    /// What goes on the standard input of ``titledProgram``: the title on
    /// one line, then the body.
    static func titledInput(of reminder: Reminder) -> [UInt8] {
        Array((title(of: reminder) + "\n" + body(of: reminder) + "\n").utf8)
    }

    /// What goes on a plain apprise's standard input (its body): the title,
    /// a blank line, and the body.
    static func plainInput(of reminder: Reminder) -> [UInt8] {
        Array((title(of: reminder) + "\n\n" + body(of: reminder) + "\n").utf8)
    }

    /// The Python program that runs apprise's command line with the title
    /// (the first line of standard input) and the body (the rest) as
    /// options, in-process: `INTERPRETER -c titledProgram CONFIG`.
    static let titledProgram = """
        import sys
        from apprise.cli import main
        title = sys.stdin.readline().rstrip("\\n")
        body = sys.stdin.read().rstrip("\\n")
        main(args=["-c", sys.argv[1], "-t", title, "-b", body], prog_name="apprise")
        """

    /// The Python interpreter of `program` when it is a Python script
    /// (`#!/usr/bin/python3`), else `nil`.
    static func pythonInterpreter(of program: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: program) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 256)) ?? Data(), as: UTF8.self)
        guard head.hasPrefix("#!"), let line = head.dropFirst(2).split(separator: "\n").first else { return nil }
        let words = line.split(separator: " ").map(String.init)
        guard words.count == 1, let first = words.first, first.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: first).lastPathComponent.hasPrefix("python") ? first : nil
    }

    package func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        try await send(titled: Self.titledInput(of: reminder), plain: Self.plainInput(of: reminder))
    }

    /// Sends a message with `title` and `body` as they are (a greeting to a
    /// friend, whose names are already harmless), on one line each but for the body's line breaks.
    package func send(title: String, body: String) async throws(DeliveryError) {
        let title = SafeText.line(title)
        try await send(titled: Array((title + "\n" + body + "\n").utf8), plain: Array((title + "\n\n" + body + "\n").utf8))
    }

    /// Runs apprise with `titled` (``titledProgram``'s input) or `plain` (a plain apprise's) on its standard input.
    private func send(titled: [UInt8], plain: [UInt8]) async throws(DeliveryError) {
        guard let program else {
            throw .remoteRefused(channel: name, reason: "the apprise program is not installed (Debian package apprise)")
        }
        // Apprise says only "You must specify at least one server URL" for a file it cannot read: name the file.
        guard access(configuration, R_OK) == 0 else {
            throw .remoteRefused(channel: name, reason: RemoteChannel.missingSecret(file: configuration, kind: .apprise))
        }
        var variables = environment
        // Apprise reads its own config files from these too; only the one given with -c may count.
        for key in variables.keys where key.hasPrefix("APPRISE_") { variables[key] = nil }
        let interpreter = Self.pythonInterpreter(of: program)
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                interpreter.map { [$0, "-c", Self.titledProgram, configuration] } ?? [program, "-c", configuration],
                environment: variables,
                input: interpreter == nil ? plain : titled,
                output: .capture(limit: 16_384),
                stderr: .withOutput,
                timeout: timeout,
                clock: clock
            )
        } catch {
            throw .remoteUnavailable(channel: name, reason: "apprise could not be started: \(error.reason)")
        }
        let url = (try? String(contentsOfFile: configuration, encoding: .utf8)) ?? ""
        let said = Self.lastLine(outcome.output).map { Self.masking(url, in: $0) }
        if outcome.timedOut {
            throw .remoteUnavailable(channel: name, reason: "apprise did not finish within \(timeout.components.seconds) s")
        }
        let text = String(decoding: outcome.output, as: UTF8.self)
        switch outcome.termination {
        case .exited(0):
            return
        case .exited where text.contains("You must specify at least one server URL"):
            // Debian 12's apprise says so, with status 1, for a file it cannot read or a URL it does not understand.
            throw .remoteRefused(channel: name, reason: "apprise found no URL it understands in the channel's file" + (said.map { ": " + $0 } ?? ""))
        case .exited(let status) where status == 2 || status == 3:
            throw .remoteRefused(channel: name, reason: "apprise exited with status \(status)" + (said.map { ": " + $0 } ?? ""))
        case .exited(let status):
            throw .remoteUnavailable(channel: name, reason: "apprise exited with status \(status)" + (said.map { ": " + $0 } ?? ""))
        case .signalled(let signal):
            throw .remoteUnavailable(channel: name, reason: "apprise was killed by signal \(signal)")
        }
    }

    /// `line` with every part of `url` (split at `/:@?&=#.,`) of four characters or more replaced by `…`.
    static func masking(_ url: String, in line: String) -> String {
        let parts = url.split(whereSeparator: { "/:@?&=#.,\n\r ".contains($0) }).map(String.init).filter { $0.count >= 4 }
        var masked = line
        for part in parts.sorted(by: { $0.count > $1.count }) { masked = masked.replacingOccurrences(of: part, with: "…") }
        return masked
    }

    /// What apprise said last: its first `ERROR` line without the time stamp
    /// (before the usage text it prints after one), else its last non-empty
    /// line; on one line, at most 300 characters.
    static func lastLine(_ output: [UInt8]) -> String? {
        let lines = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline).filter { !$0.trimmingWhitespace().isEmpty }
        if let error = lines.first(where: { $0.contains(" - ERROR - ") }), let range = error.range(of: " - ERROR - ") {
            return SafeText.line(error[range.upperBound...], maxCharacters: 300)
        }
        return lines.last.map { SafeText.line($0, maxCharacters: 300) }
    }

    /// Whether apprise understands the URL in `configuration` (`--dry-run`,
    /// which sends nothing); `nil` when apprise is not installed. What it
    /// prints (the URL itself) is never kept.
    package static func understands(configuration: String, environment: [String: String]) async -> Bool? {
        guard let program = program(environment: environment) else { return nil }
        let outcome = try? await ChildProcess.run(
            [program, "--dry-run", "-c", configuration, "-b", "birthdays"],
            environment: environment.filter { !$0.key.hasPrefix("APPRISE_") },
            timeout: .seconds(60)
        )
        return outcome?.termination == .exited(0)
    }
}
