import Foundation

/// Why a source could not be added or synced. What the network, the server
/// or the password command did wrong is a ``RemoteError``, wrapped as
/// ``remote(_:)``; the rest is a source's own. Each case reads as one
/// sentence; none carries a password, a person's name or a date of birth.
public enum SourceError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// A file or folder could not be read.
    case cannotRead(path: String, reason: String)
    /// The network, the server or the password command failed (``RemoteError``).
    case remote(RemoteError)
    /// The URL is reachable but neither an address book nor a way to one.
    case notAnAddressBook(url: String)
    /// Discovery found the account but no address book in it.
    case noAddressBooks(url: String)
    /// The sync would remove too many of the source's people (see ``MassRemoval``).
    case massRemoval(source: String, removing: Int, of: Int)
    /// There is no source with that name.
    case unknownSource(name: String)
    /// A source with that name exists already.
    case duplicateName(name: String)
    /// The location cannot be followed (a relative URL, a password in the URL, an unknown scheme …).
    case invalidLocation(location: String, reason: String)
    /// This build or machine cannot do it (libxml2 missing, for example).
    case unavailable(reason: String)
    /// The database failed; the store's own sentence.
    case store(String)

    /// One line: what a server or a file system said (a reason phrase, a
    /// display name, a path) is quoted with its control characters visible
    /// (``SafeText/quoted(_:)``), so it can neither break the line nor reach
    /// a terminal as an escape sequence.
    public var description: String {
        if case .remote(let error) = self { return error.description }
        return SafeText.quoted(sentence)
    }

    private var sentence: String {
        switch self {
        case .remote(let error): error.description
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .notAnAddressBook(let url): "\(url) is not a CardDAV address book, and no address book was found from it"
        case .noAddressBooks(let url): "the account at \(url) has no address books"
        case .massRemoval(let source, let removing, let total):
            "refusing to remove \(removing) of the \(total) people of '\(source)' (the source looks emptied); "
                + "if that is right, run: birthdays sources sync '\(source)' --allow-mass-removal"
        case .unknownSource(let name): "there is no source named '\(name)'; see birthdays sources list"
        case .duplicateName(let name): "a source named '\(name)' exists already; choose another with --name"
        case .invalidLocation(let location, let reason): "cannot follow \(location): \(reason)"
        case .unavailable(let reason): reason
        case .store(let reason): reason
        }
    }
}

/// The guard against a sync that would empty a source, as vdirsyncer
/// refuses to sync an emptied storage.
///
/// A sync is refused when it would remove **every** person the source owns,
/// or **more than half** of them when it owns more than 10, until the user
/// confirms with `birthdays sources sync NAME --allow-mass-removal`. A source
/// that owns nobody yet (the first sync) is never refused.
public enum MassRemoval {
    /// Whether removing `removing` of the `owned` people a source owns needs confirmation.
    public static func needsConfirmation(removing: Int, of owned: Int) -> Bool {
        guard removing > 0, owned > 0 else { return false }
        return removing >= owned || (owned > 10 && removing * 2 > owned)
    }
}
