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
