import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// What a pending request or a ledger row is moves from eight keys of
/// `userInfo` into its own column, `deliveryKind` (migration `v31-delivery-kind`).
@Suite struct DeliveryKindMigrationTests {
    /// "id|deliveryKind|userInfo" of every pending request and ledger row, by id.
    private static func columns(_ database: AppDatabase) async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id || '|' || deliveryKind || '|' || userInfo FROM pendingNotification
                    UNION ALL SELECT notificationId || '|' || deliveryKind || '|' || userInfo FROM delivery
                    ORDER BY 1
                    """
            )
        }
    }

    @Test func theMigrationMovesEveryKindOutOfUserInfoWithoutLosingAValue() async throws {
        // Given a database of the version before, with a pending reminder of each shape (plain; a
        // lunar birthday moved off a weekend in the person's own zone; a labelled date), a pending
        // digest, and in the ledger a room's message and an invitation's notice.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("old.sqlite")
        let hints = #""person_id":"ann","kind":"birthday","when":"day-of","occurrence":"2026-04-12""#
        try AppDatabase.writeOld(
            at: path,
            upTo: "v30-name-day-tables",
            sql: """
                INSERT INTO pendingNotification (id, personId, kind, whenKind, fireAt, occurrenceDate, title, body, userInfo) VALUES
                    ('ann-birthday-dayof', 'ann', 'birthday', 'day-of', 0, '2026-04-12', 't', 'b', '{\(hints)}'),
                    ('mei-chinese-birthday-dayof', 'mei', 'birthday', 'day-of', 0, '2026-12-12', 't', 'b',
                     '{"person_id":"mei","kind":"birthday","when":"day-of","occurrence":"2026-12-12","calendar":"chinese","moved_to":"2026-12-11","zone":"Asia/Tokyo"}'),
                    ('jo-date-1f2e3d4c-dayof', 'jo', 'labelled', 'day-of', 0, '2026-05-01', 't', 'b',
                     '{"person_id":"jo","kind":"labelled","when":"day-of","occurrence":"2026-05-01","label":"Started \\"work\\"/Ünï","label_id":"date-1f2e3d4c"}'),
                    ('digest-weekly', '', 'birthday', 'day-of', 0, '2026-11-30', 't', 'b',
                     '{"digest":"weekly","when":"day-of","occurrence":"2026-11-30","last":"2026-12-06","events":"2"}');
                INSERT INTO delivery (notificationId, occurrenceDate, personId, kind, whenKind, fireAt, title, body, userInfo, state, updatedAt) VALUES
                    ('announce-team', '2026-03-14', '', 'birthday', 'day-of', 0, 'team', 'b',
                     '{"announce":"team","when":"day-of","occurrence":"2026-03-14","people":"1"}', 'delivered', 0),
                    ('invite-1', '2026-03-14', '', 'birthday', 'day-of', 0, 't', 'b', '{"invite":"3"}', 'queued', 0);
                """
        )

        // When it is opened.
        let database = try AppDatabase.openFile(at: path)

        // Then each row's kind is in its column, every value kept, and `userInfo` keeps the desktop's hints alone.
        #expect(
            try await Self.columns(database) == [
                #"ann-birthday-dayof|{"reminder":{}}|{\#(hints)}"#,
                #"announce-team|{"announce":"team"}|{"when":"day-of","occurrence":"2026-03-14","people":"1"}"#,
                #"digest-weekly|{"digest":"weekly"}|{"when":"day-of","occurrence":"2026-11-30","last":"2026-12-06","events":"2"}"#,
                #"invite-1|{"invite":3}|{}"#,
                #"jo-date-1f2e3d4c-dayof|{"reminder":{"label":"Started \"work\"/Ünï","label_id":"date-1f2e3d4c"}}|"#
                    + #"{"person_id":"jo","kind":"labelled","when":"day-of","occurrence":"2026-05-01"}"#,
                #"mei-chinese-birthday-dayof|{"reminder":{"calendar":"chinese","moved_to":"2026-12-11","zone":"Asia/Tokyo"}}|"#
                    + #"{"person_id":"mei","kind":"birthday","when":"day-of","occurrence":"2026-12-12"}"#,
            ]
        )
        // And they read as the kinds they were, written back as the same text.
        let pending = Dictionary(uniqueKeysWithValues: try await database.pendingRequests().map { ($0.id, $0) })
        #expect(pending["ann-birthday-dayof"]?.deliveryKind == .reminder(DeliveryKind.Occasion()))
        let mei = try #require(pending["mei-chinese-birthday-dayof"])
        #expect(mei.calendar == .chinese && mei.movedTo == LocalDate(iso: "2026-12-11") && mei.zone?.storedValue == "Asia/Tokyo")
        #expect(mei.dueDay == LocalDate(iso: "2026-12-11"))
        let jo = try #require(pending["jo-date-1f2e3d4c-dayof"])
        #expect(jo.label == #"Started "work"/Ünï"# && jo.deliveryKind.occasion?.labelID == "date-1f2e3d4c")
        #expect(pending["digest-weekly"]?.digest == .weekly)
        for request in pending.values {
            let stored = try await Self.stored(database, id: request.id)
            #expect(PendingNotificationRecord(request).deliveryKind == stored, "\(request.id)")
        }
        let ledger = try await database.deliveries(updatedSince: Date(timeIntervalSince1970: 0))
        #expect(ledger.first { $0.notificationID == "announce-team" }?.announceRoom == "team")
        let notice = try #require(ledger.first { $0.notificationID == "invite-1" })
        #expect(notice.isInvitationNotice && notice.deliveryKind == .invitationNotice(answerID: 3))
    }

    /// The `deliveryKind` text of pending request `id`.
    private static func stored(_ database: AppDatabase, id: String) async throws -> String? {
        try await database.read { db in try String.fetchOne(db, sql: "SELECT deliveryKind FROM pendingNotification WHERE id = ?", arguments: [id]) }
    }

    /// A row of a kind this version does not know (written by a newer one) is left out, not guessed, and hides no other.
    @Test func aKindFromANewerVersionIsLeftOut() async throws {
        let database = try AppDatabase.inMemory()
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO pendingNotification (id, personId, kind, whenKind, fireAt, occurrenceDate, title, body, userInfo, deliveryKind) VALUES
                        ('ann-birthday-dayof', 'ann', 'birthday', 'day-of', 0, '2026-04-12', 't', 'b', '{}', '{"reminder":{}}'),
                        ('ann-greeting', 'ann', 'birthday', 'day-of', 0, '2026-04-12', 't', 'b', '{}', '{"greeting":{}}')
                    """
            )
        }
        #expect(try await database.pendingRequests().map(\.id) == ["ann-birthday-dayof"])
    }
}
