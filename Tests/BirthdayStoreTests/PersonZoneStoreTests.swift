import Foundation
import GRDB
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

/// A person's own time zone through the store (migration `v15-person-zone`):
/// the card's `TZ` of each vCard version read by a real import into a SQLite
/// file, following the card on every import and sync, the user's
/// `birthdays zone` choice outlasting them, and the zone reaching the traits
/// the planner and `upcoming` read.
@Suite final class PersonZoneStoreTests {
    static let now = Date(timeIntervalSince1970: 1_772_352_000)

    static func card(version: String = "4.0", uid: String = "mei", name: String = "Mei Tanaka", _ lines: String...) -> String {
        "BEGIN:VCARD\r\nVERSION:\(version)\r\nUID:\(uid)\r\nFN:\(name)\r\nBDAY:19900310\r\n" + lines.map { $0 + "\r\n" }.joined()
            + "END:VCARD\r\n"
    }

    let directory: TemporaryDirectory
    let database: AppDatabase

    init() throws {
        directory = try TemporaryDirectory()
        database = try AppDatabase.openFile(at: directory.file("birthdays.sqlite"))
    }
    deinit { directory.cleanup() }

    func importing(_ text: String, file name: String = "cards.vcf") async throws -> ImportReport {
        let path = try directory.write(name, text)
        return try await ContactImporter(database: database, now: Self.now, referenceYear: 2026, today: LocalDate(iso: "2026-03-01"))
            .importPaths([path])
    }

