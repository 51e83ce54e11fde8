import BirthdayCore
import BirthdayStore
import Foundation
import GRDB
import Logging
import TestSupport
import Testing

@testable import BirthdayNetwork

/// A `sync-collection` answer is read as it arrives: a server that writes its
/// multistatus a few bytes at a time (chunked, flushed after each piece) gives
/// the same sync as one that sends it at once; an answer cut off in the
/// middle, or whose XML breaks after some cards, changes nothing; a bad card
/// in the middle is reported with its URL and line, and the rest lands. A
/// small server of the test's own (Python's http.server on loopback),
/// because Radicale sends its answers whole.
@Suite(.serialized, .timeLimit(.minutes(10))) struct StreamedListingTests {
    static let python = ScriptedDAVBed.python
    static let now = Date(timeIntervalSince1970: 1_773_133_200)  // 2026-03-10T09:00:00Z

    /// Answers `sync-collection` on `/book/` with 40 cards (`c00`…`c39`,
    /// `c20` with a BDAY that is no date), as the file `mode` says:
    /// `trickle` (7 bytes per chunk), `cut` (Content-Length of the whole,
    /// half of it sent, then the connection closed) or `broken` (the XML
    /// breaks after half of the cards).
    static let script = #"""
        import http.server, os, socket

        MODE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mode")
        CARD = "BEGIN:VCARD&#13;\nVERSION:3.0&#13;\nUID:%s&#13;\nFN:Person %s&#13;\nBDAY:%s&#13;\nEND:VCARD&#13;\n"

        def member(index):
            name = "c%02d" % index
            bday = "1985-13-02" if index == 20 else "19%02d-04-12" % (50 + index)
            return ("<response><href>/book/%s.vcf</href><propstat><prop><getetag>\"%s\"</getetag>"
                    "<C:address-data>%s</C:address-data></prop><status>HTTP/1.1 200 OK</status></propstat></response>"
                    % (name, name, CARD % (name, name, bday)))

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_REPORT(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                mode = open(MODE).read().strip()
                members = "".join(member(i) for i in range(40))
                if mode == "broken":
                    members = "".join(member(i) for i in range(20)) + "<response><href>/book/x.vcf</href></prop>" + members
                data = ('<?xml version="1.0" encoding="utf-8"?>'
                        '<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav">'
                        + members + "<sync-token>t1</sync-token></multistatus>").encode()
                self.send_response(207)
                self.send_header("Content-Type", "application/xml; charset=utf-8")
                if mode == "cut":
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for start in range(0, len(data), 7):
                    piece = data[start : start + 7]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// The scripted server, a database with its book as a source, and a sync.
    static func bed(mode: String) async throws -> ScriptedDAVBed {
        try await ScriptedDAVBed(script: script, mode: mode, now: now)
    }

    static var everyone: [String] { (0..<40).map { String(format: "c%02d", $0) } }

    @Test func anAnswerThatTricklesInIsReadWholeAndABadCardIsReported() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "needs python3 (apt: python3)")
        let bed = try await Self.bed(mode: "trickle")
        defer { bed.cleanUp() }
        let report = try await bed.sync()
        #expect(report.error == nil, "\(String(describing: report.error))")
        #expect(report.added == 40)
        // c20's BDAY is no date: the person is kept undated, and the card is named with its line.
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.file.hasSuffix("/book/c20.vcf"))
        #expect(problem.line == 5)
        #expect(problem.message.contains("1985-13-02"))
        #expect(try await bed.people() == Self.everyone)
        let c39 = try #require(try await bed.database.people().first { $0.id == "c39" })
        #expect(c39.birthday?.description == "1989-04-12")
        let source = try #require(try await bed.database.sources().first)
        #expect(source.status.lastSync != nil)
        #expect(try await bed.syncToken() == "t1")
    }

    @Test(arguments: ["cut", "broken"])
    func anAnswerCutOffOrBrokenInTheMiddleChangesNothing(mode: String) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "needs python3 (apt: python3)")
        let bed = try await Self.bed(mode: mode)
        defer { bed.cleanUp() }
        let report = try await bed.sync()
        let error = try #require(report.error)
        switch (mode, error) {
        case ("cut", .remote(.network)), ("broken", .remote(.badResponse)): break
        default: Issue.record("unexpected error for \(mode): \(error)")
        }
        // Half of the cards had arrived and been read: none of them landed.
        #expect(try await bed.people().isEmpty)
        let source = try #require(try await bed.database.sources().first)
        #expect(source.status.lastSync == nil)
        #expect(source.status.failures == 1)
        #expect(try await bed.syncToken() == nil)

        // The same book whole: everything lands; cut off again later, what landed stays.
        try bed.mode("trickle")
        #expect(try await bed.sync().added == 40)
        try bed.mode(mode)
        #expect(try await bed.sync().error != nil)
        #expect(try await bed.people() == Self.everyone)
    }
}
