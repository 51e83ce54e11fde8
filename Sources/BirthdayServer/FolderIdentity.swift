import BirthdayStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A folder's device and inode (never through a link): a folder renamed
/// away and another made under its name are told apart.
struct FolderIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64

    /// `path`'s identity when it is a folder, read on the blocking pool; `nil` otherwise.
    static func read(_ path: String) async -> FolderIdentity? {
        await Blocking.run {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
            return FolderIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }
    }
}
