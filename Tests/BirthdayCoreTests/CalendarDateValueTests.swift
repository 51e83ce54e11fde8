import Foundation
import Testing

@testable import BirthdayCore

/// Reading dates in other calendars: Apple's `X-ALTBDAY;CALSCALE=…` in every
/// form it is written, vCard 4's `BDAY;CALSCALE=…` and
/// `ANNIVERSARY;CALSCALE=…`, and everything that is reported instead of guessed.
@Suite struct CalendarDateValueTests {
    static func read(_ value: String, _ calscale: String?) -> CalendarDateValue { CalendarDateValue.read(value, calscale: calscale) }

    static func date(_ calendar: CalendarSystem, _ era: Int?, _ year: Int?, _ month: Int, leap: Bool = false, _ day: Int) -> CalendarDateValue {
        guard let date = CalendarDate(calendar: calendar, era: era, year: year, month: month, isLeapMonth: leap, day: day) else {
            return .unreadable("the test's own date does not exist")
        }
        return .date(date)
    }

    // MARK: - Forms

    struct Case: Sendable, CustomTestStringConvertible {
        var calscale: String
        var value: String
        var expected: CalendarDateValue
        var testDescription: String { "\(calscale):\(value)" }
    }

    static let readable: [Case] = [
        // Apple's own form: era, year, month, [L], day.
        Case(calscale: "chinese", value: "007800021101", expected: date(.chinese, 78, 2, 11, 1)),
        Case(calscale: "chinese", value: "0078003704L10", expected: date(.chinese, 78, 37, 4, leap: true, 10)),
        Case(calscale: "chinese", value: "0078004002L01", expected: date(.chinese, 78, 40, 2, leap: true, 1)),
        Case(calscale: "chinese", value: "0078003704l10", expected: date(.chinese, 78, 37, 4, leap: true, 10)),
        Case(calscale: "hebrew", value: "000057840614", expected: date(.hebrew, 0, 5784, 6, 14)),
        Case(calscale: "islamic-civil", value: "000014060329", expected: date(.islamicCivil, 0, 1406, 3, 29)),
        Case(calscale: "ethiopic", value: "000119780403", expected: date(.ethiopic, 1, 1978, 4, 3)),
        // A missing field is one "-": no era and no year; no era before a year.
        Case(calscale: "chinese", value: "--1101", expected: date(.chinese, nil, nil, 11, 1)),
        Case(calscale: "chinese", value: "--04L10", expected: date(.chinese, nil, nil, 4, leap: true, 10)),
        Case(calscale: "hebrew", value: "-57840614", expected: date(.hebrew, 0, 5784, 6, 14)),
        Case(calscale: "islamic", value: "-14060330", expected: date(.islamic, 0, 1406, 3, 30)),
        // An era without a year says nothing: the date has no year.
        Case(calscale: "chinese", value: "0078-1101", expected: date(.chinese, nil, nil, 11, 1)),
        // With dashes.
        Case(calscale: "chinese", value: "0078-0002-11-01", expected: date(.chinese, 78, 2, 11, 1)),
        Case(calscale: "chinese", value: "0078-0037-04L-10", expected: date(.chinese, 78, 37, 4, leap: true, 10)),
        // vCard 4 dates: a year in the calendar's current era.
        Case(calscale: "hebrew", value: "57840614", expected: date(.hebrew, 0, 5784, 6, 14)),
        Case(calscale: "hebrew", value: "5784-06-14", expected: date(.hebrew, 0, 5784, 6, 14)),
        Case(calscale: "Hebrew", value: "--0415", expected: date(.hebrew, nil, nil, 4, 15)),
        Case(calscale: "islamic-umalqura", value: "14461001", expected: date(.islamicUmmAlQura, 0, 1446, 10, 1)),
        Case(calscale: "persian", value: "1364-09-21", expected: date(.persian, 0, 1364, 9, 21)),
        Case(calscale: "coptic", value: "17020403", expected: date(.coptic, 1, 1702, 4, 3)),
        Case(calscale: "roc", value: "0074-12-12", expected: date(.republicOfChina, 1, 74, 12, 12)),
        Case(calscale: "chinese", value: "--11-01", expected: date(.chinese, nil, nil, 11, 1)),
        Case(calscale: " CHINESE ", value: " 007800021101 ", expected: date(.chinese, 78, 2, 11, 1)),
        Case(calscale: "dangi", value: "007800021101", expected: date(.dangi, 78, 2, 11, 1)),
    ]

