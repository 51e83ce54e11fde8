import Foundation

/// What kind of place a ``Source`` follows.
public enum SourceKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// One `.vcf` or `.csv` file.
    case file
    /// A folder of `.vcf` files, one contact each (vdirsyncer, Radicale, Nextcloud exports).
    case vdir
    /// An address book on a CardDAV server ([RFC 6352](https://www.rfc-editor.org/rfc/rfc6352)).
    case carddav

    /// Whether the source is on this machine (watched with inotify) rather than on a server (synced on a timer).
    public var isLocal: Bool { self != .carddav }
}

/// A place `birthdays` follows contacts from: a file, a vdir folder or a
/// CardDAV address book.
///
/// ## Ownership
/// A source owns the people it brought. A contact deleted at the source
/// leaves the store at the next sync, unless another source has it too or
/// `birthdays import` brought it (imports belong to no source and no sync
/// removes them). Edits update the person in place; a person in two sources
/// stays one person, following the import's merge rules.
///
/// ## Credentials
/// Only ``passwordCommand`` is stored: it is run with `/bin/sh -c` at each
/// sync and the first line of its output is the password, which is never
/// stored, logged or printed.
public struct Source: Sendable, Hashable, Identifiable {
    public var id: Int64
    /// Unique, chosen by the user or taken from the address book's display name.
    public var name: String
    public var kind: SourceKind
    /// An absolute path (file, vdir) or the address book's `http(s)://` URL, without credentials.
    public var location: String
    public var username: String?
    public var passwordCommand: String?
    public var status: SourceStatus

    public init(
        id: Int64 = 0,
        name: String,
        kind: SourceKind,
        location: String,
        username: String? = nil,
        passwordCommand: String? = nil,
        status: SourceStatus = SourceStatus()
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.location = location
        self.username = username
        self.passwordCommand = passwordCommand
        self.status = status
    }
}

/// How a source's syncs have gone.
public struct SourceStatus: Sendable, Hashable {
    /// The end of the last sync that succeeded.
    public var lastSync: Date?
    /// The last sync that was tried, successful or not.
    public var lastAttempt: Date?
    /// Why the last sync failed, as a sentence (never a name or a password); `nil` after a success.
    public var error: String?
    /// Syncs that failed in a row since the last success.
    public var failures: Int
    /// When the running daemon will sync it next (`nil` when no daemon runs, or it waits for a change on disk).
    public var nextSync: Date?
    /// How many people the source owns.
    public var people: Int

    public init(lastSync: Date? = nil, lastAttempt: Date? = nil, error: String? = nil, failures: Int = 0, nextSync: Date? = nil, people: Int = 0) {
        self.lastSync = lastSync
        self.lastAttempt = lastAttempt
        self.error = error
        self.failures = failures
        self.nextSync = nextSync
        self.people = people
    }
}
