import BirthdayCore
import BirthdayText
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sends each reminder as an e-mail through the sendmail interface: the
/// message (``EmailMessage/reminder(_:from:to:host:now:token:)``) on the standard
/// input of `PROGRAM -i -f FROM -- TO` (`PROGRAM -i -- TO` without a sender
/// of the channel's own: the program's configuration chooses it, msmtp the
/// `from` of its account in `~/.msmtprc`, and adds the `From` header), run
/// with an argument list (never a shell) through ``ChildProcess``. msmtp (Debian `msmtp`, or `msmtp-mta`
/// for /usr/sbin/sendmail) with the user's `~/.msmtprc` is the usual program;
/// postfix's or exim's sendmail work the same way.
///
/// The program's exit status says what happened, in sysexits(3) terms as
/// msmtp uses them:
///
/// | status | meaning | error |
/// |---|---|---|
/// | 0 | handed over (the server said 250 after the data) | none |
/// | 75 EX_TEMPFAIL, 69 EX_UNAVAILABLE | no connection, SMTP 4xx | ``DeliveryError/remoteUnavailable(channel:reason:)``: retried |
/// | 64 EX_USAGE, 65 EX_DATAERR, 67 EX_NOUSER, 68 EX_NOHOST, 77 EX_NOPERM, 78 EX_CONFIG | SMTP 5xx, a wrong password, a bad address or configuration | ``DeliveryError/remoteRefused(channel:reason:)``: not retried |
/// | any other status, a signal, the timeout, a program that cannot start | | `remoteUnavailable` |
/// | no program (``sendmailProgram(explicit:environment:)`` finds none) | | `remoteRefused`, saying what to install |
///
/// Cancelling the delivering task (the daemon stopping) kills the program
/// and throws ``DeliveryError/cancelled``.
///
/// The reason is the status and the program's last line of error output
/// (read with its standard output, on one pipe): the server's words, such
/// as `msmtp: server message: 550 5.1.1 no such user`, on one line and at
/// most 300 characters; msmtp's closing "could not send mail" line is
/// passed over for the one before it. It never
/// holds the message, a name or the subject. Every attempt is a message of
/// its own, with a Message-ID of its own; a crash after the server took the
/// message and before the ledger recorded it can send it twice (at least
/// once, never lost).
package struct EmailChannel: NotificationSink {
    /// The channel's name, as errors and `status` show it.
    package let name: String
    package let to: EmailAddress
    /// The sender (`--from`); `nil` leaves it to the program's configuration.
    package let from: EmailAddress?
    /// The program given with `--sendmail`, if any.
    package let sendmail: String?
    package let host: String
    package let timeout: Duration
    private let environment: [String: String]
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let token: @Sendable () -> [UInt8]

    /// - Parameters:
    ///   - name: the channel's name, for errors.
    ///   - to: the recipient.
    ///   - from: the sender; `nil` for the one the program's configuration gives (no `-f`, no `From` header of ours).
    ///   - sendmail: the program to run; `nil` to look for one (``sendmailProgram(explicit:environment:)``).
    ///   - environment: the program's whole environment (the daemon's own:
    ///     msmtp finds `~/.msmtprc` through `HOME`), and the `PATH` to look for msmtp on.
    ///   - host: the right side of the Message-ID; this machine's name by default.
    ///   - clock: the clock of the timeout.
    ///   - timeout: how long the program may run (connecting and sending) before it is stopped. Default 60 s.
    ///   - now: the message's Date.
    ///   - token: the unique part of each message's Message-ID (16 random bytes by default).
    package init(
        name: String,
        to: EmailAddress,
        from: EmailAddress?,
        sendmail: String?,
        environment: [String: String],
        host: String = EmailChannel.hostName(),
        clock: any Clock<Duration> = ContinuousClock(),
        timeout: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = Date.init,
        token: @escaping @Sendable () -> [UInt8] = EmailMessage.randomToken
    ) {
        self.name = name
        self.to = to
        self.from = from
        self.sendmail = sendmail
        self.environment = environment
        self.host = host
        self.clock = clock
        self.timeout = timeout
        self.now = now
        self.token = token
    }

    /// The sendmail that most Linux mail setups provide.
    static let systemSendmail = "/usr/sbin/sendmail"

    /// The program to run: `explicit` when given (`nil` unless it is an
    /// executable file), else /usr/sbin/sendmail when it is executable, else
    /// `msmtp` found on the `PATH` of `environment`.
    package static func sendmailProgram(explicit: String?, environment: [String: String]) -> String? {
        if let explicit { return isExecutableFile(explicit) ? explicit : nil }
        if isExecutableFile(systemSendmail) { return systemSendmail }
        for folder in (environment["PATH"] ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = String(folder) + "/msmtp"
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// Whether `path` is a regular file (after symbolic links) that this user may execute.
    private static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }

    /// This machine's name (`gethostname`), or `localhost` when it has none.
    package static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host.isEmpty ? "localhost" : host
    }

    /// The sentence for a channel without a program.
    func noProgramReason() -> String {
        let given = sendmail.map { "\($0) (given with --sendmail) is not an executable file" } ?? "no sendmail program was found"
        return given + "; give one with --sendmail, or install /usr/sbin/sendmail or msmtp (Debian package msmtp, "
            + "with msmtp-mta for /usr/sbin/sendmail) and set up its account in ~/.msmtprc"
    }

    package func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        try await send(EmailMessage.reminder(reminder, from: from, to: to, host: host, now: now(), token: token()))
    }

    /// Hands `message` to the mail program for ``to`` (from ``from``), as
    /// ``deliver(_:)`` does a reminder's: a greeting to a friend goes this way
    /// (``EmailMessage/greeting(subject:body:from:to:host:now:timeZone:token:)``).
    package func send(_ message: EmailMessage) async throws(DeliveryError) {
        guard let program = Self.sendmailProgram(explicit: sendmail, environment: environment) else {
            throw .remoteRefused(channel: name, reason: noProgramReason())
        }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                [program, "-i"] + (from.map { ["-f", $0.headerAddress] } ?? []) + ["--", to.headerAddress],
                environment: environment,
                input: message.bytes,
                output: .capture(limit: 64 * 1024),
                stderr: .withOutput,
                timeout: timeout,
                clock: clock
            )
        } catch {
            throw .remoteUnavailable(channel: name, reason: "cannot start " + error.reason)
        }
        if let error = Self.error(for: outcome, channel: name, program: program, timeout: timeout) {
            throw Task.isCancelled ? .cancelled : error
        }
    }

    /// The error for how the program ended; `nil` for exit status 0.
    static func error(for outcome: ChildProcess.Outcome, channel: String, program: String, timeout: Duration) -> DeliveryError? {
        let words = lastLine(of: outcome.output).map { ": " + $0 } ?? ""
        if outcome.timedOut {
            return .remoteUnavailable(channel: channel, reason: "\(program) did not finish within \(timeout) and was stopped" + words)
        }
        switch outcome.termination {
        case .exited(0):
            return nil
        case .exited(let status) where permanentStatuses.contains(status):
            return .remoteRefused(channel: channel, reason: "\(program) exited with status \(status)" + words)
        case .exited(let status):
            return .remoteUnavailable(channel: channel, reason: "\(program) exited with status \(status)" + words)
        case .signalled(let signal):
            return .remoteUnavailable(channel: channel, reason: "\(program) was killed by signal \(signal)" + words)
        }
    }

    /// sysexits(3) statuses that trying again will not change: EX_USAGE,
    /// EX_DATAERR, EX_NOUSER, EX_NOHOST, EX_NOPERM, EX_CONFIG.
    static let permanentStatuses: Set<Int32> = [64, 65, 67, 68, 77, 78]

    /// The last non-empty line of `output` (msmtp's closing "could not send
    /// mail" line passed over when another comes before it), on one line and
    /// at most 300 characters; `nil` when there is none.
    static func lastLine(of output: [UInt8]) -> String? {
        let lines = String(decoding: output, as: UTF8.self)
            .split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { SafeText.line($0, maxCharacters: 300) }
            .filter { !$0.isEmpty }
        let telling = lines.filter { !$0.contains(": could not send mail") }
        return telling.last ?? lines.last
    }
}
