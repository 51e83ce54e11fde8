import Foundation

/// An address book found on a CardDAV server.
public struct AddressBook: Sendable, Equatable, Codable {
    /// Its URL, ending with `/`.
    public var url: String
    /// Its `displayname`, when it has one.
    public var displayName: String?

    public init(url: String, displayName: String?) {
        self.url = url
        self.displayName = displayName
    }

    /// A name for the source: the display name, else the last segment of the
    /// path; on one line (``SafeText/line(_:maxCharacters:)``), since a server
    /// chose it and it is shown on terminals.
    public var suggestedName: String {
        if let displayName {
            let line = SafeText.line(displayName)
            if !line.isEmpty { return line }
        }
        let segments = URL(string: url)?.pathComponents.filter { $0 != "/" } ?? []
        return SafeText.line(segments.last ?? url)
    }
}

/// What the `birthdays-network` helper prints on standard output, as JSON:
/// the value it was asked for, or the error that kept it from one.
public struct HelperReply<Value: Codable & Sendable, Failure: Error & Codable & Sendable>: Codable, Sendable {
    public var value: Value?
    public var error: Failure?

    public init(value: Value?, error: Failure?) {
        self.value = value
        self.error = error
    }
}

/// The exit statuses of `birthdays-network sync`, so that a caller that does
/// not read its report still knows what happened (the report and the log
/// say the rest).
public enum HelperExit {
    /// Synced; no person changed.
    public static let synced: Int32 = 0
    /// Synced, and people changed (the reminders were rescheduled).
    public static let peopleChanged: Int32 = 3
    /// The sync failed; the source's status says why.
    public static let failed: Int32 = 4
}
