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

    @Test func theUserATokenWasFoundWithIsAskedFirst() throws {
        let (alice, bob, carol) = (try UserName("alice"), try UserName("bob"), try UserName("carol"))
        var index = UserTokenIndex()
        #expect(index.candidates(hash: "h", served: [carol, bob, alice]) == [alice, bob, carol])
        index.found(hash: "h", user: carol)
        #expect(index.candidates(hash: "h", served: [alice, bob, carol]) == [carol, alice, bob])
        #expect(index.candidates(hash: "other", served: [alice, bob, carol]) == [alice, bob, carol])
        // A hint of a user not served is no candidate.
        #expect(index.candidates(hash: "h", served: [alice, bob]) == [alice, bob])
        index.keep([alice, bob])
        #expect(index.hint(hash: "h") == nil)
    }

    @Test func theHintsAreBounded() throws {
        let alice = try UserName("alice")
        var index = UserTokenIndex()
        for number in 0..<UserTokenIndex.capacity { index.found(hash: String(number), user: alice) }
        #expect(index.hint(hash: "0") == alice)
        index.found(hash: "one more", user: alice)
        #expect(index.hint(hash: "0") == nil)
        #expect(index.hint(hash: "one more") == alice)
    }
}
