import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

extension DeliveryTests {
    @Suite struct WakeDetectorTests {
        private let berlin = TimeZone(identifier: "Europe/Berlin")!
        private let tokyo = TimeZone(identifier: "Asia/Tokyo")!

        @Test(arguments: [
            // suspended before, suspended now, expected
            (Duration.seconds(0), Duration.seconds(0), [WakeReason.clockChanged]),
            (.seconds(10), .milliseconds(10_500), [.clockChanged]),  // under the 1 s threshold
            (.seconds(10), .seconds(11), [.resumed(suspendedFor: .seconds(1))]),
            (.seconds(10), .seconds(3_610), [.resumed(suspendedFor: .seconds(3_600))]),
            (.seconds(10), .seconds(5), [.clockChanged]),  // never negative
        ])
        func aClockChangeWithNewSuspendedTimeIsAResume(before: Duration, now: Duration, expected: [WakeReason]) {
            var detector = WakeDetector(suspendedTotal: before, zone: berlin)
            #expect(detector.clockChanged(suspendedTotal: now, zone: berlin) == expected)
        }

        @Test func eachSuspensionIsCountedOnce() {
            var detector = WakeDetector(suspendedTotal: .zero, zone: berlin)
            #expect(detector.clockChanged(suspendedTotal: .seconds(60), zone: berlin) == [.resumed(suspendedFor: .seconds(60))])
            #expect(detector.clockChanged(suspendedTotal: .seconds(60), zone: berlin) == [.clockChanged])
            #expect(detector.resumeSignalled(suspendedTotal: .seconds(60), zone: berlin) == [.resumed(suspendedFor: .zero)])
            #expect(detector.resumeSignalled(suspendedTotal: .seconds(90), zone: berlin) == [.resumed(suspendedFor: .seconds(30))])
        }

        @Test func aNewZoneIsReportedOnceWhicheverEventNoticesIt() {
            var detector = WakeDetector(suspendedTotal: .zero, zone: berlin)
            #expect(detector.zoneFileChanged(zone: berlin) == [])
            #expect(
                detector.clockChanged(suspendedTotal: .seconds(7_200), zone: tokyo)
                    == [.resumed(suspendedFor: .seconds(7_200)), .timeZoneChanged(tokyo)]
            )
            #expect(detector.zoneFileChanged(zone: tokyo) == [])
            #expect(detector.zoneFileChanged(zone: berlin) == [.timeZoneChanged(berlin)])
        }
    }
}
