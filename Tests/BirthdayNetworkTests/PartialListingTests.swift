import BirthdayCore
import BirthdayStore
import Foundation
import Logging
import TestSupport
import Testing

@testable import BirthdayNetwork

/// A server whose `sync-collection` answers stay truncated (507 for the book,
/// RFC 6578 §3.6) however often they are followed: a partial listing must
/// never remove anyone, nor add half a book. Radicale never truncates, so
/// this is a small WebDAV server of the test's own (Python's http.server on
/// loopback) that answers from a script.
@Suite(.serialized, .timeLimit(.minutes(10))) struct PartialListingTests {
    static let python = ScriptedDAVBed.python
    static let now = Date(timeIntervalSince1970: 1_773_133_200)  // 2026-03-10T09:00:00Z

    /// Answers `sync-collection` on `/book/`: without a token, the whole book
    /// (Ann and Bob) with token `t1`, unless the file `mode` says
    /// `truncated-from-start`; otherwise Ann deleted, Cy added and the book
    /// truncated, with a new token each time.
    static let script = #"""
        import http.server, os, sys
        import xml.etree.ElementTree as ET

        MODE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mode")
        CARD = "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:%s\r\nFN:%s\r\nBDAY:%s\r\nEND:VCARD\r\n"

        def member(href, etag, card):
            return ("<response><href>%s</href><propstat><prop><getetag>%s</getetag>"
                    "<C:address-data>%s</C:address-data></prop><status>HTTP/1.1 200 OK</status></propstat></response>"
                    % (href, etag, card))

        class Handler(http.server.BaseHTTPRequestHandler):
            counter = 0

            def do_REPORT(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                token = ET.fromstring(body).find("{DAV:}sync-token").text
                mode = open(MODE).read().strip()
                Handler.counter += 1
                if token is None and mode != "truncated-from-start":
                    answer = ("<sync-token>t1</sync-token>"
                              + member("/book/ann.vcf", '"a1"', CARD % ("ann", "Ann", "1990-04-12"))
                              + member("/book/bob.vcf", '"b1"', CARD % ("bob", "Bob", "1985-07-01")))
                else:
                    answer = ("<sync-token>t%d</sync-token>" % (Handler.counter + 1)
                              + "<response><href>/book/ann.vcf</href><status>HTTP/1.1 404 Not Found</status></response>"
                              + member("/book/cy.vcf", '"c1"', CARD % ("cy", "Cy", "1970-05-05"))
                              + "<response><href>/book/</href><status>HTTP/1.1 507 Insufficient Storage</status></response>")
                data = ('<?xml version="1.0" encoding="utf-8"?>'
                        '<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav">'
                        + answer + "</multistatus>").encode()
                self.send_response(207)
                self.send_header("Content-Type", "application/xml; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// The scripted server, a database with its book as a source, and a sync.
    static func bed(mode: String) async throws -> ScriptedDAVBed {
        try await ScriptedDAVBed(script: script, mode: mode, now: now)
    }

    @Test func aChangeListingThatStaysTruncatedChangesNothing() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "needs python3 (apt: python3)")
        let bed = try await Self.bed(mode: "truncated")
        defer { bed.cleanUp() }
        let first = try await bed.sync()
        #expect(first.error == nil, "\(String(describing: first.error))")
        #expect(try await bed.people() == ["ann", "bob"])

        // Every answer deletes Ann and brings Cy, and says there is more: followed
        // 100 times, then given up; neither Ann's removal nor Cy lands.
        let second = try await bed.sync()
        guard case .remote(.badResponse(_, let reason)) = second.error else {
            Issue.record("expected a bad response, got \(String(describing: second.error))")
            return
        }
        #expect(reason == "the sync-collection answer was still truncated after 100 requests")
        #expect(try await bed.people() == ["ann", "bob"])
        let status = try #require(try await bed.database.sources().first?.status)
        #expect(status.failures == 1)
        #expect(status.error?.contains("truncated") == true)
    }

    @Test func aFirstListingThatStaysTruncatedAddsNobody() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "needs python3 (apt: python3)")
        let bed = try await Self.bed(mode: "truncated-from-start")
        defer { bed.cleanUp() }
        let report = try await bed.sync()
        #expect(report.error != nil)
        #expect(try await bed.people().isEmpty)
        #expect(try await bed.database.sources().first?.status.lastSync == nil)
    }
}
