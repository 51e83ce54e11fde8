import BirthdayCore
import Foundation
import GRDB

/// A card that brings a person: the source and the item (a vdir file's path
/// inside its folder, a CardDAV card's path on the server, a file source's name).
package struct PersonCard: Sendable, Equatable {
    package var source: Source
    package var href: String
}

extension AppDatabase {
    /// The cards that bring the person `personID`, by source (oldest source first) and href.
    package func cards(ofPerson personID: String) async throws(StoreError) -> [PersonCard] {
        try await read { db in
            let sources = Dictionary(uniqueKeysWithValues: try SourceRecord.sources(counting: false, db).map { ($0.id, $0) })
            return try SourcePersonRecord.items(personId: personID, db).compactMap { item in
                sources[item.sourceId].map { PersonCard(source: $0, href: item.href) }
            }
        }
    }
}
