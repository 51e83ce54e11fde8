import BirthdayCore
import BirthdayStore
import Foundation
import GRDB
import Logging
import TestSupport
import Testing

@testable import BirthdayNetwork

/// A WebDAV server of a test's own (a Python `http.server` script on
/// loopback that prints its port, reading its `mode` file on each request),
/// a database with its book as a CardDAV source, and a sync of it: for the
/// answers Radicale never gives (truncated listings, answers that trickle
/// in or break off).
struct ScriptedDAVBed {
    static let python = "/usr/bin/python3"

    let directory: TemporaryDirectory
    let process: TestProcess
    let database: AppDatabase
    let source: Source
    let now: Date

    init(script: String, mode: String, now: Date) async throws {
        directory = try TemporaryDirectory()
        try directory.write("server.py", script)
        try directory.write("mode", mode + "\n")
        let process = try TestProcess(
            [Self.python, directory.file("server.py")],
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
            directory: directory.url,
            name: "dav"
        )
        self.process = process
        try await process.waitUntil("the scripted server to listen", seconds: 60) { process in
            Int(process.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) != nil || process.poll() != nil
        }
        let port = try #require(Int(process.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(process.stderr)")
        database = try AppDatabase.inMemory()
        source = try await database.addSource(Source(name: "Book", kind: .carddav, location: "http://127.0.0.1:\(port)/book/"), now: now)
        self.now = now
    }

    /// What the server answers from its next request on.
    func mode(_ mode: String) throws { try directory.write("mode", mode + "\n") }

    func sync() async throws -> SourceSyncReport {
        let current = try #require(try await database.sources().first)
        let now = self.now
        return await SourceSync(
            database: database,
            readers: SourceReaders { _ in CardDAVReader(password: { _ in nil }) },
            now: { now },
            systemTimeZone: { TimeZone(identifier: "UTC")! },
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        ).sync(current)
    }

    func people() async throws -> [String] { try await database.people().map(\.id).sorted() }

    /// The token the source keeps for its next sync.
    func syncToken() async throws -> String? {
        try await database.read { db in try String.fetchOne(db, sql: "SELECT syncToken FROM source") }
    }

    func cleanUp() {
        process.stop()
        directory.cleanup()
    }
}
