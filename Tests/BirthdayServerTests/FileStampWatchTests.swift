import Foundation
import TestSupport
import Testing

@testable import BirthdayServer

/// The revalidation path's file stamp, kept until the real inotify watch on
/// the database's folder sees a change: every change is seen by the next
/// call, and nothing else takes the stamp again.
@Suite struct FileStampWatchTests {
    private func append(_ text: String, to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    @Test func aKeptStampIsTakenAgainAtOnceAfterEachChangeOfTheDatabaseOrItsLog() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let database = try folder.write("db.sqlite", "0123456789")
        let log = folder.file("db.sqlite-wal")
        let watch = FileStampWatch(database: database, log: log)
        let first = await watch.current()
        #expect(watch.isWatching)
        #expect(first == FileStamp(database: database, log: log))
        #expect(first.database.size == 10)
        for _ in 0..<3 { #expect(await watch.current() == first) }
        #expect(watch.stampsTaken == 1)

        try folder.write("db.sqlite-wal", "wal")
        #expect(await watch.current().log.size == 3)
        try append("more", to: log)
        #expect(await watch.current().log.size == 7)
        try append("!", to: database)
        #expect(await watch.current().database.size == 11)

        // A new file renamed over the database: another inode, the same size.
        let replacement = try folder.write("replacement", "01234567890")
        #expect(rename(replacement, database) == 0)
        let replaced = await watch.current()
        #expect(replaced.database.inode != first.database.inode)
        #expect(replaced.database == FileStamp.File(database) && replaced.log == FileStamp.File(log))

        #expect(unlink(log) == 0)
        #expect(await watch.current().log == FileStamp.File(log))
        #expect(await watch.current().log.size == 0)

        let taken = watch.stampsTaken
        for _ in 0..<3 { _ = await watch.current() }
        #expect(watch.stampsTaken == taken)
    }

    /// Watches of two folders share one inotify instance (``StampInotify``):
    /// a change in one folder drops that folder's kept stamp only, and the
    /// folder's watch descriptor goes with its last watch.
    @Test func watchesOfTwoFoldersShareOneInstanceAndEachHearsItsOwnFolder() async throws {
        let one = try TemporaryDirectory()
        let two = try TemporaryDirectory()
        defer {
            one.cleanup()
            two.cleanup()
        }
        let inotify = StampInotify()
        let first = FileStampWatch(database: try one.write("db.sqlite", "0123"), log: one.file("db.sqlite-wal"), inotify: inotify)
        let second = FileStampWatch(database: try two.write("db.sqlite", "01"), log: two.file("db.sqlite-wal"), inotify: inotify)
        var same: FileStampWatch? = FileStampWatch(database: one.file("db.sqlite"), log: one.file("db.sqlite-wal"), inotify: inotify)
        for watch in [first, second, same!] { _ = await watch.current() }
        #expect(first.isWatching && second.isWatching && same!.isWatching)
        #expect(inotify.folders == 2)

        try one.write("db.sqlite-wal", "wal")
        #expect(await first.current().log.size == 3)
        #expect(await same!.current().log.size == 3)
        #expect(first.stampsTaken == 2 && same!.stampsTaken == 2)
        #expect(await second.current().database.size == 2)
        #expect(second.stampsTaken == 1, "the other folder's stamp is kept")

        same = nil
        #expect(inotify.folders == 2, "the first still watches the folder")
        try append("!", to: one.file("db.sqlite"))
        #expect(await first.current().database.size == 5)
        #expect(first.stampsTaken == 3)
    }

    /// Events lost to a full queue may have said that the folder was moved
    /// away: the watch is set up again from the path, so a database put in
    /// its place is heard, not a stamp of it kept for good.
    @Test func afterLostEventsTheWatchIsMadeAgainFromThePath() async throws {
        let root = try TemporaryDirectory()
        defer { root.cleanup() }
        let folder = root.file("a")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let database = folder + "/db.sqlite"
        try Data("0123".utf8).write(to: URL(fileURLWithPath: database))
        let inotify = StampInotify()
        let watch = FileStampWatch(database: database, log: database + "-wal", inotify: inotify)
        #expect(await watch.current().database.size == 4)
        #expect(watch.isWatching)

        // More events than the kernel queues (fs.inotify.max_queued_events), none read.
        let limit =
            (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
        for index in 0...(limit / 2) {
            #expect(FileManager.default.createFile(atPath: folder + "/f\(index)", contents: Data("x".utf8)))
        }
        #expect(rename(folder, root.file("a.removed")) == 0)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("01".utf8).write(to: URL(fileURLWithPath: database))

        #expect(await watch.current().database.size == 2)
        try append("23456", to: database)
        #expect(await watch.current().database.size == 7, "the new folder's change is heard")
        #expect(watch.isWatching, "watched again, in the new folder")
        let taken = watch.stampsTaken
        #expect(await watch.current().database.size == 7)
        #expect(watch.stampsTaken == taken, "and its stamp kept again")
    }

    @Test func withoutAWatchEveryCallTakesTheStamp() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let target = try folder.write("target.sqlite", "data")
        let link = folder.file("link.sqlite")
        #expect(symlink(target, link) == 0)
        let watch = FileStampWatch(database: link, log: link + "-wal")
        for _ in 0..<3 { #expect(await watch.current().database.size == 4) }
        #expect(!watch.isWatching)
        #expect(watch.stampsTaken == 3)
        // What the revalidation fast path asks on an event loop: never a stamp, so never a `stat`.
        #expect(watch.kept() == nil)
        #expect(watch.stampsTaken == 3)
    }

    @Test func aRemovedFolderEndsTheWatchAndTheStampIsTakenEachTime() async throws {
        let folder = try TemporaryDirectory()
        let database = try folder.write("db.sqlite", "data")
        let watch = FileStampWatch(database: database, log: database + "-wal")
        #expect(await watch.current().database.size == 4)
        folder.cleanup()
        #expect(await watch.current().database.size == 0)
        #expect(!watch.isWatching)
        let taken = watch.stampsTaken
        _ = await watch.current()
        #expect(watch.stampsTaken == taken + 1)
    }

    @Test func onlyAFolderOnALocalFileSystemIsWatched() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        // The test's own folder is on this machine's disk (ext4, tmpfs, overlayfs…).
        #expect(FileStampWatch.isLocal(folder.path))
        // procfs is none of the listed ones, as NFS, SMB and FUSE are not.
        #expect(!FileStampWatch.isLocal("/proc"))
        #expect(!FileStampWatch.isLocal(folder.file("missing")))
        // A folder under an NFS mount, as mountinfo lists it; the longest mount point wins.
        let mounts = try folder.write(
            "mountinfo",
            "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
                + "40 22 0:40 / \(folder.path)/my\\040home rw,relatime - nfs4 server:/home rw\n"
        )
        try FileManager.default.createDirectory(atPath: folder.file("my home/data"), withIntermediateDirectories: true)
        #expect(!FileStampWatch.isLocal(folder.file("my home/data"), mounts: mounts))
        #expect(FileStampWatch.isLocal(folder.path, mounts: mounts))
        // NFS mounted over a local disk at the same point: the later line is the one in use.
        let stacked = try folder.write(
            "stacked",
            "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n" + "41 22 8:2 / \(folder.path)/my\\040home rw - xfs /dev/sdb1 rw\n"
                + "42 41 0:41 / \(folder.path)/my\\040home rw - nfs4 server:/home rw\n"
        )
        #expect(!FileStampWatch.isLocal(folder.file("my home/data"), mounts: stacked))
        #expect(FileStampWatch.unescaped("/a\\011b\\012c\\134d\\040e") == "/a\tb\nc\\d e")
    }

    /// A write that leaves the file's size, time and inode as they were is
    /// still a change: the watch counts the events it read into the stamp.
    @Test func aChangeThatKeepsSizeAndTimeIsStillANewStamp() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let database = try folder.write("db.sqlite", "0123456789")
        // A whole second, which the file keeps exactly.
        let time: [FileAttributeKey: Any] = [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)]
        try FileManager.default.setAttributes(time, ofItemAtPath: database)
        let watch = FileStampWatch(database: database, log: database + "-wal")
        _ = await watch.current()
        let first = await watch.current()  // the events of the setup read
        #expect(await watch.current() == first)
        try folder.write("db.sqlite", "abcdefghij")
        try FileManager.default.setAttributes(time, ofItemAtPath: database)
        let second = await watch.current()
        #expect(second.database == first.database, "size, time and inode as before")
        #expect(second != first)
        #expect(await watch.current() == second)
    }

    /// The watch is set up (the mount table read) at the first stamp, on
    /// the blocking pool, not when the source is built: a watch made before
    /// its mount table existed still reads it.
    @Test func theMountTableIsReadAtTheFirstStampNotWhenTheWatchIsMade() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let database = try folder.write("db.sqlite", "data")
        let mounts = folder.file("mountinfo")
        let watch = FileStampWatch(database: database, log: database + "-wal", mounts: mounts)
        #expect(!watch.isWatching)
        #expect(watch.kept() == nil, "nothing kept, and nothing taken, before the first stamp")
        #expect(watch.stampsTaken == 0)
        try folder.write("mountinfo", "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n")
        _ = await watch.current()
        #expect(watch.isWatching)
        #expect(watch.kept() != nil)
        #expect(watch.stampsTaken == 1)
    }

    /// After a change the fast path's ``FileStampWatch/kept()`` has nothing
    /// (it drops the stamp; it never takes one): the route takes it anew.
    @Test func aChangeDropsTheKeptStampUntilTheRouteTakesItAgain() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let database = try folder.write("db.sqlite", "0123456789")
        let watch = FileStampWatch(database: database, log: database + "-wal")
        let first = await watch.current()
        #expect(watch.kept() == first)
        try append("more", to: database)
        #expect(watch.kept() == nil)
        #expect(watch.kept() == nil, "still nothing: the change is not forgotten")
        #expect(watch.stampsTaken == 1)
        let second = await watch.current()
        #expect(second.database.size == 14)
        #expect(watch.kept() == second)
    }
}
