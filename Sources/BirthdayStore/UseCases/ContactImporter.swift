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
/// ## One transaction
/// The people and, when a ``scheduler`` is given, the reschedule that
/// follows them are written in one transaction: when the disk fills up or
/// the database fails anywhere on the way, nothing lands, and the error says
/// so; when the import succeeds, its reminders are there too.
///
/// Files are found and read by ``ContactFiles`` (read, never mapped; an
/// unreadable folder in a vdir fails the import). Reading, parsing and
/// writing run on NIO's thread pool (see ``AppDatabase``).
public struct ContactImporter: Sendable {
    public let database: AppDatabase
    public let now: Date
    /// The current year, for two-digit years in CSV exports.
    public let referenceYear: Int
    /// Reschedules the reminders in the import's own transaction; `nil` leaves them alone.
    public let scheduler: NotificationScheduler?

    public init(database: AppDatabase, now: Date, referenceYear: Int, scheduler: NotificationScheduler? = nil) {
        self.database = database
        self.now = now
        self.referenceYear = referenceYear
        self.scheduler = scheduler
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
        let files = try ContactFiles.expand(paths)
        var report = ImportReport()
        var parsed: [ParsedContact] = []
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        var done: Int64 = 0
        for file in files {
            progress?(done, total)
            let data = try ContactFiles.read(file.path)
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
                let rescheduled = try database.writeNow { db -> RescheduleResult? in
                    try ContactImporter.merge(people, into: db, now: now, report: &report, write: true)
                    return try scheduler?.reschedule(db)
                }
                if let rescheduled { scheduler?.log(rescheduled) }
            }
        } catch {
            throw .store(error)
        }
        return report
    }

    /// Writes `people` into the store (or only counts, when `write` is false).
    static func merge(_ people: [Person], into db: Database, now: Date, report: inout ImportReport, write: Bool) throws {
        let stored = try PersonRecord.mergeStates(db)
        let timestamp = now.timeIntervalSince1970
        var changed = false
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
                continue
            }
            report.updated += 1
            changed = true
            if write { try PersonRecord(person, excluded: old.excluded, createdAt: old.createdAt, updatedAt: timestamp).upsert(db) }
        }
        if write && changed { try RevisionRecord.bump(now: now, db) }
    }
}
