import BirthdayCore
import BirthdayText
import Foundation
import GRDB
import Logging

/// Keeps the pending reminders in step with people, settings and the clock.
///
/// ``reschedule()`` does this, in one write transaction:
/// 1. moves every pending request whose instant has come (fire instant not
///    after now) into the delivery ledger as `queued`, so a reschedule while
///    the daemon is stopped never silently drops a due reminder: the daemon
///    delivers it late or records it as missed (see the daemon's `DeliveryEngine`);
///    then removes every pending request;
/// 2. stops there (nothing pending) unless a channel delivers
///    (``ChannelConsent``: the permission, the built-in channels that are on,
///    the added ones that are on and not paused), and logs that;
/// 3. ranks the upcoming birthdays and anniversaries that get reminders
///    (``Settings/treatment(of:for:)``: not excluded, deceased people per the
///    `deceased` setting; those in other calendars too, each an event of its
///    own) and makes one request per reminder day (the person's own, else
///    the `reminders` setting: by default the day before and the day of, at
///    the delivery time in the user's zone; names per the `names` setting),
///    skipping any whose instant is not in the future, and keeps
///    the soonest 64 (see ``ReminderPlanner`` and ``FireTime`` for the DST and
///    Feb 29 rules, and ``NotificationRequest/pendingLimit`` for the cap), and drops
///    those already in the delivery ledger for the same occurrence (delivered,
///    dismissed, …), so re-adding a request can never send it twice;
///    with the next digest among them when the `digest` setting is on
///    (``digestRequest(_:settings:timeZone:now:systemLocale:after:)``);
///    and with each team room's next message (`birthdays announce`:
///    ``AnnouncePlanner``), planned even when no channel of the user's
///    delivers (adding a room is its consent), unless notifications are
///    turned off; rooms take no place of the 64; and with each greeted
///    friend's next greeting (`birthdays greet`: ``GreetingPlan``, at the
///    `greeting-time` in their zone, skips passed over, today's while it is
///    still their day), planned likewise whatever the user's channels
///    (adding the greeting was its consent) unless notifications are turned
///    off; greetings take no place of the 64 either (one per friend, so a
///    greeting never pushes a reminder out), and the day-before reminder of
///    a greeted friend's birthday ends with the line that says when it goes
///    and how to skip it (``Message/greetingTomorrow(name:time:skip:)``);
/// 4. logs how many were scheduled, never a name or a date of birth.
///
/// The clock, the system time zone and the system locale are injected; the
/// `time-zone` and `language` settings, when set, override them. Titles and
/// bodies are written in that language (``Localizer``) when they are planned.
package struct NotificationScheduler: Sendable {
    private let database: AppDatabase
    private let now: @Sendable () -> Date
    private let systemTimeZone: @Sendable () -> TimeZone
    /// The environment's locale, for the words of what it writes.
    package let systemLocale: String?
    private let logger: Logger

    /// - Parameters:
    ///   - database: the store holding people, settings and pending requests.
    ///   - now: the current instant.
    ///   - systemTimeZone: the zone to use when the `time-zone` setting is `system`.
    ///   - systemLocale: the environment's locale (``Language/fromEnvironment(_:)``),
    ///     for when the `language` setting is `system`; `nil` is English.
    ///   - logger: receives counts and statuses only.
    package init(
        database: AppDatabase,
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        systemLocale: String? = nil,
        logger: Logger
    ) {
        self.database = database
        self.now = now
        self.systemTimeZone = systemTimeZone
        self.systemLocale = systemLocale
        self.logger = logger
    }

    /// Replaces the pending requests with the soonest 64 future reminders (see the type's documentation).
    @discardableResult
    package func reschedule() async throws(StoreError) -> RescheduleResult {
        let instant = now()
        let system = systemTimeZone()
        let locale = systemLocale
        let result = try await database.write { db in
            try NotificationScheduler.reschedule(db, now: instant, systemTimeZone: system, systemLocale: locale)
        }
        log(result)
        return result
    }

    /// The reschedule inside the caller's write transaction, at this
    /// scheduler's clock and zone (an import reschedules in its own
    /// transaction this way, so the two land together or not at all).
    func reschedule(_ db: Database) throws -> RescheduleResult {
        try NotificationScheduler.reschedule(db, now: now(), systemTimeZone: systemTimeZone(), systemLocale: systemLocale)
    }

    /// Logs what a reschedule did: counts and the status, never a name.
    func log(_ result: RescheduleResult) {
        if result.delivers {
            logger.info(
                "rescheduled reminders",
                metadata: ["scheduled": "\(result.scheduled)", "people": "\(result.people)", "status": "\(result.status.rawValue)"]
            )
        } else {
            logger.info("no channel delivers; no reminders pending", metadata: ["status": "\(result.status.rawValue)"])
        }
    }

    /// The reschedule itself, inside the caller's write transaction.
    static func reschedule(_ db: Database, now instant: Date, systemTimeZone system: TimeZone, systemLocale: String?) throws -> RescheduleResult {
        let settings = try SettingRecord.settings(db)
        let zone = settings.resolvedTimeZone(system: system)
        try queueDue(now: instant, timeZone: zone, deliveryTime: settings.deliveryTime, quietAfter: settings.quietAfter, db)
        let status = try SettingRecord.authorizationStatus(db)
        let consent = try ChannelRecord.consent(settings: settings, status: status, db)
        // The team rooms' next messages: adding a room is its consent, so only `notifications disable` stops them.
        let rooms =
            status == .denied
            ? [] : try AppDatabase.announceRequests(db, settings: settings, timeZone: zone, now: instant, systemLocale: systemLocale)
        // The friends' greetings: adding the greeting is its consent, so likewise. Planned again only when the
        // last plan may have changed (``GreetingPlan/Stamp``), for everyone or the few a change named; else those pending stay.
        let (greetings, inputs) =
            status == .denied
            ? (GreetingSchedule(), nil) : try AppDatabase.scheduleGreetings(db, settings: settings, timeZone: zone, now: instant)
        if status == .denied, try SettingRecord.value(.greetingPlan, db) != nil { try GreetingPlanTriggers.drop(db) }
        guard consent.delivers else {
            let requests = try save(rooms, greetings, inputs: inputs, since: LocalDate.today(at: instant, in: zone), now: instant, db)
            return RescheduleResult(status: status, consent: consent, requests: requests, timeZone: zone, kept: try kept(greetings, requests, db))
        }
        var planner = ReminderPlanner(settings: settings, timeZone: zone, now: instant, localizer: settings.localizer(systemLocale: systemLocale))
        // Every event that gets reminders; a name day in the words of the reminders' language (the planner's).
        try PersonRecord.forEachEvent(
            db,
            rules: settings.treatmentRules,
            nameDays: try NameDayListRecord.setup(for: settings, db),
            nicknames: settings.names == .nickname
        ) { event, _, identity in planner.offer(event, identity: identity) }
        let reminders = planner.requests()
        // The day-before lines: a kept plan is read back for the few people reminded.
        let lines =
            greetings.kept == nil
            ? greetings.planned
            : try AppDatabase.keptGreetings(
                of: Self.greetingLineCandidates(reminders),
                settings: settings,
                timeZone: zone,
                db
            )
        var planned = Self.withGreetingLines(reminders, greetings: lines, localizer: settings.localizer(systemLocale: systemLocale))
        if let digest = try digestRequest(db, settings: settings, timeZone: zone, now: instant, systemLocale: systemLocale, after: planned) {
            planned.append(digest)
            planned.sort(by: NotificationRequest.firesBefore)
            if planned.count > NotificationRequest.pendingLimit { planned.removeLast(planned.count - NotificationRequest.pendingLimit) }
        }
        let requests = try save(planned + rooms, greetings, inputs: inputs, since: nil, now: instant, db)
        return RescheduleResult(status: status, consent: consent, requests: requests, timeZone: zone, kept: try kept(greetings, requests, db))
    }

    /// Makes `planned` and the greetings planned anew (`greetings`) the
    /// pending requests (``saveUnknown(_:since:keepingGreetings:_:)``), or,
    /// when the greetings' plan was kept, `planned` beside the greetings
    /// pending; stores a new greeting plan's stamp. The ledger is asked from
    /// `since`, else from the soonest day of what is saved (nothing is saved
    /// without a day when that is empty). Those pending now but the kept greetings.
    private static func save(
        _ planned: [NotificationRequest],
        _ greetings: GreetingSchedule,
        inputs: UInt64?,
        since: LocalDate?,
        now: Date,
        _ db: Database
    ) throws -> [NotificationRequest] {
        guard greetings.kept == nil else {
            let since = since ?? planned.map(\.occurrenceDate).min() ?? LocalDate.today(at: now, in: .gmt)
            return try saveUnknown(planned, since: since, keepingGreetings: true, db)
        }
        let all = planned + greetings.planned.map(\.request)
        let since = since ?? all.map(\.occurrenceDate).min() ?? LocalDate.today(at: now, in: .gmt)
        let requests = try saveUnknown(all, since: since, keepingGreetings: false, db)
        if let inputs {
            let saved = requests.filter { if case .greeting = $0.deliveryKind { return true } else { return false } }
            try AppDatabase.stampGreetings(greetings.planned, inputs: inputs, saved: saved, now: now, db)
        }
        return requests
    }

    /// What a reschedule that kept the greetings pending counts of them
    /// (``RescheduleResult/Kept``): the stamp's count and instants, and how
    /// many are of people none of `requests` is about.
    private static func kept(_ greetings: GreetingSchedule, _ requests: [NotificationRequest], _ db: Database) throws -> RescheduleResult.Kept {
        guard let stamp = greetings.kept else { return RescheduleResult.Kept() }
        let people = Array(Set(requests.lazy.filter { $0.digest == nil }.map(\.personID)))
        let shared = try PendingNotificationRecord.days(ids: people.map(Greeting.notificationID(personID:)), db).count
        return RescheduleResult.Kept(count: stamp.saved, otherPeople: stamp.saved - shared, first: stamp.first, last: stamp.last)
    }

    /// The people whose reminder may end with a greeting's line (``withGreetingLines(_:greetings:localizer:)``).
    static func greetingLineCandidates(_ requests: [NotificationRequest]) -> [String] {
        requests.filter { $0.timing == .dayBefore && $0.kind == .birthday && $0.calendar == nil && $0.label == nil }.map(\.personID)
    }

    /// `requests` with the day-before reminder of each greeted friend's
    /// birthday (a Gregorian birthday's, on the day before their greeting's
    /// day) ending with the line that says when the greeting goes on their
    /// clock and how to skip it. `greetings` are sorted by person id (as
    /// ``AppDatabase/greetingPlans(_:settings:timeZone:now:)`` gives them):
    /// each of the at most 64 reminders finds its friend's by a binary
    /// search, not through a table of ten thousand.
    static func withGreetingLines(_ requests: [NotificationRequest], greetings: [PlannedGreeting], localizer: Localizer) -> [NotificationRequest] {
        guard !greetings.isEmpty else { return requests }
        func greeting(of personID: String) -> PlannedGreeting? {
            var low = 0
            var high = greetings.count
            while low < high {
                let middle = (low + high) / 2
                if greetings[middle].personID < personID { low = middle + 1 } else { high = middle }
            }
            return low < greetings.count && greetings[low].personID == personID ? greetings[low] : nil
        }
        return requests.map { request in
            guard request.timing == .dayBefore, request.kind == .birthday, request.calendar == nil, request.label == nil,
                let greeting = greeting(of: request.personID), greeting.next.day == request.occurrenceDate
            else { return request }
            var request = request
            let name = SafeText.line(greeting.name, maxCharacters: NotificationContent.maxNameCharacters)
            let time = FireTime.clock(of: greeting.next.instant, in: greeting.next.timeZone)
            request.body += "\n" + localizer(Message.greetingTomorrow(name: name, time: time, skip: Self.shellWord(name)))
            return request
        }
    }

    /// `text` as one word for a shell: as it is when it needs no quotes, else in single quotes.
    static func shellWord(_ text: String) -> String {
        if !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Makes those of `planned` that the ledger does not hold already for the
    /// same occurrence (from `since` on) the pending requests, so re-adding one
    /// never sends it twice; those pending. Rows that stay as they were are
    /// not written again, and the greetings pending are left as they are when
    /// `keepingGreetings` (``PendingNotificationRecord/replaceAll(with:keepingGreetings:_:)``).
    private static func saveUnknown(
        _ planned: [NotificationRequest],
        since: LocalDate,
        keepingGreetings: Bool,
        _ db: Database
    ) throws -> [NotificationRequest] {
        let known = planned.isEmpty ? [] : try DeliveryRecord.keys(since: since, db)
        let requests = known.isEmpty ? planned : planned.filter { !known.contains($0.id + "|" + $0.occurrenceDate.description) }
        try PendingNotificationRecord.replaceAll(with: requests, keepingGreetings: keepingGreetings, db)
        return requests
    }

    /// The next digest's pending request, when the `digest` setting is on
    /// and its period has events (see ``DigestPeriod`` and ``Digest``): on
    /// the first digest day whose delivery time is still ahead, at that time.
    /// It takes one of the 64 places like any reminder, by its instant.
    /// Not made at all (no scan of the people) when `planned` already fills
    /// the 64 places with requests before its instant.
    static func digestRequest(
        _ db: Database,
        settings: Settings,
        timeZone: TimeZone,
        now: Date,
        systemLocale: String?,
        after planned: [NotificationRequest] = []
    ) throws -> NotificationRequest? {
        guard let (period, fireAt) = DigestPeriod.next(settings.digest, settings: settings, now: now, timeZone: timeZone) else { return nil }
        if planned.count >= NotificationRequest.pendingLimit, let last = planned.last, last.fireAt < fireAt { return nil }
        let digest = try digest(db, period: period, settings: settings)
        return digest.request(fireAt: fireAt, in: settings.localizer(systemLocale: systemLocale))
    }

    /// The digest of `period`: the events `upcoming` lists on its days, named per the `names` setting.
    static func digest(_ db: Database, period: DigestPeriod, settings: Settings) throws -> Digest {
        let events = try AppDatabase.upcoming(
            db,
            UpcomingEvents(today: period.first, settings: settings, nameDays: try NameDayListRecord.setup(for: settings, db)),
            withinDays: period.days - 1,
            names: settings.names
        )
        var digest = Digest(period: period, events: events)
        digest.notes = events.isEmpty ? [:] : try PersonRecord.notes(db)
        return digest
    }

    /// Moves every pending request whose moment has come into the delivery
    /// ledger as `queued` (a request already in the ledger for the same
    /// occurrence is not queued again) and removes it from pending.
    ///
    /// A request's moment has come when its instant has passed, or when the
    /// delivery time on its local day has passed in `timeZone`: after a move
    /// east, a request scheduled in the old zone may still lie ahead while its
    /// local moment is gone; it is queued (and sent late on its local day,
    /// or recorded as missed after it), never dropped by the replanning.
    ///
    /// - Returns: how many rows were added to the ledger.
    @discardableResult
    static func queueDue(now: Date, timeZone: TimeZone, deliveryTime: TimeOfDay, quietAfter: TimeOfDay, _ db: Database) throws -> Int {
        var added = 0
        let due = try PendingNotificationRecord.takeDue(now: now, db) { request in
            request.fireAt <= now
                || DeliveryEntry(queued: request, at: now).localFireAt(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter) <= now
        }
        for request in due {
            var entry = DeliveryEntry(queued: request, at: now)
            entry.fireAt = min(request.fireAt, entry.localFireAt(in: timeZone, deliveryTime: deliveryTime, quietAfter: quietAfter))
            if try DeliveryRecord.insertIfAbsent(entry, db) { added += 1 }
        }
        return added
    }
}
