import BirthdayCore
import Foundation
import TestSupport
import Testing

/// `birthdays serve --all-users` through the real binary on loopback: two
/// users on one port, each token reaching its own user's data only, a
/// removed user's tokens answering 404 without a restart, and `GET /` by
/// the header of the trusted proxy (127.0.0.2) only.
@Suite(.timeLimit(.minutes(10)))
struct ServeAllUsersTests {
    /// The tokens of one user: their feed's, a share's and an invitation's.
    struct Tokens {
        let feed: String
        let share: String
        let invite: String
    }

    /// A server with users alice (friend Ada Lovelace) and bob (friend Bob Builder), each with a share and an invitation.
    struct Served {
        let cli: CLIProcess
        let server: TestProcess
        let port: Int
        let alice: Tokens
        let bob: Tokens

        func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

        func stop() {
            server.stop()
            cli.cleanUp()
        }
    }

    /// Adds user `name` with one friend in the group Family, a share of it and an invitation; their tokens.
    static func addUser(_ name: String, friend: String, in cli: CLIProcess, port: Int) async throws -> Tokens {
        let added = try await cli.run("users", "add", name)
        try #require(added.status == 0, "\(added.stderr)")
        let card = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(name)-friend\r\nFN:\(friend)\r\nBDAY:1990-03-11\r\nCATEGORIES:Family\r\nEND:VCARD\r\n"
        let imported = try await cli.run("--user", name, "import", try cli.write("\(name).vcf", card))
        try #require(imported.status == 0, "\(imported.stderr)")
        let share = try await cli.run("--user", name, "share", "add", "Family", "--group", "Family", "--port", String(port))
        try #require(share.status == 0, "\(share.stderr)")
        let invite = try await cli.run("--user", name, "invite", "Friends", "--port", String(port))
        try #require(invite.status == 0, "\(invite.stderr)")
        let url = try await cli.run("--user", name, "feed", "url", "--port", String(port))
        try #require(url.status == 0, "\(url.stderr)")
        let feed = try #require(url.stdout.split(separator: "\n").first?.split(separator: "/").last).dropLast(4)
        return Tokens(
            feed: String(feed),
            share: try ShareCommandTests.token(share.stdout),
            invite: try InviteCommandTests.token(invite.stdout)
        )
    }

    /// `serve --all-users` on a free port over alice and bob, with `arguments` besides.
    static func serve(_ arguments: String...) async throws -> Served {
        var cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("users")
        let port = try Loopback.freePort()
        let alice = try await addUser("alice", friend: "Ada Lovelace", in: cli, port: port)
        let bob = try await addUser("bob", friend: "Bob Builder", in: cli, port: port)
        let server = try TestProcess(
            [try CLIProcess.binary(), "serve", "--all-users", "--port", String(port)] + arguments,
            environment: cli.environment,
            directory: cli.directory,
            name: "serve"
        )
        try await server.waitUntil("the server") { _ in
            await (try? HostileFeedTests.curl("http://127.0.0.1:\(port)/healthz"))?.stdout == "200"
        }
        return Served(cli: cli, server: server, port: port, alice: alice, bob: bob)
    }

    /// The status and body of `GET url` with `arguments` (curl's) besides.
    static func get(_ url: String, _ arguments: String...) async throws -> (status: Int, body: String) {
        let answer = try await InviteCommandTests.fetch(arguments + [url])
        return (answer.status, answer.body)
    }

