import Foundation
import Testing

@testable import BirthdayCore

/// The vCard reader's `TZ` (``ParsedContact/zone``), with the real reader:
/// the forms each version writes, which value wins, and what is reported.
@Suite struct PersonZoneReaderTests {
    func zone(_ lines: String..., version: String = "4.0") -> (zone: String?, problems: [String]) {
        let result = VCardParserTests.parse(["BEGIN:VCARD", "VERSION:\(version)", "FN:Mei Tanaka", "BDAY:19900312"] + lines + ["END:VCARD"])
        return (result.contacts.first?.zone?.storedValue, result.problems.map(\.description))
    }

    @Test func theFormsOfEachVersion() {
        #expect(zone("TZ:-0500", version: "2.1").zone == "-05:00")
        #expect(zone("TZ:-05:00", version: "3.0").zone == "-05:00")
        #expect(zone("TZ;VALUE=text:-05:00; EST; Raleigh/North America", version: "3.0").zone == "-05:00")
        #expect(zone("TZ;VALUE=text:-05:00\\; EST\\; Raleigh/North America", version: "3.0").zone == "-05:00")
        #expect(zone("TZ;VALUE=text:America/New_York").zone == "America/New_York")
        #expect(zone("TZ;VALUE=utc-offset:-0500").zone == "-05:00")
        #expect(zone("TZ:America/New_York").zone == "America/New_York")
        #expect(zone("tz;value=TEXT:Asia/Kathmandu").zone == "Asia/Kathmandu")
        #expect(zone("TZ:+14:00").zone == "+14:00")
        #expect(zone("TZ:-12:00").zone == "-12:00")
        #expect(zone().zone == nil)
    }

    /// What the store keeps (``PersonZone/storedValue``) reads back as the same zone.
    @Test(arguments: ["UTC", "Z", "+00:00", "-0930", "+05:45", "Etc/GMT+5", "America/Argentina/Buenos_Aires", "Pacific/Kiritimati"])
    func aZoneReadsBackFromWhatIsStored(value: String) throws {
        let zone = try #require(VCardCardBuilder.zone(value))
        #expect(PersonZone(cardValue: zone.storedValue) == zone, "\(value) stored as \(zone.storedValue)")
        #expect(ZoneChoice(storedValue: zone.storedValue) == .zone(zone))
    }

    @Test func aURIIsIgnoredWithoutAProblem() {
        let read = zone("TZ;VALUE=uri:https://example.org/tz/America-New_York")
        #expect(read.zone == nil && read.problems == [])
    }

    @Test func theFirstZoneWinsAndOnlyWhenNoneIsOneIsTheFirstReported() {
        #expect(zone("TZ:Mars/Olympus", "TZ:Asia/Tokyo") == ("Asia/Tokyo", []))
        #expect(zone("TZ:Asia/Tokyo", "TZ:Europe/Paris") == ("Asia/Tokyo", []))
        let bad = zone("TZ;VALUE=text:EST", "TZ:+15:00")
        #expect(bad.zone == nil)
        #expect(
            bad.problems == [
                "test.vcf:5: TZ 'EST' is not a time zone (an IANA name such as Asia/Tokyo or an offset such as +09:00); the person is kept without one"
            ]
        )
    }

    @Test func aCardWithoutDatesIsNotChecked() {
        let result = VCardParserTests.parse(["BEGIN:VCARD", "VERSION:4.0", "FN:No Date", "TZ:Mars/Olympus", "END:VCARD"])
        #expect(result.problems == [])
    }

    @Test func theZoneIsNoPartOfTheIdentity() {
        let plain = VCardParserTests.parse(["BEGIN:VCARD", "VERSION:4.0", "FN:Mei", "BDAY:19900312", "END:VCARD"]).contacts[0]
        let zoned = VCardParserTests.parse(["BEGIN:VCARD", "VERSION:4.0", "FN:Mei", "BDAY:19900312", "TZ:Asia/Tokyo", "END:VCARD"]).contacts[0]
        // The same person (derived id), whose card changed.
        #expect(plain.derivationKey == zoned.derivationKey)
        #expect(zoned.zone?.displayName == "Tokyo")
    }
}
