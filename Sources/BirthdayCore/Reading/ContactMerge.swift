/// Turns the contacts of one import run into people: stable ids, and one
/// person per id (pure; the store writes the result).
///
/// ## Identity
/// A contact with a vCard `UID` gets ``PersonID/fromUID(_:)``; one without
/// (and every CSV row) gets ``PersonID/derived(key:ordinal:)`` from its
/// ``ParsedContact/derivationKey`` and its position among contacts with the
/// same key in the same file, so two people with the same name stay two.
/// Such a card is a namesake, not the card of the same name another file
/// holds, when their birthdays disagree (``cardID(_:file:birthday:held:)``):
/// "John Smith" born on 05-01 in one export and on 09-12 in another are two
/// people, and so are the same name and day in two years.
///
/// ## The same id twice in one run
/// (the same contact in two files): the first occurrence's fields win, a
/// missing date is filled from the later one, unreadable dates are joined,
/// and a conflicting date is reported at the later occurrence. A missing
/// nickname, death date or zone is filled the same way, and either card asking to
/// be left out of birthday calendars is enough.
///
/// The groups of a contact found twice are joined. A group card
/// (``ParsedContact/groupCard``) is no person and is not counted.
///
/// Contacts without any date (valid or not) are people too: kept, counted in
/// ``ImportReport/withoutDates``, never reminded and never in the feed
/// (``Person/isUndated``), so a date added at the source later finds its
/// person. Only a contact with neither a name nor a date is left out
/// (``ImportReport/emptySkipped``); when it has a `UID`, its id is still worked
/// out (``datelessIDs(in:)``), so that a person whose name and dates were all
/// deleted at the source leaves the store.
package enum ContactMerge {
    /// The ids of the contacts that are no person (neither a name nor a
    /// date, ``isEmpty(_:)``) but carry a `UID`, with the file each came
    /// from. A contact without a `UID` and without a name has a key made of
    /// its (absent) dates: not an identity, so none is given.
    package static func datelessIDs(in contacts: [ParsedContact]) -> [(id: String, file: String)] {
        contacts.compactMap { contact in
            guard isEmpty(contact), let uid = contact.uid, let id = PersonID.fromUID(uid) else { return nil }
            return (id, contact.source.file)
        }
    }

    /// A contact that is no person: no group card, no name and no date at all.
    package static func isEmpty(_ contact: ParsedContact) -> Bool {
        contact.groupCard == nil && !contact.hasDates && contact.displayName.trimmingWhitespace().isEmpty
    }

    /// The group cards among `contacts` that have a name (``ContactGroups``).
    package static func groupCards(in contacts: [ParsedContact]) -> [GroupCard] {
        contacts.compactMap { contact in contact.groupCard.flatMap { $0.name.isEmpty ? nil : $0 } }
    }

    /// Who decides the ids of cards without a `UID` beside the run's own cards (``ids(of:holders:)``).
    package struct Holders {
        /// A file of the run as the store names it; `nil` for a file whose people are not cards (a calendar's events).
        package var file: (String) -> String?
        /// The card the store holds under an id.
        package var stored: (String) -> Holder?
        /// The ids of the cards the store holds from a file (as the store names it) under a derivation key
        /// (``ParsedContact/derivationKey``, of their name): the cards a card of that file and name may already be.
        package var inFile: (_ file: String, _ key: String) -> [String]

        /// No store: only the run's cards hold ids.
        package init(
            file: @escaping (String) -> String? = { $0 },
            stored: @escaping (String) -> Holder? = { _ in nil },
            inFile: @escaping (_ file: String, _ key: String) -> [String] = { _, _ in [] }
        ) {
            self.file = file
            self.stored = stored
            self.inFile = inFile
        }
    }

    /// How a card without a `UID` is derived: its key and its place among the cards of that key in its file.
    package struct Derivation: Sendable, Hashable {
        package var key: String
        package var ordinal: Int

        package init(key: String, ordinal: Int) {
            self.key = key
            self.ordinal = ordinal
        }

        /// ``PersonID/derived(key:ordinal:)``.
        package var id: String { PersonID.derived(key: key, ordinal: ordinal) }
    }

    /// A card without a `UID` whose id is decided (``ids(of:holders:)``).
    package struct Card: Sendable, Equatable {
        package var derivation: Derivation
        /// Its file as the store names it; `nil` for a calendar's event (its id is the derived one).
        package var file: String?
        package var birthday: EventDate?

        package init(_ derivation: Derivation, file: String?, birthday: EventDate?) {
            self.derivation = derivation
            self.file = file
            self.birthday = birthday
        }
    }

    package static func people(from contacts: [ParsedContact], report: inout ImportReport, holders: Holders = Holders()) -> [Person] {
        var derived: [String: Derivation] = [:]
        return people(from: contacts, report: &report, holders: holders, derived: &derived)
    }

    /// ``people(from:report:holders:)``, and in `derived` how the cards without a `UID` were derived, by
    /// their id before ``ids(of:holders:)`` (the ids a source's sync decides again against the store).
    package static func people(
        from contacts: [ParsedContact],
        report: inout ImportReport,
        holders: Holders = Holders(),
        derived: inout [String: Derivation]
    ) -> [Person] {
        var ordinals: [String: Int] = [:]  // "file\u{1F}key" -> count so far
        // The ids of the persons, decided first: a card's id may depend on a later card's (``ids(of:holders:)``).
        var ids: [String?] = Array(repeating: nil, count: contacts.count)
        var cards: [Card] = []
        var cardIndices: [Int] = []
        for index in contacts.indices {
            guard contacts[index].groupCard == nil, !isEmpty(contacts[index]) else { continue }
            if let uid = contacts[index].uid, let fromUID = PersonID.fromUID(uid) {
                ids[index] = fromUID
                continue
            }
            let key = contacts[index].derivationKey
            let slot = contacts[index].source.file + "\u{1F}" + key
            let ordinal = ordinals[slot, default: 0]
            ordinals[slot] = ordinal + 1
            let derivation = Derivation(key: key, ordinal: ordinal)
            derived[derivation.id] = derivation
            cards.append(Card(derivation, file: holders.file(contacts[index].source.file), birthday: contacts[index].birthday))
            cardIndices.append(index)
        }
        for (index, id) in zip(cardIndices, self.ids(of: cards, holders: holders)) { ids[index] = id }
        var byID: [String: Int] = [:]
        byID.reserveCapacity(contacts.count)
        var people: [Person] = []
        people.reserveCapacity(contacts.count)
        // Each contact read in place: a copy of a `ParsedContact` retains every one of its fields.
        for index in contacts.indices {
            // A group card is no person, with dates or without (``ContactGroups``).
            if contacts[index].groupCard != nil { continue }
            // Neither a name nor a date: nothing to keep.
            guard let id = ids[index] else {
                report.emptySkipped += 1
                continue
            }
            if !contacts[index].hasDates { report.withoutDates += 1 }
            var person = Person(
                id: id,
                name: contacts[index].displayName,
                nameParts: contacts[index].nameParts,
                nickname: contacts[index].nickname ?? "",
                source: contacts[index].source,
                birthday: contacts[index].birthday,
                anniversary: contacts[index].anniversary,
                alternateDates: contacts[index].alternateDates,
                invalidDates: contacts[index].invalidDates,
                exclusion: Exclusion(card: contacts[index].excludedInCard),
                deathDate: contacts[index].deathDate,
                contactPoints: contacts[index].contactPoints
            )
            person.groups = contacts[index].groups
            person.labelledDates = contacts[index].labelledDates
            person.cardZone = contacts[index].zone
            if let existing = byID[id] {
                people[existing] = fold(people[existing], person, report: &report)
            } else {
                byID[id] = people.count
                people.append(person)
            }
        }
        return people
    }

    /// A card that holds an id: the file it comes from (as the store names it) and its birthday.
    package struct Holder: Sendable, Equatable {
        package var file: String
        package var birthday: EventDate?

        package init(file: String, birthday: EventDate?) {
            self.file = file
            self.birthday = birthday
        }
    }

    /// The ids of `cards` (in the order of the run), given the cards the store holds.
    ///
    /// First, whatever the order of the run, a card whose file the store
    /// holds a card of under its derivation (``ownID(_:holders:alone:)``)
    /// keeps that card's id: the file speaks for its card, whatever its date
    /// is now, and with a date or without. Then a card of a file under an id
    /// of another ordinal of its name that its file holds, no card of the
    /// run holds and whose birthday agrees. Then the others, in order, each
    /// against the cards of the run so far and the store's
    /// (``cardID(_:file:birthday:held:)``).
    package static func ids(of cards: [Card], holders: Holders) -> [String] {
        var ids = cards.map(\.derivation.id)
        var counts: [String: Int] = [:]
        for card in cards { if let file = card.file { counts[file + "\u{1F}" + card.derivation.key, default: 0] += 1 } }
        var run: [String: Holder] = [:]
        var decided = Array(repeating: false, count: cards.count)
        for index in cards.indices {
            guard let file = cards[index].file else {
                decided[index] = true
                continue
            }
            let alone = counts[file + "\u{1F}" + cards[index].derivation.key] == 1
            guard let own = ownID(cards[index], holders: holders, alone: alone) else { continue }
            ids[index] = own
            decided[index] = true
            run[own] = Holder(file: file, birthday: cards[index].birthday)
        }
        // Then a card of the file not found so (under an id of another ordinal of its name, a card of another
        // file it was merged with) is the file's card under its name that no card of the run holds and whose birthday agrees.
        for index in cards.indices where !decided[index] {
            guard let file = cards[index].file else { continue }
            let rows = holders.inFile(file, cards[index].derivation.key)
            guard let own = rows.filter({ run[$0] == nil && agrees(holders.stored($0), cards[index].birthday) }).min() else { continue }
            ids[index] = own
            decided[index] = true
            run[own] = Holder(file: file, birthday: cards[index].birthday)
        }
        for index in cards.indices where !decided[index] {
            guard let file = cards[index].file else { continue }
            // The run's card under the id, else the store's (the run's is written over it).
            ids[index] = cardID(cards[index].derivation, file: file, birthday: cards[index].birthday) { run[$0] ?? holders.stored($0) }
            run[ids[index]] = Holder(file: file, birthday: cards[index].birthday)
        }
        return ids
    }

    /// The id of the store's card from `card`'s file that `card` is: among the
    /// store's cards of its file and key, its own candidates first
    /// (``cardID(_:file:birthday:held:)``; one whose stored birthday agrees
    /// before the others), then a namesake id of its derivation
    /// salted with that card's stored birthday, then (when `alone`: the only
    /// card of its key in its file) any of them derived from a name, those of
    /// the other ordinals too.
    static func ownID(_ card: Card, holders: Holders, alone: Bool) -> String? {
        guard let file = card.file else { return nil }
        let rows = holders.inFile(file, card.derivation.key)
        guard !rows.isEmpty else { return nil }
        let base = card.derivation.id
        let own = Set(rows)
        let hits = candidates(base, birthday: card.birthday).filter(own.contains)
        // The one whose stored birthday agrees first: another card of the file may hold the derived id now.
        if let hit = hits.first(where: { agrees(holders.stored($0), card.birthday) }) ?? hits.first { return hit }
        let salted = rows.filter { id in
            guard let birthday = holders.stored(id)?.birthday else { return false }
            return id == PersonID.namesake(of: base, born: birthday, year: false) || id == PersonID.namesake(of: base, born: birthday, year: true)
        }
        if let id = salted.min() { return id }
        guard alone else { return nil }
        // Never a card with a `UID` of the file that has the name too: only ids derived from a name are candidates.
        // An id of another ordinal is one too: the file has no card of that ordinal (a card that became another
        // file's second namesake).
        return rows.filter { $0.hasPrefix("c-") }.min()
    }

    /// Whether `holder` is a card with a birthday that agrees with `birthday` (the same, a year on one side only).
    static func agrees(_ holder: Holder?, _ birthday: EventDate?) -> Bool {
        guard let stored = holder?.birthday, let birthday else { return false }
        return DateAgreement(stored, birthday) != .conflict
    }

    /// `derived`, then its namesake ids salted with `birthday`'s day and whole date.
    static func candidates(_ derived: String, birthday: EventDate?) -> [String] {
        guard let birthday else { return [derived] }
        var candidates = [derived, PersonID.namesake(of: derived, born: birthday, year: false)]
        if birthday.year != nil { candidates.append(PersonID.namesake(of: derived, born: birthday, year: true)) }
        return candidates
    }

    /// The id of a card without a `UID` derived as `derivation` (its name and
    /// its place among the same names in `file`), given who holds ids now:
    /// the stored cards and those of the run so far.
    ///
    /// Its candidates are its derived id, then the namesake ids salted with its
    /// day and with its whole date (``PersonID/namesake(of:born:year:)``):
    /// - one held by a card of the same file is its own (the file speaks for
    ///   its card, whatever its date is now);
    /// - else the first held by another file's card whose birthday agrees
    ///   (the same, a year on one side only, or one undated): the same card
    ///   exported again (a renamed export, the phone's CSV of this year);
    /// - else the id of another ordinal of its key (the second John Smith of
    ///   another file) held by another file's card with a birthday that agrees;
    /// - else the first nobody holds: a namesake born another day (or the
    ///   same day in another year) is someone else, never merged into the
    ///   card whose name they share, and nothing is guessed.
    ///
    /// A card without a birthday has its derived id: it contradicts no one.
    package static func cardID(_ derivation: Derivation, file: String, birthday: EventDate?, held: (String) -> Holder?) -> String {
        let derived = derivation.id
        guard let birthday else { return derived }
        let candidates = candidates(derived, birthday: birthday)
        let holders = candidates.map(held)
        if let index = holders.firstIndex(where: { $0?.file == file }) { return candidates[index] }
        if let index = holders.firstIndex(where: { $0.map { DateAgreement($0.birthday, birthday) != .conflict } ?? false }) {
            return candidates[index]
        }
        var ordinal = -1
        while true {
            ordinal += 1
            guard ordinal != derivation.ordinal else { continue }
            let other = PersonID.derived(key: derivation.key, ordinal: ordinal)
            guard let holder = held(other) else { break }
            if holder.file != file, holder.birthday != nil, DateAgreement(holder.birthday, birthday) != .conflict { return other }
        }
        return candidates[holders.firstIndex(where: { $0 == nil }) ?? candidates.count - 1]
    }

    /// Merges a second occurrence of the same id into the first; the later
    /// one's file is the merged card's when it gave the birthday (or its year).
    package static func fold(_ first: Person, _ later: Person, report: inout ImportReport) -> Person {
        var merged = first
        for kind in EventKind.allCases {
            switch (first.date(of: kind), later.date(of: kind)) {
            case (nil, let b?):
                merged.setDate(b, of: kind)
                // The file that gave the birthday speaks for the card (as in ``merge(_:into:)``).
                if kind == .birthday { merged.source = later.source }
            case (let a?, let b?) where a.year == nil && DateAgreement(a, b) == .sameDay:
                // The same day, the year on the later side only: the same card with more said.
                merged.setDate(b, of: kind)
                if kind == .birthday { merged.source = later.source }
            case (let a?, let b?) where a != b && DateAgreement(a, b) != .sameDay:
                report.problems.append(
                    ImportProblem(
                        file: later.source.file,
                        line: later.source.line,
                        message:
                            "this contact (id \(later.id)) is also at \(first.source.file):\(first.source.line) with a different \(kind.rawValue); kept the first"
                    )
                )
            default:
                break
            }
        }
        for other in later.alternateDates {
            guard let index = merged.alternateDates.firstIndex(where: { $0.kind == other.kind && $0.date.calendar == other.date.calendar }) else {
                merged.alternateDates.append(other)
                merged.alternateDates.sort()
                continue
            }
            if merged.alternateDates[index] != other {
                report.problems.append(
                    ImportProblem(
                        file: later.source.file,
                        line: later.source.line,
                        message:
                            "this contact (id \(later.id)) is also at \(first.source.file):\(first.source.line) with a different \(other.date.calendar.rawValue) \(other.kind.rawValue); kept the first"
                    )
                )
            }
        }
        if !later.labelledDates.isEmpty { merged.labelledDates = LabelledDate.normalized(merged.labelledDates + later.labelledDates) }
        for raw in later.invalidDates where !merged.invalidDates.contains(raw) {
            merged.invalidDates.append(raw)
        }
        if merged.name.isEmpty { merged.name = later.name }
        if merged.nickname.isEmpty { merged.nickname = later.nickname }
        if merged.deathDate == nil { merged.deathDate = later.deathDate }
        if merged.contactPoints.isEmpty { merged.contactPoints = later.contactPoints }
        if merged.cardZone == nil { merged.cardZone = later.cardZone }
        merged.exclusion.card = merged.exclusion.card || later.exclusion.card
        if !later.groups.isEmpty { merged.groups = ContactGroups.normalized(merged.groups + later.groups) }
        return merged
    }
}

