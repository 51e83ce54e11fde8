import BirthdayCore
import BirthdayStore
import BirthdayUseCases
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The write-back's entry point on a real database file that the real
/// `birthdays` binary filled (`sources add`, `import`, `sources sync`): a
/// vdir card is rewritten with the date and nothing else changed, a CardDAV
/// card on a real Radicale is written by the real `birthdays-network`
/// helper, a file source and an imported person are left alone, and the
/// next sync keeps one person with the date.
@Suite(.timeLimit(.minutes(10)))
struct CardWriteBackTests {
    static let date = EventDate(year: 1990, month: 5, day: 17)!

    /// The `birthdays` binary next to the test bundle.
    static func binary() throws -> String {
        let first = try #require(CommandLine.arguments.first)
        let path = URL(fileURLWithPath: first).deletingLastPathComponent().appendingPathComponent("birthdays").path
        try #require(FileManager.default.isExecutableFile(atPath: path), "the birthdays binary is not built; run swift build first")
        return path
    }

    /// A private database and the environment the binary runs in.
    struct CLI {
        let directory: TemporaryDirectory
        var database: String { directory.file("birthdays.sqlite") }
        var environment: [String: String] {
            [
                "PATH": "/usr/bin:/bin", "HOME": directory.path, "BIRTHDAYS_DATABASE": database,
                "BIRTHDAYS_NOW": "2026-03-10T08:00:00+01:00", "BIRTHDAYS_NOW_WRITES": "1", "TZ": "Europe/Berlin", "LANG": "C.UTF-8",
            ]
        }

        @discardableResult
        func run(_ arguments: String...) async throws -> TestProcess.Result {
            let result = try await TestProcess.run([try CardWriteBackTests.binary()] + arguments, environment: environment)
            #expect(result.status == 0, "birthdays \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func aVdirCardGetsTheDateAndTheNextSyncKeepsOnePerson() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cli = CLI(directory: directory)
        let book = directory.file("book")
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        // Ada as a phone writes her: folded note, a photo, an unknown property, no birthday.
        let ada = [
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 17.0//EN", "N:Lovelace;Ada;;;", "FN:Ada Lovelace",
            "NOTE:met at the analytical engine meetup, long ago, in a hall that was far too", "  cold",
            "PHOTO;ENCODING=b;TYPE=JPEG:/9j/4AAQSkZJRgABAQ",
            " AAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U", "X-ABShowAs:PERSON", "UID:ada", "END:VCARD",
        ]
        try directory.write("book/ada.vcf", ada.joined(separator: "\r\n") + "\r\n")
        #expect(chmod(directory.file("book/ada.vcf"), 0o640) == 0)
        let bob = "BEGIN:VCARD\nVERSION:4.0\nUID:bob\nFN:Bob Byron\nBDAY:--0101\nEND:VCARD\n"
        try directory.write("book/bob.vcf", bob)
        try directory.write("export.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:cy\r\nFN:Cy Clark\r\nEND:VCARD\r\n")
        try directory.write("imported.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:dee\r\nFN:Dee Dale\r\nEND:VCARD\r\n")
        // The import makes the database that sources add needs.
        try await cli.run("import", directory.file("imported.vcf"))
        try await cli.run("sources", "add", book, "--name", "Phone")
        try await cli.run("sources", "add", directory.file("export.vcf"), "--name", "Export")

        let database = try AppDatabase.openFile(at: cli.database, create: false)
        let logs = LogRecorder()
        let writeBack = CardWriteBack(database: database, environment: cli.environment, logger: logs.logger)
        #expect(await writeBack.writeBirthday(personID: "ada", Self.date) == .written(source: "Phone"))
        var expected = ada
        expected.insert("BDAY:1990-05-17", at: expected.count - 1)
        #expect(try Self.text(directory.file("book/ada.vcf")) == expected.joined(separator: "\r\n") + "\r\n")
        var info = stat()
        #expect(stat(directory.file("book/ada.vcf"), &info) == 0 && info.st_mode & 0o7777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: book).sorted() == ["ada.vcf", "bob.vcf"])

        // Bob's card has its own birthday; Cy is only in a file source; Dee was imported.
        #expect(await writeBack.writeBirthday(personID: "bob", Self.date) == .cardHasBirthday(source: "Phone"))
        #expect(try Self.text(directory.file("book/bob.vcf")) == bob)
        #expect(await writeBack.writeBirthday(personID: "cy", Self.date) == .fileSourceOnly(source: "Export"))
        #expect(try !Self.text(directory.file("export.vcf")).contains("BDAY"))
        #expect(await writeBack.writeBirthday(personID: "dee", Self.date) == .noCard)

        // The next sync reads Ada's card as an edit: the same person, the date, nobody added.
        let before = try await database.people().map(\.id).sorted()
        let sync = try await cli.run("sources", "sync", "Phone")
        #expect(sync.stdout.contains("0 added, 1 updated"), "\(sync.stdout)")
        #expect(try await database.people().map(\.id).sorted() == before)
        #expect(try await database.person(id: "ada")?.birthday == Self.date)
        #expect(try await database.person(id: "bob")?.birthday == EventDate(year: nil, month: 1, day: 1))

        // The log names the source, never the person, the date or the card.
        #expect(logs.all.contains { $0.contains("Phone") })
        #expect(!logs.all.contains { $0.contains("Ada") || $0.contains("ada") || $0.contains("1990") || $0.contains("05-17") })
    }

