/// What the network, a WebDAV server or the password command did wrong:
/// what a source's sync (``SourceError/remote(_:)``), a publish
/// (``PublishError/connection(_:)``) and a write-back to a card
/// (``WriteBackError/connection(_:)``) all meet through the one WebDAV
/// layer. Each case reads as one sentence; none carries a password, a
/// person's name or a date of birth (a URL is shown without its password).
public enum RemoteError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The server could not be reached, or did not answer in time.
    case network(url: String, reason: String)
    /// The server refused the username or password (HTTP 401).
    case unauthorized(url: String)
    /// The server answered with an HTTP error.
    case http(url: String, status: Int, reason: String)
    /// The server's answer is not what WebDAV promises (XML that does not parse, a missing element).
    case badResponse(url: String, reason: String)
    /// The server sent more than a request may receive (the limits are in docs/sources.md).
    case tooLarge(url: String, megabytes: Int)
    /// The password command did not give a password (it failed, timed out or printed nothing).
    case passwordCommand(reason: String)

    /// One line: what a server said (a reason phrase, a URL) is quoted with
    /// its control characters visible (``SafeText/quoted(_:)``), so it can
    /// neither break the line nor reach a terminal as an escape sequence.
    public var description: String {
        SafeText.quoted(sentence)
    }

    private var sentence: String {
        switch self {
        case .network(let url, let reason): "cannot reach \(url): \(reason)"
        case .unauthorized(let url): "\(url) refused the username or password (HTTP 401); check --username and --password-command"
        case .http(let url, let status, let reason): "\(url) answered HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)")
        case .badResponse(let url, let reason): "\(url) sent an answer that cannot be used: \(reason)"
        case .tooLarge(let url, let megabytes):
            "the server sent more than \(megabytes) MB for one request to \(url); birthdays stopped reading there "
                + "(see Limits in docs/sources.md)"
        case .passwordCommand(let reason): "the password command failed: \(reason)"
        }
    }
}