    @Test(arguments: readable)
    func readsEveryForm(_ c: Case) {
        #expect(Self.read(c.value, c.calscale) == c.expected)
    }

    static let unreadable: [(calscale: String?, value: String, reason: String)] = [
        (nil, "007800021101", "has no CALSCALE naming its calendar"),
        ("klingon", "007800021101", "is in the calendar 'klingon', which is not read: it is not a calendar this program knows"),
        (
            "vikram", "20420902",
            "is in the calendar 'vikram', which is not read: Foundation on Linux does not convert its dates back to the days they came from"
        ),
        (
            "ethiopic-amete-alem", "000119851212",
            "is in the calendar 'ethiopic-amete-alem', which is not read: Foundation on Linux computes it as the Gregorian calendar"
        ),
        ("chinese", "00780002113", "is not a chinese date"),
        ("chinese", "0078000211011", "is not a chinese date"),
        ("chinese", "circa 1985", "is not a chinese date"),
        ("chinese", "00780002-01", "has no month"),
        ("chinese", "0078000211-", "has no day"),
        ("hebrew", "000057840614L", "is not a hebrew date"),
        ("hebrew", "00005784L0614", "is not a hebrew date"),
        ("hebrew", "0000578406L14", "marks a leap month, which the hebrew calendar does not have"),
        ("chinese", "19900201", "gives a chinese year without its era (the 60-year cycle); Apple's form starts with it: EEEEYYYYMMDD"),
        ("japanese", "00601212", "gives a japanese year without its era (the reign); Apple's form starts with it: EEEEYYYYMMDD"),
        ("chinese", "0078004202L01", "does not exist in the chinese calendar"),
        ("chinese", "007800420230", "does not exist in the chinese calendar"),
        ("hebrew", "000057850614", "does not exist in the hebrew calendar"),
        ("hebrew", "--0430", "does not exist in the hebrew calendar"),
        ("hebrew", "000090000101", "does not exist in the hebrew calendar"),
    ]

    @Test(arguments: unreadable.indices)
    func reportsWhatItCannotRead(index: Int) {
        let c = Self.unreadable[index]
        #expect(Self.read(c.value, c.calscale) == .unreadable(c.reason), "\(c.calscale ?? "-"):\(c.value)")
    }

    @Test func anEmptyValueIsNoDate() {
        #expect(Self.read("  ", "chinese") == CalendarDateValue.none)
    }

    // MARK: - In a vCard

    static func parse(_ body: [String], version: String = "3.0") -> ParseResult {
        let lines = ["BEGIN:VCARD", "VERSION:\(version)", "FN:Mei", "UID:mei"] + body + ["END:VCARD"]
        return VCardParser.parse(Data((lines.joined(separator: "\r\n") + "\r\n").utf8), file: "apple.vcf")
    }

    @Test func aLunarBirthdayIsABirthdayOfItsOwnBesideTheGregorianOne() throws {
        let result = Self.parse(["BDAY:1985-12-12", "X-ALTBDAY;CALSCALE=chinese:007800021101"])
        let contact = try #require(result.contacts.first)
        #expect(result.problems.isEmpty)
        #expect(contact.birthday == EventDate(year: 1985, month: 12, day: 12))
        #expect(contact.alternateDates.map(\.description) == ["birthday chinese 0078-0002-11-01"])
        #expect(contact.hasDates)
    }

    @Test func vCard4CalscaleDatesAreNeverReadAsGregorian() throws {
        let result = Self.parse(
            ["BDAY;CALSCALE=hebrew:57840614", "ANNIVERSARY;CALSCALE=islamic-civil:--0910", "BDAY;CALSCALE=gregorian:19900101"],
            version: "4.0"
        )
        let contact = try #require(result.contacts.first)
        #expect(result.problems.isEmpty)
        #expect(contact.birthday == EventDate(year: 1990, month: 1, day: 1))
        #expect(contact.anniversary == nil)
        #expect(contact.alternateDates.map(\.description) == ["birthday hebrew 5784-06-14", "anniversary islamic-civil --09-10"])
    }

