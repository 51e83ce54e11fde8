import BirthdayCore
import Foundation
import TestSupport
import Testing

@testable import BirthdaySystem

/// The life cycle of an added channel's or a room's secret, on real files:
/// staged, moved into place or gone, read, copied for a trial, removed;
/// 0600 files in the database's own 0700 folder, never a secret in an
/// error; the old shared layout moved in name by name.
@Suite struct ChannelSecretsTests {
    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }

    @Test func aStagedSecretIsGoneUnlessCommittedAndLandsPrivate() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let secrets = ChannelSecrets(databasePath: folder.file("birthdays.sqlite"))
        var temporary = ""
        do {
            let staged = try secrets.stage("https://ntfy.sh/topic-1", for: .channel(name: "phone", kind: .ntfy))
            temporary = staged.temporary
            #expect(FileManager.default.fileExists(atPath: temporary))
        }
        #expect(!FileManager.default.fileExists(atPath: temporary), "dropped without commit: removed")
        #expect(!FileManager.default.fileExists(atPath: secrets.file(name: "phone", kind: .ntfy)))

        let staged = try secrets.stage("https://ntfy.sh/topic-1", for: .channel(name: "phone", kind: .ntfy))
        try staged.commit()
        let path = secrets.file(name: "phone", kind: .ntfy)
        #expect(Self.mode(path) == 0o600 && Self.mode(secrets.folder) == 0o700)
        #expect(try secrets.ntfyURL(name: "phone").topic == "topic-1")
        #expect(!FileManager.default.fileExists(atPath: staged.temporary))
    }

    @Test func aTrialGetsACopyAndRemoveTakesEveryKind() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let secrets = ChannelSecrets(databasePath: folder.file("birthdays.sqlite"))
        try secrets.stage("https://ntfy.sh/topic-2", for: .channel(name: "phone", kind: .ntfy)).commit()
        try secrets.stage("json://127.0.0.1:9/", for: .channel(name: "chat", kind: .apprise)).commit()
        try FileManager.default.createDirectory(atPath: folder.file("trial"), withIntermediateDirectories: false)
        let trial = ChannelSecrets(databasePath: folder.file("trial/birthdays.sqlite"))
        try secrets.copy(to: trial)
        #expect(Self.mode(trial.folder) == 0o700)
        #expect(Self.mode(trial.file(name: "chat", kind: .apprise)) == 0o600)
        #expect(try trial.ntfyURL(name: "phone").topic == "topic-2")

        secrets.remove(name: "phone")
        secrets.remove(name: "chat")
        #expect((try FileManager.default.contentsOfDirectory(atPath: secrets.folder)).isEmpty)
        do {
            _ = try secrets.ntfyURL(name: "phone")
            Issue.record("a missing file is an error")
        } catch {
            #expect(error.description.hasPrefix(secrets.file(name: "phone", kind: .ntfy) + " is missing or holds no ntfy URL; write"))
            #expect(!error.description.contains("topic-2"))
        }
    }

    // MARK: - One folder per database, and the old layout

    @Test func twoDatabasesInOneFolderKeepTheirOwnSecretsUnderOneName() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let home = ChannelSecrets(databasePath: folder.file("birthdays.sqlite"))
        let work = ChannelSecrets(databasePath: folder.file("work.sqlite"))
        try home.stage("https://ntfy.sh/home-topic", for: .channel(name: "phone", kind: .ntfy)).commit()
        try work.stage("https://ntfy.sh/work-topic", for: .channel(name: "phone", kind: .ntfy)).commit()
        try home.stage("https://hooks.example/home", for: .room(name: "team")).commit()
        try work.stage("https://hooks.example/work", for: .room(name: "team")).commit()
        #expect(home.folder == folder.file("birthdays.sqlite.secrets") && work.folder == folder.file("work.sqlite.secrets"))
        #expect(try home.ntfyURL(name: "phone").topic == "home-topic")
        #expect(try work.ntfyURL(name: "phone").topic == "work-topic")
        #expect(try home.roomURL(name: "team") == "https://hooks.example/home")
        #expect(try work.roomURL(name: "team") == "https://hooks.example/work")
        #expect(Self.mode(home.roomFile(name: "team")) == 0o600 && Self.mode(work.folder) == 0o700)
        work.remove(.room(name: "team"))
        #expect(try home.roomURL(name: "team") == "https://hooks.example/home", "removing one database's room leaves the other's")
    }

    /// Two databases shared `channels/` and `announce/`: each takes only the
    /// names it uses, when it uses them; the rest stays for the other.
    @Test func theOldLayoutIsMovedInNameByNameAndWhatOthersUseStays() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        for sub in ["channels", "announce"] {
            try FileManager.default.createDirectory(
                atPath: folder.file(sub),
                withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700]
            )
        }
        try Data("https://ntfy.sh/home-topic\n".utf8).write(to: URL(fileURLWithPath: folder.file("channels/phone.ntfy")))
        try Data("https://ntfy.sh/work-topic\n".utf8).write(to: URL(fileURLWithPath: folder.file("channels/pager.ntfy")))
        try Data("https://hooks.example/home\n".utf8).write(to: URL(fileURLWithPath: folder.file("announce/team.url")))
        let home = ChannelSecrets(databasePath: folder.file("birthdays.sqlite"))
        let work = ChannelSecrets(databasePath: folder.file("work.sqlite"))

        #expect(try home.ntfyURL(name: "phone").topic == "home-topic")
        #expect(try home.roomURL(name: "team") == "https://hooks.example/home")
        #expect(Self.mode(home.file(.channel(name: "phone", kind: .ntfy))) == 0o600 && Self.mode(home.folder) == 0o700)
        #expect(!FileManager.default.fileExists(atPath: folder.file("channels/phone.ntfy")), "moved, not copied")
        #expect(!FileManager.default.fileExists(atPath: folder.file("announce")), "the emptied old folder is gone")
        #expect(FileManager.default.fileExists(atPath: folder.file("channels/pager.ntfy")), "a name only the other database uses stays")

        #expect(try work.ntfyURL(name: "pager").topic == "work-topic")
        #expect(!FileManager.default.fileExists(atPath: folder.file("channels")))
        #expect(throws: ChannelSecretError.self) { try work.ntfyURL(name: "phone") }
        #expect(try home.ntfyURL(name: "phone").topic == "home-topic", "and again, from its own folder")
    }

    @Test func aTrialCopyTakesTheOldLayoutsFilesTooAndTheNewOnesFirst() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let secrets = ChannelSecrets(databasePath: folder.file("birthdays.sqlite"))
        try FileManager.default.createDirectory(atPath: folder.file("announce"), withIntermediateDirectories: false)
        try Data("https://hooks.example/old\n".utf8).write(to: URL(fileURLWithPath: folder.file("announce/team.url")))
        try Data("https://hooks.example/stale\n".utf8).write(to: URL(fileURLWithPath: folder.file("announce/desk.url")))
        try secrets.stage("https://hooks.example/new", for: .room(name: "desk")).commit()
        try FileManager.default.createDirectory(atPath: folder.file("trial"), withIntermediateDirectories: false)
        let trial = ChannelSecrets(databasePath: folder.file("trial/birthdays.sqlite"))
        try secrets.copy(to: trial)
        #expect(try trial.roomURL(name: "team") == "https://hooks.example/old")
        #expect(try trial.roomURL(name: "desk") == "https://hooks.example/new")
        #expect(FileManager.default.fileExists(atPath: folder.file("announce/team.url")), "a trial moves nothing of the original")
    }

    /// One database removing a channel it keeps in its own folder leaves a
    /// file of that name in the old layout alone: it is another database's,
    /// not yet moved in.
    @Test func removingOnesOwnSecretLeavesAnotherDatabasesOldFile() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        try FileManager.default.createDirectory(atPath: folder.file("channels"), withIntermediateDirectories: false)
        try Data("https://ntfy.sh/work-topic\n".utf8).write(to: URL(fileURLWithPath: folder.file("channels/phone.ntfy")))
        let home = ChannelSecrets(databasePath: folder.file("birthdays.sqlite"))
        let work = ChannelSecrets(databasePath: folder.file("work.sqlite"))
        try home.stage("https://ntfy.sh/home-topic", for: .channel(name: "phone", kind: .ntfy)).commit()

        home.remove(name: "phone")
        #expect(!FileManager.default.fileExists(atPath: home.file(.channel(name: "phone", kind: .ntfy))))
        #expect(FileManager.default.fileExists(atPath: folder.file("channels/phone.ntfy")), "the other database's file of the old layout stays")

        work.remove(name: "phone")
        #expect(!FileManager.default.fileExists(atPath: folder.file("channels/phone.ntfy")), "never moved in: removed where it is")
        #expect(!FileManager.default.fileExists(atPath: work.folder))
    }

    @Test func aTrialCopyTakesAGreetingsURLToo() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let secrets = ChannelSecrets(databasePath: folder.file("birthdays.sqlite"))
        try secrets.stage("mailto://friend@example.org", for: .greeting(id: 7)).commit()
        try FileManager.default.createDirectory(atPath: folder.file("trial"), withIntermediateDirectories: false)
        let trial = ChannelSecrets(databasePath: folder.file("trial/birthdays.sqlite"))
        try secrets.copy(to: trial)
        let copied = trial.file(.greeting(id: 7))
        #expect(try String(contentsOfFile: copied, encoding: .utf8) == "mailto://friend@example.org\n")
        #expect(Self.mode(copied) == 0o600)
    }
}
