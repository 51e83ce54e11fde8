import BirthdayCore
import Foundation

extension AnnounceRoom {
    /// The room's language: its own, else the `language` setting, else the environment's locale.
    public func localizer(settings: Settings, systemLocale: String?) -> Localizer {
        Localizer(setting: language ?? settings.language, systemLocale: systemLocale)
    }
}

/// The words of a room's message (``Announcement``) in the room's language.
extension Announcement {
    /// "🎂 Happy birthday, Ada Lovelace and Alan Turing!": every name in one
    /// line, joined as the language joins a list; with the room's `--ages`,
    /// each name with the age turned ("Ada Lovelace (36)") when the year is
    /// known; never a year, a date, a contact point or a note. Names go
    /// through ``SafeText`` (one line, no control characters).
    public func message(in localizer: Localizer) -> String {
        let names = people.map { person -> String in
            let name = SafeText.line(person.name, maxCharacters: 100)
            guard room.ages, let age = person.age else { return name }
            return localizer(.announceNameAge(name: name, age: age))
        }
        return localizer(.announce(names: ListJoin.and(names, in: localizer)))
    }

    /// The pending request that sends it at `fireAt`: the message is its body,
    /// the room's name its title (for `pending`; a room gets the body alone).
    public func request(fireAt: Date, in localizer: Localizer) -> NotificationRequest {
        var request = NotificationRequest(
            personID: "",
            kind: .birthday,
            timing: .dayOf,
            fireAt: fireAt,
            occurrenceDate: day,
            title: room.name,
            body: message(in: localizer),
            deliveryKind: .announcement(room: room.name),
            userInfo: [
                "when": NotificationRequest.Timing.dayOf.rawValue,
                "occurrence": day.description,
                "people": String(people.count),
            ]
        )
        request.id = room.notificationID
        return request
    }
}

/// Joins names as the language joins a list with "and" (CLDR's standard
/// list patterns): "Ada", "Ada and Alan", "Ada, Alan, and Grace"; "Ada und
/// Alan"; "エイダ、アラン".
public enum ListJoin {
    public static func and(_ items: [String], in localizer: Localizer) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        case 2: return localizer(.listAndPair(items[0], items[1]))
        default:
            var text = localizer(.listAndEnd(items[items.count - 2], items[items.count - 1]))
            for item in items.dropLast(2).reversed() { text = localizer(.listAndStart(item, text)) }
            return text
        }
    }
}
