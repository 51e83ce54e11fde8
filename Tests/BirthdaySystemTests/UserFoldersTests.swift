import BirthdayCore
import Foundation
import TestSupport
import Testing

@testable import BirthdaySystem

#if canImport(Glibc)
import Glibc
#endif

/// The users root on real folders: a folder an add or a removal left behind
/// (killed half-way) is no user and in no later command's way, and the
/// listing tells a user removed and added again under the same name apart.
@Suite struct UserFoldersTests {
    static func entries(_ root: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: root).sorted() }

    @Test func foldersLeftByAKilledAddOrRemovalAreNoUserAndInNoOnesWay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let folders = UserFolders(root: directory.file("users"))
        try folders.makeRoot()
        let alice = try UserName("alice")
        // What an add and a removal of this process's pid, killed half-way, would have left (the pid is reused).
        let leftovers = [".alice.adding-\(getpid())", ".alice.removing-\(getpid())"]
        for leftover in leftovers {
            try FileManager.default.createDirectory(atPath: folders.root + "/" + leftover, withIntermediateDirectories: false)
            try Data("half".utf8).write(to: URL(fileURLWithPath: folders.root + "/" + leftover + "/birthdays.sqlite"))
        }
        #expect(try folders.list() == [])

        let made = try folders.add(alice)
        #expect(!leftovers.map { folders.root + "/" + $0 }.contains(made))
        #expect(URL(fileURLWithPath: made).lastPathComponent.hasPrefix(".alice.adding-"))
        var info = stat()
        #expect(lstat(made, &info) == 0 && info.st_mode & 0o7777 == 0o700)
        try Data().write(to: URL(fileURLWithPath: made + "/" + UserLayout.databaseFile))
        #expect(try folders.list() == [], "a user being added is no user")
        #expect(try folders.publish(made, as: alice) == folders.folder(alice))
        #expect(try folders.list() == [alice])

        #expect(try folders.remove(alice, keepData: false) == nil)
        #expect(try folders.list() == [])
        #expect(try Self.entries(folders.root) == leftovers.sorted(), "the removal left nothing, and took nothing of the leftovers")
    }

    @Test func aUserAddedAgainIsListedWithAnotherIdentity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let folders = UserFolders(root: directory.file("users"))
        let alice = try UserName("alice")
        func add() throws {
            let made = try folders.add(alice)
            try Data().write(to: URL(fileURLWithPath: made + "/" + UserLayout.databaseFile))
            _ = try folders.publish(made, as: alice)
        }
        try add()
        let first = try #require(folders.listed().first)
        #expect(first.name == alice && first.identity.database != nil)
        #expect(try folders.listed() == [first], "the same folder is the same user")

        // Kept, the old folder still exists: neither its inode nor its database's can be the new user's.
        #expect(try folders.remove(alice, keepData: true) != nil)
        try add()
        let second = try #require(folders.listed().first)
        #expect(second.name == alice)
        #expect(second.identity.folder != first.identity.folder && second.identity.database != first.identity.database)

        try FileManager.default.removeItem(atPath: folders.database(alice))
        #expect(try folders.listed().first?.identity == .init(folder: second.identity.folder, database: nil))
    }
}
