import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

@Suite struct ReferenceTimeTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    @Test(arguments: [
        ("2026-03-10T08:00:00Z", 1_773_129_600.0),
        ("2026-03-10T08:00:00+01:00", 1_773_126_000.0),
        ("2026-03-10T08:00", 1_773_126_000.0),  // local time in Berlin (UTC+1)
        ("2026-03-10T08:00:30", 1_773_126_030.0),
        ("2026-03-10", 1_773_097_200.0),  // local midnight
    ])
    func readsTheDocumentedForms(_ text: String, _ seconds: Double) {
        #expect(ReferenceTime.parse(text, timeZone: Self.berlin)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: ["", "tomorrow", "2026-03-10T8", "2026-03-10T08:xx", "2026-03-10T25:00", "2026-02-30", "2026-03-10T08:00:00:00"])
    func rejectsEverythingElse(_ text: String) {
        #expect(ReferenceTime.parse(text, timeZone: Self.berlin) == nil)
    }
}
