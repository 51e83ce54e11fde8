import BirthdayCore
import BirthdayText
import Foundation
import GRDB

/// Everything the calendar feed is built from, read in one transaction so
/// the dates, the settings and the revision agree.
package struct FeedContents: Sendable {
    /// The dates the feed holds: the events of the one walk over everyone's
    /// dates (``PersonRecord/forEachEvent(_:rules:nameDays:nicknames:_:)``)
    /// under the settings' rules, with what the feed says of each person.
    package var events: [FeedEvent]
    package var settings: Settings
    package var revision: Int64
    /// When people or settings last changed.
    package var changedAt: Date
}

/// What the feed's JSON twin is built from, read in one transaction.
package struct ListContents: Sendable {
    /// The events `upcoming` lists, soonest first.
    package var events: [Occurrence]
    package var revision: Int64
    /// When people or settings last changed.
    package var changedAt: Date
}

extension AppDatabase {
    /// The upcoming events of the `withinDays` days from `today`, with the
    /// revision they were read at (the feed's JSON twin).
    package func listContents(today: LocalDate, withinDays: Int) async throws(StoreError) -> ListContents {
        try await read { db in
            let settings = try SettingRecord.settings(db)
            let (revision, changedAt) = try RevisionRecord.current(db)
            let upcoming = UpcomingEvents(today: today, settings: settings, nameDays: try NameDayListRecord.setup(for: settings, db))
            let events = try Self.upcoming(db, upcoming, withinDays: withinDays)
            return ListContents(events: events, revision: revision, changedAt: changedAt)
        }
    }

    /// The feed's secret token, created (128 random bits) on first use.
    package func feedToken() async throws(StoreError) -> String {
        if let token = try await read({ db in try SettingRecord.value(.feedToken, db) }) { return token }
        return try await write { db in
            if let token = try SettingRecord.value(.feedToken, db) { return token }
            let token = FeedToken.generate()
            try SettingRecord.set(token, for: .feedToken, db)
            return token
        }
    }

    /// The SHA-256 (``Share/tokenHash(_:)``) of every token that reaches
    /// this database over HTTP: the feed's, every share's and every
    /// invitation link's (open or closed), in one read. `serve --all-users`
    /// indexes its users by them; the feed token is hashed inside the read
    /// and never returned.
    package func tokenHashes() async throws(StoreError) -> Set<String> {
        try await read { db in
            var hashes = Set(try ShareRecord.tokenHashes(db))
            hashes.formUnion(try InvitationRecord.tokenHashes(db))
            if let token = try SettingRecord.value(.feedToken, db) { hashes.insert(Share.tokenHash(token)) }
            return hashes
        }
    }

    /// Replaces the feed token; the old URL stops working at once. Returns the new token.
    @discardableResult
    package func rotateFeedToken() async throws(StoreError) -> String {
        let token = FeedToken.generate()
        try await write { db in try SettingRecord.set(token, for: .feedToken, db) }
        return token
    }

    /// The dates, settings and revision of the feed, in one read.
    package func feedContents() async throws(StoreError) -> FeedContents {
        try await read { db in
            let (revision, changedAt) = try RevisionRecord.current(db)
            let settings = try SettingRecord.settings(db)
            return FeedContents(events: try Self.feedEvents(db, settings: settings), settings: settings, revision: revision, changedAt: changedAt)
        }
    }

