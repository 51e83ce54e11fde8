import Foundation
import GRDB

extension AppDatabase {
    /// Inserts or replaces `people` exactly as given, in one transaction,
    /// without the import's merge rules. For tests and benchmarks in this
    /// package; contacts from users go through ``ContactImporter``.
    package func insertPeople(_ people: [Person], now: Date) throws(StoreError) {
        try write { db in
            let timestamp = now.timeIntervalSince1970
            for person in people {
                try PersonRecord(person, excluded: person.excluded, createdAt: timestamp, updatedAt: timestamp).insert(db, onConflict: .replace)
            }
            try AppDatabase.bumpRevision(db, now: now)
        }
    }
}
