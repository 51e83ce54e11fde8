import BirthdayCore
import GRDB

extension PersonRecord {
    /// The one walk over every event of everyone not excluded (``PersonEvent``):
    /// calls `body` with each event that `rules` keep, with its treatment, and
    /// `identity`, which reads the person's id, name and nickname (`""` for a
    /// Gregorian date unless `nicknames`) for the events the caller keeps.
    /// `upcoming` (and the page, its JSON twin and the digest) and the
    /// reminders are folds over it (``UpcomingFold``, ``ReminderPlanner``);
    /// the feed, `export`, `publish` and a share's feed build their events
    /// from it (``AppDatabase/feedEvents(_:settings:)``, ``CalendarEventPlan``).
    /// The events come in four runs, in this order: the Gregorian birthdays
    /// and anniversaries, the dates in other calendars, the name days of the
    /// lists of `nameDays` (``NameDayMatcher``, once per walk), the labelled dates.
    ///
    /// The Gregorian run reads only the date columns for most rows. The few
    /// people who have died, have reminder days of their own, a weekend rule,
    /// a zone (the card's or the user's choice), or are in a group or source
    /// with a rule (``RulePrecedence`` decides their traits) are read first,
    /// by rowid, from the partial index `person_special` that holds only
    /// them; every other row is plain. So the loop over all rows asks for no
    /// column past the dates, id and name: the columns added by `v5` sit at
    /// the end of each row, and SQLite decodes every column a statement
    /// selects for every row it steps over, which cost a sixth more time per
    /// reschedule over 100,000 people. The other runs read their person's
    /// traits with each row (``TraitColumns``); most stores have few such rows.
    /// The Gregorian and name-day runs meet the cards of people of several in
    /// rowid order (``PersonLinks/Rows``): a store with one link pays no
    /// lookup by id per row.
    static func forEachEvent(
        _ db: Database,
        rules: TreatmentRules,
        nameDays: NameDaySetup = NameDaySetup(),
        nicknames: Bool = false,
        _ body: (_ event: PersonEvent, _ traits: PersonTraits, _ identity: () -> PersonEvent.Identity) -> Void
    ) throws {
        // The rules of groups and sources are read once for the four runs (none while no rule is kept).
        let shared = try SharedRuleRecord.rulesByPerson(db)
        // One of everything per person (issue 43): a card shown as another person is skipped in every run, and
        // the person shown has the birthday chosen among their cards.
        let links = try PersonLinks.read(db)
        try forEachGregorian(db, rules, shared: shared, links: links, nicknames: nicknames, body)
        try forEachOtherCalendar(db, rules, shared: shared, links: links, body)
        try forEachNameDay(db, rules, shared: shared, links: links, matcher: NameDayMatcher(nameDays), body)
        try forEachLabelled(db, rules, shared: shared, links: links, body)
    }

    private typealias Body = (_ event: PersonEvent, _ traits: PersonTraits, _ identity: () -> PersonEvent.Identity) -> Void

    /// The birthdays and anniversaries the cards give (see ``forEachEvent(_:rules:nameDays:nicknames:_:)``).
    private static func forEachGregorian(
        _ db: Database,
        _ treatments: TreatmentRules,
        shared rules: [String: [SharedRule]],
        links: PersonLinks,
        nicknames: Bool,
        _ body: Body
    ) throws {
        var special: [Int64: PersonTraits] = [:]
        var zones = ZoneReader()
        let specials = try Row.fetchCursor(
            db,
            sql: """
                SELECT rowid, deathDate IS NOT NULL, reminderDays, weekend, cardZone, zoneChoice FROM person INDEXED BY person_special
                WHERE deathDate IS NOT NULL OR reminderDays IS NOT NULL OR weekend IS NOT NULL OR cardZone IS NOT NULL OR zoneChoice IS NOT NULL
                """
        )
        while let row = try specials.next() {
            let days: String? = row[2]
            let weekend: String? = row[3]
            special[row[0]] = PersonTraits(
                deceased: row[1],
                reminderDays: days.flatMap(ReminderDays.init),
                weekend: weekend.flatMap(WeekendRule.init(rawValue:)),
                zone: zones.zone(card: row[4], choice: row[5])
            )
        }
        // People in a group or source with a rule are read apart too.
        for chunk in Array(rules.keys).chunked(900) {
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT rowid, id, excludedInCard, exclusionChoice, deathDate IS NOT NULL, reminderDays, weekend, cardZone, zoneChoice
                    FROM person WHERE id IN (\(databaseQuestionMarks(count: chunk.count)))
                    """,
                arguments: StatementArguments(Array(chunk))
            )
            while let row = try rows.next() {
                let choice: String? = row[3]
                let days: String? = row[5]
                let weekend: String? = row[6]
                special[row[0]] = PersonTraits(
                    exclusion: Exclusion(card: row[2], choice: choice.flatMap(Exclusion.Choice.init(rawValue:))),
                    reminderDays: days.flatMap(ReminderDays.init),
                    shared: rules[row[1] as String] ?? [],
                    deceased: row[4],
                    weekend: weekend.flatMap(WeekendRule.init(rawValue:)),
                    zone: zones.zone(card: row[7], choice: row[8])
                )
            }
        }
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT birthdayYear, birthdayMonth, birthdayDay, anniversaryYear, anniversaryMonth, anniversaryDay, rowid, id, name,
                       \(nicknames ? "nickname" : "''")
                FROM person
                WHERE excluded = 0 AND (birthdayMonth IS NOT NULL OR anniversaryMonth IS NOT NULL\(links.shownRows))\(links.any ? " ORDER BY rowid" : "")
                """
        )
        let plain = PersonTraits()
        // The cards of people of several, met in rowid order: no lookup by id per row.
        var linked = PersonLinks.Rows(links)
        while let row = try rows.next() {
            var own = date(row[0], row[1], row[2])
            if links.any, let link = linked.at(row[6]) {
                if link.hidden { continue }
                own = link.birthday ?? own
            }
            let identity = { (id: row[7] as String, name: row[8] as String, nickname: row[9] as String) }
            let traits = special.isEmpty ? plain : special[row[6]] ?? plain
            if let birthday = own,
                let treatment = treatments.treatment(of: .birthday, for: traits)
            {
                body(PersonEvent(date: .gregorian(birthday, .birthday), treatment: treatment), traits, identity)
            }
            if let anniversary = date(row[3], row[4], row[5]), let treatment = treatments.treatment(of: .anniversary, for: traits) {
                body(PersonEvent(date: .gregorian(anniversary, .anniversary), treatment: treatment), traits, identity)
            }
        }
    }