    @Test func eachTokenReachesItsOwnUsersDataOnly() async throws {
        let served = try await Self.serve()
        defer { served.stop() }
        for (tokens, own, other) in [(served.alice, "Ada Lovelace", "Bob Builder"), (served.bob, "Bob Builder", "Ada Lovelace")] {
            for path in [
                "/calendar/\(tokens.feed).ics", "/calendar/\(tokens.feed).json", "/calendar/\(tokens.feed)",
                "/calendar/\(tokens.share).ics", "/calendar/\(tokens.share).json", "/calendar/\(tokens.share)",
            ] {
                let (status, body) = try await Self.get(served.url(path))
                #expect(status == 200, "\(path)")
                #expect(body.contains(own), "\(path)")
                #expect(!body.contains(other), "\(path)")
            }
            let form = try await Self.get(served.url("/invite/\(tokens.invite)"))
            #expect(form.status == 200)
        }
        // Another user's token under a path that names a user, a user's name as a token, a made-up token.
        for path in [
            "/calendar/alice/\(served.bob.feed).ics", "/alice/calendar/\(served.bob.feed).ics", "/calendar/bob",
            "/calendar/bob.ics", "/calendar/" + String(repeating: "7", count: 32) + ".ics", "/invite/" + String(repeating: "7", count: 32),
            "/invite/\(served.alice.feed)", "/calendar/\(served.alice.invite).ics", "/",
        ] {
            #expect(try await Self.get(served.url(path)).status == 404, "\(path)")
        }
        // An answer to alice's invitation lands in alice's database only.
        let form = try await Self.get(served.url("/invite/\(served.alice.invite)"))
        let nonce = try InviteCommandTests.nonce(form.body)
        let posted = try await Self.get(
            served.url("/invite/\(served.alice.invite)"),
            "--data-raw",
            "nonce=\(nonce)&name=Guest&day=1&month=1"
        )
        #expect(posted.status == 200)
        let aliceAnswers = try await served.cli.run("--user", "alice", "invites", "--json")
        let bobAnswers = try await served.cli.run("--user", "bob", "invites", "--json")
        #expect(aliceAnswers.stdout.contains("Guest"), "\(aliceAnswers.stdout)")
        #expect(!bobAnswers.stdout.contains("Guest"), "\(bobAnswers.stdout)")
    }

    /// `users remove` is not refused under `serve --all-users`, and the
    /// user's tokens answer 404 as soon as it returns; the other user's still work.
    @Test func aRemovedUsersTokensAnswer404WithoutARestart() async throws {
        let served = try await Self.serve()
        defer { served.stop() }
        let bobPaths = [
            "/calendar/\(served.bob.feed).ics", "/calendar/\(served.bob.feed)", "/calendar/\(served.bob.share).json",
            "/invite/\(served.bob.invite)",
        ]
        for path in bobPaths { #expect(try await Self.get(served.url(path)).status == 200, "\(path)") }
        let removed = try await served.cli.run("users", "remove", "bob")
        #expect(removed.status == 0, "\(removed.stderr)")
        for path in bobPaths { #expect(try await Self.get(served.url(path)).status == 404, "\(path)") }
        #expect(try await Self.get(served.url("/calendar/\(served.alice.feed).ics")).status == 200)
        #expect(try await Self.get(served.url("/calendar/\(served.alice.share)")).status == 200)
        #expect(served.server.poll() == nil, "the server still runs")
    }

    /// A user's revalidations take the fast path, as with one user's own
    /// server: the feed's, the JSON twin's and the page's tag just served
    /// answers 304, three times on one connection, the blocking pool's
    /// threads never running (the route checks the user's folder there,
    /// as the answer to another tag shows); another tag is the whole
    /// answer, the tag with another user's token too, with no one's token 404, and a removed user's token with their own tag 404 as
    /// soon as `users remove` returns.
    @Test func revalidationsOfAUsersTagTakeTheFastPathForThatUserOnly() async throws {
        let served = try await Self.serve()
        defer { served.stop() }
        var tags: [String: String] = [:]
        for path in [
            "/calendar/\(served.alice.feed).ics", "/calendar/\(served.alice.feed).json", "/calendar/\(served.alice.feed)",
            "/calendar/\(served.bob.feed).ics",
        ] {
            let url = served.url(path)
            let first = try await InviteCommandTests.fetch([url])
            try #require(first.status == 200, "\(path)")
            let tag = try #require(first.fields["etag"], "\(path)")
            tags[path] = tag
            // A first revalidation, so that whatever the 200 left to the blocking pool is done.
            #expect(try await Self.get(url, "-H", "If-None-Match: \(tag)").status == 304, "\(path)")
            let before = Self.blockingSwitches(served.server.pid)
            let again = try await PageCommandTests.curl(["-o", "/dev/null", "-w", "%{http_code} ", "-H", "If-None-Match: \(tag)", url, url, url])
            #expect(again.stdout == "304 304 304 ", "\(path)")
            #expect(Self.blockingSwitches(served.server.pid) == before, "\(path): answered on the event loop")
            #expect(try await Self.get(url, "-H", "If-None-Match: \"other\"").status == 200, "\(path)")
            #expect(Self.blockingSwitches(served.server.pid) > before, "\(path): the route runs the blocking pool")
        }
        let aliceTag = try #require(tags["/calendar/\(served.alice.feed).ics"])
        // Alice's tag with bob's token or no one's: the route's whole answer or its 404, never her 304.
        for (token, status) in [(served.bob.feed, 200), (String(repeating: "7", count: 32), 404)] {
            let path = "/calendar/\(token).ics"
            #expect(try await Self.get(served.url(path), "-H", "If-None-Match: \(aliceTag)").status == status, "\(path)")
        }
        let bobFeed = "/calendar/\(served.bob.feed).ics"
        #expect(try await served.cli.run("users", "remove", "bob").status == 0)
        #expect(try await Self.get(served.url(bobFeed), "-H", "If-None-Match: \(try #require(tags[bobFeed]))").status == 404, "a removed user's")
        #expect(try await Self.get(served.url("/calendar/\(served.alice.feed).ics"), "-H", "If-None-Match: \(aliceTag)").status == 304)
    }

    /// The voluntary context switches of process `pid`'s blocking threads (`birthdays-io-N`), summed.
    static func blockingSwitches(_ pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { sum, task in
            guard let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8), name.hasPrefix("birthdays-io-"),
                let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
                let count = Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "")
            else { return sum }
            return sum + count
        }
    }

