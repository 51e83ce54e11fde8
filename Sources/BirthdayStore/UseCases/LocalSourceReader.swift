import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads file and vdir sources from this machine.
///
/// - A **file** source is one item, named after the file; its stamp is the
///   file's size, modification time and inode. An unchanged stamp costs one
///   `stat`; a changed one reads the whole file.
/// - A **vdir** source is every `.vcf`/`.vcard` file below the folder
///   (hidden files and folders skipped, as `import` does), each an item
///   keyed by its path inside the folder. Only files whose stamp changed are
///   read. vdirsyncer's temporary files (`tmp…` without an extension) are
///   not cards and are ignored.
///
/// A missing file or folder is an error, never an emptied source. A file
/// of a vdir that cannot be read is kept as it was and reported.
package struct LocalSourceReader: SourceReader {
    package init() {}

    package func changes(in source: Source, since snapshot: SourceSnapshot) async throws(SourceError) -> SourceChanges {
        try await Blocking.run { () throws(SourceError) in
            switch source.kind {
            case .file: try LocalSourceReader.file(source.location, snapshot: snapshot)
            case .vdir: try LocalSourceReader.vdir(source.location, snapshot: snapshot)
            case .carddav: throw .unavailable(reason: "\(source.location) is not a local source")
            }
        }
    }

    static func file(_ path: String, snapshot: SourceSnapshot) throws(SourceError) -> SourceChanges {
        let href = URL(fileURLWithPath: path).lastPathComponent
        guard let stamp = stamp(path) else { throw .cannotRead(path: path, reason: ContactFiles.reason(errno)) }
        guard stamp.isRegular else { throw .cannotRead(path: path, reason: "not a regular file") }
        if snapshot.items[href] == stamp.text { return .unchanged(snapshot, requests: 0) }
        let data: Data
        do {
            data = try ContactFiles.read(path)
        } catch {
            throw SourceError(error, path: path)
        }
        return SourceChanges(listing: .complete(present: [href]), items: [SourceItem(href: href, etag: stamp.text, location: path, content: data)])
    }

    static func vdir(_ folder: String, snapshot: SourceSnapshot) throws(SourceError) -> SourceChanges {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw .cannotRead(path: folder, reason: "no such folder")
        }
        guard isDirectory.boolValue else { throw .cannotRead(path: folder, reason: "not a folder") }
        // Listed as an import lists a folder (ContactFiles): a folder below it
        // that cannot be listed fails the sync, since a partial listing would
        // remove the people of the files it missed. An empty folder is listed
        // as empty (the mass-removal guard then speaks).
        let files: [ContactFiles.InputFile]
        do {
            files = try ContactFiles.expand([folder], skippingVanished: true)
        } catch .emptyDirectory {
            files = []
        } catch {
            // The folder, not the file: a card's file name may be a person's
            // name, and this error reaches the log and `status`.
            if case .cannotRead(let path, let reason) = error, path != folder {
                throw .cannotRead(
                    path: folder,
                    reason: "something in it cannot be read (\(reason)); birthdays import --dry-run on the folder names it"
                )
            }
            throw SourceError(error, path: folder)
        }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        var present = Set<String>()
        var items: [SourceItem] = []
        var problems: [ImportProblem] = []
        for file in files {
            let path = file.path
            let href = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
            // Gone between the listing and now: not present.
            guard let stamp = stamp(path), stamp.isRegular else { continue }
            present.insert(href)
            if snapshot.items[href] == stamp.text { continue }
            guard let data = try? ContactFiles.read(path) else {
                problems.append(ImportProblem(file: path, line: 1, message: "cannot read the file; kept as it was"))
                continue
            }
            items.append(SourceItem(href: href, etag: stamp.text, location: path, content: data))
        }
        return SourceChanges(listing: .complete(present: present), items: items, problems: problems)
    }

    struct Stamp {
        var text: String
        var isRegular: Bool
    }

    /// Size, modification time (ns) and inode: what changes when a file is
    /// rewritten in place or replaced by a rename.
    static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let text = "\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_ino)"
        return Stamp(text: text, isRegular: (info.st_mode & S_IFMT) == S_IFREG)
    }
}

extension SourceError {
    /// A file or folder of a local source that could not be read.
    init(_ error: ImportError, path: String) {
        switch error {
        case .cannotRead(let path, let reason): self = .cannotRead(path: path, reason: reason)
        default: self = .cannotRead(path: path, reason: error.description)
        }
    }
}
