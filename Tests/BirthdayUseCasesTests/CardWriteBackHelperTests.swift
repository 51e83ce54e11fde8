import BirthdayCore
import BirthdayStore
import BirthdayUseCases
import Foundation
import TestSupport
import Testing

/// What the write-back gives the `birthdays-network` helper: the card, the
/// book, the user name and the password the source's command printed (run
/// by the write-back itself), on the helper's standard input. The helper
/// opens no database, so a write-back works from a database in memory, and
/// its arguments are only its subcommand's name. The real helper runs behind
/// a wrapper that records its arguments and standard input.
@Suite(.timeLimit(.minutes(10)))
struct CardWriteBackHelperTests {
    static let date = EventDate(year: 1990, month: 5, day: 17)!
    static let now = Date(timeIntervalSince1970: 1_773_133_200)  // 2026-03-10T09:00:00Z

    /// Hands the store one CardDAV card, as a CardDAV sync would, without a server's listing.
    struct OneCard: SourceReader {
        let item: SourceItem
        func changes(in source: Source, since snapshot: SourceSnapshot) async throws(SourceError) -> SourceChanges {
            SourceChanges(listing: .complete(present: [item.href]), items: [item])
        }
    }

    /// A database in memory whose CardDAV source `Friends` at `book` brings
    /// Ann from the card `href`; the real helper behind a recording wrapper.
    struct Bed {
        let directory: TemporaryDirectory
        let database: AppDatabase
        let environment: [String: String]
        var argv: String { directory.file("argv.log") }
        var stdin: String { directory.file("stdin.log") }

        init(book: String, username: String, passwordCommand: String, href: String, card: String) async throws {
            directory = try TemporaryDirectory()
            database = try AppDatabase.inMemory()
            let source = try await database.addSource(
                Source(name: "Friends", kind: .carddav, location: book, username: username, passwordCommand: passwordCommand),
                now: CardWriteBackHelperTests.now
            )
            let item = SourceItem(href: href, etag: "\"1\"", location: book + "ann.vcf", content: Data(card.utf8))
            let sync = SourceSync(
                database: database,
                readers: SourceReaders { _ in OneCard(item: item) },
                now: { CardWriteBackHelperTests.now },
                systemTimeZone: { TimeZone(identifier: "UTC")! },
                logger: LogRecorder().logger
            )
            let report = await sync.sync(source)
            try #require(report.error == nil, "\(String(describing: report.error))")
            let helper = URL(fileURLWithPath: try CardWriteBackTests.binary()).deletingLastPathComponent()
                .appendingPathComponent("birthdays-network").path
            let wrapper = try await directory.writeProgram(
                "helper.sh",
                "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(directory.file("argv.log"))'\n"
                    + "tee '\(directory.file("stdin.log"))' | '\(helper)' \"$@\"\n"
            )
            environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8", "BIRTHDAYS_NETWORK_HELPER": wrapper]
        }

        /// What the helper was given on its standard input.
        func request() throws -> CardWriteRequest {
            try JSONDecoder().decode(CardWriteRequest.self, from: Data(contentsOf: URL(fileURLWithPath: stdin)))
        }
    }

    @Test func aCardDAVCardIsWrittenFromADatabaseInMemoryWithEverythingOnStandardInput() async throws {
        try #require(RadicaleServer.isAvailable, Comment(rawValue: RadicaleServer.missing))
        let server = try await RadicaleServer(password: "s3cret-pw")
        defer { server.cleanUp() }
        try await server.makeBook("friends", displayName: "Friends")
        let card = "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ann\r\nFN:Ann Example\r\nEND:VCARD\r\n"
        try await server.put("friends", file: "ann.vcf", card: card)
        let bed = try await Bed(
            book: server.bookURL("friends"),
            username: server.user,
            passwordCommand: "printf '%s\\n' s3cret-pw",
            href: "/\(server.user)/friends/ann.vcf",
            card: card
        )
        defer { bed.directory.cleanup() }

        let writeBack = CardWriteBack(database: bed.database, environment: bed.environment, logger: LogRecorder().logger)
        #expect(await writeBack.writeBirthday(personID: "ann", Self.date) == .written(source: "Friends"))
        let (status, served) = try await server.curl("GET", server.bookURL("friends") + "ann.vcf")
        #expect(status == 200)
        #expect(served.contains("BDAY:19900517"), "\(served)")

        // The arguments name the subcommand only: no database, no source, no secret.
        #expect(try String(contentsOfFile: bed.argv, encoding: .utf8) == "write-birthday\n")
        let request = try bed.request()
        #expect(request.book == server.bookURL("friends"))
        #expect(request.username == server.user)
        #expect(request.href == "/\(server.user)/friends/ann.vcf")
        #expect(request.personID == "ann")
        #expect(request.date == Self.date)
        #expect(request.password == "s3cret-pw")
    }

    @Test func aFailingPasswordCommandIsTheWriteBacksFailureAndTheHelperNeverRuns() async throws {
        let bed = try await Bed(
            book: "http://127.0.0.1:9/alice/friends/",
            username: "alice",
            passwordCommand: "exit 3",
            href: "/alice/friends/ann.vcf",
            card: "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:ann\r\nFN:Ann Example\r\nEND:VCARD\r\n"
        )
        defer { bed.directory.cleanup() }

        let writeBack = CardWriteBack(database: bed.database, environment: bed.environment, logger: LogRecorder().logger)
        let outcome = await writeBack.writeBirthday(personID: "ann", Self.date)
        #expect(outcome == .failed(source: "Friends", .connection(.passwordCommand(reason: "it exited with status 3"))))
        #expect(!FileManager.default.fileExists(atPath: bed.argv))
    }
}