    /// A user added while the server runs is served without a restart
    /// (the root's watch), and a user removed and added again under the same
    /// name has their new tokens served and their old ones 404.
    @Test func aUserAddedOrAddedAgainIsServedWithoutARestart() async throws {
        let served = try await Self.serve()
        defer { served.stop() }
        let carol = try await Self.addUser("carol", friend: "Cy Nobody", in: served.cli, port: served.port)
        try await served.server.waitUntil("carol served", seconds: 30) { _ in
            (try? await Self.get(served.url("/calendar/\(carol.feed).ics")))?.status == 200
        }
        #expect(try await Self.get(served.url("/calendar/\(carol.share)")).body.contains("Cy Nobody"))
        #expect(try await served.cli.run("users", "remove", "bob").status == 0)
        let bob = try await Self.addUser("bob", friend: "Bea Again", in: served.cli, port: served.port)
        try await served.server.waitUntil("the new bob served", seconds: 30) { _ in
            (try? await Self.get(served.url("/calendar/\(bob.feed).ics")))?.status == 200
        }
        let page = try await Self.get(served.url("/calendar/\(bob.feed)")).body
        #expect(page.contains("Bea Again") && !page.contains("Bob Builder"))
        for old in ["/calendar/\(served.bob.feed).ics", "/calendar/\(served.bob.share)", "/invite/\(served.bob.invite)"] {
            #expect(try await Self.get(served.url(old)).status == 404, "\(old)")
        }
    }