    func stored(_ id: String) async throws -> (card: String?, choice: String?) {
        try await database.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT cardZone, zoneChoice FROM person WHERE id = ?", arguments: [id]))
            return (row[0], row[1])
        }
    }

    /// The traits the walk (`forEachEvent`) gives each person's birthday, by id.
    func traits() async throws -> [String: PersonTraits] {
        try await database.read { db in
            var found: [String: PersonTraits] = [:]
            try PersonRecord.forEachEvent(db, rules: TreatmentRules(deceased: .remember)) { event, traits, identity in
                if case .gregorian(_, .birthday) = event.date { found[identity().id] = traits }
            }
            return found
        }
    }

    @Test func eachVCardVersionGivesItsZone() async throws {
        let cards = [
            Self.card(version: "2.1", uid: "a21", name: "Offset 21", "TZ:-0500"),
            Self.card(version: "3.0", uid: "a30", name: "Offset 30", "TZ:-05:00"),
            Self.card(version: "3.0", uid: "rfc", name: "Text 30", "TZ;VALUE=text:-05:00; EST; Raleigh/North America"),
            Self.card(uid: "a40", name: "Name 40", "TZ;VALUE=text:America/New_York"),
            Self.card(uid: "off40", name: "Offset 40", "TZ;VALUE=utc-offset:+0545"),
            Self.card(uid: "bare40", name: "Bare 40", "TZ:Asia/Tokyo"),
            Self.card(uid: "uri", name: "URI 40", "TZ;VALUE=uri:https://example.org/tz/ny"),
            Self.card(uid: "none", name: "No zone"),
        ]
        let report = try await importing(cards.joined())
        #expect(report.added == 8)
        #expect(report.problems == [])
        let expected: [String: String?] = [
            "a21": "-05:00", "a30": "-05:00", "rfc": "-05:00", "a40": "America/New_York", "off40": "+05:45", "bare40": "Asia/Tokyo", "uri": nil,
            "none": nil,
        ]
        for (id, zone) in expected {
            #expect(try await stored(id).card == zone, "\(id)")
            #expect(try await database.person(id: id)?.zone?.storedValue == zone, "\(id)")
        }
        #expect(try await database.person(id: "a40")?.zone?.timeZone.identifier == "America/New_York")
        #expect(try await database.person(id: "off40")?.zone?.timeZone.secondsFromGMT() == 5 * 3600 + 45 * 60)
    }

    @Test func aBadZoneIsAProblemAtItsLineAndThePersonIsKept() async throws {
        let report = try await importing(Self.card(uid: "mars", "NOTE:far away", "TZ:Mars/Olympus"))
        #expect(report.added == 1)
        #expect(
            report.problems.map(\.description) == [
                directory.file("cards.vcf")
                    + ":7: TZ 'Mars/Olympus' is not a time zone (an IANA name such as Asia/Tokyo or an offset such as +09:00); the person is kept without one"
            ]
        )
        #expect(try await stored("mars").card == nil)
        #expect(try await database.person(id: "mars")?.birthday != nil)
    }

    @Test func theCardZoneFollowsTheCardAndTheChoiceOutlastsIt() async throws {
        #expect(try await importing(Self.card("TZ:Asia/Tokyo")).added == 1)
        #expect(try await stored("mei") == ("Asia/Tokyo", nil))
        // The same card again changes nothing; a changed TZ is a change of the card.
        #expect(try await importing(Self.card("TZ:Asia/Tokyo")).unchanged == 1)
        #expect(try await importing(Self.card("TZ:Asia/Seoul")).updated == 1)
        #expect(try await stored("mei").card == "Asia/Seoul")
        // The card drops its TZ: so does the store.
        #expect(try await importing(Self.card()).updated == 1)
        #expect(try await stored("mei") == (nil, nil))

        // The user's choice wins over the card and outlasts re-imports of it.
        _ = try await importing(Self.card("TZ:Asia/Tokyo"))
        let chosen = try #require(try await database.setZoneChoice(ZoneChoice(storedValue: "+05:30"), personID: "mei", now: Self.now))
        #expect(chosen.person.zone?.storedValue == "+05:30")
        #expect(try await importing(Self.card("TZ:Asia/Seoul")).updated == 1)
        #expect(try await stored("mei") == ("Asia/Seoul", "+05:30"))
        #expect(try await database.person(id: "mei")?.zone?.storedValue == "+05:30")
        #expect(try await traits()["mei"]?.zone?.storedValue == "+05:30")

        // `local` overrides the card: no zone, whatever it says.
        _ = try await database.setZoneChoice(.local, personID: "mei", now: Self.now)
        _ = try await importing(Self.card("TZ:Asia/Tokyo"))
        #expect(try await stored("mei") == ("Asia/Tokyo", "local"))
        #expect(try await database.person(id: "mei")?.zone == nil)
        #expect(try await traits()["mei"]?.zone == nil)

        // `--default` gives the card its say again.
        let back = try #require(try await database.setZoneChoice(nil, personID: "mei", now: Self.now))
        #expect(back.person.zone?.storedValue == "Asia/Tokyo")
        #expect(try await stored("mei") == ("Asia/Tokyo", nil))
        #expect(try await traits()["mei"]?.zone?.storedValue == "Asia/Tokyo")
        #expect(try await database.setZoneChoice(.local, personID: "nobody", now: Self.now) == nil)
    }

    @Test func anotherFileWithoutATZKeepsTheStoredOne() async throws {
        _ = try await importing(Self.card("TZ:Asia/Tokyo"))
        #expect(try await importing(Self.card(name: "Mei T."), file: "other.vcf").updated == 1)
        #expect(try await stored("mei").card == "Asia/Tokyo")
    }

    @Test func thePlannersTraitsCarryTheZone() async throws {
        let cards = [
            Self.card(uid: "zone", name: "Only a zone", "TZ:Asia/Tokyo"),
            Self.card(uid: "died", name: "Died abroad", "TZ:-03:00", "DEATHDATE:2020-05-01"),
            Self.card(uid: "grouped", name: "In a group", "CATEGORIES:Family"),
            Self.card(uid: "plain", name: "Plain"),
            "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:lunar\r\nFN:Lunar\r\nTZ:Asia/Shanghai\r\nX-ALTBDAY;CALSCALE=chinese:--0301\r\nEND:VCARD\r\n",
        ]
        #expect(try await importing(cards.joined()).problems == [])
        _ = try await database.setSharedRule(.group("Family"), exclusion: .keep, days: .set(ReminderDays("3,0")), now: Self.now)
        _ = try await database.setZoneChoice(ZoneChoice(storedValue: "Europe/Helsinki"), personID: "grouped", now: Self.now)
        _ = try await database.setReminderChoices(
            days: .set(ReminderDays("1,0")),
            channels: .keep,
            weekend: .keep,
            personID: "died",
            now: Self.now
        )

        let found = try await traits()
        #expect(found["zone"]?.zone?.storedValue == "Asia/Tokyo")
        // Special for another reason (died, own days), and still the zone.
        #expect(found["died"]?.deceased == true)
        #expect(found["died"]?.reminderDays == ReminderDays("1,0"))
        #expect(found["died"]?.zone?.storedValue == "-03:00")
        // In a group with a rule: the group's days and the person's chosen zone.
        #expect(found["grouped"]?.reminderDays == ReminderDays("3,0"))
        #expect(found["grouped"]?.zone?.storedValue == "Europe/Helsinki")
        #expect(found["plain"] == PersonTraits())

        // The partial index holds those with a zone.
        let indexed = try await database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM person INDEXED BY person_special
                    WHERE deathDate IS NOT NULL OR reminderDays IS NOT NULL OR weekend IS NOT NULL OR cardZone IS NOT NULL OR zoneChoice IS NOT NULL
                    ORDER BY id
                    """
            )
        }
        #expect(indexed == ["died", "grouped", "lunar", "zone"])

        // Dates in other calendars read the zone too.
        let alternate = try await database.read { db in
            var zones: [String: String?] = [:]
            try PersonRecord.forEachEvent(db, rules: TreatmentRules()) { event, traits, identity in
                if case .otherCalendar = event.date { zones[identity().id] = traits.zone?.storedValue }
            }
            return zones
        }
        #expect(alternate == ["lunar": "Asia/Shanghai"])

        // And `upcoming` says it, but not for a memorial.
        let upcoming = try await database.upcoming(
            UpcomingEvents(today: LocalDate(iso: "2026-03-01")!, deceased: .remember),
            withinDays: 366
        )
        let zones = Dictionary(
            upcoming.map { ($0.personID + ($0.calendar == nil ? "" : "-lunar"), $0.zone?.storedValue) },
            uniquingKeysWith: { a, _ in a }
        )
        #expect(zones["zone"] == .some("Asia/Tokyo"))
        #expect(zones["grouped"] == .some("Europe/Helsinki"))
        #expect(zones["plain"] == .some(nil))
        #expect(zones["died"] == .some(nil))
        #expect(zones["lunar-lunar"] == .some("Asia/Shanghai"))
    }

    /// The readers that build traits from named columns (``PersonRecord/TraitColumns``: a team room's,
    /// labelled dates', name days', other calendars') agree with the planner's own reading.
    @Test func theTraitColumnsAreReadByNameAndAgreeWithThePlanner() async throws {
        let cards = [
            Self.card(uid: "zone", name: "Only a zone", "TZ:Asia/Tokyo", "X-ANNIVERSARY:2010-05-01"),
            Self.card(uid: "died", name: "Died abroad", "TZ:-03:00", "DEATHDATE:2020-05-01"),
            Self.card(uid: "grouped", name: "In a group", "CATEGORIES:Family"),
            Self.card(uid: "plain", name: "Plain"),
        ]
        #expect(try await importing(cards.joined()).problems == [])
        _ = try await database.setSharedRule(.group("Family"), exclusion: .keep, days: .set(ReminderDays("3,0")), now: Self.now)
        _ = try await database.setZoneChoice(ZoneChoice(storedValue: "Europe/Helsinki"), personID: "grouped", now: Self.now)
        _ = try await database.setReminderChoices(
            days: .set(ReminderDays("2,0")),
            channels: .keep,
            weekend: .set(.friday),
            personID: "zone",
            now: Self.now
        )
        let planner = try await traits()
        let room = try await database.read { db in
            var found: [String: PersonTraits] = [:]
            try PersonRecord.forEachBirthday(ids: ["zone", "died", "grouped", "plain"], db) { _, traits, id, _ in found[id] = traits }
            return found
        }
        #expect(room == planner)
        #expect(room["zone"] == PersonTraits(reminderDays: ReminderDays("2,0"), weekend: .friday, zone: PersonZone(name: "Asia/Tokyo")))
        #expect(room["grouped"]?.reminderDays == ReminderDays("3,0") && room["grouped"]?.zone?.storedValue == "Europe/Helsinki")
        #expect(room["died"]?.deceased == true)
        // A query that does not select them is an error, never traits read from the wrong columns.
        await #expect(throws: StoreError.self) {
            try await self.database.read { db in _ = try PersonRecord.TraitColumns(try db.makeStatement(sql: "SELECT id, name FROM person")) }
        }
    }

    @Test func aVdirSyncFollowsTheCardWithoutLoggingIt() async throws {
        let bed = try SourceSyncTests.Bed()
        defer { bed.folder.cleanup() }
        try bed.write("book/mei.vcf", Self.card("TZ;VALUE=text:Asia/Tokyo"))
        let source = try await bed.add("book", .vdir, "book")
        _ = try await bed.sync(source)
        #expect(try await bed.database.person(id: "mei")?.cardZone?.storedValue == "Asia/Tokyo")
        _ = try await bed.database.setZoneChoice(.local, personID: "mei", now: Self.now)

        try bed.write("book/mei.vcf", Self.card("TZ;VALUE=utc-offset:+0900"))
        _ = try await bed.sync(source)
        let moved = try #require(try await bed.database.person(id: "mei"))
        #expect((moved.cardZone?.storedValue, moved.zoneChoice) == ("+09:00", .local))

        try bed.write("book/mei.vcf", Self.card())
        _ = try await bed.sync(source)
        #expect(try await bed.database.person(id: "mei")?.cardZone == nil)
        #expect(try await bed.database.person(id: "mei")?.zoneChoice == .local)
        for line in bed.logs.all {
            #expect(!line.contains("Tokyo") && !line.contains("+09:00") && !line.contains("Mei"), "\(line)")
        }
    }

    /// A database from before `v15-person-zone` whose vdir source already
    /// holds a card with `TZ`: the migration adds the columns, rebuilds the
    /// planner's index, and makes the next sync read the card again (its file
    /// stamp is unchanged), so the zone arrives.
    @Test func aV14DatabaseMigratesAndTheNextSyncReadsTheZone() async throws {
        let folder = directory.file("book")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(Self.card("TZ:Asia/Tokyo").utf8).write(to: URL(fileURLWithPath: folder + "/mei.vcf"))
        let stamp = try #require(LocalSourceReader.stamp(folder + "/mei.vcf")).text
        let old = Person(
            id: "mei",
            name: "Mei Tanaka",
            source: ContactSource(file: folder + "/mei.vcf", index: 0, line: 1),
            birthday: EventDate(year: 1990, month: 3, day: 10)
        )
        let path = directory.file("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try AppDatabase.migrator.migrate(queue, upTo: "v14-groups")
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO source (id, name, kind, location, failures, createdAt, lastSyncAt) VALUES (1, 'book', 'vdir', ?, 0, 0, 0)",
                arguments: [folder]
            )
            try db.execute(
                sql: """
                    INSERT INTO person (id, name, sourceFile, sourceIndex, sourceLine, birthdayYear, birthdayMonth, birthdayDay,
                                        fingerprint, excluded, createdAt, updatedAt, imported, weekend)
                    VALUES ('mei', 'Mei Tanaka', ?, 0, 1, 1990, 3, 10, ?, 0, 0, 0, 0, 'friday')
                    """,
                arguments: [old.source.file, old.fingerprint]
            )
            try db.execute(sql: "INSERT INTO sourceItem (sourceId, href, etag) VALUES (1, 'mei.vcf', ?)", arguments: [stamp])
            try db.execute(
                sql: "INSERT INTO sourcePerson (sourceId, href, personId, fingerprint) VALUES (1, 'mei.vcf', 'mei', ?)",
                arguments: [old.fingerprint]
            )
        }
        try queue.close()

        let upgraded = try AppDatabase.openFile(at: path)
        let applied = try upgraded.readNow { db in try AppDatabase.migrator.appliedMigrations(db) }
        #expect(applied.contains("v15-person-zone"))
        #expect(applied == AppDatabase.migrator.migrations)
        #expect(try await upgraded.person(id: "mei")?.cardZone == nil)
        // The weekend rule kept its place in the rebuilt index.
        let indexSQL = try upgraded.readNow { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'person_special'") }
        #expect(indexSQL?.contains("weekend IS NOT NULL") == true && indexSQL?.contains("cardZone IS NOT NULL") == true)

        let source = try #require(try await upgraded.sources().first)
        let report = await SourceSync(
            database: upgraded,
            readers: SourceReaders { _ in LocalSourceReader() },
            now: { Self.now },
            systemTimeZone: { TimeZone(identifier: "UTC")! },
            logger: LogRecorder().logger
        ).sync(source)
        #expect(report.error == nil)
        #expect(report.counts == [0, 1, 0, 0])
        let person = try #require(try await upgraded.person(id: "mei"))
        #expect(person.cardZone?.storedValue == "Asia/Tokyo")
        #expect(person.weekend == .friday)
    }
}
