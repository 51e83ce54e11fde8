import Foundation
import Logging
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// Syncing file and vdir sources into a real (in-memory) store: ownership,
/// a person in two sources, imports, the mass-removal guard, reminders and
/// the ledger, and cards that cannot be read.
@Suite struct SourceSyncTests {
    static let now = Date(timeIntervalSince1970: 1_773_133_200)  // 2026-03-10T09:00:00Z

    /// A store, a folder for cards, and a way to sync.
    struct Bed {
        let database: AppDatabase
        let folder: TemporaryDirectory
        let logs = LogRecorder()

        init() throws {
            database = try AppDatabase.inMemory()
            folder = try TemporaryDirectory()
        }

        var syncer: SourceSync {
            SourceSync(
                database: database,
                readers: SourceReaders { _ in LocalSourceReader() },
                now: { SourceSyncTests.now },
                systemTimeZone: { TimeZone(identifier: "UTC")! },
                logger: logs.logger
            )
        }

        /// Writes a card the way vdirsyncer does: a temporary file renamed over the card.
        func card(_ path: String, uid: String, name: String, birthday: String? = nil, anniversary: String? = nil) throws {
            var text = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(name)\r\n"
            if let birthday { text += "BDAY:\(birthday)\r\n" }
            if let anniversary { text += "ANNIVERSARY:\(anniversary)\r\n" }
            text += "END:VCARD\r\n"
            try write(path, text)
        }