    /// Tokens made and revoked by other commands while the server runs
    /// (the index of every user's tokens follows each user's database): a
    /// share, an invitation and a rotated feed of bob's answer at once, and
    /// the tokens they replaced or removed answer 404 at once; so do a removed user's.
    @Test func tokensMadeOrRevokedAfterTheStartAnswerAtOnce() async throws {
        let served = try await Self.serve()
        defer { served.stop() }
        let port = String(served.port)
        let share = try await served.cli.run("--user", "bob", "share", "add", "Team", "--group", "Family", "--port", port)
        try #require(share.status == 0, "\(share.stderr)")
        let team = try ShareCommandTests.token(share.stdout)
        #expect(try await Self.get(served.url("/calendar/\(team).ics")).body.contains("Bob Builder"))
        let invite = try await served.cli.run("--user", "bob", "invite", "Colleagues", "--port", port)
        try #require(invite.status == 0, "\(invite.stderr)")
        let colleagues = try InviteCommandTests.token(invite.stdout)
        #expect(try await Self.get(served.url("/invite/\(colleagues)")).status == 200)
        let rotated = try await served.cli.run("--user", "bob", "feed", "rotate")
        try #require(rotated.status == 0, "\(rotated.stderr)")
        let feed = try await served.cli.run("--user", "bob", "feed", "url", "--port", port)
        let newFeed = try #require(feed.stdout.split(separator: "\n").first?.split(separator: "/").last).dropLast(4)
        #expect(newFeed != Substring(served.bob.feed))
        #expect(try await Self.get(served.url("/calendar/\(newFeed).ics")).status == 200)
        #expect(try await Self.get(served.url("/calendar/\(served.bob.feed).ics")).status == 404, "the rotated token")
        #expect(try await served.cli.run("--user", "bob", "share", "remove", "Family").status == 0)
        #expect(try await Self.get(served.url("/calendar/\(served.bob.share)")).status == 404, "the removed share")
        #expect(try await served.cli.run("--user", "bob", "invite", "remove", "Friends").status == 0)
        #expect(try await Self.get(served.url("/invite/\(served.bob.invite)")).status == 404, "the removed invitation")
        #expect(try await Self.get(served.url("/calendar/\(team)")).status == 200, "the share made after the start still answers")
        #expect(try await served.cli.run("users", "remove", "bob").status == 0)
        #expect(try await Self.get(served.url("/calendar/\(team).ics")).status == 404, "a removed user's")
        #expect(try await Self.get(served.url("/calendar/\(newFeed)")).status == 404, "a removed user's")
        #expect(try await Self.get(served.url("/calendar/\(served.alice.feed).ics")).status == 200)
    }

    /// An answer to a token no user has meets the invitation form's
    /// per-address limit (five a minute) as with one user: then 429, even for
    /// a user's real link, since every user's form shares the limit.
    @Test func answersToUnknownTokensAreLimitedPerAddress() async throws {
        let served = try await Self.serve()
        defer { served.stop() }
        var statuses: [Int] = []
        for number in 0..<6 {
            let unknown = served.url("/invite/" + String(repeating: String(number), count: 32))
            statuses.append(try await Self.get(unknown, "--data-raw", "nonce=x&name=Guest&day=1&month=1").status)
        }
        #expect(statuses == [404, 404, 404, 404, 404, 429], "\(statuses)")
        let real = try await Self.get(served.url("/invite/\(served.alice.invite)"), "--data-raw", "nonce=x&name=Guest&day=1&month=1")
        #expect(real.status == 429)
        // Another address has its own.
        let other = try await Self.get(served.url("/invite/" + String(repeating: "9", count: 32)), "--interface", "127.0.0.3", "--data-raw", "a=b")
        #expect(other.status == 404)
    }

