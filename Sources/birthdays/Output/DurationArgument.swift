import ArgumentParser
import Foundation

/// A length of time typed on the command line: `15m`, `1h`, `90s`, or a bare
/// number of minutes.
struct DurationArgument: ExpressibleByArgument, CustomStringConvertible {
    let seconds: TimeInterval
    let description: String

    init(seconds: TimeInterval, description: String) {
        self.seconds = seconds
        self.description = description
    }

    /// A quarter of an hour, the snooze a desktop notification's button gives.
    static let fifteenMinutes = DurationArgument(seconds: 15 * 60, description: "15m")

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600]
        if let last = text.last, let unit = units[last], let value = Double(text.dropLast()), value > 0, value.isFinite {
            seconds = value * unit
        } else if let value = Double(text), value > 0, value.isFinite {
            seconds = value * 60
        } else {
            return nil
        }
        description = argument
    }

    /// Reads `text`, or explains what a duration looks like.
    static func parse(_ text: String) throws -> DurationArgument {
        guard let duration = DurationArgument(argument: text) else {
            throw ValidationError("'\(text)' is not a duration; use minutes, hours or seconds such as 15m, 1h or 90s")
        }
        return duration
    }
}
