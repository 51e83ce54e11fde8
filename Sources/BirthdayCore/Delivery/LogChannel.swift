/// Writes one `key=value` line per delivered reminder, for the journal.
///
/// The line carries the reminder's public id (``Reminder/logID``: a keyed
/// hash, never the UID or a hash of the name), kind, when, fire time (ISO
/// 8601 with offset) and late flag, never its title, body or the person's name:
///
///     reminder delivered id=r-3f9ce1a07b5d2c48 kind=birthday when=day-of fire_at=2026-03-10T09:00:00+01:00 late=0
///
/// Values are written bare when they hold only `A-Z a-z 0-9 . _ - : +`, and
/// quoted with `\"` and `\\` escaped otherwise, so the line stays one line.
public struct LogChannel: NotificationSink {
    private let write: @Sendable (String) throws -> Void

    /// - Parameter write: writes one line (without its newline); the CLI
    ///   passes a function that prints to standard output.
    public init(write: @escaping @Sendable (String) throws -> Void) {
        self.write = write
    }

    public func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        do {
            try write(Self.line(for: reminder))
        } catch {
            throw .logWriteFailed(reason: String(describing: error))
        }
    }

    /// The line for `reminder`.
    public static func line(for reminder: Reminder) -> String {
        let fields: [(String, String)] = [
            ("id", reminder.logID),
            ("kind", reminder.kindName),
            ("when", reminder.when.rawValue),
            ("fire_at", reminder.fireAtISO8601),
            ("late", reminder.late ? "1" : "0"),
        ]
        return "reminder delivered " + fields.map { $0.0 + "=" + quoted($0.1) }.joined(separator: " ")
    }

    static func quoted(_ value: String) -> String {
        let bare =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy { scalar in
                PersonID.isSafe(scalar) || scalar == ":" || scalar == "+"
            }
        if bare { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