    /// A user's own `trusted-proxy` setting does not say which address the
    /// shared limit counts: mallory (bob here) names her own address as her
    /// proxy and answers her own link five times "from" the victim's
    /// (127.0.0.1); the victim's answer to alice's form is not refused, and
    /// mallory's own sixth is, counted as her address (127.0.0.2).
    @Test func aUsersOwnTrustedProxyDoesNotDecideTheSharedLimitsAddresses() async throws {
        let served = try await Self.serve()
        defer { served.stop() }
        let set = try await served.cli.run("--user", "bob", "settings", "set", "trusted-proxy", "127.0.0.2")
        try #require(set.status == 0, "\(set.stderr)")
        var statuses: [Int] = []
        for _ in 0..<6 {
            let answer = try await Self.get(
                served.url("/invite/\(served.bob.invite)"),
                "--interface",
                "127.0.0.2",
                "-H",
                "X-Forwarded-For: 127.0.0.1",
                "--data-raw",
                "nonce=x&name=Guest&day=1&month=1"
            )
            statuses.append(answer.status)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 != 429 } && statuses.last == 429, "\(statuses)")
        let victim = try await Self.get(served.url("/invite/\(served.alice.invite)"), "--data-raw", "nonce=x&name=Guest&day=1&month=1")
        #expect(victim.status != 429, "the victim's address was counted by another user's setting")
    }

    /// Behind the proxy `--trusted-proxy` names (127.0.0.2), the shared limit
    /// counts the client it names: junk answers to tokens no one has from
    /// one client meet the limit, and another client's answer does not.
    @Test func behindTheTrustedProxyTheLimitCountsEachClient() async throws {
        let served = try await Self.serve("--trusted-proxy", "127.0.0.2")
        defer { served.stop() }
        var statuses: [Int] = []
        for number in 0..<6 {
            let unknown = served.url("/invite/" + String(repeating: String(number), count: 32))
            statuses.append(try await Self.get(unknown, "--interface", "127.0.0.2", "-H", "X-Forwarded-For: 192.0.2.1", "--data-raw", "a=b").status)
        }
        #expect(statuses == [404, 404, 404, 404, 404, 429], "\(statuses)")
        let guest = try await Self.get(
            served.url("/invite/\(served.alice.invite)"),
            "--interface",
            "127.0.0.2",
            "-H",
            "X-Forwarded-For: 192.0.2.2",
            "--data-raw",
            "nonce=x&name=Guest&day=1&month=1"
        )
        #expect(guest.status != 429)
    }

    /// A copy of alice's folder restored as alice2 holds her tokens: they are
    /// no one's (404, logged without the token or a name), not whichever user
    /// was read last; once alice2 rotates her feed, alice's feed is hers again
    /// and alice2's new one is alice2's.
    @Test func aTokenTwoUsersHoldAnswers404UntilOneRotatesIt() async throws {
        let served = try await Self.serve()
        defer { served.stop() }
        let copy = served.cli.path("users/alice2")
        try FileManager.default.copyItem(atPath: served.cli.path("users/alice"), toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: copy)
        try await served.server.waitUntil("alice2 served", seconds: 30) { _ in
            (try? await Self.get(served.url("/calendar/\(served.alice.feed).ics")))?.status == 404
        }
        #expect(try await Self.get(served.url("/calendar/\(served.alice.share)")).status == 404)
        #expect(try await Self.get(served.url("/calendar/\(served.bob.feed).ics")).status == 200)
        let said = served.server.stderr.split(separator: "\n").filter { $0.contains("a token is held by two users") }
        #expect(!said.isEmpty, "\(served.server.stderr)")
        #expect(!said.contains { $0.contains("alice") || $0.contains(served.alice.feed) }, "neither the names nor the token: \(said)")
        #expect(try await served.cli.run("--user", "alice2", "feed", "rotate").status == 0)
        let url = try await served.cli.run("--user", "alice2", "feed", "url", "--port", String(served.port))
        let rotated = try #require(url.stdout.split(separator: "\n").first?.split(separator: "/").last).dropLast(4)
        #expect(try await Self.get(served.url("/calendar/\(served.alice.feed).ics")).body.contains("Ada Lovelace"))
        #expect(try await Self.get(served.url("/calendar/\(rotated).ics")).status == 200)
    }

    /// From the proxy (127.0.0.2) the header names whose page `/` is; from
    /// anywhere else, or naming no user served, it is refused with words that name no one.
    @Test func theTrustedProxysHeaderShowsThatUsersOwnPage() async throws {
        let served = try await Self.serve("--trusted-proxy", "127.0.0.2", "--user-header", "Remote-User")
        defer { served.stop() }
        let root = served.url("/")
        let alice = try await Self.get(root, "--interface", "127.0.0.2", "-H", "Remote-User: alice")
        #expect(alice.status == 200)
        #expect(alice.body.contains("Ada Lovelace"))
        #expect(!alice.body.contains("Bob Builder"))
        #expect(alice.body.contains("href=\"calendar/\(served.alice.feed).ics\""), "the page's links lead to alice's feed from /")
        let bob = try await Self.get(root, "--interface", "127.0.0.2", "-H", "Remote-User: bob")
        #expect(bob.status == 200)
        #expect(bob.body.contains("Bob Builder") && !bob.body.contains("Ada Lovelace"))
        var refusals: [String] = []
        for (address, user) in [
            ("127.0.0.1", "alice"), ("127.0.0.3", "bob"), ("127.0.0.2", "carol"), ("127.0.0.2", "../alice"), ("127.0.0.2", "Alice"),
            ("127.0.0.2", "alice/../bob"),
        ] {
            let refused = try await Self.get(root, "--interface", address, "-H", "Remote-User: \(user)")
            #expect(refused.status == 403, "\(address) \(user)")
            #expect(!refused.body.contains("alice") && !refused.body.contains("bob") && !refused.body.contains("carol"), "\(refused.body)")
            refusals.append(refused.body)
        }
        #expect(Set(refusals).count == 1, "one refusal whatever the reason: \(refusals)")
        let twice = try await Self.get(root, "--interface", "127.0.0.2", "-H", "Remote-User: alice", "-H", "Remote-User: bob")
        #expect(twice.status == 403)
        // No header: no one's, from the proxy too.
        #expect(try await Self.get(root, "--interface", "127.0.0.2").status == 404)
        // The tokens work as without the header.
        #expect(try await Self.get(served.url("/calendar/\(served.bob.feed).ics")).status == 200)
    }

    @Test func theUserHeaderNeedsAllUsersAndATrustedProxy() async throws {
        let cli = try CLIProcess()
        defer { cli.cleanUp() }
        for arguments in [
            ["serve", "--user-header", "Remote-User"],
            ["serve", "--all-users", "--user-header", "Remote-User"],
            ["serve", "--trusted-proxy", "127.0.0.2", "--user-header", "Remote-User"],
            ["serve", "--all-users", "--trusted-proxy", "127.0.0.2", "--user-header", "Remote User:"],
            ["serve", "--all-users", "--user", "alice"],
        ] {
            let result = try await cli.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
        let help = try await cli.run("serve", "--help")
        #expect(help.stdout.contains("--all-users") && help.stdout.contains("--user-header"))
    }

    /// Every user's folder watch (the feed's kept stamp) shares one inotify
    /// instance, as `run --all-users`' database watches do: twelve users cost
    /// two instances (theirs and the users root's), and a write to one
    /// user's database still ends their 304s at once.
    @Test func everyUsersFolderWatchSharesOneInotifyInstance() async throws {
        var cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("users")
        defer { cli.cleanUp() }
        let port = try Loopback.freePort()
        var feeds: [String] = []
        for index in 0..<12 {
            let name = String(format: "u%02d", index)
            let added = try await cli.run("users", "add", name)
            try #require(added.status == 0, "\(added.stderr)")
            let url = try await cli.run("--user", name, "feed", "url", "--port", String(port))
            try #require(url.status == 0, "\(url.stderr)")
            let token = try #require(url.stdout.split(separator: "\n").first?.split(separator: "/").last).dropLast(4)
            feeds.append("http://127.0.0.1:\(port)/calendar/\(token).ics")
        }
        let server = try TestProcess(
            [try CLIProcess.binary(), "serve", "--all-users", "--port", String(port)],
            environment: cli.environment,
            directory: cli.directory,
            name: "serve"
        )
        defer { server.stop() }
        try await server.waitUntil("the server") { _ in
            await (try? HostileFeedTests.curl("http://127.0.0.1:\(port)/healthz"))?.stdout == "200"
        }
        var tags: [String] = []
        for feed in feeds {
            let first = try await InviteCommandTests.fetch([feed])
            try #require(first.status == 200, "\(feed)")
            let tag = try #require(first.fields["etag"])
            #expect(try await Self.get(feed, "-H", "If-None-Match: \(tag)").status == 304)
            tags.append(tag)
        }
        let links = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server.pid)/fd/\($0)")
        }
        #expect(links.filter { $0 == "anon_inode:inotify" }.count == 2, "\(links.filter { $0.hasPrefix("anon_inode") })")

        let card = try cli.write("friend.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:friend\r\nFN:Ada Lovelace\r\nBDAY:1990-03-11\r\nEND:VCARD\r\n")
        let imported = try await cli.run("--user", "u05", "import", card)
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(try await Self.get(feeds[5], "-H", "If-None-Match: \(tags[5])").status == 200, "the write is seen at once")
        #expect(try await Self.get(feeds[6], "-H", "If-None-Match: \(tags[6])").status == 304, "another user's tag still answers 304")
    }
}
