import Foundation

/// When to try a failed delivery again, and when to give up.
///
/// Rules:
/// - After the n-th consecutive failure the next attempt waits `delays[n-1]`
///   (default 30 s, 1 min, 2 min, 5 min, 15 min); past the end of the list
///   the last delay repeats.
/// - Retries stop at the end of the reminder's due day
///   (``Reminder/dueDay``: the occurrence for day-of reminders, the day
///   before it for day-before reminders) in the reminder's time zone: an
///   attempt that would start at or after the next local midnight is not
///   made, and the delivery is recorded as failed. So a day-before reminder
///   never arrives on the day itself saying "tomorrow".
/// - A server that asks to wait (HTTP 429 with `Retry-After`) is not asked
///   again before then: the attempt is at the later of the back-off and that
///   instant, under the same end-of-day rule.
/// - Local midnight that does not exist (a DST jump at 00:00, as in
///   America/Santiago) is the first instant of the day, such as 01:00.
///
/// Pure: the caller passes the failure instant; no clock is read.
public struct RetryPolicy: Sendable, Hashable {
    public enum Decision: Sendable, Hashable {
        /// Try again at this instant.
        case retry(at: Date)
        /// Give up: record the delivery as failed.
        case giveUp
    }

    public static let defaultDelays: [Duration] = [.seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(900)]

    /// The waits between attempts; the last one repeats. Never empty.
    public let delays: [Duration]

    public init(delays: [Duration] = RetryPolicy.defaultDelays) {
        self.delays = delays.isEmpty ? RetryPolicy.defaultDelays : delays
    }

    /// The wait after `failures` consecutive failures (1 = the first attempt failed).
    public func delay(afterFailures failures: Int) -> Duration {
        delays[min(max(failures, 1), delays.count) - 1]
    }

    /// The instant retries stop: the start of the day after `dueDay` in `timeZone`.
    public static func deadline(dueDay: LocalDate, in timeZone: TimeZone) -> Date {
        let next = dueDay.adding(days: 1)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // Noon always exists; the start of its day is midnight, or the first
        // instant after a DST gap at midnight.
        if let noon = calendar.date(from: DateComponents(year: next.year, month: next.month, day: next.day, hour: 12)) {
            return calendar.startOfDay(for: noon)
        }
        // Not reachable for real zones; fall back to the UTC day.
        return Date(timeIntervalSince1970: TimeInterval(next.dayNumber) * 86_400)
    }

    /// What to do after the `failures`-th consecutive failure at `failedAt`,
    /// not trying again before `notBefore` when a server asked to wait.
    public func decide(afterFailures failures: Int, failedAt: Date, deadline: Date, notBefore: Date? = nil) -> Decision {
        let next = max(failedAt.addingTimeInterval(delay(afterFailures: failures).timeInterval), notBefore ?? .distantPast)
        return next < deadline ? .retry(at: next) : .giveUp
    }
}
