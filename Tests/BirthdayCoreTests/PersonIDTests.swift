import TestSupport
import Testing

@testable import BirthdayCore

@Suite struct PersonIDTests {
    @Test func uidWithoutPrefixIsKept() {
        #expect(PersonID.fromUID("urn:uuid:b8767877-b4a1-4c70-9acc-505d3819e519") == "b8767877-b4a1-4c70-9acc-505d3819e519")
        #expect(PersonID.fromUID("URN:UUID:ABC") == "ABC")
        #expect(PersonID.fromUID("testuid1") == "testuid1")
        #expect(PersonID.fromUID("  ") == nil)
    }

    @Test func unsafeCharactersAreReplacedAndDisambiguated() throws {
        let a = try #require(PersonID.fromUID("AFBB77B8-0438:ABPerson"))
        let b = try #require(PersonID.fromUID("AFBB77B8-0438/ABPerson"))
        #expect(a.hasPrefix("AFBB77B8-0438_ABPerson-"))
        #expect(a != b)
        #expect(PersonID.isValid(a) && PersonID.isValid(b))
        #expect(PersonID.isValid(try #require(PersonID.fromUID("0134ac4e9974.vcf"))))
        #expect(PersonID.isValid(try #require(PersonID.fromUID("ünïcödé uid with spaces"))))
    }

    @Test func derivedIdsAreStableAndSeparateSameNamedPeople() {
        let contact = ParsedContact(
            source: ContactSource(file: "a.csv", index: 0, line: 2),
            formattedName: "Ada  Lovelace",
            birthday: event(1815, 12, 10)
        )
        let key = contact.derivationKey
        #expect(key == ParsedContact(source: contact.source, formattedName: "ada lovelace").derivationKey)
        #expect(PersonID.derived(key: key, ordinal: 0) == PersonID.derived(key: key, ordinal: 0))
        #expect(PersonID.derived(key: key, ordinal: 0) != PersonID.derived(key: key, ordinal: 1))
        #expect(PersonID.isValid(PersonID.derived(key: key, ordinal: 3)))
        // Pinned: a derived id must never change between releases, or re-imports would duplicate people.
        #expect(StableHash.hex("n:ada lovelace") == "115297eaf930a1f2")
    }
}
