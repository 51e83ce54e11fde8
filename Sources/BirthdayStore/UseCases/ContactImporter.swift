import BirthdayCore
import Foundation
import GRDB

/// An import that could not run at all; nothing was written.
package enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A path does not exist or cannot be read.
    case cannotRead(path: String, reason: String)
    /// A directory holds no file to read (a vdir source: no `.vcf` or `.vcard` file).
    case emptyDirectory(path: String)
    /// No contact could be read from any of the inputs; the report says why.
    case nothingImported(ImportReport)
    case store(StoreError)

    package var description: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .emptyDirectory(let path): "\(path) holds no files to import (names starting with . are not looked at)"
        case .nothingImported(let report):
            report.problems.isEmpty
                ? "no contacts found in the input"
                    + (report.skipped.isEmpty
                        ? "" : " (\(report.skipped.count) file\(report.skipped.count == 1 ? "" : "s") skipped: no vCard or contacts CSV)")
                : "no contacts could be imported (\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s"))"
        case .store(let error): error.description
        }
    }
}

/// Reads contact exports and merges them into the store in one transaction.
///
/// ## Identity and merging
/// Ids and duplicates within one run follow ``ContactMerge``. Importing the
/// same export again changes nothing; an edited contact is updated in
/// place. A re-import never erases a date that came from a different file:
/// importing a CSV without birthdays does not wipe the birthdays an earlier
/// vCard import brought in.
///
/// Every contact with a name is stored, with dates or without: a contact
/// without any date is kept (``Person/isUndated``: never reminded, not in
/// the feed), counted as `withoutDates`, so a date added to it later finds
/// its person. A contact with neither a name nor a date is not stored
/// (`emptySkipped`).
///
/// ## What the card says and what the user chose
/// A card's nickname, death date and `X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR`
/// follow the file like its dates: a re-import of the same file sets them
/// as the card now has them (an exclusion removed from the card is gone),
/// and another file never erases them (it can add them). What the user
/// chose with `birthdays exclude`, `include` and `remind` is never touched
/// by an import, and wins over the card (``Exclusion``).
///
/// ## Groups
/// A contact's groups (``ContactGroups``: `CATEGORIES`, a CSV's labels, and
/// the group cards of the same run that list it) follow the card like its
/// dates: each import that writes the person replaces them. A group card is
/// no person.
///
/// ## Imports and sources
/// What an import brings belongs to no source: it is marked `imported`, and
/// no sync removes it, even when a source that has the same person loses it
/// (see ``SourceSync``).
///
/// ## A re-import mirrors the file
/// A contact that comes back from the same file without any date loses its
/// dates and stays, undated (their pending reminders go with the next
/// reschedule; the delivery ledger keeps their history). One that comes back
/// under its `UID` with neither a name nor a date leaves the store, counted
/// as `removed`. A date another file brought is never erased this way: only
/// the file the person was last stored from speaks for them.
///
/// ## Calendar files
/// A file that is a calendar (``CalendarBirthdays/isCalendar(_:)``) is read
/// by ``calendarParser`` (libical, given by the CLI). Its people are found
/// among those stored by id, else by a name only one stored person has;
/// someone stored from elsewhere only gets the dates they lack
/// (``mergeCalendarPerson(_:into:_:now:report:write:)``). The people already
/// stored and the name-day lists are the names its titles are read with
/// (``knownNames(_:)``: "Annas Geburtstag" is Anna's, "Andreas Geburtstag"
/// Andreas's).
///
/// ## One transaction
/// The people and, when a ``scheduler`` is given, the reschedule that
/// follows them are written in one transaction: when the disk fills up or
/// the database fails anywhere on the way, nothing lands, and the error says
/// so; when the import succeeds, its reminders are there too.
///
/// Files are found and read by ``ContactFiles`` (read, never mapped; an
/// unreadable folder in a vdir fails the import). Reading, parsing and
/// writing run on NIO's thread pool (see ``AppDatabase``).
package struct ContactImporter: Sendable {
    package let database: AppDatabase
    package let now: Date
    /// The current year, for two-digit years in CSV exports.
    package let referenceYear: Int
    /// Today in the user's zone: a birth date after it is reported.
    package let today: LocalDate?
    /// How to read slash dates in CSV exports, for the whole run; `nil` lets each file decide.
    package let dateOrder: DateOrder?
    /// Reschedules the reminders in the import's own transaction; `nil` leaves them alone.
    package let scheduler: NotificationScheduler?
    /// Reads a calendar file (`BEGIN:VCALENDAR`: birthdays from a calendar,
    /// ``CalendarBirthdays``) as contacts; `nil` reads it as any other file.
    /// The CLI gives `BirthdayCalendar`'s libical reader.
    package var calendarParser: CalendarParser?

    /// Reads one calendar file's bytes, named as problems name it, with the
    /// names that tell a genitive `s` from a name's own (the people already in
    /// the store, the name-day lists: ``knownNames(_:)``).
    package typealias CalendarParser = @Sendable (_ data: Data, _ file: String, _ known: CalendarBirthdays.KnownNames) -> ParseResult

    package init(
        database: AppDatabase,
        now: Date,
        referenceYear: Int,
        today: LocalDate? = nil,
        dateOrder: DateOrder? = nil,
        scheduler: NotificationScheduler? = nil
    ) {
        self.database = database
        self.now = now
        self.referenceYear = referenceYear
        self.today = today
        self.dateOrder = dateOrder
        self.scheduler = scheduler
    }

    /// Progress of a long import: bytes read so far and in total.
    package typealias Progress = @Sendable (_ done: Int64, _ total: Int64) -> Void

    /// Imports every file named in `paths` (files, or directories searched
    /// recursively), in one write transaction: the run lands whole or not at all.
    ///
    /// A folder's `.vcf` and `.vcard` files are read as named files are; any
    /// other file in it is read when its content is a vCard or a contacts CSV
    /// (``ContactReader/reasonToSkip(head:)``), else named in
    /// ``ImportReport/skipped`` with the reason. A vdir source reads only the
    /// former (``SourceSync``).
    ///
    /// - Parameters:
    ///   - dryRun: compute the report without writing anything.
    /// - Throws: ``ImportError`` when an input cannot be read or nothing could
    ///   be imported; the store is unchanged then.
    package func importPaths(_ paths: [String], dryRun: Bool = false, progress: Progress? = nil) async throws(ImportError) -> ImportReport {
        try await Blocking.run { () throws(ImportError) in try importNow(paths, dryRun: dryRun, progress: progress) }
    }

    private func importNow(_ paths: [String], dryRun: Bool, progress: Progress?) throws(ImportError) -> ImportReport {
        let files = try ContactFiles.expand(paths, folderFiles: .contactFiles)
        var report = ImportReport()
        var parsed: [ParsedContact] = []
        // The calendar files of the run, as the people's sources name them (``mergeCalendarPerson``).
        var calendarFiles: Set<String> = []
        // Problems name each file as it was typed (a folder's files under the folder as typed);
        // the store keeps where it is, an absolute path.
        var storedNames: [String: String] = [:]
        // Read from the store at the first calendar file.
        var known: CalendarBirthdays.KnownNames?
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        var done: Int64 = 0
        for file in files {
            progress?(done, total)
            let shown = ContactFiles.displayName(file.path)
            if file.byContent, let reason = ContactFiles.reasonToSkip(file.path) {
                report.skipped.append(SkippedFile(file: shown, reason: reason))
                done += file.size
                continue
            }
            let data = try ContactFiles.read(file.path)
            let result: ParseResult
            if let calendarParser, CalendarBirthdays.isCalendar(data) {
                if known == nil {
                    do {
                        known = try database.readNow(ContactImporter.knownNames)
                    } catch {
                        throw .store(error)
                    }
                }
                result = calendarParser(data, shown, known ?? CalendarBirthdays.KnownNames())
                calendarFiles.insert(ContactFiles.storedName(file.path))
            } else {
                result = ContactReader.parse(data, file: shown, referenceYear: referenceYear, dateOrder: dateOrder)
            }
            report.files += 1
            report.problems += result.problems
            storedNames[shown] = storedNames[shown] ?? ContactFiles.storedName(file.path)
            // One file's contacts are taken as they are, not copied one by one.
            if parsed.isEmpty { parsed = result.contacts } else { parsed += result.contacts }
            done += file.size
            progress?(done, total)
        }
        guard !parsed.isEmpty else {
            report.problems = ImportReport.inFileOrder(report.problems, files: files.map { ContactFiles.displayName($0.path) })
            throw .nothingImported(report)
        }
        let dateless = ContactMerge.datelessIDs(in: parsed).map { (id: $0.id, file: storedNames[$0.file] ?? $0.file) }
        let now = self.now
        let today = self.today
        let names = storedNames
        let calendars = calendarFiles
        let shownFiles = files.map { ContactFiles.displayName($0.path) }
        // The people of the run, with the ids the stored cards decide (``ContactMerge/ids(of:holders:)``),
        // read in the transaction that writes them.
        func people(stored: [String: PersonRecord.MergeState], report: inout ImportReport) -> [Person] {
            let holders = PersonRecord.holders(stored) { shown in
                let file = names[shown] ?? shown
                return calendars.contains(file) ? nil : file
            }
            var people = ContactMerge.people(from: parsed, report: &report, holders: holders)
            // The group cards of the run put the people they list in their groups.
            ContactGroups.apply(ContactMerge.groupCards(in: parsed), to: &people)
            if let today { ContactImporter.reportFutureDates(people, today: today, report: &report) }
            report.problems = ImportReport.inFileOrder(report.problems, files: shownFiles)
            for index in people.indices {
                people[index].source.file = names[people[index].source.file] ?? people[index].source.file
            }
            return people
        }
        do {
            if dryRun {
                try database.readNow { db in
                    let stored = try PersonRecord.mergeStates(db)
                    try ContactImporter.merge(
                        people(stored: stored, report: &report),
                        stored: stored,
                        removing: dateless,
                        calendarFiles: calendarFiles,
                        into: db,
                        now: now,
                        report: &report,
                        write: false
                    )
                }
            } else {
                let rescheduled = try database.writeNow(at: now) { db -> RescheduleResult? in
                    let stored = try PersonRecord.mergeStates(db)
                    let people = people(stored: stored, report: &report)
                    let written = try AppDatabase.withPageCache(megabytes: ContactImporter.pageCacheMegabytes(people.count), db) {
                        try ContactImporter.merge(
                            people,
                            stored: stored,
                            removing: dateless,
                            calendarFiles: calendarFiles,
                            into: db,
                            now: now,
                            report: &report,
                            write: true
                        )
                    }
                    // Who is one person follows the cards, in the same transaction (issue 43); an import that
                    // changed no card changes no one's links.
                    if report.added + report.updated + report.removed > 0 {
                        report.conflicts = try AppDatabase.relink(db, adding: written.added, changed: written.changed)
                    }
                    return try scheduler?.reschedule(db)
                }
                if let rescheduled { scheduler?.log(rescheduled) }
            }
        } catch {
            throw .store(error)
        }
        return report
    }

    /// The names a calendar file's titles are read with
    /// (``CalendarBirthdays/KnownNames``): everyone's in the store, and the
    /// first names of the shipped name-day lists and of the user's own.
    static func knownNames(_ db: Database) throws -> CalendarBirthdays.KnownNames {
        let own = try NameDayListRecord.lists(db)
        return CalendarBirthdays.KnownNames(
            contacts: try PersonRecord.identities(db).map(\.name),
            lists: NameDayList.builtInCodes.compactMap { NameDayList.builtIn[$0] } + own.keys.sorted().compactMap { own[$0] }
        )
    }

    /// The page cache an import of `people` writes with: about 0.5 KB of
    /// pages per person (their row, contact points and index entries),
    /// between the default 2 MB and 64 MB.
    static func pageCacheMegabytes(_ people: Int) -> Int {
        min(64, max(2, people / 2000))
    }

    /// Reports dates whose year lies after `today` (a typo, usually): they
    /// are kept, and get no age and no reminder until the date itself.
    static func reportFutureDates(_ people: [Person], today: LocalDate, report: inout ImportReport) {
        // Each person read in place: a copy of a `Person` retains every one of its fields.
        for index in people.indices {
            for kind in EventKind.allCases {
                guard let date = people[index].date(of: kind), date.isInFuture(of: today), let year = date.year else { continue }
                let source = people[index].source
                let noun = kind == .birthday ? "birth date" : "anniversary"
                report.problems.append(
                    ImportProblem(
                        file: source.file,
                        line: source.line,
                        message: "the \(noun) is in the future (year \(year)); no reminder or age before it"
                    )
                )
            }
            for alternate in people[index].alternateDates {
                guard alternate.date.isInFuture(of: today), let day = alternate.date.gregorian else { continue }
                let source = people[index].source
                let noun = alternate.kind == .birthday ? "birth date" : "anniversary"
                report.problems.append(
                    ImportProblem(
                        file: source.file,
                        line: source.line,
                        message: "the \(alternate.date.calendar.rawValue) \(noun) is in the future (\(day.year)); no reminder or age before it"
                    )
                )
            }
        }
    }

    /// What ``merge(_:stored:removing:calendarFiles:into:now:report:write:)`` wrote, for the relink that follows.
    struct Written {
        /// The linking keys of the people it added (``AppDatabase/relink(_:adding:changed:)``).
        var added: AddedLinkKeys?
        /// Every card it added, wrote or removed.
        var changed = ChangedCards()
    }

    /// Writes `people` into the store (or only counts, when `write` is false),
    /// and removes the `dateless` people whose file now gives them neither a name nor a date.
    /// Returns what it wrote, for the relink (``AppDatabase/relink(_:adding:changed:)``).
    @discardableResult
    static func merge(
        _ people: [Person],
        stored: [String: PersonRecord.MergeState]? = nil,
        removing dateless: [(id: String, file: String)] = [],
        calendarFiles: Set<String> = [],
        into db: Database,
        now: Date,
        report: inout ImportReport,
        write: Bool
    ) throws -> Written {
        let stored = try stored ?? PersonRecord.mergeStates(db)
        var written = Written()
        let timestamp = now.timeIntervalSince1970
        // People a source brought that this import brings too: from now on they
        // belong to the import as well, and no sync removes them.
        var adopted: [String] = []
        // The new people, by their place in `people`, written together after the loop (``PersonRecord/insertNew``).
        var added: [Int] = []
        // Changed only for a calendar file's person found by name (a copy then); read in place, not copied, otherwise.
        var people = people
        let dated = Set(people.map(\.id))
        for (id, file) in dateless where !dated.contains(id) {
            guard let old = stored[id], old.contact.sourceFile == file else { continue }
            report.removed += 1
            if write {
                written.changed.record(id, stored: old.contact)
                _ = try PersonRecord.deleteOne(db, key: id)
            }
        }
        // Who the people of calendar files (whose UIDs name events, not people) are: the people stored
        // (but those of the run's calendar files), and the run's new people from cards.
        var byName: PeopleByName?
        var cardsOfRun: (matcher: NameMatcher, indices: [Int])?
        if people.contains(where: { calendarFiles.contains($0.source.file) }) {
            byName = try PeopleByName.read(db) { id in stored[id].map { calendarFiles.contains($0.contact.sourceFile) } ?? false }
            let indices = people.indices.filter { stored[people[$0].id] == nil && !calendarFiles.contains(people[$0].source.file) }
            let cards = indices.map {
                [
                    LinkCard(
                        key: LinkCard.Key(source: "", id: people[$0].id),
                        name: people[$0].name,
                        nickname: people[$0].nickname,
                        birthday: people[$0].birthday
                    )
                ]
            }
            cardsOfRun = (NameMatcher(people: cards), indices)
        }
        for index in people.indices {
            if !people[index].invalidDates.isEmpty { report.invalid += 1 }
            if calendarFiles.contains(people[index].source.file) {
                // The id of an event without our UID comes from its name, as a card's without a UID does: a card
                // of that name whose own birthday is another day is someone else, who keeps their date.
                if let old = stored[people[index].id], old.contact.sourceFile != people[index].source.file,
                    !old.contact.calendarFilled.contains(.birthday),
                    DateAgreement(old.contact.birthday, people[index].birthday) == .conflict, let birthday = people[index].birthday
                {
                    people[index].id = PersonID.derived(key: PersonID.normalize(people[index].name) + "\u{1F}" + birthday.description, ordinal: 0)
                }
                if stored[people[index].id] == nil, let byName, let cardsOfRun {
                    let name = people[index].name
                    let birthday = people[index].birthday
                    let found = byName.matches(name: name, birthday: birthday)
                    let inRun = cardsOfRun.matcher.matches(name: name, birthday: birthday).map { cardsOfRun.indices[$0] }
                    // Only one person: namesakes are not guessed between (the calendar's person is added, as when no one matches).
                    if found.count + inRun.count == 1 {
                        if let match = found.first {
                            people[index].id = match.id
                        } else if let card = inRun.first {
                            // A card of this run: the calendar fills the dates it lacks before it is written.
                            // Counted once, as the card's person.
                            people[card] = ContactImporter.filled(people[card], from: people[index])
                            continue
                        }
                    }
                }
                if let old = stored[people[index].id], old.contact.sourceFile != people[index].source.file {
                    if try mergeCalendarPerson(people[index], into: old, db, now: now, report: &report, write: write) {
                        written.changed.record(people[index].id, stored: old.contact)
                    }
                    continue
                }
            }
            guard let old = stored[people[index].id] else {
                report.added += 1
                if write { added.append(index) }
                continue
            }
            // Nothing from another file is erased; the user's choices outlast every import.
            let person = ContactMerge.merge(people[index], into: old.contact)
            if person.fingerprint == old.fingerprint {
                report.unchanged += 1
                if !old.imported { adopted.append(person.id) }
                continue
            }
            report.updated += 1
            if write {
                written.changed.record(person.id, stored: old.contact)
                try PersonRecord.write(person, createdAt: old.createdAt, updatedAt: timestamp, imported: true, isNew: false, db)
            }
        }
        if write && !added.isEmpty {
            for index in added { written.changed.record(people[index].id, stored: nil) }
            written.added = try PersonRecord.insertNew(people, at: added, createdAt: timestamp, updatedAt: timestamp, imported: true, db)
        }
        if write && !adopted.isEmpty { try PersonRecord.markImported(adopted, db) }
        return written
    }

    /// `person` (a card) with the dates it lacks taken from `calendar`'s
    /// person, each kept as a date the calendar filled in (``Person/calendarFilled``).
    static func filled(_ person: Person, from calendar: Person) -> Person {
        var person = person
        for kind in EventKind.allCases where person.date(of: kind) == nil {
            guard let date = calendar.date(of: kind) else { continue }
            person.setDate(date, of: kind)
            person.calendarFilled.insert(kind)
        }
        return person
    }

    /// A person a calendar file names who is already in the store from
    /// elsewhere (a card, another calendar): the calendar only fills the
    /// dates they lack, and takes nothing the card says (name parts,
    /// groups, ways to reach them, the source they follow). Returns whether
    /// it wrote the person.
    @discardableResult
    static func mergeCalendarPerson(
        _ person: Person,
        into old: PersonRecord.MergeState,
        _ db: Database,
        now: Date,
        report: inout ImportReport,
        write: Bool
    ) throws -> Bool {
        guard var existing = try PersonRecord.person(id: person.id, db) else { return false }
        existing.calendarFilled = old.contact.calendarFilled
        var filled = false
        for kind in EventKind.allCases where existing.date(of: kind) == nil {
            guard let date = person.date(of: kind) else { continue }
            existing.setDate(date, of: kind)
            // Kept when the card's file is imported again without it (ContactMerge).
            existing.calendarFilled.insert(kind)
            filled = true
        }
        guard filled else {
            report.unchanged += 1
            return false
        }
        report.updated += 1
        guard write else { return false }
        try PersonRecord.write(existing, createdAt: old.createdAt, updatedAt: now.timeIntervalSince1970, imported: old.imported, isNew: false, db)
        return true
    }
}
