import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

/// Dates that mean less than they seem: khard's 1900, dates written as text,
/// reduced-precision vCard 4 values, and birth dates in the future.
@Suite struct DatePlaceholderTests {
    static func parse(_ lines: [String]) -> ParseResult {
        VCardParser.parse(Data((lines.joined(separator: "\r\n") + "\r\n").utf8), file: "test.vcf")
    }

    // MARK: - khard

    @Test func khardsYear1900IsAnUnknownYear() throws {
        let result = Self.parse([
            "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//khard//khard 0.19.1//EN", "FN:Ada", "BDAY:19000704", "ANNIVERSARY:1900-05-02", "END:VCARD",
        ])
        let contact = try #require(result.contacts.first)
        #expect(contact.birthday == EventDate(year: nil, month: 7, day: 4))
        #expect(contact.anniversary == EventDate(year: nil, month: 5, day: 2))
        #expect(result.problems.isEmpty)
    }

    @Test(arguments: ["PRODID:-//KHARD//Khard 0.19.1//EN", "PRODID:khard", "PRODID:-//\u{212A}hard//EN"])
    func khardIsRecognisedInAnyCase(_ productID: String) throws {
        let result = Self.parse(["BEGIN:VCARD", "VERSION:3.0", productID, "FN:Ada", "BDAY:19000704", "END:VCARD"])
        #expect(try #require(result.contacts.first).birthday == EventDate(year: nil, month: 7, day: 4))
    }

    @Test(arguments: ["PRODID:-//kharder//EN", "PRODID:-//k hard//EN", "PRODID:khar", "PRODID:"])
    func khardIsLookedForAsTheLowercasedTextHasIt(_ productID: String) throws {
        let result = Self.parse(["BEGIN:VCARD", "VERSION:3.0", productID, "FN:Ada", "BDAY:19000704", "END:VCARD"])
        let expected = productID.lowercased().contains("khard") ? EventDate(year: nil, month: 7, day: 4) : EventDate(year: 1900, month: 7, day: 4)
        #expect(try #require(result.contacts.first).birthday == expected)
    }

    @Test(arguments: ["PRODID:-//Apple Inc.//iPhone OS 17.0//EN", nil])
    func year1900FromAnyoneElseIsAYear(_ productID: String?) throws {
        let result = Self.parse(["BEGIN:VCARD", "VERSION:3.0"] + [productID].compactMap { $0 } + ["FN:Ada", "BDAY:1900-07-04", "END:VCARD"])
        #expect(try #require(result.contacts.first).birthday == EventDate(year: 1900, month: 7, day: 4))
    }

    // MARK: - VALUE=text

    @Test func aDateWrittenAsTextIsReadAndSaidSo() throws {
        let result = Self.parse(["BEGIN:VCARD", "VERSION:4.0", "FN:Ada", "BDAY;VALUE=text:1990-05-06", "END:VCARD"])
        let contact = try #require(result.contacts.first)
        #expect(contact.birthday == EventDate(year: 1990, month: 5, day: 6))
        #expect(contact.invalidDates.isEmpty)
        #expect(result.problems.map(\.description) == ["test.vcf:4: BDAY '1990-05-06' is written as text (VALUE=text); read as a date"])
    }

    @Test func textThatIsNotADateStaysText() throws {
        let result = Self.parse(["BEGIN:VCARD", "VERSION:4.0", "FN:Ada", "BDAY;VALUE=text:circa 1800", "END:VCARD"])
        #expect(try #require(result.contacts.first).invalidDates == ["circa 1800"])
        #expect(result.problems.map(\.message) == ["BDAY 'circa 1800' is not a date"])
    }

    // MARK: - Reduced precision

    @Test(arguments: [
        ("1985-04", "has a year and a month but no day"),
        ("198504", "has a year and a month but no day"),
        ("1985", "has only a year"),
        ("--04", "has a month but no day"),
        ("---15", "has a day but no month"),
    ])
    func reducedPrecisionSaysWhatIsMissing(_ value: String, _ missing: String) throws {
        let result = Self.parse(["BEGIN:VCARD", "VERSION:4.0", "FN:Ada", "BDAY:\(value)", "END:VCARD"])
        #expect(try #require(result.contacts.first).birthday == nil)
        #expect(result.problems.map(\.message) == ["BDAY '\(value)' \(missing); a reminder needs both"])
    }

    // MARK: - Future years

    @Test func aFutureBirthYearHasNoOccurrenceBeforeTheDateItself() {
        let typo = EventDate(year: 2030, month: 1, day: 10)!
        let today = LocalDate(year: 2026, month: 11, day: 23)!
        #expect(typo.isInFuture(of: today))
        #expect(typo.nextOccurrence(onOrAfter: today, leapDay: .feb28) == LocalDate(year: 2030, month: 1, day: 10))
        let upcoming = UpcomingEvents(today: today).occurrence(of: typo, kind: .birthday, personID: "p", name: "P")
        #expect(upcoming.age == nil)
        #expect(upcoming.daysUntil == today.days(to: LocalDate(year: 2030, month: 1, day: 10)!))
        // After it, it recurs yearly with ages as usual.
        let later = LocalDate(year: 2031, month: 1, day: 1)!
        #expect(typo.nextOccurrence(onOrAfter: later, leapDay: .feb28) == LocalDate(year: 2031, month: 1, day: 10))
        #expect(typo.age(in: 2031) == 1)
    }

    @Test func aBirthdayEarlierThisYearIsNotInTheFuture() {
        let today = LocalDate(year: 2026, month: 11, day: 23)!
        #expect(!EventDate(year: 2026, month: 1, day: 2)!.isInFuture(of: today))
        #expect(EventDate(year: 2026, month: 12, day: 2)!.isInFuture(of: today))
        #expect(!EventDate(year: nil, month: 12, day: 2)!.isInFuture(of: today))
    }
}
