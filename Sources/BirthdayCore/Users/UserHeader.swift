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

/// Which user a token of `birthdays serve --all-users` is, by the
/// token's hash (``Share/tokenHash(_:)``): every served user's tokens
/// (their feed's, their shares' and their invitation links'), read from
/// their database, so that a request asks one user's database, not every
/// user's.
///
/// Only hashes are kept, never a token. It says whom to ask, not who
/// owns: the user it names is still asked (a revoked token answers 404),
/// and the server reads a user's hashes again when their database has
/// changed since they were read. A user no longer served takes their
/// hashes with them.
///
/// A hash two users hold (a copy of one user's folder restored as
/// another's) names neither: it is no one's until one of them rotates it,
/// and what either reads again or drops leaves the other's hashes as they are.
public struct UserTokenIndex: Sendable, Equatable {
    private var owners: [String: Set<UserName>] = [:]
    private var hashes: [UserName: Set<String>] = [:]

    public init() {}

    /// The one user whose token hashes to `hash`, as last read; `nil` when
    /// no one's does, or several users' do (``isShared(hash:)``).
    public func user(hash: String) -> UserName? {
        guard let users = owners[hash], users.count == 1 else { return nil }
        return users.first
    }

    /// Whether tokens of two users or more hash to `hash`.
    public func isShared(hash: String) -> Bool { (owners[hash]?.count ?? 0) > 1 }

    /// User `user`'s tokens are now those hashing to `tokens` (any read before are forgotten).
    public mutating func set(_ user: UserName, tokens: Set<String>) {
        remove(user)
        hashes[user] = tokens
        for hash in tokens { owners[hash, default: []].insert(user) }
    }

    /// Only `served` are served now: everyone else's hashes are dropped.
    public mutating func keep(_ served: Set<UserName>) {
        for user in hashes.keys where !served.contains(user) { remove(user) }
    }

    /// How many hashes are kept.
    public var count: Int { owners.count }

    /// Drops user `user`'s hashes, and only theirs.
    private mutating func remove(_ user: UserName) {
        guard let old = hashes.removeValue(forKey: user) else { return }
        for hash in old {
            owners[hash]?.remove(user)
            if owners[hash]?.isEmpty == true { owners[hash] = nil }
        }
    }
}
