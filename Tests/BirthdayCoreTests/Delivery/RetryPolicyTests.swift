import Foundation
import TestSupport
import Testing

@testable import BirthdayCore

extension DeliveryTests {
    @Suite struct RetryPolicyTests {
        private func instant(_ local: String, _ zone: String) throws -> Date {
            let timeZone = try #require(TimeZone(identifier: zone))
            return try #require(ReferenceTime.parse(local, timeZone: timeZone))
        }

        @Test(arguments: [(1, 30), (2, 60), (3, 120), (4, 300), (5, 900), (6, 900), (50, 900), (0, 30)])
        func backoffGrowsThenStaysAtTheCap(failures: Int, seconds: Int64) {
            #expect(RetryPolicy().delay(afterFailures: failures) == .seconds(seconds))
        }

        @Test func aWaitTheServerAskedForPostponesTheRetryWithinTheDay() throws {
            let failedAt = try instant("2026-03-10T09:00:00", "Europe/Berlin")
            let deadline = try instant("2026-03-11T00:00:00", "Europe/Berlin")
            let policy = RetryPolicy()
            #expect(
                policy.decide(afterFailures: 1, failedAt: failedAt, deadline: deadline, notBefore: failedAt.addingTimeInterval(120))
                    == .retry(at: failedAt.addingTimeInterval(120))
            )
            // A shorter wait than the back-off changes nothing.
            #expect(
                policy.decide(afterFailures: 1, failedAt: failedAt, deadline: deadline, notBefore: failedAt.addingTimeInterval(5))
                    == .retry(at: failedAt.addingTimeInterval(30))
            )
            // A wait past the end of the day is giving up, as for the back-off.
            #expect(policy.decide(afterFailures: 1, failedAt: failedAt, deadline: deadline, notBefore: deadline) == .giveUp)
        }

        @Test func anEmptyScheduleFallsBackToTheDefault() {
            #expect(RetryPolicy(delays: []).delays == RetryPolicy.defaultDelays)
        }

        // MARK: - Deadline: the end of the due day, in the reminder's zone

        @Test(arguments: [
            ("Europe/Berlin", "2026-03-10", "2026-03-10T23:00:00Z"),
            ("Pacific/Kiritimati", "2026-03-10", "2026-03-10T10:00:00Z"),
            ("Pacific/Pago_Pago", "2026-03-10", "2026-03-11T11:00:00Z"),
            ("Europe/Berlin", "2026-03-28", "2026-03-28T23:00:00Z"),  // the night before spring-forward
            ("Europe/Berlin", "2026-03-29", "2026-03-29T22:00:00Z"),  // spring-forward day ends at CEST midnight
            // Santiago springs forward at midnight: 2024-09-08 starts at 01:00 -03.
            ("America/Santiago", "2024-09-07", "2024-09-08T04:00:00Z"),
            ("Europe/Berlin", "2028-02-28", "2028-02-28T23:00:00Z"),  // leap year: Feb 29 follows
        ])
        func theDeadlineIsTheNextLocalMidnight(zone: String, dueDay: String, expectedUTC: String) throws {
            let timeZone = try #require(TimeZone(identifier: zone))
            let day = try #require(LocalDate(iso: dueDay))
            let expected = try #require(ISO8601DateFormatter().date(from: expectedUTC))
            #expect(RetryPolicy.deadline(dueDay: day, in: timeZone) == expected)
        }

        @Test func aDayBeforeReminderStopsRetryingBeforeTheDayItself() throws {
            let reminder = sampleReminder(when: .dayBefore)  // occurrence 2026-03-11, due 2026-03-10
            #expect(RetryPolicy.deadline(dueDay: reminder.dueDay, in: reminder.timeZone) == (try instant("2026-03-11T00:00", "Europe/Berlin")))
        }

        // MARK: - Decisions

        @Test(arguments: [
            (1, "2026-03-10T09:00:00", RetryPolicy.Decision.retry(at: Date(timeIntervalSince1970: 1_773_129_630))),  // 09:00:30
            (5, "2026-03-10T09:00:00", .retry(at: Date(timeIntervalSince1970: 1_773_130_500))),  // 09:15:00
            (1, "2026-03-10T23:59:29", .retry(at: Date(timeIntervalSince1970: 1_773_183_599))),  // 23:59:59
            (1, "2026-03-10T23:59:30", .giveUp),  // would start exactly at midnight
            (5, "2026-03-10T23:45:01", .giveUp),
            (1, "2026-03-11T00:05:00", .giveUp),  // already past the deadline (e.g. after a resume)
        ])
        func retriesUntilTheEndOfTheDueDayThenGivesUp(failures: Int, failedAt: String, expected: RetryPolicy.Decision) throws {
            let reminder = sampleReminder()
            let deadline = RetryPolicy.deadline(dueDay: reminder.dueDay, in: reminder.timeZone)
            let decision = RetryPolicy().decide(afterFailures: failures, failedAt: try instant(failedAt, "Europe/Berlin"), deadline: deadline)
            #expect(decision == expected)
        }

        @Test func aFullDayOfFailuresEndsInGivingUp() throws {
            // Given a reminder that fails every time from 09:00,
            let policy = RetryPolicy()
            let reminder = sampleReminder()
            var now = try instant("2026-03-10T09:00", "Europe/Berlin")
            var attempts = 1
            let deadline = RetryPolicy.deadline(dueDay: reminder.dueDay, in: reminder.timeZone)
            // when the daemon follows the policy,
            while case .retry(let next) = policy.decide(afterFailures: attempts, failedAt: now, deadline: deadline) {
                #expect(next > now)
                now = next
                attempts += 1
            }
            // it tries at 09:00, :00:30, :01:30, :03:30, :08:30, then every 15 min
            // from 09:23:30 to 23:53:30 (59 more), and stops: 64 attempts.
            #expect(attempts == 64)
            #expect(now < RetryPolicy.deadline(dueDay: reminder.dueDay, in: reminder.timeZone))
        }
    }
}
