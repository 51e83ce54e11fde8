import BirthdayCore
import Foundation

/// The words of a digest (``Digest``): its title, its lines and the
/// request that sends it, in the user's language.
extension Digest {
    /// The title: the period and the first names.
    public func title(in localizer: Localizer) -> String {
        // People, not events: a lunar and a Gregorian birthday of one person name her once.
        var seen = Set<String>()
        let people = events.filter { seen.insert($0.personID).inserted }
        let names = people.prefix(Self.namesInTitle).map { SafeText.line($0.name).isEmpty ? localizer(.upcomingNoName) : SafeText.line($0.name) }
        var list = names.joined(separator: localizer(.listSeparator))
        if people.count > names.count { list += " " + localizer(.digestMore(people.count - names.count)) }
        // Anniversaries and labelled dates ("Started work": an anniversary too) make it "birthdays and anniversaries".
        let anniversaries = events.contains { $0.kind != .birthday }
        switch period.frequency {
        case .weekly where period.days == 7:
            return localizer(.digestWeekTitle(list, anniversaries: anniversaries))
        case .monthly where period.isWholeMonth:
            return localizer(.digestMonthTitle(localizer.monthName(period.first), list, anniversaries: anniversaries))
        default:
            let dates = localizer.shortDates()
            return localizer(.digestSpanTitle(dates(period.first), dates(period.last), list, anniversaries: anniversaries))
        }
    }

    /// One line per event (see the type's rules); names on one line each.
    ///
    /// - Parameter readOn: the day the lines are read, which "(today)" and
    ///   "(tomorrow)" are counted from: the period's first day for the
    ///   message sent, today for a preview.
    public func lines(in localizer: Localizer, readOn: LocalDate) -> [String] {
        let dates = localizer.shortDates()
        var words = OccurrenceWords(localizer)
        let line = localizer.template(.digestLine)
        let marked = localizer.template(.digestLineMarked)
        let today = localizer(.today)
        let tomorrow = localizer(.tomorrow)
        return events.flatMap { event in
            let name = SafeText.line(event.name).isEmpty ? localizer(.upcomingNoName) : SafeText.line(event.name)
            let what = words.what(event)
            let date = dates(event.date)
            let text: String
            switch readOn.days(to: event.date) {
            case 0: text = marked.render([.text(date), .text(today), .text(name), .text(what)])
            case 1: text = marked.render([.text(date), .text(tomorrow), .text(name), .text(what)])
            default: text = line.render([.text(date), .text(name), .text(what)])
            }
            guard let note = notes[event.personID] else { return [text] }
            return [text, Self.noteMarker + localizer(.showNote(SafeText.line(note)))]
        }
    }

    /// The pending reminder that sends it at `fireAt`: id
    /// ``DigestPeriod/notificationID``, no person, its occurrence the
    /// period's first day, its kind ``DeliveryKind/digest(_:)`` with the
    /// frequency (which ``Reminder/digest`` reads back); `nil` for an empty period.
    public func request(fireAt: Date, in localizer: Localizer) -> NotificationRequest? {
        guard !events.isEmpty else { return nil }
        var request = NotificationRequest(
            personID: "",
            kind: .birthday,
            timing: .dayOf,
            fireAt: fireAt,
            occurrenceDate: period.first,
            title: title(in: localizer),
            body: lines(in: localizer, readOn: period.first).joined(separator: "\n"),
            deliveryKind: .digest(period.frequency),
            userInfo: [
                "when": NotificationRequest.Timing.dayOf.rawValue,
                "occurrence": period.first.description,
                "last": period.last.description,
                "events": String(events.count),
            ]
        )
        request.id = period.notificationID
        return request
    }
}