    @Test func aCardDAVCardIsWrittenThroughTheHelperAndTheNextSyncKeepsOnePerson() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer()
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        let card = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ann\r\nFN:Ann Example\r\nTEL:+49 30 0000000\r\nX-PHONE-ONLY:kept\r\nEND:VCARD\r\n"
        try await server.put("friends", file: "ann.vcf", card: card)
        try await server.put("friends", uid: "bob", name: "Bob Example", birthday: "1985-07-01")
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cli = CLI(directory: directory)
        // The import makes the database that sources add needs.
        try directory.write("imported.vcf", "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:dee\r\nFN:Dee Dale\r\nEND:VCARD\r\n")
        try await cli.run("import", directory.file("imported.vcf"))
        try await cli.run(
            "sources",
            "add",
            server.bookURL("friends"),
            "--name",
            "Friends",
            "--username",
            server.user,
            "--password-command",
            "echo secret"
        )
        let served = { () async throws -> String in
            let (status, body) = try await server.curl("GET", server.bookURL("friends") + "ann.vcf")
            try #require(status == 200)
            return body
        }
        let before = try await served()

        let database = try AppDatabase.openFile(at: cli.database, create: false)
        let logs = LogRecorder()
        let writeBack = CardWriteBack(database: database, environment: cli.environment, logger: logs.logger)
        #expect(await writeBack.writeBirthday(personID: "ann", EventDate(year: nil, month: 5, day: 17)!) == .written(source: "Friends"))
        // Radicale serves cards in its own property order: the same lines, and BDAY.
        let lines = { (card: String) in card.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init) }
        let after = try await served()
        #expect(lines(after).filter { $0 != "BDAY:--0517" } == lines(before))
        #expect(lines(after).filter { $0.hasPrefix("BDAY") } == ["BDAY:--0517"])
        #expect(await writeBack.writeBirthday(personID: "bob", Self.date) == .cardHasBirthday(source: "Friends"))

        let sync = try await cli.run("sources", "sync", "Friends")
        #expect(sync.stdout.contains("0 added, 1 updated"), "\(sync.stdout)")
        #expect(try await database.people().map(\.id).sorted() == ["ann", "bob", "dee"])
        #expect(try await database.person(id: "ann")?.birthday == EventDate(year: nil, month: 5, day: 17))

        // The server gone: a failure in a sentence, the date kept in the database, the log without the card.
        server.stop()
        let failed = await writeBack.writeBirthday(personID: "ann", Self.date)
        guard case .failed(let source, .connection(.network)) = failed else {
            Issue.record("expected a network failure, got \(failed)")
            return
        }
        #expect(source == "Friends")
        #expect(failed.description.hasPrefix("the birthday could not be written to the card in 'Friends': cannot reach"))
        #expect(try await database.person(id: "ann")?.birthday == EventDate(year: nil, month: 5, day: 17))
        #expect(logs.all.contains { $0.contains("could not write a birthday to a card of source Friends: cannot reach the server") })
        #expect(!logs.all.contains { $0.contains("Ann") || $0.contains("ann.vcf") || $0.contains("05-17") || $0.contains("0517") })
    }
}