        func write(_ path: String, _ text: String) throws {
            let target = folder.file(path)
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: target).deletingLastPathComponent().path,
                withIntermediateDirectories: true
            )
            let temporary = target + ".tmp-\(UUID().uuidString)"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            try FileManager.default.moveItem(atPath: temporary, toPath: target + ".new")
            _ = rename(target + ".new", target)
        }

        func remove(_ path: String) throws {
            try FileManager.default.removeItem(atPath: folder.file(path))
        }

        func add(_ name: String, _ kind: SourceKind, _ path: String) async throws -> Source {
            try await database.addSource(Source(name: name, kind: kind, location: folder.file(path)), now: SourceSyncTests.now)
        }

        func sync(_ source: Source, allowMassRemoval: Bool = false) async throws -> SourceSyncReport {
            let current = try #require(try await database.sources().first { $0.id == source.id })
            return await syncer.sync(current, allowMassRemoval: allowMassRemoval)
        }

        /// "id name birthday anniversary" of everyone, sorted.
        func people() async throws -> [String] {
            try await database.people().map {
                "\($0.id) \($0.name) \($0.birthday?.description ?? "-") \($0.anniversary?.description ?? "-")"
            }.sorted()
        }
    }

    // MARK: - One source

    @Test func aVdirSourceFollowsEditsDeletionsAndAdditions() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try bed.card("book/bob.vcf", uid: "bob", name: "Bob", birthday: "1985-07-01")
        try bed.card("book/cy.vcf", uid: "cy", name: "Cy")
        try bed.write("book/tmpk2j3h4g5", "BEGIN:VCARD\r\nUID:half-written\r\n")
        let source = try await bed.add("book", .vdir, "book")

        let first = try await bed.sync(source)
        #expect(first.error == nil)
        // Cy has no date: kept, undated, and never reminded.
        #expect(first.counts == [3, 0, 0, 0])
        #expect(first.peopleChanged)
        #expect(try await bed.people() == ["ann Ann 1990-04-12 -", "bob Bob 1985-07-01 -", "cy Cy - -"])
        #expect(try await bed.database.feedContents().events.map(\.person.id) == ["ann", "bob"])

        let revision = try await bed.database.revision().value
        let unchanged = try await bed.sync(source)
        #expect(unchanged.counts == [0, 0, 0, 3])
        #expect(!unchanged.peopleChanged)
        #expect(try await bed.database.revision().value == revision)

        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-13")
        try bed.remove("book/bob.vcf")
        try bed.card("book/cy.vcf", uid: "cy", name: "Cy", birthday: "--0229")
        try bed.card("book/sub/dee.vcf", uid: "dee", name: "Dee", anniversary: "2010-06-05")
        let second = try await bed.sync(source)
        // Cy's new birthday finds the person kept without one: updated, not added.
        #expect(second.counts == [1, 2, 1, 0])
        #expect(try await bed.people() == ["ann Ann 1990-04-13 -", "cy Cy --02-29 -", "dee Dee - 2010-06-05"])
        #expect(try await bed.database.sources().first?.status.people == 3)
        #expect(!bed.logs.all.joined().contains("Ann"), "logs never name anyone")
    }

    @Test func aCardThatIsNotACardIsKeptAndReported() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        let source = try await bed.add("book", .vdir, "book")
        _ = try await bed.sync(source)

        try bed.write("book/ann.vcf", "")
        let emptied = try await bed.sync(source)
        #expect(emptied.error == nil)
        #expect(emptied.counts == [0, 0, 0, 1])
        #expect(emptied.problems.contains { $0.message.contains("kept as it was") })
        try bed.write("book/ann.vcf", "\u{0}\u{1}binary")
        #expect(try await bed.sync(source).counts == [0, 0, 0, 1])
        #expect(try await bed.people() == ["ann Ann 1990-04-12 -"])

        // A card that lost its only date: the person stays, undated.
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann")
        #expect(try await bed.sync(source).counts == [0, 1, 0, 0])
        #expect(try await bed.people() == ["ann Ann - -"])

        // A card left with neither a name nor a date: the source no longer brings anyone (and it was all it had).
        try bed.write("book/ann.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:ann\r\nFN:\r\nEND:VCARD\r\n")
        #expect(try await bed.sync(source).error == .massRemoval(source: "book", removing: 1, of: 1))
        #expect(try await bed.sync(source, allowMassRemoval: true).counts == [0, 0, 1, 0])
        #expect(try await bed.people().isEmpty)
    }

    @Test func aMissingFileFailsWithoutChangingAnythingAndRecovers() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        try bed.write("phone.vcf", Self.cards([("ann", "Ann", "1990-04-12"), ("bob", "Bob", "1985-07-01")]))
        let source = try await bed.add("phone", .file, "phone.vcf")
        #expect(try await bed.sync(source).counts == [2, 0, 0, 0])

        try bed.remove("phone.vcf")
        let missing = try await bed.sync(source)
        #expect(missing.error == .cannotRead(path: bed.folder.file("phone.vcf"), reason: "no such file or directory"))
        #expect(try await bed.people().count == 2)
        let failing = try #require(try await bed.database.sources().first?.status)
        #expect(failing.failures == 1)
        #expect(failing.error == missing.error?.description)
        #expect(failing.lastSync != nil)

        try bed.write("phone.vcf", Self.cards([("ann", "Ann", "1990-04-12"), ("bob", "Bob", "1985-07-02")]))
        #expect(try await bed.sync(source).counts == [0, 1, 0, 1])
        let recovered = try #require(try await bed.database.sources().first?.status)
        #expect(recovered.failures == 0)
        #expect(recovered.error == nil)
    }

    /// A vdir whose listing fails part way (here a `.vcf` that is a FIFO)
    /// removes nobody, and the error names the folder, never the file
    /// (whose name may be a person's).
    @Test func aVdirThatCannotBeListedWholeRemovesNobody() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try bed.card("book/bob.vcf", uid: "bob", name: "Bob", birthday: "1985-07-01")
        let book = try await bed.add("book", .vdir, "book")
        #expect(try await bed.sync(book).counts == [2, 0, 0, 0])

        try bed.remove("book/bob.vcf")
        #expect(mkfifo(bed.folder.file("book/Bob Example.vcf"), 0o600) == 0)
        let failed = try await bed.sync(book)
        let folder = bed.folder.file("book")
        #expect(
            failed.error
                == .cannotRead(
                    path: folder,
                    reason: "something in it cannot be read (not a regular file); birthdays import --dry-run on the folder names it"
                )
        )
        #expect(try await bed.people().count == 2)
        #expect(try await bed.database.sources().first?.status.error?.contains("Bob Example") == false)
        #expect(!bed.logs.all.contains { $0.contains("Bob Example") })
    }

    // MARK: - The mass-removal guard

    @Test(arguments: [
        (owned: 12, removing: 7, refused: true),
        (owned: 12, removing: 6, refused: false),
        (owned: 10, removing: 9, refused: false),
        (owned: 10, removing: 10, refused: true),
        (owned: 1, removing: 1, refused: true),
    ])
    func aSyncThatWouldRemoveTooManyIsRefusedUntilAllowed(owned: Int, removing: Int, refused: Bool) async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        for index in 0..<owned { try bed.card("book/p\(index).vcf", uid: "p\(index)", name: "P\(index)", birthday: "1990-01-01") }
        let source = try await bed.add("book", .vdir, "book")
        #expect(try await bed.sync(source).added == owned)
        for index in 0..<removing { try bed.remove("book/p\(index).vcf") }

        let report = try await bed.sync(source)
        if refused {
            #expect(report.error == .massRemoval(source: "book", removing: removing, of: owned))
            #expect(try await bed.people().count == owned)
            #expect(try await bed.database.sources().first?.status.people == owned)
            let confirmed = try await bed.sync(source, allowMassRemoval: true)
            #expect(confirmed.removed == removing)
        } else {
            #expect(report.error == nil)
            #expect(report.removed == removing)
        }
        #expect(try await bed.people().count == owned - removing)
    }

    @Test func theGuardsArithmetic() {
        #expect(!MassRemoval.needsConfirmation(removing: 0, of: 0))
        #expect(!MassRemoval.needsConfirmation(removing: 0, of: 5))
        #expect(MassRemoval.needsConfirmation(removing: 5, of: 5))
        #expect(!MassRemoval.needsConfirmation(removing: 4, of: 5))
        #expect(MassRemoval.needsConfirmation(removing: 6, of: 11))
        #expect(!MassRemoval.needsConfirmation(removing: 5, of: 11))
    }

    // MARK: - A first sync of many cards

    /// More cards than ``SourceSync/concurrencyThreshold``: read in parts on
    /// every core, then written in one transaction, with the same result as
    /// reading them one after the other: a person two cards bring is one
    /// person (the later card merged into the earlier), and a card that is
    /// not a card is reported with its file and kept out.
    @Test func aFirstSyncOfManyCardsIsReadInPartsAndWrittenAsOne() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        for index in 0..<100 where ![10, 50, 90].contains(index) {
            let name = String(format: "c%03d", index)
            try bed.card("book/\(name).vcf", uid: name, name: "Person \(name)", birthday: String(format: "19%02d-03-04", index))
        }
        try bed.card("book/c010.vcf", uid: "twin", name: "Twin", birthday: "1990-01-01")
        try bed.card("book/c090.vcf", uid: "twin", name: "Twin", anniversary: "2015-06-20")
        try bed.write("book/c050.vcf", "\u{0}\u{1}binary")
        let source = try await bed.add("book", .vdir, "book")

        let first = try await bed.sync(source)
        #expect(first.error == nil)
        #expect(first.counts == [98, 0, 0, 0])
        #expect(!first.problems.isEmpty)
        #expect(first.problems.allSatisfy { $0.file.hasSuffix("book/c050.vcf") })
        #expect(first.problems.contains { $0.message == "not a contact card; kept as it was" })
        let people = try await bed.people()
        #expect(people.count == 98)
        #expect(people.contains("twin Twin 1990-01-01 2015-06-20"))
        #expect(people.contains("c099 Person c099 1999-03-04 -"))
        #expect(try await bed.sync(source).counts == [0, 0, 0, 98])

        // The parts give the items of the serial reading, in the same order.
        let items = (0..<100).map { index in
            let text = index == 50 ? "" : "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:u\(index)\r\nFN:N \(index)\r\nBDAY:1980-01-02\r\nEND:VCARD\r\n"
            return SourceItem(href: "/book/\(index).vcf", etag: "e\(index)", location: "/book/\(index).vcf", content: Data(text.utf8))
        }
        let parts = SourceSync.parse(items, referenceYear: 2026)
        let serial = items.map { SourceSync.parse($0, referenceYear: 2026) }
        #expect(parts.map(\.href) == serial.map(\.href))
        #expect(parts.map { $0.people.map(\.fingerprint) } == serial.map { $0.people.map(\.fingerprint) })
        #expect(parts.map(\.problems) == serial.map(\.problems))
        #expect(parts.map(\.readable) == items.indices.map { $0 != 50 })
    }

    // MARK: - Several owners

    @Test func aPersonInTwoSourcesStaysOnePersonUntilBothLoseThem() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try bed.card("book/cy.vcf", uid: "cy", name: "Cy", birthday: "1970-01-01")
        try bed.card("book/dee.vcf", uid: "dee", name: "Dee", birthday: "1971-01-01")
        try bed.write("phone.vcf", Self.cards([("ann", "Ann", nil, "2015-06-20"), ("bob", "Bob", "1985-07-01", nil)]))
        let book = try await bed.add("book", .vdir, "book")
        let phone = try await bed.add("phone", .file, "phone.vcf")
        _ = try await bed.sync(book)
        let second = try await bed.sync(phone)
        #expect(second.counts == [2, 0, 0, 0])
        // One Ann: the phone's card has no birthday, the book's is kept (the import's rule).
        #expect(
            try await bed.people() == [
                "ann Ann 1990-04-12 2015-06-20", "bob Bob 1985-07-01 -", "cy Cy 1970-01-01 -", "dee Dee 1971-01-01 -",
            ]
        )

        // The book loses Ann: the phone still has her.
        try bed.remove("book/ann.vcf")
        let lost = try await bed.sync(book)
        #expect(lost.counts == [0, 0, 1, 2])
        // Nobody left the store, but Ann left the book: out of its group cards and its rules, so a change.
        #expect(lost.peopleChanged)
        #expect(try await bed.people().contains("ann Ann 1990-04-12 2015-06-20"))

        // The phone loses her too: she leaves.
        try bed.write("phone.vcf", Self.cards([("bob", "Bob", "1985-07-01", nil)]))
        #expect(try await bed.sync(phone).counts == [0, 0, 1, 1])
        #expect(try await bed.people() == ["bob Bob 1985-07-01 -", "cy Cy 1970-01-01 -", "dee Dee 1971-01-01 -"])
    }

    @Test func whatAnImportBroughtNoSyncRemoves() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        let export = try bed.folder.write("export.vcf", Self.cards([("ann", "Ann", "1990-04-12", nil)]))
        _ = try await ContactImporter(database: bed.database, now: Self.now, referenceYear: 2026).importPaths([export])
        try bed.card("book/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try bed.card("book/bob.vcf", uid: "bob", name: "Bob", birthday: "1985-07-01")
        try bed.card("book/cy.vcf", uid: "cy", name: "Cy", birthday: "1970-01-01")
        let book = try await bed.add("book", .vdir, "book")
        #expect(try await bed.sync(book).counts == [3, 0, 0, 0])

        try bed.remove("book/ann.vcf")
        try bed.remove("book/bob.vcf")
        #expect(try await bed.sync(book, allowMassRemoval: true).removed == 2)
        #expect(try await bed.people() == ["ann Ann 1990-04-12 -", "cy Cy 1970-01-01 -"])

        // Cy came from the source only; an import of the same card adopts it.
        let cy = try bed.folder.write("cy.vcf", Self.cards([("cy", "Cy", "1970-01-01", nil)]))
        _ = try await ContactImporter(database: bed.database, now: Self.now, referenceYear: 2026).importPaths([cy])
        try bed.remove("book/cy.vcf")
        _ = try await bed.sync(book, allowMassRemoval: true)
        #expect(try await bed.people() == ["ann Ann 1990-04-12 -", "cy Cy 1970-01-01 -"])
    }

    // MARK: - Reminders and the ledger

    @Test func aRemovedPersonLeavesWithTheirPendingRemindersAndTheLedgerKeepsHistory() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        try await bed.database.setAuthorizationStatus(.authorized)
        // Ann's birthday is tomorrow, Bob's in two days, Cy's in May.
        for (uid, birthday) in [("ann", "1990-03-11"), ("bob", "1985-03-12"), ("cy", "1970-05-05")] {
            try bed.card("book/\(uid).vcf", uid: uid, name: uid.capitalized, birthday: birthday)
        }
        let book = try await bed.add("book", .vdir, "book")
        _ = try await bed.sync(book)
        // The sync rescheduled in its transaction.
        let pending = try await bed.database.pendingRequests().map(\.id)
        #expect(pending.contains("ann-birthday-dayof") && pending.contains("bob-birthday-daybefore"))
        // A day later Ann's day-of reminder has come due: it is in the ledger, not yet sent.
        let queued = try await bed.database.write { db in
            try NotificationScheduler.queueDue(
                now: SourceSyncTests.now.addingTimeInterval(86_401),
                timeZone: TimeZone(identifier: "UTC")!,
                deliveryTime: Settings().deliveryTime,
                quietAfter: Settings().quietAfter,
                db
            )
        }
        #expect(queued >= 1)

        try bed.remove("book/ann.vcf")
        try bed.remove("book/bob.vcf")
        let report = try await bed.sync(book, allowMassRemoval: true)
        #expect(report.removed == 2)
        #expect(report.peopleChanged)
        let left = Set(try await bed.database.pendingRequests().map(\.personID))
        #expect(left == ["cy"])
        // The ledger keeps what came due; what was still to be sent is dismissed, not delivered.
        let ledger = try await bed.database.deliveries(updatedSince: .distantPast)
        #expect(ledger.contains { $0.notificationID == "ann-birthday-dayof" && $0.state == .dismissed })
        #expect(ledger.allSatisfy { $0.state == .dismissed })
    }

    // MARK: - Removing a source

    @Test func removingASourceRemovesItsPeopleUnlessKept() async throws {
        let bed = try Bed()
        defer { bed.folder.cleanup() }
        try bed.card("a/ann.vcf", uid: "ann", name: "Ann", birthday: "1990-04-12")
        try bed.card("a/bob.vcf", uid: "bob", name: "Bob", birthday: "1985-07-01")
        try bed.card("b/bob.vcf", uid: "bob", name: "Bob", birthday: "1985-07-01")
        try bed.card("c/cy.vcf", uid: "cy", name: "Cy", birthday: "1970-01-01")
        let a = try await bed.add("a", .vdir, "a")
        let b = try await bed.add("b", .vdir, "b")
        let c = try await bed.add("c", .vdir, "c")
        for source in [a, b, c] { _ = try await bed.sync(source) }

        #expect(try await bed.database.removeSource(named: "a", keepPeople: false, now: Self.now, systemTimeZone: .gmt) == 1)
        #expect(try await bed.people().map { $0.split(separator: " ")[0] } == ["bob", "cy"])
        #expect(try await bed.database.removeSource(named: "c", keepPeople: true, now: Self.now, systemTimeZone: .gmt) == 0)
        // Kept people are as if imported: removing b leaves Cy alone.
        _ = try await bed.database.removeSource(named: "b", keepPeople: false, now: Self.now, systemTimeZone: .gmt)
        #expect(try await bed.people().map { $0.split(separator: " ")[0] } == ["cy"])
        #expect(try await bed.database.sources().isEmpty)
        await #expect(throws: SourceError.unknownSource(name: "a")) {
            try await bed.database.removeSource(named: "a", keepPeople: false, now: Self.now, systemTimeZone: .gmt)
        }
        await #expect(throws: SourceError.duplicateName(name: "z")) {
            _ = try await bed.add("z", .vdir, "c")
            _ = try await bed.add("z", .vdir, "c")
        }
    }

    @Test func retriesBackOffUpToTheCeiling() {
        let hour = Duration.seconds(3600)
        #expect(SourceRetryPolicy.delay(afterFailures: 1, ceiling: hour) == .seconds(30))
        #expect(SourceRetryPolicy.delay(afterFailures: 2, ceiling: hour) == .seconds(60))
        #expect(SourceRetryPolicy.delay(afterFailures: 5, ceiling: hour) == .seconds(480))
        #expect(SourceRetryPolicy.delay(afterFailures: 9, ceiling: hour) == hour)
        #expect(SourceRetryPolicy.delay(afterFailures: 40, ceiling: .seconds(600)) == .seconds(600))
    }

    static func cards(_ list: [(String, String, String?, String?)]) -> String {
        list.map { uid, name, birthday, anniversary in
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(name)\r\n" + (birthday.map { "BDAY:\($0)\r\n" } ?? "")
                + (anniversary.map { "ANNIVERSARY:\($0)\r\n" } ?? "") + "END:VCARD\r\n"
        }.joined()
    }

    static func cards(_ list: [(String, String, String)]) -> String {
        cards(list.map { ($0.0, $0.1, Optional($0.2), nil) })
    }
}

extension SourceSyncReport {
    /// added, updated, removed, unchanged.
    var counts: [Int] { [added, updated, removed, unchanged] }
}
