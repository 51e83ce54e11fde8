import BirthdayCore
import Testing

/// `serve --all-users`: whose page `GET /` shows by the trusted proxy's
/// header (``UserHeader``), and which user a token is asked of first (``UserTokenIndex``).
@Suite struct UserHeaderTests {
    static let proxy = TrustedProxy("127.0.0.2")!
    static let header = UserHeader(proxy: proxy, name: "Remote-User")!
    static let served: Set<String> = ["alice", "bob"]

    static func decide(peer: String?, _ values: [String]) -> UserHeader.Decision {
        header.decide(peer: peer, values: values) { served.contains($0.rawValue) }
    }

    @Test func fromTheProxyTheHeaderNamesAServedUser() throws {
        #expect(Self.decide(peer: "127.0.0.2", ["alice"]) == .user(try UserName("alice")))
        #expect(Self.decide(peer: "::ffff:127.0.0.2", ["bob"]) == .user(try UserName("bob")))
    }

    @Test func withoutTheHeaderTheRequestIsNoOnes() {
        #expect(Self.decide(peer: "127.0.0.2", []) == UserHeader.Decision.none)
        #expect(Self.decide(peer: "127.0.0.1", []) == UserHeader.Decision.none)
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.3", "::1", "not an address", ""])
    func fromAnywhereElseTheHeaderIsRefused(peer: String) {
        #expect(Self.decide(peer: peer, ["alice"]) == .refused)
    }

    @Test func aRequestWithoutAnAddressIsRefused() {
        #expect(Self.decide(peer: nil, ["alice"]) == .refused)
    }

    @Test(arguments: ["carol", "../alice", "alice/../bob", "Alice", " alice", "alice ", "", ".", "..", "alice,bob", "alice\u{0}"])
    func aNameOfNoUserServedIsRefused(value: String) {
        #expect(Self.decide(peer: "127.0.0.2", [value]) == .refused)
    }

    @Test func twoFieldsAreRefused() {
        #expect(Self.decide(peer: "127.0.0.2", ["alice", "alice"]) == .refused)
        #expect(Self.decide(peer: "127.0.0.2", ["alice", "bob"]) == .refused)
    }

    @Test(arguments: ["Remote User", "Remote-User:", "", String(repeating: "X", count: 65), "Rémote"])
    func aHeadersNameIsAToken(name: String) {
        #expect(UserHeader(proxy: Self.proxy, name: name) == nil)
    }

    // MARK: - The token index

    @Test func theIndexNamesTheUserWhoseTokensHashTheHash() throws {
        let (alice, bob) = (try UserName("alice"), try UserName("bob"))
        var index = UserTokenIndex()
        #expect(index.user(hash: "a1") == nil)
        index.set(alice, tokens: ["a1", "a2"])
        index.set(bob, tokens: ["b1"])
        #expect(index.user(hash: "a2") == alice)
        #expect(index.user(hash: "b1") == bob)
        #expect(index.user(hash: "c1") == nil)
        #expect(index.count == 3)
    }

    @Test func aUsersTokensReadAgainReplaceTheirOldOnes() throws {
        let (alice, bob) = (try UserName("alice"), try UserName("bob"))
        var index = UserTokenIndex()
        index.set(alice, tokens: ["a1", "a2"])
        index.set(bob, tokens: ["b1"])
        // a2 revoked, a3 added.
        index.set(alice, tokens: ["a1", "a3"])
        #expect(index.user(hash: "a2") == nil)
        #expect(index.user(hash: "a3") == alice)
        #expect(index.user(hash: "b1") == bob, "another user's are kept")
    }

    @Test func aUserNoLongerServedTakesTheirTokensWithThem() throws {
        let (alice, bob) = (try UserName("alice"), try UserName("bob"))
        var index = UserTokenIndex()
        index.set(alice, tokens: ["a1"])
        index.set(bob, tokens: ["b1"])
        index.keep([bob])
        #expect(index.user(hash: "a1") == nil)
        #expect(index.user(hash: "b1") == bob)
        #expect(index.count == 1)
    }

    @Test func aTokenRevokedIsNoOnesOnceTheUserIsReadAgain() throws {
        let (alice, bob) = (try UserName("alice"), try UserName("bob"))
        var index = UserTokenIndex()
        index.set(alice, tokens: ["a1", "a2"])
        index.set(bob, tokens: ["b1"])
        // All of alice's revoked (her feed token rotated away, no share or link left).
        index.set(alice, tokens: [])
        #expect(index.user(hash: "a1") == nil)
        #expect(index.user(hash: "a2") == nil)
        #expect(!index.isShared(hash: "a1"))
        #expect(index.count == 1, "only bob's hash is left")
    }

    @Test func aHashTwoUsersHoldNamesNeither() throws {
        let (alice, copy, bob) = (try UserName("alice"), try UserName("alice2"), try UserName("bob"))
        var index = UserTokenIndex()
        index.set(alice, tokens: ["a1", "a2"])
        // A copy of alice's folder restored as alice2: the same tokens, the last read must not win.
        index.set(copy, tokens: ["a1", "a2"])
        index.set(bob, tokens: ["b1"])
        #expect(index.user(hash: "a1") == nil)
        #expect(index.isShared(hash: "a1"))
        #expect(index.user(hash: "b1") == bob)
        #expect(!index.isShared(hash: "b1"))
        #expect(index.count == 3)
    }

    @Test func aUserRotatingASharedTokenLeavesItToTheOther() throws {
        let (alice, copy) = (try UserName("alice"), try UserName("alice2"))
        var index = UserTokenIndex()
        index.set(alice, tokens: ["a1", "a2"])
        index.set(copy, tokens: ["a1", "a2"])
        // alice2 rotates a1: it is alice's alone again, and a2 is still both's.
        index.set(copy, tokens: ["c1", "a2"])
        #expect(index.user(hash: "a1") == alice)
        #expect(index.user(hash: "c1") == copy)
        #expect(index.isShared(hash: "a2"))
        // alice2 no longer served: a2 is alice's alone.
        index.keep([alice])
        #expect(index.user(hash: "a2") == alice)
        #expect(index.user(hash: "c1") == nil)
    }
}
