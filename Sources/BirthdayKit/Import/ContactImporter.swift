import Foundation
import GRDB

/// What an import did (or, with a dry run, would do).
public struct ImportReport: Sendable, Equatable, Codable {
    /// People new to the store.
    public var added = 0
    /// People already in the store whose names or dates changed.
    public var updated = 0
    /// People already in the store exactly as imported.
    public var unchanged = 0
    /// People with at least one date that could not be read.
    public var invalid = 0
    /// Contacts read that carry no birthday, anniversary or unreadable date; not stored.
    public var withoutDates = 0
    /// Files read.
    public var files = 0
    /// One entry per problem, in file order.
    public var problems: [ImportProblem] = []

    public init() {}

    /// Contacts that carried a date, valid or not.
    public var imported: Int { added + updated + unchanged }

    enum CodingKeys: String, CodingKey {
        case added, updated, unchanged, invalid
        case withoutDates = "without_dates"
        case files, problems
    }
}

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
            report.problems.isEmpty ? "no contacts found in the input" : "no contacts could be imported (\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s"))"
        case .store(let error): error.description
        }
    }
}

/// Reads contact exports and merges them into the store in one transaction.
///
/// ## Identity and merging
/// Each contact gets a stable ``PersonID``. Importing the same export again
/// changes nothing; an edited contact is updated in place. When the same id
/// occurs twice in one run (the same contact in two files), the first
/// occurrence's fields win and a missing field is filled from the later one;
/// a conflicting date is reported. A re-import never erases a date that came
/// from a different file: importing a CSV without birthdays does not wipe the
/// birthdays an earlier vCard import brought in.
///
/// Only contacts that carry a birthday, an anniversary or an unreadable date
/// are stored; the report counts the others as `withoutDates`.
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
    /// recursively for `.vcf`/`.vcard` files).
    ///
    /// - Parameter dryRun: compute the report without writing anything.
    /// - Throws: ``ImportError`` when an input cannot be read or nothing could
    ///   be imported; the store is unchanged then.
    public func importPaths(_ paths: [String], dryRun: Bool = false, progress: Progress? = nil) throws(ImportError) -> ImportReport {
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
            let result = ContactImporter.parse(data, file: file.path, referenceYear: referenceYear)
            report.files += 1
            report.problems += result.problems
            parsed += result.contacts
            done += file.size
            progress?(done, total)
        }
        guard !parsed.isEmpty else { throw .nothingImported(report) }
        let people = ContactImporter.people(from: parsed, report: &report)
        do {
            if dryRun {
                try database.read { db in try ContactImporter.merge(people, into: db, now: now, report: &report, write: false) }
            } else {
                try database.write { db in try ContactImporter.merge(people, into: db, now: now, report: &report, write: true) }
            }
        } catch {
            throw .store(error)
        }
        return report
    }

    /// Parses one file's bytes, detecting vCard or CSV from the content.
    public static func parse(_ data: Data, file: String, referenceYear: Int) -> ParseResult {
        switch ContactFormat.detect(data) {
        case .vCard:
            return VCardParser.parse(data, file: file)
        case .csv:
            return CSVContactParser.parse(data, file: file, referenceYear: referenceYear)
        case .empty:
            return ParseResult(problems: [ImportProblem(file: file, line: 1, message: "the file is empty")])
        case .binary:
            return ParseResult(problems: [ImportProblem(file: file, line: 1, message: "not a vCard or CSV file (binary data)")])
        case .unknown:
            return ParseResult(problems: [ImportProblem(file: file, line: 1, message: "not a vCard or CSV file (no BEGIN:VCARD and no CSV header)")])
        }
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
        guard let enumerator = FileManager.default.enumerator(
            at: URL(fileURLWithPath: directory),
            includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey],
            options: [.skipsHiddenFiles]
        ) else { return [] }
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

    /// Assigns ids and folds duplicates of one id into one person.
    static func people(from contacts: [ParsedContact], report: inout ImportReport) -> [Person] {
        var ordinals: [String: Int] = [:]  // "file\u{1F}key" -> count so far
        var byID: [String: Int] = [:]
        var people: [Person] = []
        people.reserveCapacity(contacts.count)
        for contact in contacts {
            guard contact.hasDates else {
                report.withoutDates += 1
                continue
            }
            let id: String
            if let uid = contact.uid, let fromUID = PersonID.fromUID(uid) {
                id = fromUID
            } else {
                let key = PersonID.derivationKey(for: contact)
                let slot = contact.source.file + "\u{1F}" + key
                let ordinal = ordinals[slot, default: 0]
                ordinals[slot] = ordinal + 1
                id = PersonID.derived(key: key, ordinal: ordinal)
            }
            let person = Person(
                id: id,
                name: contact.displayName,
                nameParts: contact.nameParts,
                source: contact.source,
                birthday: contact.birthday,
                anniversary: contact.anniversary,
                invalidDates: contact.invalidDates
            )
            if let existing = byID[id] {
                people[existing] = fold(people[existing], person, report: &report)
            } else {
                byID[id] = people.count
                people.append(person)
            }
        }
        return people
    }

    /// Merges a second occurrence of the same id into the first.
    static func fold(_ first: Person, _ later: Person, report: inout ImportReport) -> Person {
        var merged = first
        for kind in EventKind.allCases {
            let a = first.date(of: kind)
            let b = later.date(of: kind)
            switch (a, b) {
            case (nil, let b?):
                merged.setDate(b, of: kind)
            case (let a?, let b?) where a != b:
                report.problems.append(ImportProblem(
                    file: later.source.file,
                    line: later.source.line,
                    message: "this contact (id \(later.id)) is also at \(first.source.file):\(first.source.line) with a different \(kind.rawValue); kept the first"
                ))
            default:
                break
            }
        }
        for raw in later.invalidDates where !merged.invalidDates.contains(raw) {
            merged.invalidDates.append(raw)
        }
        if merged.name.isEmpty { merged.name = later.name }
        return merged
    }

    /// Writes `people` into the store (or only counts, when `write` is false).
    static func merge(_ people: [Person], into db: Database, now: Date, report: inout ImportReport, write: Bool) throws {
        struct Stored {
            var fingerprint: String
            var sourceFile: String
            var birthday: EventDate?
            var anniversary: EventDate?
            var excluded: Bool
            var createdAt: Double
        }
        var stored: [String: Stored] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT id, fingerprint, sourceFile, birthdayYear, birthdayMonth, birthdayDay,
                   anniversaryYear, anniversaryMonth, anniversaryDay, excluded, createdAt FROM person
            """)
        while let row = try rows.next() {
            stored[row[0]] = Stored(
                fingerprint: row[1],
                sourceFile: row[2],
                birthday: PersonRecord.date(row[3], row[4], row[5]),
                anniversary: PersonRecord.date(row[6], row[7], row[8]),
                excluded: row[9],
                createdAt: row[10]
            )
        }
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
        if write && changed { try AppDatabase.bumpRevision(db, now: now) }
    }
}

extension Person {
    mutating func setDate(_ date: EventDate?, of kind: EventKind) {
        switch kind {
        case .birthday: birthday = date
        case .anniversary: anniversary = date
        }
    }
}