extension ContactMerge {
    /// What the store holds of a person that a newer reading of their
    /// contact (an import, a source's sync) is merged into: the fields the
    /// merge rule keeps (``merge(_:into:)``).
    package struct Stored: Sendable, Equatable {
        /// The file (or source item) the stored row came from.
        package var sourceFile: String
        /// The card's place in ``sourceFile`` (``ContactSource/index``, ``ContactSource/line``).
        package var sourceIndex = 0
        package var sourceLine = 0
        package var birthday: EventDate?
        package var anniversary: EventDate?
        package var nickname: String
        package var deathDate: String?
        package var exclusion: Exclusion
        package var reminderDays: ReminderDays?
        package var alternateDates: [AlternateDate]
        package var channels: [String]?
        package var weekend: WeekendRule?
        package var contactPoints: [ContactPoint]
        /// The card's zone (``Person/cardZone``).
        package var cardZone: PersonZone?
        /// The user's `birthdays zone` choice (``Person/zoneChoice``).
        package var zoneChoice: ZoneChoice?
        /// The card's labelled dates (``Person/labelledDates``).
        package var labelledDates: [LabelledDate] = []
        /// The kinds a birthday calendar filled in (``Person/calendarFilled``).
        package var calendarFilled: Set<EventKind> = []

        package init(
            sourceFile: String,
            birthday: EventDate?,
            anniversary: EventDate?,
            nickname: String,
            deathDate: String?,
            exclusion: Exclusion,
            reminderDays: ReminderDays?,
            alternateDates: [AlternateDate],
            channels: [String]? = nil,
            weekend: WeekendRule? = nil,
            contactPoints: [ContactPoint] = [],
            cardZone: PersonZone? = nil,
            zoneChoice: ZoneChoice? = nil
        ) {
            self.sourceFile = sourceFile
            self.birthday = birthday
            self.anniversary = anniversary
            self.nickname = nickname
            self.deathDate = deathDate
            self.exclusion = exclusion
            self.reminderDays = reminderDays
            self.alternateDates = alternateDates
            self.channels = channels
            self.weekend = weekend
            self.contactPoints = contactPoints
            self.cardZone = cardZone
            self.zoneChoice = zoneChoice
        }

        /// What the store holds once `person` is written.
        package init(_ person: Person) {
            self.init(
                sourceFile: person.source.file,
                birthday: person.birthday,
                anniversary: person.anniversary,
                nickname: person.nickname,
                deathDate: person.deathDate,
                exclusion: person.exclusion,
                reminderDays: person.reminderDays,
                alternateDates: person.alternateDates,
                channels: person.channels,
                weekend: person.weekend,
                contactPoints: person.contactPoints,
                cardZone: person.cardZone,
                zoneChoice: person.zoneChoice
            )
            sourceIndex = person.source.index
            sourceLine = person.source.line
            labelledDates = person.labelledDates
            calendarFilled = person.calendarFilled
        }
    }

