import BirthdayCore
import Foundation
import GRDB

/// An import that could not run at all; nothing was written.
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A path does not exist or cannot be read.
    case cannotRead(path: String, reason: String)
    /// A directory holds no `.vcf` or `.vcard` file.
    case emptyDirectory(path: String)
    /// No contact could be read from any of the inputs; the report says why.
    case nothingImported(ImportReport)
    case store(StoreError)

    public var description: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .emptyDirectory(let path): "\(path) holds no .vcf or .vcard files"
        case .nothingImported(let report):
            report.problems.isEmpty
                ? "no contacts found in the input"
                : "no contacts could be imported (\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s"))"
        case .store(let error): error.description
        }
    }
}

/// Reads contact exports and merges them into the store in one transaction.
///
/// ## Identity and merging
/// Ids and duplicates within one run follow ``ContactMerge``. Importing the
/// same export again changes nothing; an edited contact is updated in
/// place. A re-import never erases a date that came from a different file:
/// importing a CSV without birthdays does not wipe the birthdays an earlier
/// vCard import brought in.
///
/// Only contacts that carry a birthday, an anniversary or an unreadable date
/// are stored; the report counts the others as `withoutDates`.
///
/// ## Imports and sources
/// What an import brings belongs to no source: it is marked `imported`, and
/// no sync removes it, even when a source that has the same person loses it
/// (see ``SourceSync``).
///
/// Reading, parsing and writing run on NIO's thread pool (see ``AppDatabase``).
public struct ContactImporter: Sendable {
    public let database: AppDatabase
    public let now: Date
    /// The current year, for two-digit years in CSV exports.
    public let referenceYear: Int

    public init(database: AppDatabase, now: Date, referenceYear: Int) {
        self.database = database
        self.now = now
        self.referenceYear = referenceYear
    }

    /// Progress of a long import: bytes read so far and in total.
    public typealias Progress = @Sendable (_ done: Int64, _ total: Int64) -> Void

    /// Imports every file named in `paths` (files, or directories searched
    /// recursively for `.vcf`/`.vcard` files), in one write transaction: the
    /// run lands whole or not at all.
    ///
    /// - Parameters:
    ///   - dryRun: compute the report without writing anything.
    /// - Throws: ``ImportError`` when an input cannot be read or nothing could
    ///   be imported; the store is unchanged then.
    public func importPaths(_ paths: [String], dryRun: Bool = false, progress: Progress? = nil) async throws(ImportError) -> ImportReport {
        try await Blocking.run { () throws(ImportError) in try importNow(paths, dryRun: dryRun, progress: progress) }
    }

    private func importNow(_ paths: [String], dryRun: Bool, progress: Progress?) throws(ImportError) -> ImportReport {
        let files = try ContactImporter.expand(paths)
        var report = ImportReport()
        var parsed: [ParsedContact] = []
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        var done: Int64 = 0
        for file in files {
            progress?(done, total)
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file.path), options: .alwaysMapped)
            } catch {
                throw .cannotRead(path: file.path, reason: (error as NSError).localizedFailureReason ?? "read failed")
            }
            let result = ContactReader.parse(data, file: file.path, referenceYear: referenceYear)
            report.files += 1
            report.problems += result.problems
            parsed += result.contacts
            done += file.size
            progress?(done, total)
        }
        guard !parsed.isEmpty else { throw .nothingImported(report) }
        let people = ContactMerge.people(from: parsed, report: &report)
        let now = self.now
        do {
            if dryRun {
                try database.readNow { db in try ContactImporter.merge(people, into: db, now: now, report: &report, write: false) }
            } else {
                try database.writeNow { db in try ContactImporter.merge(people, into: db, now: now, report: &report, write: true) }
            }
        } catch {
            throw .store(error)
        }
        return report
    }

    struct InputFile {
        var path: String
        var size: Int64
    }

    static func expand(_ paths: [String]) throws(ImportError) -> [InputFile] {
        let fileManager = FileManager.default
        var files: [InputFile] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .cannotRead(path: path, reason: "no such file or directory")
            }
            if isDirectory.boolValue {
                let found = vCardFiles(in: path)
                guard !found.isEmpty else { throw .emptyDirectory(path: path) }
                files += found
            } else {
                guard fileManager.isReadableFile(atPath: path) else { throw .cannotRead(path: path, reason: "permission denied") }
                files.append(InputFile(path: path, size: size(of: path)))
            }
        }
        return files
    }

    /// `.vcf` and `.vcard` files below `directory`, sorted by path; hidden
    /// files and folders (such as `.git` or vdirsyncer's status) are skipped.
    static func vCardFiles(in directory: String) -> [InputFile] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: URL(fileURLWithPath: directory),
                includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey],
                options: [.skipsHiddenFiles]
            )
        else { return [] }
        var files: [InputFile] = []
        for case let url as URL in enumerator {
            let ext = url.pathExtension.lowercased()
            guard ext == "vcf" || ext == "vcard" else { continue }
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
            guard values?.isRegularFile == true else { continue }
            files.append(InputFile(path: url.path, size: Int64(values?.fileSize ?? 0)))
        }
        return files.sorted { $0.path < $1.path }
    }

    static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Writes `people` into the store (or only counts, when `write` is false).
    static func merge(_ people: [Person], into db: Database, now: Date, report: inout ImportReport, write: Bool) throws {
        let stored = try PersonRecord.mergeStates(db)
        let timestamp = now.timeIntervalSince1970
        var changed = false
        // People a source brought that this import brings too: from now on they
        // belong to the import as well, and no sync removes them.
        var adopted: [String] = []
        for var person in people {
            if !person.invalidDates.isEmpty { report.invalid += 1 }
            guard let old = stored[person.id] else {
                report.added += 1
                changed = true
                if write { try PersonRecord(person, createdAt: timestamp, updatedAt: timestamp).upsert(db) }
                continue
            }
            if old.sourceFile != person.source.file {
                // Never erase a date that came from another file.
                if person.birthday == nil { person.birthday = old.birthday }
                if person.anniversary == nil { person.anniversary = old.anniversary }
            }
            if person.fingerprint == old.fingerprint {
                report.unchanged += 1
                if !old.imported { adopted.append(person.id) }
                continue
            }
            report.updated += 1
            changed = true
            if write { try PersonRecord(person, excluded: old.excluded, createdAt: old.createdAt, updatedAt: timestamp).upsert(db) }
        }
        if write && !adopted.isEmpty { try PersonRecord.markImported(adopted, db) }
        if write && changed { try RevisionRecord.bump(now: now, db) }
    }
}
