import BirthdayCore
import Foundation
import GRDB

@testable import BirthdayStore

extension AppDatabase {
    /// Inserts `people` exactly as given, or updates their stored rows in
    /// place (``PersonRecord/upsert(_:)``), in one transaction, without the
    /// import's merge rules; contacts from users go through ``ContactImporter``.
    func insertPeople(_ people: [Person], now: Date) throws {
        try writeNow(at: now) { db in
            let timestamp = now.timeIntervalSince1970
            for person in people {
                try PersonRecord(person, createdAt: timestamp, updatedAt: timestamp).upsert(db)
            }
        }
    }
}

extension AppDatabase {
    /// Writes a database file at `path` as the version that ends with
    /// migration `last` left it, holding what `sql` inserts: the old state
    /// a migration test then opens with ``openFile(at:create:readOnlyIfNotWritable:mapped:readsOnly:)``.
    static func writeOld(at path: String, upTo last: String, sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try migrator.migrate(queue, upTo: last)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }
}
