import BirthdayCore
import Foundation
import TestSupport
import Testing

@testable import BirthdaySystem

/// The life cycle of an added channel's secret, on real files: staged,
/// moved into place or gone, read, copied for a trial, removed; 0600 files
/// in a 0700 folder, never a secret in an error.
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
            let staged = try secrets.stage("https://ntfy.sh/topic-1", name: "phone", kind: .ntfy)
            temporary = staged.temporary
            #expect(FileManager.default.fileExists(atPath: temporary))
        }
        #expect(!FileManager.default.fileExists(atPath: temporary), "dropped without commit: removed")
        #expect(!FileManager.default.fileExists(atPath: secrets.file(name: "phone", kind: .ntfy)))

        let staged = try secrets.stage("https://ntfy.sh/topic-1", name: "phone", kind: .ntfy)
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
        try secrets.stage("https://ntfy.sh/topic-2", name: "phone", kind: .ntfy).commit()
        try secrets.stage("json://127.0.0.1:9/", name: "chat", kind: .apprise).commit()
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
}