    /// `incoming` (a contact as a file or a source reads it now) merged into
    /// the person the store already holds under the same id; the store
    /// writes the result when its fingerprint differs from the stored one.
    ///
    /// The rule, for imports and syncs alike:
    /// - When the stored row came from **another file** (or another source's
    ///   card), nothing it holds is erased by a contact that lacks it: a
    ///   missing birthday, anniversary, nickname or death date is taken from
    ///   the stored row (and a birthday's or anniversary's year, when the
    ///   contact has the same day without one), either side asking to be left out of birthday
    ///   calendars (the card's exclusion) is enough, a contact without a way
    ///   to reach the person keeps the stored ones, one without a `TZ` keeps
    ///   the stored card zone, and the stored dates in
    ///   other calendars are kept beside the contact's (the contact's wins for
    ///   the same kind and calendar), as are the stored labelled dates whose
    ///   label the contact does not have. From the **same file**, the contact is
    ///   the truth: what it no longer says is gone, except a birthday or an
    ///   anniversary a birthday calendar filled in (``Person/calendarFilled``),
    ///   which stays while the card still lacks it; once the card has its
    ///   own, the card's is the one kept.
    /// - A contact from another file that gives no birthday of its own (none,
    ///   or the stored day without a year) leaves the row the stored file's:
    ///   the file whose card gave the birthday stays the one that speaks for
    ///   the card (``cardID(_:file:birthday:held:)``), so a date corrected there
    ///   is the card's, whichever file was read last.
    /// - **The user's choices** (``Exclusion/choice``: exclude or include;
    ///   ``Person/reminderDays``, ``Person/channels``, ``Person/weekend``,
    ///   ``Person/zoneChoice``)
    ///   are never in a contact: the stored ones outlast every import and sync.
    package static func merge(_ incoming: Person, into stored: Stored) -> Person {
        var person = incoming
        // A date a calendar filled in outlasts the card that lacks it, from any file.
        person.calendarFilled = stored.calendarFilled.filter { incoming.date(of: $0) == nil }
        for kind in person.calendarFilled { person.setDate(stored.date(of: kind), of: kind) }
        if stored.sourceFile != incoming.source.file {
            // Nothing erased: a date missing, or its year missing on the same day (an export without years).
            for kind in [EventKind.birthday, .anniversary] {
                guard let kept = stored.date(of: kind) else { continue }
                if let date = person.date(of: kind), date.year != nil || DateAgreement(date, kept) != .sameDay { continue }
                person.setDate(kept, of: kind)
                if kind == .birthday { person.source = ContactSource(file: stored.sourceFile, index: stored.sourceIndex, line: stored.sourceLine) }
            }
            if person.nickname.isEmpty { person.nickname = stored.nickname }
            if person.deathDate == nil { person.deathDate = stored.deathDate }
            if person.contactPoints.isEmpty { person.contactPoints = stored.contactPoints }
            if person.cardZone == nil { person.cardZone = stored.cardZone }
            person.exclusion.card = person.exclusion.card || stored.exclusion.card
            for date in stored.alternateDates
            where !person.alternateDates.contains(where: { $0.kind == date.kind && $0.date.calendar == date.date.calendar }) {
                person.alternateDates.append(date)
            }
            person.alternateDates.sort()
            let labels = Set(person.labelledDates.map(\.key))
            let kept = stored.labelledDates.filter { !labels.contains($0.key) }
            if !kept.isEmpty { person.labelledDates = LabelledDate.normalized(person.labelledDates + kept) }
        }
        person.exclusion.choice = stored.exclusion.choice
        person.reminderDays = stored.reminderDays
        person.channels = stored.channels
        person.weekend = stored.weekend
        person.zoneChoice = stored.zoneChoice
        return person
    }
}

extension ContactMerge.Stored {
    /// The stored date of `kind` (a birthday or an anniversary).
    package func date(of kind: EventKind) -> EventDate? {
        switch kind {
        case .birthday: birthday
        case .anniversary: anniversary
        case .labelled: nil
        }
    }
}

extension Person {
    /// Sets the date of `kind`.
    public mutating func setDate(_ date: EventDate?, of kind: EventKind) {
        switch kind {
        case .birthday: birthday = date
        case .anniversary: anniversary = date
        case .labelled: break
        }
    }
}
