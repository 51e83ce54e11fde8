/// Whose page `GET /` of `birthdays serve --all-users` shows, as a value:
/// the user a reverse proxy that authenticates people names in a header
/// (`--trusted-proxy ADDR --user-header Remote-User`).
///
/// Rules:
/// - A request without the header is no one's: the server answers it as any
///   unknown address (404).
/// - The header counts only on a request whose connection comes from the
///   proxy's address (``TrustedProxy``); from anywhere else it is refused, so
///   a client that reaches the server directly cannot name a user.
/// - The header must name one user: one field, exactly a user's name
///   (``UserName``: no `../`, no dot, no capital, no space), of a user the
///   server serves now. Two fields, anything else, or an unknown user is
///   refused.
///
/// A refusal is one answer whatever its reason, naming no one: a client
/// learns neither which users exist nor why.
public struct UserHeader: Sendable, Equatable {
    /// The proxy whose header counts.
    public let proxy: TrustedProxy
    /// The header's name as typed (`Remote-User`): HTTP field names are
    /// compared without case by the server.
    public let name: String

    /// `name` as a header's name: 1 to 64 of the characters a field name
    /// may hold (RFC 9110 `token`); `nil` otherwise.
    public init?(proxy: TrustedProxy, name: String) {
        let allowed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard (1...64).contains(name.count), name.allSatisfy(allowed.contains) else { return nil }
        self.proxy = proxy
        self.name = name
    }

    /// What a request comes to.
    public enum Decision: Sendable, Equatable {
        /// No header: no one's (404, as any unknown address).
        case none
        /// The proxy names this user, who is served.
        case user(UserName)
        /// The header is refused (403), naming no one.
        case refused
    }

    /// The decision for a request from `peer` (its connection's address;
    /// `nil` when it has none) carrying `values`, the header's fields in
    /// order, when `served` says which users are served now.
    public func decide(peer: String?, values: [String], served: (UserName) -> Bool) -> Decision {
        guard !values.isEmpty else { return .none }
        guard let peer, IPAddress.canonical(peer) == proxy.address else { return .refused }
        guard values.count == 1, let name = try? UserName(values[0]), served(name) else { return .refused }
        return .user(name)
    }
}

/// Which user a token of `birthdays serve --all-users` was last found to
/// be, by the token's hash (``Share/tokenHash(_:)``), so that a request
/// asks that user's database first instead of every user's.
///
/// It is a hint only: the user it names is asked as any other would be (a
/// rotated or removed token is found nowhere and answers 404), and a token
/// it does not know is looked for in every served user's database, in
/// name order. A user no longer served takes their hints with them; at most
/// ``capacity`` hints are kept (then all are dropped).
public struct UserTokenIndex: Sendable, Equatable {
    /// The most hints kept.
    public static let capacity = 10_000

    private var users: [String: UserName] = [:]

    public init() {}

    /// The users to ask for the token of hash `hash`, among `served`: the
    /// one it was last found with first, then the others by name.
    public func candidates(hash: String, served: some Sequence<UserName>) -> [UserName] {
        let sorted = served.sorted()
        guard let hinted = users[hash], sorted.contains(hinted) else { return sorted }
        return [hinted] + sorted.filter { $0 != hinted }
    }

    /// The token of hash `hash` was found to be `user`'s.
    public mutating func found(hash: String, user: UserName) {
        if users[hash] == nil, users.count >= Self.capacity { users.removeAll() }
        users[hash] = user
    }

    /// Only `served` are served now: the hints of anyone else are dropped.
    public mutating func keep(_ served: Set<UserName>) {
        users = users.filter { served.contains($0.value) }
    }

    /// The user the token of hash `hash` was last found with, if any.
    public func hint(hash: String) -> UserName? { users[hash] }
}
