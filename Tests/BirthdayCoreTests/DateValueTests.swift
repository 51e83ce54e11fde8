import TestSupport
import Testing

@testable import BirthdayCore

@Suite struct DateValueTests {
    @Test(arguments: [
        ("1985-04-12", event(1985, 4, 12)),
        ("19850412", event(1985, 4, 12)),
        ("--0412", event(nil, 4, 12)),
        ("--04-12", event(nil, 4, 12)),
        ("19531015T231000Z", event(1953, 10, 15)),
        ("1955-07-19T00:00:00Z", event(1955, 7, 19)),
        ("20090808T1430-0500", event(2009, 8, 8)),
        ("1996-04-15T201243+04:00", event(1996, 4, 15)),
        ("1604-02-02", event(nil, 2, 2)),
        ("16040101", event(nil, 1, 1)),
        (" 2000-02-29 ", event(2000, 2, 29)),
        ("--0229", event(nil, 2, 29)),
    ])
    func readsDates(_ text: String, _ expected: EventDate) {
        #expect(DateValue.vCard(text) == .date(expected))
    }

    @Test(arguments: [
        "1990-02-30", "206-12-15", "70-7-14", "circa 1800", "2019-13-01", "1990-02-29", "---15", "1990-05", "1990-05-12Tnoon", "x-anniversary",
    ])
    func keepsUnreadableTextAsInvalid(_ text: String) {
        #expect(DateValue.vCard(text) == .invalid(text))
    }

    @Test func omitYearParameterDropsTheYear() {
        #expect(DateValue.vCard("1604-06-01", omitYear: 1604) == .date(event(nil, 6, 1)))
        #expect(DateValue.vCard("1972-06-01", omitYear: 1972) == .date(event(nil, 6, 1)))
        #expect(DateValue.vCard("1972-06-01", omitYear: 1604) == .date(event(1972, 6, 1)))
    }

    @Test func emptyIsNone() {
        #expect(DateValue.vCard("  ") == DateValue.none)
    }
}
