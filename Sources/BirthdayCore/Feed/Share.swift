import Foundation

/// A link for family or a team (`birthdays share add`): its own token,
/// serving the same page, feed and JSON as the owner's, limited to its
/// groups, with names, dates and (unless refused) ages only.
///
/// ## Rules
/// - Only people in at least one of ``groups`` are shown; a share with no
///   group shows no one (`share add` asks for one).
/// - Only names and the dates of birthdays and anniversaries: never contact
///   points, notes, zones, labelled dates (their labels are the owner's own
///   words) or name days, and never reminder settings: the feed has no
///   alarms, and its write and call links are off.
/// - ``showYears`` off: no year of birth anywhere (no age either, which
///   would give it away), and dates in other calendars, whose words carry
///   a year, are left out.
/// - ``showAges`` off: no age; the dates keep their years only in the JSON
///   (in the feed a year would start the series and tell the age), and the
///   dates in other calendars are left out of the feed for the same reason.
/// - People are named by their public ids (``PublicID/person(_:)``, keyed by
///   the database's secret), never by the stored id, which can be a card's
///   UID holding an address.
/// - The token is never stored: only its SHA-256 (``tokenHash(_:)``); it is
///   printed once, when the share is made or rotated.
public struct Share: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var groups: [String]
    public var showAges: Bool
    public var showYears: Bool
    public var createdAt: Date

    public init(id: Int64, name: String, groups: [String], showAges: Bool, showYears: Bool, createdAt: Date) {
        self.id = id
        self.name = name
        self.groups = groups
        self.showAges = showAges
        self.showYears = showYears
        self.createdAt = createdAt
    }

    /// Whether ages are shown: asked for, and possible without the year.
    public var agesShown: Bool { showAges && showYears }

    /// What the database keeps of a share's token: 64 hex digits of its SHA-256.
    public static func tokenHash(_ token: String) -> String { SHA256.hex(token) }

    /// `name` as a share's name: one line, 1–64 characters, or `nil`.
    public static func validName(_ name: String) -> String? {
        let line = name.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty, line.count <= 64, SafeText.isSafeLine(line) else { return nil }
        return line
    }

    /// The people the share's feed holds: those of `members`, with only
    /// their names and dates, and no year unless ``agesShown``.
    public func people(_ people: [Person], members: Set<String>, ids: PublicID) -> [Person] {
        let keepsYears = agesShown
        return people.compactMap { person in
            guard members.contains(person.id) else { return nil }
            var shown = Person(id: ids.person(person.id), name: person.name, source: person.source)
            shown.birthday = person.birthday.flatMap { keepsYears ? $0 : EventDate(year: nil, month: $0.month, day: $0.day) }
            shown.anniversary = person.anniversary.flatMap { keepsYears ? $0 : EventDate(year: nil, month: $0.month, day: $0.day) }
            shown.alternateDates = keepsYears ? person.alternateDates : []
            // That they died (a memorial, under `deceased remember`), never when: the feed's `X-BIRTHDAYS-DEATHDATE` says no more.
            shown.deathDate = person.deathDate.map { _ in Person.unknownDeathDate }
            // What decides whether the owner's feed holds them at all.
            shown.exclusion = person.exclusion
            shown.sharedRules = person.sharedRules
            return shown.birthday == nil && shown.anniversary == nil && shown.alternateDates.isEmpty ? nil : shown
        }
    }

    /// The dates the share's feed holds, of the owner's `feed` (the store's
    /// walk): the birthdays and anniversaries of `members`, and their dates
    /// in other calendars while ``agesShown``, with no year unless
    /// ``agesShown``, their names only (no nickname, no note), a memorial's
    /// death date as ``Person/unknownDeathDate``, and their public ids.
    public func events(_ feed: [FeedEvent], members: Set<String>, ids: PublicID) -> [FeedEvent] {
        let keepsYears = agesShown
        return feed.compactMap { item in
            guard members.contains(item.person.id) else { return nil }
            var event = item.event
            switch event.date {
            case .gregorian(let date, let kind):
                if !keepsYears {
                    guard let yearless = EventDate(year: nil, month: date.month, day: date.day) else { return nil }
                    event.date = .gregorian(yearless, kind)
                }
            case .otherCalendar:
                guard keepsYears else { return nil }
            case .labelled, .nameDay:
                return nil
            }
            // That they died (a memorial, under `deceased remember`), never when: the feed's `X-BIRTHDAYS-DEATHDATE` says no more.
            let person = FeedPerson(
                id: ids.person(item.person.id),
                name: item.person.name,
                deathDate: event.treatment.memorial ? Person.unknownDeathDate : nil
            )
            return FeedEvent(person: person, event: event)
        }
    }

    /// The events the share's page and JSON hold: those of `members`,
    /// without age unless ``agesShown``, without year unless ``showYears``;
    /// each person's id is replaced by their public id (a card's UID can say
    /// more than a name: an address, a phone's account). Labelled dates and
    /// name days are not shared.
    public func events(_ events: [Occurrence], members: Set<String>, ids: PublicID) -> [Occurrence] {
        events.compactMap { event in
            guard members.contains(event.personID), event.kind != .labelled else { return nil }
            if !showYears && event.calendarDate != nil { return nil }
            return Occurrence(
                personID: ids.person(event.personID),
                name: event.name,
                kind: event.kind,
                date: event.date,
                eventDate: showYears ? event.eventDate : event.eventDate.flatMap { EventDate(year: nil, month: $0.month, day: $0.day) },
                calendarDate: event.calendarDate,
                age: agesShown ? event.age : nil,
                daysUntil: event.daysUntil,
                memorial: event.memorial
            )
        }
    }

    /// The settings a share's feed is exported with: the owner's, without
    /// contact links, and without ages unless ``agesShown``.
    public func settings(_ owner: Settings) -> Settings {
        var settings = owner
        settings.contactLinks = false
        if !agesShown { settings.calendarAges = false }
        return settings
    }
}
