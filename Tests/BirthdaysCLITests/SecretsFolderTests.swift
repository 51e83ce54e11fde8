import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Each database owns its secrets (`<database>.secrets/` beside it), with
/// the real binary and the real helper posting to loopback receivers: two
/// databases in one folder with an ntfy channel of the same name each reach
/// their own server, and a channel of the old shared layout (`channels/`
/// beside the database) is moved in and still delivers.
@Suite(.timeLimit(.minutes(10)))
struct SecretsFolderTests {
    typealias Receiver = ChannelsCommandTests.Receiver

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// The ntfy topics a receiver got.
    static func topics(_ receiver: Receiver) throws -> [String] {
        try receiver.received.map { try CLIProcess.object($0)["topic"] as? String ?? "" }
    }

    @Test func twoDatabasesInOneFolderEachReachTheirOwnNtfyUnderOneName() async throws {
        let home = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { home.cleanUp() }
        var work = home
        work.extraEnvironment["BIRTHDAYS_DATABASE"] = home.path("work.sqlite")
        try await work.seed([("ada", "Ada Lovelace", "1990-03-10")])
        try await work.set("day-before", "off")
        try await work.set("channels", "log")
        try await work.enableNotifications()
        let elsewhere = try CLIProcess()
        defer { elsewhere.cleanUp() }
        let homeServer = try await Receiver(in: home)
        defer { homeServer.stop() }
        let workServer = try await Receiver(in: elsewhere)
        defer { workServer.stop() }

        let added = try await home.run("channels", "add", "ntfy", "http://127.0.0.1:\(homeServer.port)/home-topic", "--name", "phone")
        #expect(added.status == 0, "\(added.stderr)")
        let again = try await work.run("channels", "add", "ntfy", "http://127.0.0.1:\(workServer.port)/work-topic", "--name", "phone")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.mode(home.secretsFolder) == 0o700 && Self.mode(home.secretsFolder + "/phone.ntfy") == 0o600)
        #expect(Self.mode(home.path("work.sqlite.secrets/phone.ntfy")) == 0o600)

        #expect(try await home.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once").status == 0)
        #expect(try await work.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once").status == 0)
        #expect(try Self.topics(homeServer) == ["home-topic"])
        #expect(try Self.topics(workServer) == ["work-topic"])
    }

    @Test func aChannelOfTheOldSharedLayoutIsMovedInAndStillDelivers() async throws {
        let cli = try await CLIProcess.withAda(settings: [("channels", "log")], enableNotifications: true)
        defer { cli.cleanUp() }
        let receiver = try await Receiver(in: cli)
        defer { receiver.stop() }
        #expect(try await cli.run("channels", "add", "ntfy", "http://127.0.0.1:\(receiver.port)/old-topic", "--name", "phone").status == 0)
        // As an earlier version left it: channels/ beside the database, with a file another database uses.
        let old = cli.path("channels")
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.moveItem(atPath: cli.secretsFolder + "/phone.ntfy", toPath: old + "/phone.ntfy")
        try FileManager.default.removeItem(atPath: cli.secretsFolder)
        try Data("http://127.0.0.1:9/other-topic\n".utf8).write(to: URL(fileURLWithPath: old + "/pager.ntfy"))

        let pass = try await cli.run(at: "2026-03-10T09:00:05+01:00", "deliver", "--once")
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(try Self.topics(receiver) == ["old-topic"])
        #expect(Self.mode(cli.secretsFolder + "/phone.ntfy") == 0o600 && Self.mode(cli.secretsFolder) == 0o700, "moved into its own folder")
        #expect(!FileManager.default.fileExists(atPath: old + "/phone.ntfy"))
        #expect(FileManager.default.fileExists(atPath: old + "/pager.ntfy"), "a name this database does not use stays")
    }
}
