import BirthdayCore
import Foundation
import GRDB
import Logging

/// Syncs sources into the store: asks the source's reader what changed,
/// and applies it in one write transaction, reschedule included, so a sync
/// lands whole or not at all.
///
/// ## Applying changes
/// - Each new or changed item is read as an import reads a file
///   (``ContactReader``, ``ContactMerge``); its people replace what the
///   item brought before. An item that is not a contact file at all (empty,
///   binary, not vCard or CSV) is kept as it was and reported: a half-written
///   file never removes anyone.
/// - A person is written only when what the item says about them changed.
///   A person the store already has from elsewhere follows the import's
///   rules: the item's fields win, and a date it lacks is kept when the
///   person came from another file or card.
/// - A person the source no longer has leaves the store, with their pending
///   reminders, unless another source has them or an import brought them.
///   Their ledger rows stay as history; those still to be sent are dismissed.
/// - A sync that would remove every person the source has, or more than
///   half of them when it has more than 10 (``MassRemoval``), changes
///   nothing and fails until it is run with `allowMassRemoval`.
/// - Groups follow the cards (``ContactGroups``): a person's `CATEGORIES`
///   are replaced whenever the person is written; the members a group card
///   lists are kept per item and count for the people of the same source
///   whose ids they are, whichever sync brought the group card or them, so a
///   group card that changes alone changes its members' reminders.
/// - When people or group cards changed, the revision is bumped and the reminders are
///   rescheduled in the same transaction.
///
/// ## In another process
/// A kind of source can be delegated (``SourceDelegate``): CardDAV sources
/// are synced by the `birthdays-network` helper, which runs this same type
/// with the CardDAV reader and records its own outcome.
///
/// ## Failures
/// A reader's error (network, authentication, HTTP, XML, a missing folder)
/// changes nothing but the source's status: its error, its failure count
/// and the time of the attempt. Logs carry counts, never a name, a card or
/// a password.
package struct SourceSync: Sendable {
    package let database: AppDatabase
    package let readers: SourceReaders
    package let now: @Sendable () -> Date
    package let systemTimeZone: @Sendable () -> TimeZone
    /// The environment's locale, for the words of rescheduled reminders when the `language` setting is `system`.
    package let systemLocale: String?
    package let logger: Logger
    private let delegates: @Sendable (SourceKind) -> (any SourceDelegate)?

    /// - Parameters:
    ///   - readers: read sources in this process.
    ///   - delegates: sync the sources of a kind in another process instead
    ///     (which then applies the changes itself, under the same rules).
    package init(
        database: AppDatabase,
        readers: SourceReaders,
        delegates: @escaping @Sendable (SourceKind) -> (any SourceDelegate)? = { _ in nil },
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        systemLocale: String? = nil,
        logger: Logger
    ) {
        self.database = database
        self.readers = readers
        self.delegates = delegates
        self.now = now
        self.systemTimeZone = systemTimeZone
        self.systemLocale = systemLocale
        self.logger = logger
    }

    /// Syncs the sources named `names` (every source when empty), one after the other.
    ///
    /// - Throws: ``SourceError/unknownSource(name:)`` before syncing anything
    ///   when a name is unknown; ``SourceError/store(_:)`` when the list cannot be read.
    package func sync(named names: [String], allowMassRemoval: Bool = false) async throws(SourceError) -> [SourceSyncReport] {
        let all: [Source]
        do {
            all = try await database.sources(counting: false)
        } catch {
            throw .store(error.description)
        }
        var chosen: [Source] = []
        for name in names {
            guard let source = all.first(where: { $0.name == name }) else { throw .unknownSource(name: name) }
            if !chosen.contains(source) { chosen.append(source) }
        }
        var reports: [SourceSyncReport] = []
        for source in names.isEmpty ? all : chosen {
            reports.append(await sync(source, allowMassRemoval: allowMassRemoval))
        }
        return reports
    }

    /// Syncs one source; the report says what changed or why nothing did.
    package func sync(_ source: Source, allowMassRemoval: Bool = false) async -> SourceSyncReport {
        var report = SourceSyncReport(name: source.name, kind: source.kind)
        let started = ContinuousClock.now
        do throws(SourceError) {
            if let delegate = delegates(source.kind) {
                // The other process records and logs what it did; only a report that never came is recorded here.
                return try await delegate.sync(
                    source,
                    allowMassRemoval: allowMassRemoval,
                    now: now(),
                    timeZone: systemTimeZone(),
                    locale: systemLocale
                )
            }
            try await run(source, allowMassRemoval: allowMassRemoval, report: &report)
        } catch {
            report.error = error
            // A daemon stopping in the middle of a sync is not the source's fault.
            if !Task.isCancelled {
                let instant = now()
                do {
                    try await database.write { db in try SourceRecord.failed(id: source.id, error: error.description, now: instant, db) }
                } catch {
                    logger.error("cannot record the failed sync", metadata: ["source": "\(source.id)", "error": "\(error)"])
                }
            }
        }
        return logged(report, source: source, started: started)
    }

    private func logged(_ report: SourceSyncReport, source: Source, started: ContinuousClock.Instant) -> SourceSyncReport {
        let elapsed = ContinuousClock.now - started
        if let error = report.error {
            logger.warning(
                "source sync failed",
                metadata: ["source": "\(source.id)", "kind": "\(source.kind.rawValue)", "requests": "\(report.requests)", "error": "\(error)"]
            )
        } else {
            logger.info(
                "source synced",
                metadata: [
                    "source": "\(source.id)", "kind": "\(source.kind.rawValue)", "added": "\(report.added)", "updated": "\(report.updated)",
                    "removed": "\(report.removed)", "unchanged": "\(report.unchanged)", "problems": "\(report.problems.count)",
                    "requests": "\(report.requests)",
                    "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
                ]
            )
        }
        return report
    }

    private func run(_ source: Source, allowMassRemoval: Bool, report: inout SourceSyncReport) async throws(SourceError) {
        guard let reader = readers.reader(for: source.kind) else {
            throw .unavailable(reason: "this build of birthdays cannot sync \(source.kind.rawValue) sources")
        }
        let id = source.id
        let found: SourceSnapshot?
        do {
            found = try await database.read { db -> SourceSnapshot? in
                guard var snapshot = try SourceRecord.fetchOne(db, key: id)?.snapshot else { return nil }
                snapshot.items = try SourceItemRecord.items(sourceId: id, db)
                return snapshot
            }
        } catch {
            throw .store(error.description)
        }
        // Removed since it was listed (by `sources remove` while a daemon syncs).
        guard let snapshot = found else { throw .unknownSource(name: source.name) }
        let changes = try await reader.changes(in: source, since: snapshot)
        report.requests = changes.requests
        let instant = now()
        let system = systemTimeZone()
        let locale = systemLocale
        let year = Calendar(identifier: .gregorian).dateComponents(in: system, from: instant).year ?? 2000
        let parsed = await Blocking.run { SourceSync.parse(changes.items, referenceYear: year) }
        let outcome: Outcome
        do {
            outcome = try await database.write(at: instant) { db in
                try SourceSync.apply(
                    parsed,
                    changes: changes,
                    sourceID: id,
                    allowMassRemoval: allowMassRemoval,
                    now: instant,
                    systemTimeZone: system,
                    systemLocale: locale,
                    db
                )
            }
        } catch {
            throw .store(error.description)
        }
        switch outcome {
        case .refused(let removing, let owned):
            throw .massRemoval(source: source.name, removing: removing, of: owned)
        case .applied(let counts, let rescheduled):
            report.added = counts.added
            report.updated = counts.updated
            report.removed = counts.removed
            report.unchanged = counts.unchanged
            report.conflicts = counts.conflicts
            report.peopleChanged = rescheduled != nil
            report.problems = changes.problems + parsed.flatMap(\.problems)
            if let rescheduled {
                NotificationScheduler(database: database, now: now, systemTimeZone: systemTimeZone, systemLocale: systemLocale, logger: logger)
                    .log(rescheduled)
            }
        }
    }

    // MARK: - Parsing

    /// An item read as an import reads a file.
    struct ParsedItem: Sendable {
        var href: String
        var etag: String
        /// The people the item brings (every contact with a name or a date), by id.
        var people: [Person]
        /// `false` when the item is not a contact file at all: it is kept as it was.
        var readable: Bool
        var problems: [ImportProblem]
        /// The group cards of the item (``ContactGroups``): their members are
        /// the people of the whole source whose ids they list.
        var groupCards: [GroupCard] = []
        /// The ids of the item's cards without a `UID` as the item alone gives them: the sync decides them
        /// against the store (``ContactMerge/ids(of:holders:)``), with how each was derived.
        var derived: [String: ContactMerge.Derivation] = [:]
    }

    /// Items read concurrently, in a few parts, when there are at least this many (a first sync).
    static let concurrencyThreshold = 64

    /// Reads `items` as an import reads files, in their order. A first sync's
    /// thousands of cards are read in parts, concurrently, on every core.
    static func parse(_ items: [SourceItem], referenceYear: Int) -> [ParsedItem] {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard items.count >= concurrencyThreshold, cores > 1 else {
            return items.map { parse($0, referenceYear: referenceYear) }
        }
        let slots = ParsedSlots(count: items.count)
        // More parts than cores, so a part that waits for the CPU holds back little.
        let parts = min(items.count, cores * 4)
        let count = items.count
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            for index in stride(from: part * count / parts, to: (part + 1) * count / parts, by: 1) {
                slots.put(parse(items[index], referenceYear: referenceYear), at: index)
            }
        }
        return slots.take()
    }

    /// One item read as an import reads a file.
    static func parse(_ item: SourceItem, referenceYear: Int) -> ParsedItem {
        let result = ContactReader.parse(item.content, file: item.location, referenceYear: referenceYear)
        var report = ImportReport()
        report.problems = result.problems
        var derived: [String: ContactMerge.Derivation] = [:]
        let people = ContactMerge.people(from: result.contacts, report: &report, derived: &derived)
        var problems = report.problems
        let readable = !(result.contacts.isEmpty && !result.problems.isEmpty)
        if !readable {
            problems.append(ImportProblem(file: item.location, line: 1, message: "not a contact card; kept as it was"))
        }
        var parsed = ParsedItem(href: item.href, etag: item.etag, people: people, readable: readable, problems: problems)
        parsed.derived = derived
        parsed.groupCards = ContactMerge.groupCards(in: result.contacts)
        return parsed
    }

    /// Where the parts of ``parse(_:referenceYear:)`` leave their items: each
    /// slot is written by one part only, and read after `concurrentPerform`
    /// has returned.
    private final class ParsedSlots: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<ParsedItem>
        private let count: Int

        init(count: Int) {
            self.count = count
            slots = .allocate(capacity: count)
        }

        func put(_ item: ParsedItem, at index: Int) {
            slots.initializeElement(at: index, to: item)
        }

        /// The items, moved out; call once, after every slot was written.
        func take() -> [ParsedItem] {
            Array(unsafeUninitializedCapacity: count) { buffer, initialized in
                _ = buffer.moveInitialize(fromContentsOf: slots)
                initialized = count
            }
        }

        deinit { slots.deallocate() }
    }

    // MARK: - Applying

    struct Counts: Sendable, Equatable {
        var added = 0
        var updated = 0
        var removed = 0
        var unchanged = 0
        /// Said by the relink that followed (``AppDatabase/relink(_:adding:changed:)``).
        var conflicts: [ChoiceConflict] = []
    }

    enum Outcome: Sendable {
        /// Written; the reschedule's result when people changed.
        case applied(Counts, rescheduled: RescheduleResult?)
        /// Nothing written: the mass-removal guard.
        case refused(removing: Int, owned: Int)
    }

    /// The whole sync's writes, inside the caller's transaction (see the type's documentation).
    static func apply(
        _ parsed: [ParsedItem],
        changes: SourceChanges,
        sourceID: Int64,
        allowMassRemoval: Bool,
        now: Date,
        systemTimeZone: TimeZone,
        systemLocale: String?,
        _ db: Database
    ) throws -> Outcome {
        let storedItems = try SourceItemRecord.items(sourceId: sourceID, db)
        let before = try SourcePersonRecord.contributions(sourceId: sourceID, db)
        var states = try PersonRecord.mergeStates(db)

        // Later items of the same href replace earlier ones (href → index in `parsed`).
        var latest: [String: Int] = [:]
        for index in parsed.indices { latest[parsed[index].href] = index }
        let parsed = identified(parsed, latest: latest, states: states)
        var removedHrefs: [String]
        switch changes.listing {
        case .complete(let present):
            let known = Set(storedItems.keys).union(before.keys)
            removedHrefs = known.filter { !present.contains($0) && latest[$0] == nil }.sorted()
        case .delta(let removed):
            removedHrefs = Array(Set(removed.filter { (storedItems[$0] != nil || before[$0] != nil) && latest[$0] == nil })).sorted()
        }

        // Each card's people's fingerprints, computed once (a hash of the whole person).
        var prints: [[String]] = Array(repeating: [], count: parsed.count)
        for index in latest.values where parsed[index].readable { prints[index] = parsed[index].people.map(\.fingerprint) }
        var after = before
        for href in removedHrefs { after[href] = nil }
        for (href, index) in latest where parsed[index].readable {
            var brought: [String: String] = [:]
            for (person, print) in zip(parsed[index].people, prints[index]) { brought[person.id] = print }
            after[href] = brought.isEmpty ? nil : brought
        }

        let owned = fingerprints(before)
        let owning = fingerprints(after)
        let leaving = Set(owned.keys).subtracting(owning.keys)
        if !allowMassRemoval && MassRemoval.needsConfirmation(removing: leaving.count, of: owned.count) {
            return .refused(removing: leaving.count, owned: owned.count)
        }
        var counts = Counts()
        for (id, prints) in owning {
            if let old = owned[id] {
                if old == prints { counts.unchanged += 1 } else { counts.updated += 1 }
            } else {
                counts.added += 1
            }
        }
        counts.removed = leaving.count

        // The source's own bookkeeping, its group cards' members included.
        var groupsChanged = false
        // The cards this sync adds, writes, removes or gives or takes from the source: their neighbourhood is relinked.
        var cards = ChangedCards()
        for href in removedHrefs {
            for id in (before[href] ?? [:]).keys.sorted() { cards.record(id, stored: states[id]?.contact) }
            try SourceItemRecord.delete(sourceId: sourceID, href: href, db)
            try SourcePersonRecord.deleteItem(sourceId: sourceID, href: href, db)
            if try SourceGroupMemberRecord.deleteItem(sourceId: sourceID, href: href, db) { groupsChanged = true }
        }
        // Items in href order (the order of the tables' keys), read in place from `parsed`.
        let order = latest.keys.sorted()
        for href in order {
            guard let index = latest[href] else { continue }
            try SourceItemRecord.save(sourceId: sourceID, href: href, etag: parsed[index].etag, db)
            guard parsed[index].readable else { continue }
            // An item never stored before has no rows to compare or replace.
            let known = storedItems[href] != nil || before[href] != nil
            if known || !parsed[index].groupCards.isEmpty,
                try SourceGroupMemberRecord.replace(sourceId: sourceID, href: href, with: parsed[index].groupCards, db)
            {
                groupsChanged = true
            }
        }

        // The people. Those the store does not have yet are written together
        // after the loop (``PersonRecord/insertNew(_:at:createdAt:updatedAt:imported:_:)``:
        // rows, then child rows in id order), as an import writes its new people.
        // Who the source has (`sourcePerson`) is what its group cards and its rules count on: a card of
        // someone an import brought, identical to theirs, makes them the source's and changes no row of theirs.
        var changed = groupsChanged
        let holding = Set(owned.keys).symmetricDifference(owning.keys)
        if !holding.isEmpty {
            try RevisionRecord.move(db)
            // Only the cards it gained or lost: their people's greetings are planned again.
            try GreetingPlanTriggers.changedHolding(of: holding, db)
            changed = true
        }
        let timestamp = now.timeIntervalSince1970
        var newPeople: [Person] = []
        var newIndex: [String: Int] = [:]
        for href in order {
            guard let index = latest[href], parsed[index].readable else { continue }
            for (var person, print) in zip(parsed[index].people, prints[index]) {
                if before[href]?[person.id] == print, states[person.id] != nil { continue }
                if let pending = newIndex[person.id] {
                    // New in this sync and brought by an earlier item too: merged as a stored one would be.
                    let merged = ContactMerge.merge(person, into: ContactMerge.Stored(newPeople[pending]))
                    if merged.fingerprint != newPeople[pending].fingerprint { newPeople[pending] = merged }
                    continue
                }
                guard let old = states[person.id] else {
                    newIndex[person.id] = newPeople.count
                    newPeople.append(person)
                    cards.record(person.id, stored: nil)
                    changed = true
                    continue
                }
                // Nothing from another file or card is erased; the user's choices
                // (exclude, include, remind) outlast every sync, as every import.
                person = ContactMerge.merge(person, into: old.contact)
                guard person.fingerprint != old.fingerprint else { continue }
                cards.record(person.id, stored: old.contact)
                try PersonRecord.write(person, createdAt: old.createdAt, updatedAt: timestamp, imported: old.imported, isNew: false, db)
                states[person.id]?.fingerprint = person.fingerprint
                states[person.id]?.contact = ContactMerge.Stored(person)
                changed = true
            }
        }
        var added: AddedLinkKeys?
        if !newPeople.isEmpty {
            let byID = newPeople.indices.sorted { newPeople[$0].id < newPeople[$1].id }
            added = try PersonRecord.insertNew(newPeople, at: byID, createdAt: timestamp, updatedAt: timestamp, imported: false, db)
        }
        // Who brought whom, after the people: each row refers to its person (migration `v29-person-references`).
        for href in order {
            guard let index = latest[href], parsed[index].readable else { continue }
            if storedItems[href] != nil || before[href] != nil { try SourcePersonRecord.deleteItem(sourceId: sourceID, href: href, db) }
            for id in (before[href] ?? [:]).keys.sorted() { cards.record(id, stored: states[id]?.contact) }
            for (person, print) in zip(parsed[index].people, prints[index]) {
                try SourcePersonRecord.insert(sourceId: sourceID, href: href, personId: person.id, fingerprint: print, db)
                cards.record(person.id, stored: states[person.id]?.contact)
            }
        }
        if !leaving.isEmpty {
            let candidates = leaving.sorted()
            let kept = try SourcePersonRecord.owned(among: candidates, db).union(try PersonRecord.importedAmong(candidates, db))
            let gone = candidates.filter { !kept.contains($0) }
            if !gone.isEmpty {
                for id in gone { cards.record(id, stored: states[id]?.contact) }
                // The choices made on a person shown as a card that goes stay with their other cards.
                try PersonRecord.handOverChoices(leaving: gone, db)
                _ = try DeliveryRecord.dismissOpen(personIDs: gone, reason: "the contact was removed from its source", now: now, db)
                if try PersonRecord.delete(ids: gone, db) > 0 { changed = true }
            }
        }

        // Who is one person follows the cards, in the same transaction (issue 43).
        // The new people's keys as written (no person this sync removes is one of them).
        if changed { counts.conflicts = try AppDatabase.relink(db, adding: added, changed: cards) }
        var rescheduled: RescheduleResult?
        if changed {
            rescheduled = try NotificationScheduler.reschedule(db, now: now, systemTimeZone: systemTimeZone, systemLocale: systemLocale)
        }
        try SourceRecord.succeeded(id: sourceID, syncToken: changes.syncToken, ctag: changes.ctag, now: now, db)
        return .applied(counts, rescheduled: rescheduled)
    }

    /// The items' cards without a `UID` with the ids the stored cards and
    /// the sync's other items decide (``ContactMerge/ids(of:holders:)``):
    /// a card of the same name as another file's, born another day, is a namesake.
    private static func identified(_ parsed: [ParsedItem], latest: [String: Int], states: [String: PersonRecord.MergeState]) -> [ParsedItem] {
        guard parsed.contains(where: { !$0.derived.isEmpty }) else { return parsed }
        var parsed = parsed
        var cards: [ContactMerge.Card] = []
        var places: [(item: Int, person: Int)] = []
        for href in latest.keys.sorted() {
            guard let index = latest[href], parsed[index].readable, !parsed[index].derived.isEmpty else { continue }
            for person in parsed[index].people.indices {
                guard let derivation = parsed[index].derived[parsed[index].people[person].id] else { continue }
                let card = parsed[index].people[person]
                cards.append(ContactMerge.Card(derivation, file: card.source.file, birthday: card.birthday))
                places.append((index, person))
            }
        }
        for (place, id) in zip(places, ContactMerge.ids(of: cards, holders: PersonRecord.holders(states))) {
            parsed[place.item].people[place.person].id = id
        }
        return parsed
    }

    /// Person id → the fingerprints the source's items give them.
    private static func fingerprints(_ contributions: [String: [String: String]]) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for brought in contributions.values {
            for (id, print) in brought { result[id, default: []].insert(print) }
        }
        return result
    }
}
