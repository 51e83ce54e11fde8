/// Why a publish to a CalDAV calendar could not be done (`publish add`,
/// `sync`, `remove`, the daemon's publisher). Each case reads as one
/// sentence; none carries a password, a person's name or a date of birth.
///
/// What the server, the network or the password command did wrong is what
/// a source's sync can meet too (unreachable, 401, an HTTP error, an answer
/// that cannot be used, too much: the WebDAV layer both share), so it
/// travels as ``connection(_:)`` with ``RemoteError``'s sentence; the rest
/// (the helper process, the store, the URL) is publishing's own.
public enum PublishError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The server, the network or the password command failed (``RemoteError``).
    case connection(RemoteError)
    /// The target's URL cannot be followed (not an http(s) URL).
    case invalidLocation(location: String, reason: String)
    /// The network helper could not run or gave no report, or publishing needs what is missing (a database file).
    case unavailable(reason: String)
    /// The database failed; the store's own sentence.
    case store(String)
    /// `publish add`: the URL leads to no CalDAV calendar home, and is no calendar.
    case notACalendar(url: String)
    /// A publish would delete most of the events it published (``PublishPlan/needsForce(deleting:of:)``).
    case massRemoval(target: String, deleting: Int, of: Int)
    /// A publish wrote the other events but not these, which the server refused
    /// again and again (412 after each fetch of their tag); by resource name.
    case skipped(resources: [String])
    /// There is no publish target with that name.
    case unknownTarget(name: String)
    /// A publish target with that name exists already.
    case duplicateTarget(name: String)

    /// One line, what a server said quoted with its control characters visible (``SafeText/quoted(_:)``).
    public var description: String {
        switch self {
        case .connection(let error): error.description
        case .invalidLocation(let location, let reason): SafeText.quoted("cannot follow \(location): \(reason)")
        case .unavailable(let reason): SafeText.quoted(reason)
        case .store(let reason): SafeText.quoted(reason)
        case .notACalendar(let url): SafeText.quoted("\(url) is not a CalDAV calendar, and no calendar home was found from it")
        case .massRemoval(let target, let deleting, let total):
            SafeText.quoted(
                "refusing to delete \(deleting) of the \(total) events published to '\(target)'; "
                    + "if that is right, run: birthdays publish sync '\(target)' --force"
            )
        case .skipped(let resources):
            SafeText.quoted(
                "the server refused \(resources.count) event\(resources.count == 1 ? "" : "s") again and again (HTTP 412 Precondition Failed "
                    + "after each fetch of its tag): \(resources.prefix(5).joined(separator: ", "))\(resources.count > 5 ? ", …" : ""); "
                    + "the other events were written, and the next publish tries these again"
            )
        case .unknownTarget(let name): SafeText.quoted("there is no publish target named '\(name)'; see birthdays publish list")
        case .duplicateTarget(let name): SafeText.quoted("a publish target named '\(name)' exists already; choose another with --name")
        }
    }
}
