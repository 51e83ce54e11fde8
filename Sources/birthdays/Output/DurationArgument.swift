import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

/// How long to snooze, as typed after `--for`: a length of time (`15m`,
/// `1h`, `90s`, `1d`, or a bare number of minutes), or a moment named
/// by the day: `tonight` (20:00 today) or `tomorrow` (the delivery time
/// tomorrow), in the user's time zone.
enum DurationArgument: ExpressibleByArgument, CustomStringConvertible, Equatable {
    case seconds(TimeInterval)
    case tonight
    case tomorrow

    /// A quarter of an hour, the snooze a desktop notification's button gives.
    static let fifteenMinutes = DurationArgument.seconds(15 * 60)

    /// When `tonight` is.
    static let evening = TimeOfDay(hour: 20, minute: 0)!

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        switch text {
        case "tonight": self = .tonight
        case "tomorrow": self = .tomorrow
        default:
            let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            if let last = text.last, let unit = units[last], let value = Double(text.dropLast()), value > 0, value.isFinite {
                self = .seconds(value * unit)
            } else if let value = Double(text), value > 0, value.isFinite {
                self = .seconds(value * 60)
            } else {
                return nil
            }
        }
    }

    var description: String {
        switch self {
        case .seconds(let seconds): seconds.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int(seconds / 60))m" : "\(Int(seconds))s"
        case .tonight: "tonight"
        case .tomorrow: "tomorrow"
        }
    }

    /// Reads `text`, or explains what a duration looks like.
    static func parse(_ text: String) throws -> DurationArgument {
        guard let duration = DurationArgument(argument: text) else {
            throw ValidationError("'\(text)' is not a duration; use 15m, 1h, 90s, 1d, tonight or tomorrow")
        }
        return duration
    }

    /// Where the snooze ends, at `now` in `zone`: a length counts from the
    /// start the ledger chooses (now, or the reminder's own fire time);
    /// `tonight` is 20:00 today, `tomorrow` the delivery time tomorrow.
    ///
    /// - Throws: ``CLIError`` for `tonight` once 20:00 has passed.
    func target(now: Date, zone: TimeZone, deliveryTime: TimeOfDay) throws -> SnoozeTarget {
        let today = LocalDate.today(at: now, in: zone)
        switch self {
        case .seconds(let seconds):
            return .after(.milliseconds(Int64((seconds * 1000).rounded())))
        case .tonight:
            guard let evening = FireTime.instant(on: today, at: Self.evening, in: zone), evening > now else {
                throw CLIError("it is already past 20:00, so 'tonight' has gone; use a length such as 1h, or tomorrow")
            }
            return .at(evening)
        case .tomorrow:
            guard let morning = FireTime.instant(on: today.adding(days: 1), at: deliveryTime, in: zone) else {
                return .after(.seconds(86_400))
            }
            return .at(morning)
        }
    }
}
