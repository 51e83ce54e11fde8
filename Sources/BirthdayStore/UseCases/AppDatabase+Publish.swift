import BirthdayCore
import Foundation
import GRDB

/// The calendars `birthdays publish` writes into (`publishTarget`) and the
/// resources it wrote there (`publishedEvent`), migration `v11-publish`; the
/// SQL is in ``PublishTargetRecord`` and ``PublishedEventRecord``.
extension AppDatabase {
    /// Every publish target, oldest first.
    package func publishTargets() async throws(StoreError) -> [PublishTarget] {
        try await read { db in try PublishTargetRecord.all(db) }
    }

    /// The target named `name`, if any.
    package func publishTarget(named name: String) async throws(StoreError) -> PublishTarget? {
        try await read { db in try PublishTargetRecord.all(db).first { $0.name == name } }
    }

    /// The target `id`, if any.
    package func publishTarget(id: Int64) async throws(StoreError) -> PublishTarget? {
        try await read { db in try PublishTargetRecord.all(db).first { $0.id == id } }
    }

    /// Adds `target` (its id and status are ignored) and returns it as stored.
    ///
    /// - Throws: ``PublishError/duplicateTarget(name:)``, ``PublishError/store(_:)``.
    package func addPublishTarget(_ target: PublishTarget, now: Date) async throws(PublishError) -> PublishTarget {
        let added: PublishTarget?
        do {
            added = try await write { db -> PublishTarget? in
                guard try !PublishTargetRecord.exists(named: target.name, db) else { return nil }
                let id = try PublishTargetRecord.insert(target, now: now, db)
                var stored = target
                stored.id = id
                stored.events = 0
                stored.leftAlone = 0
                stored.syncToken = nil
                stored.syncRefused = false
                stored.lastPublish = nil
                stored.lastAttempt = nil
                stored.lastError = nil
                stored.eventsHash = nil
                stored.failures = 0
                stored.nextAttempt = nil
                return stored
            }
        } catch {
            throw .store(error.description)
        }
        guard let added else { throw .duplicateTarget(name: target.name) }
        return added
    }

    /// Forgets the target named `name` and what it published (the calendar is not touched).
    ///
    /// - Returns: the target as it was.
    /// - Throws: ``PublishError/unknownTarget(name:)``, ``PublishError/store(_:)``.
    @discardableResult
    package func removePublishTarget(named name: String) async throws(PublishError) -> PublishTarget {
        let removed: PublishTarget?
        do {
            removed = try await write { db -> PublishTarget? in
                guard let target = try PublishTargetRecord.all(db).first(where: { $0.name == name }) else { return nil }
                try PublishTargetRecord.delete(id: target.id, db)
                return target
            }
        } catch {
            throw .store(error.description)
        }
        guard let removed else { throw .unknownTarget(name: name) }
        return removed
    }

    /// What the target `id` published, by UID.
    package func publishedEvents(targetId: Int64) async throws(StoreError) -> [String: PublishedEvent] {
        try await read { db in try PublishedEventRecord.all(targetId: targetId, db) }
    }

    /// Records a resource written (or adopted) at once, so a publish that
    /// stops half-way leaves what it did known.
    package func recordPublished(targetId: Int64, _ event: PublishedEvent) async throws(StoreError) {
        try await write { db in try PublishedEventRecord.upsert(targetId: targetId, event, db) }
    }

    /// Forgets a resource deleted (or found gone).
    package func forgetPublished(targetId: Int64, uid: String) async throws(StoreError) {
        try await write { db in try PublishedEventRecord.delete(targetId: targetId, uid: uid, db) }
    }

    /// Records how a publish ended: the attempt, the error (`nil`: a success,
    /// which is also the last publish, with the hash of the events it left
    /// published), how many events are published and how many were left
    /// alone as not ours (`leftAlone`; `nil` keeps the count, for a publish
    /// that never got to the events), and what its listing learnt: whether
    /// the server answers `sync-collection` (`nil`: as it was) and, when it
    /// does, the sync-token to start from next time (`nil`: none). A failure
    /// counts one more in a row; a success clears the count and any planned retry.
    package func recordPublishOutcome(
        targetId: Int64,
        now: Date,
        error: String?,
        eventsHash: String? = nil,
        leftAlone: Int? = nil,
        syncToken: String? = nil,
        syncCollection: Bool? = nil
    ) async throws(StoreError) {
        try await write { db in
            try PublishTargetRecord.recordListing(id: targetId, syncToken: syncToken, syncCollection: syncCollection, db)
            let events = try PublishedEventRecord.count(targetId: targetId, db)
            try PublishTargetRecord.recordOutcome(
                id: targetId,
                now: now,
                error: error,
                eventsHash: eventsHash,
                events: events,
                leftAlone: leftAlone,
                db
            )
        }
    }

    /// Records when the running daemon publishes to each target again after
    /// a failure (`nil`: no retry planned), for `birthdays status`.
    package func setNextPublish(_ next: [Int64: Date?]) async throws(StoreError) {
        try await write { db in
            for (id, date) in next { try PublishTargetRecord.setNextAttempt(id: id, date, db) }
        }
    }

    /// Clears every planned retry (the daemon stops: nothing publishes then).
    package func clearNextPublish() async throws(StoreError) {
        try await write { db in try PublishTargetRecord.clearNextAttempts(db) }
    }
}
