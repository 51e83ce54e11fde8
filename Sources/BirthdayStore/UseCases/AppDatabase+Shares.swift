import BirthdayCore
import Foundation
import GRDB

/// A share as `share list` shows it.
package struct ShareSummary: Sendable {
    package var share: Share
    /// How many people it shows now (members of its groups with a date, not excluded).
    package var people: Int
    /// How many members of its groups it leaves out although they have a
    /// date: their only dates are labelled dates or name days, which no share
    /// shows, or (without years) dates in other calendars.
    package var leftOut: Int = 0
}

extension AppDatabase {
    /// Makes the share `name` over `groups` with a new token; returns the
    /// share and its token (which is not stored: print it now), or `nil`
    /// when a share of that name exists.
    package func addShare(
        name: String,
        groups: [String],
        showAges: Bool,
        showYears: Bool,
        now: Date
    ) async throws(StoreError) -> (share: Share, token: String)? {
        let token = FeedToken.generate()
        let share = try await write { db in
            try ShareRecord.insert(
                name: name,
                tokenHash: Share.tokenHash(token),
                groups: groups,
                showAges: showAges,
                showYears: showYears,
                createdAt: now,
                db
            )
        }
        return share.map { ($0, token) }
    }

    /// Every share with how many people it shows.
    package func shares() async throws(StoreError) -> [ShareSummary] {
        try await read { db in
            let people = try PersonRecord.datedPeople(db)
            let ids = try Self.shareIDs(db)
            return try ShareRecord.all(db).map { share in
                let members = try Self.members(of: share, db)
                let shown = share.people(people, members: members, ids: ids).count
                let dated = people.count { members.contains($0.id) }
                return ShareSummary(share: share, people: shown, leftOut: max(0, dated - shown))
            }
        }
    }

    /// A new token for the share `name` (the old link stops working at
    /// once, and no other); `nil` when there is no such share.
    package func rotateShare(name: String) async throws(StoreError) -> String? {
        let token = FeedToken.generate()
        let rotated = try await write { db in try ShareRecord.rotate(name: name, tokenHash: Share.tokenHash(token), db) }
        return rotated ? token : nil
    }

    /// Removes the share `name`; whether there was one.
    package func removeShare(name: String) async throws(StoreError) -> Bool {
        try await write { db in try ShareRecord.delete(name: name, db) }
    }

    /// The share whose token is `token`, if any: looked up by the token's hash.
    package func share(token: String) async throws(StoreError) -> Share? {
        let hash = Share.tokenHash(token)
        return try await read { db in try ShareRecord.share(tokenHash: hash, db) }
    }

    /// The keyed hash that names a share's people (``Share``): the
    /// database's own, which its migrations create. A database without one
    /// (never migrated by this program) gets a throwaway key for the
    /// request: its ids change, but never reveal the stored ones.
    static func shareIDs(_ db: Database) throws -> PublicID {
        try SettingRecord.value(.publicIDKey, db).flatMap(PublicID.init(hexKey:)) ?? PublicID.generate().ids
    }

    /// The ids of the people in any of the share's groups.
    static func members(of share: Share, _ db: Database) throws -> Set<String> {
        var members = Set<String>()
        for group in share.groups { members.formUnion(try PersonGroupRecord.members(of: group, db)) }
        return members
    }

    /// ``feedContents()`` as the share `id` shows it; `nil` when it is gone.
    package func shareFeedContents(id: Int64) async throws(StoreError) -> FeedContents? {
        try await read { db in
            guard let share = try ShareRecord.all(db).first(where: { $0.id == id }) else { return nil }
            let (revision, changedAt) = try RevisionRecord.current(db)
            let settings = share.settings(try SettingRecord.settings(db))
            return FeedContents(
                events: share.events(
                    try Self.feedEvents(db, settings: settings),
                    members: try Self.members(of: share, db),
                    ids: try Self.shareIDs(db)
                ),
                settings: settings,
                revision: revision,
                changedAt: changedAt
            )
        }
    }

    /// ``listContents(today:withinDays:)`` as the share `id` shows it; `nil` when it is gone.
    package func shareListContents(id: Int64, today: LocalDate, withinDays: Int) async throws(StoreError) -> ListContents? {
        try await read { db in
            guard let share = try ShareRecord.all(db).first(where: { $0.id == id }) else { return nil }
            let settings = try SettingRecord.settings(db)
            let (revision, changedAt) = try RevisionRecord.current(db)
            let upcoming = UpcomingEvents(today: today, settings: settings, nameDays: try NameDayListRecord.setup(for: settings, db))
            let events = try Self.upcoming(db, upcoming, withinDays: withinDays)
            let shown = share.events(events, members: try Self.members(of: share, db), ids: try Self.shareIDs(db))
            return ListContents(events: shown, revision: revision, changedAt: changedAt)
        }
    }

    /// ``pageContents(today:)`` as the share `id` shows it; `nil` when it is gone.
    package func sharePageContents(id: Int64, today: LocalDate) async throws(StoreError) -> PageContents? {
        try await read { db in
            guard let share = try ShareRecord.all(db).first(where: { $0.id == id }) else { return nil }
            let contents = try Self.pageContents(db, today: today, withPeople: false)
            let members = try Self.members(of: share, db)
            var shown = contents
            shown.settings = share.settings(contents.settings)
            let ids = try Self.shareIDs(db)
            shown.year = share.events(contents.year, members: members, ids: ids)
            shown.next = share.events(contents.next, members: members, ids: ids)
            return shown
        }
    }
}
