public import BirthdayKit
import Foundation

/// The feed server's view of the SQLite store: the revision counter decides
/// when the cached body is stale; the export runs only then.
public struct DatabaseFeedSource: FeedSource {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    public func revision() async throws -> Int64 {
        try database.revision().value
    }

    public func feed() async throws -> FeedSnapshot {
        let contents = try database.feedContents()
        let body = try CalendarExporter(settings: contents.settings).export(contents.people, lastChange: contents.changedAt)
        return FeedSnapshot(body: body, lastModified: contents.changedAt, revision: contents.revision)
    }

    public func token() async throws -> String {
        try database.feedToken()
    }
}
