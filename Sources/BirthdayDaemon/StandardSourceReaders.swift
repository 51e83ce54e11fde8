import BirthdayCardDAV
import BirthdayCore
import BirthdayStore
import BirthdaySystem

extension SourceReaders {
    /// The readers `birthdays` uses: files and vdirs from disk, CardDAV books
    /// over HTTP(S) with the password from the source's password command
    /// (run with `environment`). A CardDAV reader, and with it an HTTP
    /// client, is made only when a CardDAV source is synced.
    ///
    /// - Parameter known: a password already obtained from the command (by
    ///   `sources add`, for discovery), so that a password manager is not
    ///   asked twice in a row.
    public static func standard(environment: [String: String], userAgent: String = "birthdays", known: String? = nil) -> SourceReaders {
        SourceReaders { kind in
            switch kind {
            case .file, .vdir:
                LocalSourceReader()
            case .carddav:
                CardDAVReader(
                    password: { source throws(SourceError) in
                        guard let command = source.passwordCommand, !command.isEmpty else { return nil }
                        if let known { return known }
                        return try await PasswordCommand.run(command, environment: environment)
                    },
                    userAgent: userAgent
                )
            }
        }
    }
}
