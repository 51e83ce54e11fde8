import BirthdayCardDAV
import BirthdayCore
import BirthdayStore
import BirthdaySystem

extension SourceReaders {
    /// The readers `birthdays` uses: files and vdirs from disk, CardDAV books
    /// over HTTP(S) with the password from the source's password command
    /// (run with `environment`). A CardDAV reader, and with it an HTTP
    /// client, is made only when a CardDAV source is synced.
    public static func standard(environment: [String: String], userAgent: String = "birthdays") -> SourceReaders {
        SourceReaders { kind in
            switch kind {
            case .file, .vdir:
                LocalSourceReader()
            case .carddav:
                CardDAVReader(
                    password: { source throws(SourceError) in
                        guard let command = source.passwordCommand, !command.isEmpty else { return nil }
                        return try await PasswordCommand.run(command, environment: environment)
                    },
                    userAgent: userAgent
                )
            }
        }
    }
}
