import Foundation
import TestSupport
import Testing

@testable import BirthdayCalendar
@testable import BirthdayCore

/// The export of ``AddressBook`` with default settings and `calendar-ages off`
/// (the feed before ages; ``AgesFeedTests`` checks `off` equals it), compared byte for byte
/// with `Fixtures/golden/birthdays.ics`. The golden file was written by the
/// exporter and read line by line; when a change to the output is intended,
/// run the suite with `BIRTHDAYS_UPDATE_GOLDEN=1`, review the diff and commit it.
@Suite struct GoldenFeedTests {
    @Test func exportMatchesTheGoldenFileByteForByte() throws {
        let actual = try CalendarExporter(settings: .withoutAges).export(AddressBook.people, lastChange: AddressBook.lastChange)
        if ProcessInfo.processInfo.environment["BIRTHDAYS_UPDATE_GOLDEN"] == "1" {
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/golden/birthdays.ics")
            try Data(actual.utf8).write(to: source)
        }
        let url = try #require(Bundle.module.url(forResource: "birthdays", withExtension: "ics", subdirectory: "Fixtures/golden"))
        let golden = try Data(contentsOf: url)
        #expect(Data(actual.utf8) == golden, "export differs from Fixtures/golden/birthdays.ics")
    }
}
