import ArgumentParser
import Foundation

/// What `birthdays` tells the helper about itself when the helper writes to
/// the database for it: the file, the caller's clock, zone and locale (so
/// the helper's rescheduling and texts are the caller's, pretend time included).
struct CallerOptions: ParsableArguments {
    @Option(help: "The database file.") var database: String
    @Option(help: "The caller's instant, in seconds since 1970.") var now: Double
    @Option(help: "The system time zone of the caller.") var timeZone: String
    @Option(help: "The caller's locale (a BCP 47 tag), for the words written.") var locale: String?

    /// ``now`` as an instant.
    var instant: Date { Date(timeIntervalSince1970: now) }

    /// ``timeZone``, or GMT when Foundation does not know it.
    var zone: TimeZone { TimeZone(identifier: timeZone) ?? .gmt }
}

/// `--password-stdin`: the password on the first line of standard input, never on the command line.
struct PasswordOption: ParsableArguments {
    @Flag(help: "Read the password from the first line of standard input.") var passwordStdin = false

    /// The password read from standard input, or `nil` without the flag.
    func password() -> String? {
        passwordStdin ? NetworkHelperCommand.passwordFromStandardInput() : nil
    }
}
