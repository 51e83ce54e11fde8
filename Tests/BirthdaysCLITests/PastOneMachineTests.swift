import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// nginx, where Debian puts it.
enum Nginx {
    static let path = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// docs/server.md's "Past one machine", run on this machine: the nginx
/// recipe as the page has it, in front of two `serve --all-users` over two
/// users roots, with nginx's basic auth as the login; each person's page
/// comes from the process that has them, every token's address from
/// whichever has it, and after `users move` the token's address still
/// works, and the page does once the map names the new process.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: Nginx.path != nil, "needs nginx (apt: nginx-light)")
)
struct PastOneMachineTests {
    /// The `nginx` blocks of docs/server.md's "One nginx in front of both", in order.
    static func recipe() throws -> [String] {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/server.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section =
            try #require(text.components(separatedBy: "### One nginx in front of both\n").dropFirst().first)
            .components(separatedBy: "\n### ").first ?? ""
        return section.components(separatedBy: "```nginx\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    /// nginx's configuration: the recipe's two blocks, its ports made `first` and `second`, in a server on `port`
    /// with basic auth (`alice`, `bob`: passwords `alice-pw`, `bob-pw`), everything nginx writes in `folder`.
    static func configuration(_ blocks: [String], folder: String, port: Int, first: Int, second: Int, extraMap: String = "") throws -> String {
        try #require(blocks.count == 2, "the recipe's http block and server block")
        let ports = { (text: String) in
            text.replacingOccurrences(of: "127.0.0.1:8484", with: "127.0.0.1:\(first)").replacingOccurrences(
                of: "127.0.0.1:8485",
                with: "127.0.0.1:\(second)"
            )
        }
        var http = blocks[0]
        if !extraMap.isEmpty {
            http = http.replacingOccurrences(
                of: "map $birthdays_login $birthdays_home {\n",
                with: "map $birthdays_login $birthdays_home {\n" + extraMap + "\n"
            )
        }
        http = ports(http)
        return """
            \(geteuid() == 0 ? "user root;" : "")
            worker_processes 1;
            daemon off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log;
            events { worker_connections 64; }
            http {
                access_log \(folder)/access.log;
                client_body_temp_path \(folder)/body;
                proxy_temp_path \(folder)/proxy;
                fastcgi_temp_path \(folder)/fastcgi;
                uwsgi_temp_path \(folder)/uwsgi;
                scgi_temp_path \(folder)/scgi;
            \(http)
                server {
                    listen 127.0.0.1:\(port);
                    auth_basic "Birthdays";
                    auth_basic_user_file \(folder)/htpasswd;
            \(ports(blocks[1]))
                }
            }

            """
    }

    @Test func oneNginxRoutesEachPersonToTheProcessThatHasThem() async throws {
        let blocks = try Self.recipe()
        var cli = try CLIProcess(now: "2026-03-10T08:00:00+01:00")
        defer { cli.cleanUp() }
        cli.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("users-a")
        var there = cli
        there.extraEnvironment["BIRTHDAYS_USERS_DIR"] = cli.path("users-b")
        let first = try Loopback.freePort()
        let second = try Loopback.freePort()
        let port = try Loopback.freePort()
        let alice = try await ServeAllUsersTests.addUser("alice", friend: "Ada Lovelace", in: cli, port: port)
        let bob = try await ServeAllUsersTests.addUser("bob", friend: "Bob Builder", in: there, port: port)

        var servers: [TestProcess] = []
        defer { for server in servers { server.stop() } }
        for (side, serverPort) in [(cli, first), (there, second)] {
            let server = try TestProcess(
                [
                    try CLIProcess.binary(), "serve", "--all-users", "--port", String(serverPort), "--trusted-proxy", "127.0.0.1", "--user-header",
                    "Remote-User",
                ],
                environment: side.environment,
                directory: cli.directory,
                name: "serve-\(serverPort)"
            )
            servers.append(server)
            try await server.waitUntil("the server") { _ in
                await (try? HostileFeedTests.curl("http://127.0.0.1:\(serverPort)/healthz"))?.stdout == "200"
            }
        }

        let folder = cli.path("nginx")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "alice:{PLAIN}alice-pw\nbob:{PLAIN}bob-pw\n".write(toFile: folder + "/htpasswd", atomically: true, encoding: .utf8)
        let conf = folder + "/nginx.conf"
        try Self.configuration(blocks, folder: folder, port: port, first: first, second: second).write(
            toFile: conf,
            atomically: true,
            encoding: .utf8
        )
        let nginx = try TestProcess(
            [try #require(Nginx.path), "-p", folder, "-c", conf],
            environment: ["PATH": "/usr/sbin:/usr/bin:/bin"],
            directory: cli.directory,
            name: "nginx"
        )
        defer { nginx.stop(signal: SIGQUIT) }
        let url = { (path: String) in "http://127.0.0.1:\(port)\(path)" }
        try await nginx.waitUntil("nginx") { _ in await (try? HostileFeedTests.curl(url("/healthz")))?.stdout == "200" }

        // Each person's page, from the process that has them: only the first has alice, only the second bob.
        let alicePage = try await ServeAllUsersTests.get(url("/"), "-u", "alice:alice-pw")
        #expect(alicePage.status == 200 && alicePage.body.contains("Ada Lovelace") && !alicePage.body.contains("Bob Builder"))
        let bobPage = try await ServeAllUsersTests.get(url("/"), "-u", "bob:bob-pw")
        #expect(bobPage.status == 200 && bobPage.body.contains("Bob Builder") && !bobPage.body.contains("Ada Lovelace"))
        #expect(try await ServeAllUsersTests.get("http://127.0.0.1:\(second)/", "-H", "Remote-User: alice").status == 403, "the second has no alice")
        #expect(try await ServeAllUsersTests.get("http://127.0.0.1:\(first)/", "-H", "Remote-User: bob").status == 403, "the first has no bob")
        #expect(try await ServeAllUsersTests.get(url("/"), "-u", "alice:wrong").status == 401)
        #expect(try await ServeAllUsersTests.get(url("/"), "-H", "Remote-User: alice").status == 401, "no login, no page, whatever the header")

        // Tokens need no login and reach whichever process has them; a client's header names no one.
        for (tokens, friend) in [(alice, "Ada Lovelace"), (bob, "Bob Builder")] {
            let feed = try await ServeAllUsersTests.get(url("/calendar/\(tokens.feed).ics"))
            #expect(feed.status == 200 && feed.body.contains(friend), "\(friend): \(feed.status)")
            let share = try await ServeAllUsersTests.get(url("/calendar/\(tokens.share)"), "-H", "Remote-User: alice")
            #expect(share.status == 200 && share.body.contains(friend))
        }
        #expect(try await ServeAllUsersTests.get(url("/calendar/\(String(repeating: "0", count: 32)).ics")).status == 404)

        // alice moves to the second root: her feed's address works at once; her page once the map names the second.
        let moved = try await cli.run("users", "move", "alice", "--to", cli.path("users-b"))
        #expect(moved.status == 0, "\(moved.stderr)")
        // The second serves her within a second of her folder's arrival (it follows its root).
        try await eventually("alice's feed from the second") {
            let feed = try? await ServeAllUsersTests.get(url("/calendar/\(alice.feed).ics"))
            return feed?.status == 200 && feed?.body.contains("Ada Lovelace") == true
        }
        #expect(try await ServeAllUsersTests.get(url("/"), "-u", "alice:alice-pw").status == 403, "the first has her no more")
        try Self.configuration(blocks, folder: folder, port: port, first: first, second: second, extraMap: "    alice    127.0.0.1:8485;")
            .write(toFile: conf, atomically: true, encoding: .utf8)
        nginx.signal(SIGHUP)
        try await eventually("alice's page from the second") {
            let page = try? await ServeAllUsersTests.get(url("/"), "-u", "alice:alice-pw")
            return page?.status == 200 && page?.body.contains("Ada Lovelace") == true
        }
        let bobAgain = try await ServeAllUsersTests.get(url("/"), "-u", "bob:bob-pw")
        #expect(bobAgain.status == 200 && bobAgain.body.contains("Bob Builder"))
    }
}