    @Test func aCardWithOnlyALunarBirthdayIsKept() throws {
        let contact = try #require(Self.parse(["X-ALTBDAY;CALSCALE=chinese:--1101"]).contacts.first)
        #expect(contact.birthday == nil && contact.anniversary == nil)
        #expect(contact.hasDates)
        var report = ImportReport()
        #expect(ContactMerge.people(from: [contact], report: &report).first?.alternateDates.count == 1)
        #expect(report.withoutDates == 0)
    }

    @Test func unreadableValuesAreReportedAtTheirLineAndKeptAsText() throws {
        let result = Self.parse([
            "BDAY:1985-12-12",
            "X-ALTBDAY;CALSCALE=chinese:19900201",
            "X-ALTBDAY:007800021101",
            "X-ALTBDAY;CALSCALE=vikram:20420902",
        ])
        let contact = try #require(result.contacts.first)
        #expect(contact.birthday != nil)
        #expect(contact.alternateDates.isEmpty)
        #expect(contact.invalidDates == ["chinese:19900201", "X-ALTBDAY:007800021101", "vikram:20420902"])
        #expect(
            result.problems.map(\.description) == [
                "apple.vcf:6: X-ALTBDAY;CALSCALE=chinese '19900201' gives a chinese year without its era (the 60-year cycle); Apple's form starts with it: EEEEYYYYMMDD",
                "apple.vcf:7: X-ALTBDAY '007800021101' has no CALSCALE naming its calendar",
                "apple.vcf:8: X-ALTBDAY;CALSCALE=vikram '20420902' is in the calendar 'vikram', which is not read: Foundation on Linux does not convert its dates back to the days they came from",
            ]
        )
    }

    @Test func theFirstDateOfEachCalendarWinsAndADifferentOneIsReported() throws {
        let result = Self.parse([
            "X-ALTBDAY;CALSCALE=chinese:007800021101",
            "X-ALTBDAY;CALSCALE=hebrew:000057460329",
            "X-ALTBDAY;CALSCALE=chinese:007800021102",
            "X-ALTBDAY;CALSCALE=CHINESE:0078-0002-11-01",
        ])
        let contact = try #require(result.contacts.first)
        #expect(contact.alternateDates.map(\.description) == ["birthday chinese 0078-0002-11-01", "birthday hebrew 5746-03-29"])
        #expect(result.problems.map(\.description) == ["apple.vcf:7: several birthday values in the chinese calendar; using the first (line 5)"])
    }

    @Test func aCalscaleQuotedInAProblemCannotForgeALine() throws {
        let result = Self.parse(["X-ALTBDAY;CALSCALE=\"x\u{1B}[31m\":1"])
        #expect(result.problems.count == 1)
        #expect(result.problems.allSatisfy { !$0.description.unicodeScalars.contains(where: SafeText.isUnsafe) })
    }

    @Test func sameContactInTwoFilesFillsAMissingCalendarAndReportsAConflict() throws {
        let first = try #require(Self.parse(["X-ALTBDAY;CALSCALE=chinese:007800021101"]).contacts.first)
        var second = try #require(
            Self.parse(["X-ALTBDAY;CALSCALE=chinese:007800021102", "X-ALTBDAY;CALSCALE=hebrew:000057460329"]).contacts.first
        )
        second.source = ContactSource(file: "other.vcf", index: 0, line: 1)
        var report = ImportReport()
        let people = ContactMerge.people(from: [first, second], report: &report)
        #expect(people.count == 1)
        #expect(people.first?.alternateDates.map(\.description) == ["birthday chinese 0078-0002-11-01", "birthday hebrew 5746-03-29"])
        #expect(report.problems.map(\.message) == ["this contact (id mei) is also at apple.vcf:1 with a different chinese birthday; kept the first"])
    }
}
