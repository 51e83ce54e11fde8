import Foundation
import Testing

@testable import BirthdayNetwork

/// The WebDAV XML reader on answers as servers write them: Radicale's
/// default namespace, prefixed ones (`D:`, `C:`), CDATA, unknown properties
/// in a 404 propstat, the sync token first or last, and broken bodies.
@Suite struct WebDAVXMLTests {
    @Test func readsRadicalesSyncAnswerWithDefaultNamespace() throws {
        let body = """
            <?xml version='1.0' encoding='utf-8'?>
            <multistatus xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><sync-token>http://radicale.org/ns/sync/abc</sync-token>\
            <response><href>/alice/friends/bob.vcf</href><status>HTTP/1.1 404 Not Found</status></response>\
            <response><href>/alice/friends/ann.vcf</href><propstat><prop><getetag>"964f"</getetag>\
            <CR:address-data>BEGIN:VCARD\r\nUID:ann\r\nEND:VCARD\r\n</CR:address-data></prop>\
            <status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
            """
        let answer = try WebDAVXML.multistatus(Data(body.utf8))
        #expect(answer.syncToken == "http://radicale.org/ns/sync/abc")
        #expect(answer.responses.map(\.href) == ["/alice/friends/bob.vcf", "/alice/friends/ann.vcf"])
        #expect(answer.responses[0].status == 404)
        #expect(answer.responses[0].properties.isEmpty)
        #expect(answer.responses[1].text(.getETag) == "\"964f\"")
        // XML turns CRLF into LF; the vCard reader takes both.
        #expect(answer.responses[1].properties[.addressData]?.text == "BEGIN:VCARD\nUID:ann\nEND:VCARD\n")
    }

    @Test func matchesNamespacesNotPrefixesAndKeepsOnly200Propstats() throws {
        let body = """
            <?xml version="1.0"?>
            <D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav" xmlns:X="urn:example">
              <D:response>
                <D:href>/dav/book/</D:href>
                <D:propstat>
                  <D:prop>
                    <D:resourcetype><D:collection/><C:addressbook/></D:resourcetype>
                    <D:displayname>Family &amp; Friends</D:displayname>
                    <X:getetag>not the DAV one</X:getetag>
                    <C:address-data><![CDATA[BEGIN:VCARD
            FN:A <b>
            END:VCARD]]></C:address-data>
                  </D:prop>
                  <D:status>HTTP/1.1 200 OK</D:status>
                </D:propstat>
                <D:propstat>
                  <D:prop><D:getetag/><D:sync-token/></D:prop>
                  <D:status>HTTP/1.1 404 Not Found</D:status>
                </D:propstat>
              </D:response>
              <D:sync-token>token-last</D:sync-token>
            </D:multistatus>
            """
        let answer = try WebDAVXML.multistatus(Data(body.utf8))
        let response = try #require(answer.responses.first)
        #expect(answer.syncToken == "token-last")
        #expect(response.properties[.resourceType]?.children == [.dav("collection"), .addressBook])
        #expect(response.text(.displayName) == "Family & Friends")
        #expect(response.properties[.getETag] == nil)
        #expect(response.properties[.addressData]?.text == "BEGIN:VCARD\nFN:A <b>\nEND:VCARD")
    }

    @Test func readsHrefsInsideProperties() throws {
        let body = """
            <multistatus xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><response><href>/alice/</href><propstat><prop>\
            <CR:addressbook-home-set><href>/alice/</href></CR:addressbook-home-set>\
            <current-user-principal>\n  <href> /principals/alice/ </href>\n</current-user-principal>\
            </prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
            """
        let response = try #require(try WebDAVXML.multistatus(Data(body.utf8)).responses.first)
        #expect(response.href == "/alice/")
        #expect(response.properties[.addressBookHomeSet]?.hrefs == ["/alice/"])
        #expect(response.properties[.currentUserPrincipal]?.hrefs == ["/principals/alice/"])
    }

    @Test(arguments: [
        ("<multistatus xmlns=\"DAV:\"><response>", "not well-formed"),
        ("HTTP/1.1 200 OK\r\n\r\n<multistatus/>", "not well-formed"),
        ("<html><body>login</body></html>", "expected a DAV: multistatus"),
        ("<multistatus><response/></multistatus>", "expected a DAV: multistatus"),
        ("", "empty"),
    ])
    func refusesWhatIsNotAMultistatus(body: String, reason: String) {
        #expect {
            try WebDAVXML.multistatus(Data(body.utf8))
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func readsErrorConditionsAndNothingFromOtherBodies() {
        let error = #"<?xml version='1.0'?><error xmlns="DAV:"><valid-sync-token /></error>"#
        #expect(WebDAVXML.errorConditions(Data(error.utf8)) == [.dav("valid-sync-token")])
        #expect(WebDAVXML.errorConditions(Data("<html/>".utf8)).isEmpty)
        #expect(WebDAVXML.errorConditions(Data("not xml".utf8)).isEmpty)
    }

    @Test func neverLoadsExternalEntities() throws {
        // An answer that tries to read a local file through an external entity gets nothing from it.
        let body = """
            <?xml version="1.0"?>
            <!DOCTYPE multistatus [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <multistatus xmlns="DAV:"><response><href>&secret;</href></response></multistatus>
            """
        let answer = try? WebDAVXML.multistatus(Data(body.utf8))
        let hostname = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "-"
        #expect(answer?.responses.first?.href.contains(hostname) != true)
    }

    /// Hrefs, tags and tokens are trimmed on their bytes; the result is Foundation's.
    @Test(arguments: [
        "", " ", "\r\n\t", "abc", "  /book/a.vcf\n", "\"etag\"\r\n  ", "\u{A0}x\u{A0}", " \u{2003}x", "x\u{85}", " é ", "\n\u{3000}\n",
    ])
    func trimsAsFoundationDoes(text: String) {
        #expect(WebDAVXML.trimmed(text) == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func escapesRequestText() {
        #expect(WebDAVXML.escape("a&b<c>") == "a&amp;b&lt;c&gt;")
        #expect(CardDAVRequests.multiget(["/a&b.vcf"]).contains("<d:href>/a&amp;b.vcf</d:href>"))
        #expect(CardDAVRequests.syncCollection(token: nil).contains("<d:sync-token/>"))
    }

    @Test func membersAreInsideTheBookAndNotTheBookItself() throws {
        let book = try #require(URL(string: "http://h:1/alice/friends/"))
        #expect(WebDAV.member("/alice/friends/ann.vcf", of: book) == "/alice/friends/ann.vcf")
        #expect(WebDAV.member("http://h:1/alice/friends/x%20y.vcf", of: book) == "/alice/friends/x%20y.vcf")
        #expect(WebDAV.member("ann.vcf", of: book) == "/alice/friends/ann.vcf")
        #expect(WebDAV.member("/alice/friends/", of: book) == nil)
        #expect(WebDAV.member("/alice/other/ann.vcf", of: book) == nil)
        #expect(WebDAV.member("/alice/friends/sub/", of: book) == nil)
    }
}