    /// The feed's dates under `settings`: the events of the one walk
    /// (which dates each person has, and how each is kept, are decided
    /// there alone), a name day labelled in the settings' language, with the
    /// nickname only under `names nickname`, the note only under
    /// `notes-on-channels` and the death date only on a memorial: the few
    /// words the walk does not read are read once, for those who need them.
    static func feedEvents(_ db: Database, settings: Settings) throws -> [FeedEvent] {
        let label = Localizer(setting: settings.language, systemLocale: nil)(.plain(.nameDayLabel))
        let nameDays = try NameDayListRecord.setup(for: settings, db)
        var events: [FeedEvent] = []
        var memorials = false
        let nicknames = settings.names == .nickname
        try PersonRecord.forEachEvent(db, rules: settings.treatmentRules, nameDays: nameDays, nicknames: nicknames) { event, _, identity in
            let (id, name, nickname) = identity()
            var event = event
            if case .nameDay = event.date, let (labelled, ordinal) = event.labelled(nameDayLabel: label) {
                event.date = .labelled(labelled, ordinal: ordinal)
            }
            memorials = memorials || event.treatment.memorial
            events.append(FeedEvent(person: FeedPerson(id: id, name: name, nickname: nickname), event: event))
        }
        let notes = settings.notesOnChannels ? try PersonRecord.notes(db) : [:]
        let deaths = memorials ? try PersonRecord.deathDates(db) : [:]
        guard !notes.isEmpty || !deaths.isEmpty else { return events }
        for index in events.indices {
            let id = events[index].person.id
            if !notes.isEmpty { events[index].person.note = notes[id] }
            if events[index].event.treatment.memorial { events[index].person.deathDate = deaths[id] }
        }
        return events
    }
}

/// What the web page for the year is built from, read in one transaction.
package struct PageContents: Sendable {
    package var settings: Settings
    /// The events of the page's twelve months (``YearPage/firstDay(today:)``).
    package var year: [Occurrence]
    /// The events of the next 366 days, soonest first (today's included).
    package var next: [Occurrence]
    /// The line of each person the page's next events name (``YearPage/nextEvents(_:)``),
    /// by person id: their events of the next 366 days, their zone, groups and,
    /// with `contact-links` on, their contact points. Empty on a share's page.
    package var people: [String: YearPage.Person] = [:]
    package var revision: Int64
    /// When people or settings last changed.
    package var changedAt: Date
}

extension AppDatabase {
    /// The events of the page's twelve months and of the next 366 days, with the
    /// settings and the revision they were read at (the web page for the
    /// year), and the lines of the people the page names first.
    package func pageContents(today: LocalDate) async throws(StoreError) -> PageContents {
        try await read { db in try Self.pageContents(db, today: today, withPeople: true) }
    }

    /// ``pageContents(today:)`` inside the caller's transaction; the people's
    /// lines only `withPeople` (the owner's page).
    static func pageContents(_ db: Database, today: LocalDate, withPeople: Bool) throws -> PageContents {
        let settings = try SettingRecord.settings(db)
        let (revision, changedAt) = try RevisionRecord.current(db)
        let first = YearPage.firstDay(today: today)
        let nameDays = try NameDayListRecord.setup(for: settings, db)
        // One walk over everyone's events, folded twice: the twelve months, and the next 366 days.
        var year = UpcomingFold(UpcomingEvents(today: first, settings: settings, nameDays: nameDays), withinDays: YearPage.days(from: first) - 1)
        var coming = UpcomingFold(UpcomingEvents(today: today, settings: settings, nameDays: nameDays), withinDays: 365)
        try PersonRecord.forEachEvent(db, rules: year.upcoming.rules, nameDays: nameDays) { event, _, identity in
            year.take(event, identity)
            coming.take(event, identity)
        }
        let next = coming.sorted()
        var contents = PageContents(settings: settings, year: year.sorted(), next: next, revision: revision, changedAt: changedAt)
        guard withPeople else { return contents }
        let datesByPerson = Dictionary(grouping: next, by: \.personID)
        for event in YearPage.nextEvents(next) where contents.people[event.personID] == nil {
            contents.people[event.personID] = YearPage.Person(
                dates: datesByPerson[event.personID] ?? [],
                zone: next.first { $0.personID == event.personID && $0.zone != nil }?.zone,
                groups: try PersonGroupRecord.groups(personID: event.personID, db),
                points: settings.contactLinks ? try ContactPointRecord.points(personID: event.personID, db) : []
            )
        }
        return contents
    }
}
