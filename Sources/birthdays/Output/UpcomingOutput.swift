import BirthdayCore
import BirthdayText
import Foundation

/// `upcoming --json`'s entries (and the feed server's JSON twin): ``UpcomingJSON``.
typealias UpcomingOutput = UpcomingJSON

/// An entry of `upcoming --json`: ``UpcomingJSON``'s keys, then `note`,
/// the person's note (``PersonNote``), only when there is one: without
/// notes the list is the feed server's JSON twin, which has no `note`.
struct UpcomingNoteOutput: Encodable {
    var event: UpcomingJSON
    var note: String?

    func encode(to encoder: any Encoder) throws {
        try event.encode(to: encoder)
        var container = encoder.container(keyedBy: JSONKey.self)
        if let note { try container.encode(note, forKey: JSONKey("note")) }
    }
}

extension UpcomingOutput {
    /// A person's zone on one day, the key of the table's places.
    private struct ZoneDay: Hashable {
        var zone: PersonZone
        var day: Int
    }

    /// One line per event: how far away ("today", "in 4 days"), the day
    /// ("Sat 21 Nov"), the name, what it is ("birthday, turns 36",
    /// "anniversary, 10 years"); the name is followed by the place of the
    /// person's zone when their day does not begin at midnight in `zone`
    /// ("Mei Tanaka (Tokyo)"). Each text is looked up once for the table,
    /// and each day and age is written once: a year of 10,000 people has 366
    /// days and about a hundred ages.
    static func table(_ events: [Occurrence], zone: TimeZone, in localizer: Localizer) -> String {
        let inDays = localizer.template(.inDays)
        let shortDate = localizer.shortDates()
        let noName = localizer(.upcomingNoName)
        var days: [Int: (when: String, date: String)] = [:]
        var places: [ZoneDay: String] = [:]
        var words = OccurrenceWords(localizer)
        return Table.render(
            events.map { event in
                let day =
                    days[event.date.dayNumber]
                    ?? {
                        let when =
                            switch event.daysUntil {
                            case 0: localizer(.today)
                            case 1: localizer(.tomorrow)
                            default: inDays.render([.number(event.daysUntil)])
                            }
                        let written = (when, shortDate(event.date))
                        days[event.date.dayNumber] = written
                        return written
                    }()
                var name = event.name.isEmpty ? noName : event.name
                if let theirs = event.zone {
                    // Worked out once per zone and day: a year of many people in a few zones asks a few thousand times.
                    let key = ZoneDay(zone: theirs, day: event.date.dayNumber)
                    let place = places[key] ?? event.zoneElsewhere(mine: zone).map { " (" + $0.displayName + ")" } ?? ""
                    places[key] = place
                    name += place
                }
                return [day.when, day.date, name, words.what(event)]
            },
            shrinkable: [2, 3]
        )
    }
}
