import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// The ways to reach a person (`EMAIL`, `TEL`, `IMPP`, the CSV dialects'
/// columns) as the real readers give them from cards written for these
/// tests (`Fixtures/contact`): order of preference, values that are not
/// valid reported with their line, and the URIs.
@Suite struct ContactPointTests {
    func read(_ name: String) throws -> ParseResult {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures/contact"))
        return ContactReader.parse(try Data(contentsOf: url), file: name, referenceYear: 2026)
    }

    func points(_ result: ParseResult, _ name: String) throws -> [String] {
        let contact = try #require(result.contacts.first { $0.displayName == name }, "no \(name)")
        return contact.contactPoints.map { $0.kind.rawValue + " " + $0.value }
    }

    @Test func vCard21ReadsPrefAndQuotedPrintableAndReportsWhatIsNotValid() throws {
        let result = try read("v21.vcf")
        #expect(
            try points(result, "Ada Lovelace") == [
                "phone +44 7700 900123", "email ada@example.org", "email ada.lovelace@example.net", "phone +44 20 7946 0000",
            ]
        )
        #expect(try points(result, "Zeynep Öztürk") == ["phone 030 1234567"])
        #expect(
            result.problems.map(\.description) == [
                "v21.vcf:16: EMAIL 'zeynep.example.org' is not an e-mail address; left out",
                "v21.vcf:17: TEL 'ext. none' is not a phone number; left out",
            ]
        )
        // The person is kept with the dates.
        #expect(result.contacts.first { $0.displayName == "Zeynep Öztürk" }?.birthday == event(1988, 4, 2))
    }

    @Test func vCard30ReadsTypePrefGroupsAndIMPP() throws {
        let result = try read("v30.vcf")
        #expect(
            try points(result, "Grace Hopper") == [
                "email g.hopper@navy.example", "email grace@example.org", "impp xmpp:grace@jabber.example", "phone +1 (202) 555-0143",
            ]
        )
        #expect(try points(result, "Alan Turing") == ["email alan@example.org", "impp sip:alan@voip.example", "phone 01234 567890"])
        #expect(result.problems.isEmpty)
    }

    @Test func vCard40ReadsPrefNumbersAndTelURIs() throws {
        let result = try read("v40.vcf")
        let mei = try #require(result.contacts.first)
        #expect(
            mei.contactPoints.map { $0.kind.rawValue + " " + $0.value + " " + $0.uri } == [
                "phone +44-20-7946-0001 tel:+442079460001",
                "email mei@home.example mailto:mei@home.example",
                "impp matrix:u/mei:example.org matrix:u/mei:example.org",
                "email mei@work.example mailto:mei@work.example",
                "impp xmpp:mei@example.org xmpp:mei@example.org",
                "phone +1-555-555-5555;ext=5555 tel:+15555555555;ext=5555",
            ]
        )
        #expect(
            result.problems.map(\.description) == ["v40.vcf:12: IMPP 'not a uri' is not an address with a scheme such as xmpp: or sip:; left out"]
        )
    }

    @Test func googleCSVReadsNumberedColumnsMultiValuesAndTheStarredLabel() throws {
        let result = try read("google.csv")
        #expect(
            try points(result, "Ada Lovelace") == [
                "email ada@work.example", "email ada@example.org", "email ada@example.net", "phone +44 20 7946 0000", "phone +44 7700 900123",
            ]
        )
        #expect(try points(result, "Charles Babbage") == [])
        // Only people with dates have their values checked: the dateless row says nothing.
        #expect(
            result.problems.map(\.description) == [
                "google.csv:3: E-mail 1 - Value 'charles(at)example.org' is not an e-mail address; left out",
                "google.csv:3: Phone 1 - Value '--' is not a phone number; left out",
            ]
        )
    }

    @Test func outlookCSVReadsItsAddressAndPhoneColumns() throws {
        let result = try read("outlook.csv")
        #expect(try points(result, "Linus Torvalds") == ["email linus@example.org", "phone +358 40 1234567", "phone +1 503 555 0100"])
        let margaret = try #require(result.contacts.first { $0.displayName == "Margaret Hamilton" })
        #expect(margaret.contactPoints.map(\.uri) == ["tel:6175550199"])
        #expect(result.problems.isEmpty)
    }

    @Test func thunderbirdCSVPrefersThePrimaryEmailAndLeavesFaxOut() throws {
        let result = try read("thunderbird.csv")
        #expect(
            try points(result, "Edsger W. Dijkstra") == [
                "email ewd@example.org", "email edsger@example.net", "phone +31 40 247 9111", "phone +31 6 12345678",
            ]
        )
        #expect(try points(result, "Barbara Liskov") == [])
    }

    @Test func uriRules() throws {
        let email = try ContactPoint.read(.email, " mailto:o'brien+tag@example.org ").get()
        #expect(email.value == "o'brien+tag@example.org")
        #expect(email.uri(subject: "Happy birthday!") == "mailto:o'brien+tag@example.org?subject=Happy%20birthday%21")
        #expect(
            email.uri(subject: "お誕生日おめでとう")
                == "mailto:o'brien+tag@example.org?subject=%E3%81%8A%E8%AA%95%E7%94%9F%E6%97%A5%E3%81%8A%E3%82%81%E3%81%A7%E3%81%A8%E3%81%86"
        )
        #expect(try ContactPoint.read(.phone, "tel: +44 (0)20 7946-0000").get().uri == "tel:+4402079460000")
        #expect(try ContactPoint.read(.phone, "0049 30 123").get().uri == "tel:004930123")
        #expect(try ContactPoint.read(.impp, "xmpp:ada@example.org").get().scheme == "xmpp")
        for bad in ["ada", "@example.org", "ada@", "a b@example.org", "ada@example.org\u{1B}[31m", String(repeating: "a", count: 300) + "@x.org"] {
            #expect(throws: ContactPoint.Rejection.self, "\(bad)") { try ContactPoint.read(.email, bad).get() }
        }
        for bad in ["--", "call me", "+44 20 7946 0000 x12"] {
            #expect(throws: ContactPoint.Rejection.self, "\(bad)") { try ContactPoint.read(.phone, bad).get() }
        }
        for bad in ["ada@example.org", ":x", "xmpp:", "1x:ada"] {
            #expect(throws: ContactPoint.Rejection.self, "\(bad)") { try ContactPoint.read(.impp, bad).get() }
        }
    }

    @Test func theSamePointTwiceIsKeptOnceAndAtMostTheLimit() {
        var candidates = [
            ContactPoints.Candidate(kind: .email, raw: "Ada@Example.org", line: 1, property: "EMAIL"),
            ContactPoints.Candidate(kind: .email, raw: "mailto:ada@example.org", line: 2, property: "EMAIL"),
        ]
        for n in 0..<30 { candidates.append(.init(kind: .phone, raw: "+44 20 7946 \(1000 + n)", line: 3 + n, property: "TEL")) }
        var problems: [ImportProblem] = []
        let points = ContactPoints.resolve(candidates, file: "f", problems: &problems)
        #expect(points.count == ContactPoints.limit)
        #expect(points.filter { $0.kind == .email }.map(\.value) == ["Ada@Example.org"])
        #expect(problems.isEmpty)
    }

    @Test func linksSayWriteOrCallInTheLanguageAndCarryTheGreeting() {
        let points = [ContactPoint(kind: .email, value: "ada@example.org"), ContactPoint(kind: .phone, value: "+44 20 7946 0000")]
        let english = ContactLink.links(for: points, name: "Ada", event: .birthday, in: Localizer(setting: "en", systemLocale: nil))
        #expect(english.map(\.label) == ["Write to Ada", "Call Ada"])
        #expect(english.map(\.uri) == ["mailto:ada@example.org?subject=Happy%20birthday%21", "tel:+442079460000"])
        let german = ContactLink.links(for: points, name: "Ada", event: .birthday, in: Localizer(setting: "de", systemLocale: nil))
        #expect(german.map(\.label) == ["Ada schreiben", "Ada anrufen"])
        #expect(german[0].uri == "mailto:ada@example.org?subject=Alles%20Gute%20zum%20Geburtstag%21")
        // A labelled date ("Started work", a name day) is not their birthday: no greeting in the subject.
        let labelled = ContactLink.links(for: points, name: "Ada", event: .labelled, in: Localizer(setting: "en", systemLocale: nil))
        #expect(labelled.map(\.uri) == ["mailto:ada@example.org", "tel:+442079460000"])
    }

    /// Extra coverage from the public corpus (`../shared`), when it is there:
    /// every point kept reads again as itself and has a URI without spaces.
    @Test(.enabled(if: VCardCorpusTests.hasCorpus, "../shared/corpus/public is not next to the repository"))
    func publicCorpusPointsAreValid() throws {
        var kept = 0
        for name in VCardCorpusTests.corpusFiles() where name.hasSuffix(".vcf") {
            let data = try Data(contentsOf: VCardCorpusTests.corpus.appendingPathComponent(name))
            for contact in ContactReader.parse(data, file: name, referenceYear: 2026).contacts {
                for point in contact.contactPoints {
                    kept += 1
                    #expect((try? ContactPoint.read(point.kind, point.value).get()) == point, "\(name)")
                    #expect(!point.uri.contains(" ") && point.uri.lowercased().hasPrefix(point.scheme + ":"), "\(name)")
                }
            }
        }
        #expect(kept > 0)
    }
}