    /// The dates in other calendars, each an event of its own.
    private static func forEachOtherCalendar(
        _ db: Database,
        _ treatments: TreatmentRules,
        shared rules: [String: [SharedRule]],
        links: PersonLinks,
        _ body: Body
    ) throws {
        let statement = try db.makeStatement(
            sql: """
                SELECT \(CalendarDateRecord.selection), person.id, person.name, person.nickname, \(TraitColumns.selection)
                FROM calendarDate JOIN person ON person.id = calendarDate.personId
                WHERE person.excluded = 0\(links.skipping())
                """
        )
        var traitColumns = try TraitColumns(statement)
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            guard let date = CalendarDateRecord.alternate(row, from: 0) else { continue }
            let traits = traitColumns.traits(row, shared: rules.isEmpty ? [] : rules[row[8] as String] ?? [])
            guard let treatment = treatments.treatment(of: .otherCalendar(date), for: traits) else { continue }
            body(PersonEvent(date: .otherCalendar(date), treatment: treatment), traits) {
                (id: row[8] as String, name: row[9] as String, nickname: row[10] as String)
            }
        }
    }

    /// The name days of everyone whose first name or nickname the lists give
    /// a day, people with or without other dates alike; nothing is read without lists.
    private static func forEachNameDay(
        _ db: Database,
        _ treatments: TreatmentRules,
        shared rules: [String: [SharedRule]],
        links: PersonLinks,
        matcher: NameDayMatcher,
        _ body: Body
    ) throws {
        guard matcher.isOn else { return }
        var matcher = matcher
        let statement = try db.makeStatement(
            sql: """
                SELECT id, name, givenName, nickname, rowid, \(TraitColumns.selection) FROM person WHERE excluded = 0\(links.any ? " ORDER BY rowid" : "")
                """
        )
        var traitColumns = try TraitColumns(statement)
        var linked = PersonLinks.Rows(links)
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            if links.any, linked.at(row[4])?.hidden == true { continue }
            let id: String = row[0]
            let name: String = row[1]
            let nickname: String = row[3]
            let days = matcher.days(id: id, name: name, given: row[2], nickname: nickname)
            guard !days.isEmpty else { continue }
            let traits = traitColumns.traits(row, shared: rules[id] ?? [])
            for day in days {
                guard let treatment = treatments.treatment(of: day, for: traits) else { continue }
                body(PersonEvent(date: day, treatment: treatment), traits) { (id: id, name: name, nickname: nickname) }
            }
        }
    }

    /// The labelled dates, each with its ordinal among the person's dates of
    /// the same label (``LabelledDate/withOrdinals(_:)``).
    private static func forEachLabelled(
        _ db: Database,
        _ treatments: TreatmentRules,
        shared rules: [String: [SharedRule]],
        links: PersonLinks,
        _ body: Body
    ) throws {
        var ordinals: [String: Int] = [:]
        var person = ""
        let statement = try db.makeStatement(
            sql: """
                SELECT labelledDate.label, labelledDate.year, labelledDate.month, labelledDate.day,
                       person.id, person.name, person.nickname, \(TraitColumns.selection)
                FROM labelledDate JOIN person ON person.id = labelledDate.personId
                WHERE person.excluded = 0\(links.skipping())
                ORDER BY labelledDate.personId, labelledDate.position
                """
        )
        var traitColumns = try TraitColumns(statement)
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            guard let date = date(row[1], row[2], row[3]) else { continue }
            let labelled = LabelledDate(label: row[0], date: date)
            let id: String = row[4]
            if id != person {
                person = id
                ordinals.removeAll(keepingCapacity: true)
            }
            let ordinal = (ordinals[labelled.key] ?? 0) + 1
            ordinals[labelled.key] = ordinal
            let traits = traitColumns.traits(row, shared: rules.isEmpty ? [] : rules[id] ?? [])
            let event = PersonEvent.Date.labelled(labelled, ordinal: ordinal)
            guard let treatment = treatments.treatment(of: event, for: traits) else { continue }
            body(PersonEvent(date: event, treatment: treatment), traits) { (id: id, name: row[5] as String, nickname: row[6] as String) }
        }
    }
}
