import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation
import Logging
import ServiceLifecycle

/// Delivers due reminders exactly once per occurrence, retries failed
/// channels, records what it could not deliver, and keeps the pending
/// requests topped up.
///
/// ## One pass (``runOnePass()``)
/// 1. Every pending request whose instant has come moves into the delivery
///    ledger as `queued`, in one transaction with its removal from pending
///    (INSERT OR IGNORE on the key (notification id, occurrence date)).
/// 2. Each ledger row that is queued and due, or retrying and due, is
///    handled (only while notifications are allowed):
///    - **Missed rule.** A queued row whose fire instant fell on an earlier
///      local day than now (in the user's zone) — the machine slept or the
///      daemon was stopped through the rest of that day — is recorded as
///      `missed` and not sent: a "today is Ada's birthday" reminder is never
///      shown the day after. If it is still the same local day, it is
///      delivered, flagged late (``Reminder/late``) when it is more than
///      ``Configuration/lateAfter`` past its instant.
///    - **Exactly once.** The row is claimed with
///      `UPDATE … SET state = 'sending' WHERE … AND state IN ('queued', 'retrying')`;
///      only the caller that changed the row sends it, so two engines (or a
///      daemon and `birthdays deliver --once`) never send the same reminder.
///      Because the key holds the occurrence date, a reschedule that re-adds a
///      request already in the ledger is skipped (``NotificationScheduler``).
///    - **Retry, refusal, no desktop** (``DeliveryTransition``, where every
///      such decision is a value with its own tests): a reminder that at
///      least one channel took is `delivered`. The channels that failed are
///      retried alone after the ``RetryPolicy`` delays (30 s, 1, 2, 5, 15 min,
///      then every 15 min) until the end of the due day; one that refused for
///      good (``DeliveryError/isPermanent``) is not; a desktop with no session
///      to show on (``DeliveryError/isUnavailable``) is not once another
///      channel delivered, and waits for a session like a retry when none
///      did. A reminder no channel took is `failed` when nothing is left to
///      retry or its day ends. Each attempt's outcome per channel is recorded
///      (``ChannelStatus``: last success, last failure and its kind, refusals
///      in a row, paused), for `channels list` and `status`.
///    - **Per person.** A person who chose channels (`birthdays remind
///      PERSON --channels`) gets their reminders only through those of the
///      pass's channels (the intersection: a removed or paused one is left
///      out). When none of them is left, the reminder still goes out, through
///      every channel of the pass, with a warning in the log (its public id,
///      no name) and ``PassResult/defaulted`` counted. Retries go to the
///      channels that failed, as for anyone.
///    - **Team rooms.** A row that is a room's message (`birthdays announce`:
///      ``DeliveryKind/announcement(room:)``) goes to that room's sink alone (the
///      injected ``RoomFactory``), never to the pass's channels, and a reminder
///      never to a room; the room is retried, recorded and counted as a
///      channel is (its state under ``AnnounceRoom/stateName``). It is sent
///      whatever channels of the user's deliver (adding the room was its
///      consent), unless notifications are turned off (`denied`).
///    - **Greetings.** A row that is a friend's greeting (`birthdays greet`:
///      ``DeliveryKind/greeting(personID:)``) goes to that friend alone,
///      through the injected ``GreetingSend`` (their address through the
///      owner's e-mail channel, or the greeting's Apprise URL), never to the
///      pass's channels, a room, a share or an invitation. It is judged by
///      their day in their zone (``GreetingPlan/decision(for:occurrence:greeted:skipped:now:)``):
///      sent on time, late while it is still their day, missed once it has
///      ended; dismissed unsent when they are no longer greeted or the year
///      was skipped since it was planned. Claimed, retried until the end of
///      their day and recorded like a reminder, so it goes out once; its
///      outcome is not a channel's state. Sent whatever channels of the
///      user's deliver (adding the greeting was its consent), unless
///      notifications are turned off (`denied`).
///    - **Side by side.** The rows of a pass are handed to their channels
///      concurrently, at most ``Configuration/concurrentDeliveries`` at once
///      (4), in the ledger's order: a room's webhook or a channel that hangs
///      until its timeout holds up no other reminder (the channels of one
///      row already go out side by side, ``ChannelSet``). Each row is still
///      claimed in the ledger before it is sent, so each goes out once per
///      channel; the actor records each row's outcome as it comes.
///    - **Stopping.** A graceful shutdown (what `birthdays run` starts on
///      SIGTERM or SIGINT, through swift-service-lifecycle) never cuts a
///      hand-over short: the engine checks `Task.isShuttingDownGracefully`
///      (and cancellation) only before it starts a reminder, so those being sent
///      are finished and recorded first (a command channel may take its 30 s
///      timeout and 2 s kill grace), and the rest stay queued for the next
///      start. A process killed outright (`deliver --once` has no signal
///      handling) leaves the row `sending`, handled as below.
///    - **At most once after a crash.** A row found in `sending` when an
///      engine starts (``recoverInterrupted()``) means a daemon died while
///      handing it over; whether the channel showed it is unknown, so it is
///      marked `interrupted`, logged and shown by `birthdays status`, and
///      not sent again. A duplicate birthday greeting is worse than one
///      reported as possibly lost.
/// 3. The pending requests are rescheduled (backfilled to 64).
///
/// ## Provisional ends by itself
/// A `provisional` permission (allowed while no channel answered, so
/// reminders go to the log only) is checked at the start of every pass
/// while it lasts, that is when the daemon starts and before each delivery:
/// once the injected check says a channel answers (the daemon's: a desktop
/// notification server appeared), it becomes `authorized`, the change is
/// logged, and the pass delivers through every configured channel.
///
/// ## Waking up
/// ``run(events:)`` sleeps on the injected clock until ``nextWakeup()`` —
/// the soonest of the next pending instant, the next snooze or retry and the
/// next local midnight (when the day rolls over and the planner moves on) —
/// or until an event arrives (clock change, resume, time-zone change,
/// a write by another command, SIGHUP, snooze, dismiss). There is no polling.
///
/// Logs carry counts, instants and public ids (``PublicID``), never a name,
/// title, body, date of birth or the id stored in the database.
package actor DeliveryEngine {
    package struct Configuration: Sendable {
        package var retryPolicy = RetryPolicy()
        /// Delivered more than this after its instant is late. Default 60 s.
        package var lateAfter: Duration = .seconds(60)
        /// Called once the engine has rested ``restAfter`` after a pass with
        /// its next pass further away than that again (`birthdays run` hands
        /// back the database's caches and ``ResidentPages/release()``), and
        /// awaited before the engine sleeps on; `nil` calls nothing.
        package var atRest: (@Sendable () async -> Void)?
        /// Called when the engine wakes from the rest ``atRest`` was called
        /// for, before its next pass; `nil` calls nothing.
        package var awake: (@Sendable () -> Void)?
        /// How long after a pass the engine must have stayed asleep before ``atRest`` is called. Default 30 s.
        package var restAfter: Duration = .seconds(30)
        /// How many rows of one pass are handed to their channels at once
        /// (see "Side by side" in the type's documentation). Default 4.
        package var concurrentDeliveries = 4

        package init() {}
    }

    /// Something that should make the engine look again now.
    package enum Event: Sendable, Hashable {
        case wake(WakeReason)
        /// SIGHUP: settings may have changed.
        case reload
        /// Another command wrote the database: people, settings or choices may have changed.
        case storeChanged
        /// Show this reminder again after this long.
        case snooze(id: String, duration: Duration)
        /// The user is done with this reminder.
        case dismiss(id: String)
        /// The desktop's "Skip greeting": skip the greeting of person `personID` on `day`, as `greet skip` does.
        case skipGreeting(personID: String, day: LocalDate)
    }

    /// The channels for the current settings, permission and added channels
    /// (those not paused; the daemon keeps long-lived channels and chooses among them).
    package typealias ChannelFactory = @Sendable (Settings, AuthorizationStatus, [RemoteChannel]) -> ChannelSet

    /// The sink that delivers a team room's messages (`birthdays announce`).
    package typealias RoomFactory = @Sendable (AnnounceRoom) -> any NotificationSink

    /// Sends a friend's greeting (`birthdays greet`): the choice, the friend
    /// (without the owner's note), the greeting's day in their zone, the
    /// settings and the instant it goes out.
    package typealias GreetingSend = @Sendable (Greeting, Person, GreetingPlan.Occurrence, Settings, Date) async throws(DeliveryError) -> Void

    /// Whether a channel answers now (the daemon asks whether a desktop
    /// notification server does); see "Provisional ends by itself" above.
    package typealias ChannelCheck = @Sendable (Settings) async -> Bool

    /// What one pass did.
    package struct PassResult: Sendable, Equatable {
        package var status: AuthorizationStatus = .notDetermined
        /// Rows added to the ledger because their instant came.
        package var queued = 0
        /// Reminders a channel delivered for the first time (some of them with other channels left to retry: ``partly``).
        package var delivered = 0
        /// Of ``delivered``, how many have channels left to retry.
        package var partly = 0
        /// Of ``delivered``, how many were late.
        package var late = 0
        /// Reminders no channel has delivered yet, waiting for a retry.
        package var retrying = 0
        package var failed = 0
        package var missed = 0
        /// Rows another engine claimed first.
        package var skipped = 0
        /// Rows whose local day or time has not come yet (the zone moved west): moved to their new instant.
        package var waiting = 0
        /// Reminders of people whose chosen channels no longer deliver, sent through the default set instead.
        package var defaulted = 0
        /// Pending requests after the reschedule.
        package var scheduled = 0
        /// The local day the pass ran on (in the user's zone).
        package var today: LocalDate?

        /// Adds the counts of rows handled apart (``delivered`` and the others; not the pass's own fields).
        mutating func add(_ other: PassResult) {
            delivered += other.delivered
            partly += other.partly
            late += other.late
            retrying += other.retrying
            failed += other.failed
            missed += other.missed
            skipped += other.skipped
            waiting += other.waiting
            defaulted += other.defaulted
        }

        /// Counts what ``DeliveryTransition`` made of one row.
        mutating func count(_ tally: DeliveryTransition.Tally) {
            switch tally {
            case .delivered(let late):
                delivered += 1
                if late { self.late += 1 }
            case .deliveredRetrying(let late):
                delivered += 1
                partly += 1
                if late { self.late += 1 }
            case .retrying: retrying += 1
            case .failed: failed += 1
            case .missed: missed += 1
            case .waiting: waiting += 1
            case .none: break
            }
        }
    }

    private let database: AppDatabase
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let systemTimeZone: @Sendable () -> TimeZone
    private let systemLocale: String?
    private let channels: ChannelFactory
    private let channelCheck: ChannelCheck?
    private let rooms: RoomFactory?
    private let greetings: GreetingSend?
    private let configuration: Configuration
    private let logger: Logger
    private let alarm = Alarm()

    private var warnedNotAllowed = false
    /// How many passes have completed (observable by tests).
    package private(set) var passes = 0

    /// - Parameters:
    ///   - database: people, settings, pending requests and the ledger.
    ///   - clock: what ``run(events:)`` sleeps on.
    ///   - now: the current instant.
    ///   - systemTimeZone: the system zone, read again on every pass.
    ///   - systemLocale: the environment's locale, for the reminders' words
    ///     when the `language` setting is `system` (``Language/fromEnvironment(_:)``).
    ///   - channels: makes the channel set for a pass.
    ///   - channelCheck: asks whether a channel answers, to end a
    ///     `provisional` permission; `nil` never ends it.
    ///   - rooms: makes the sink of a team room; `nil` leaves the rooms' messages queued.
    ///   - greetings: sends a friend's greeting; `nil` leaves the greetings queued.
    ///   - logger: receives counts, never names.
    package init(
        database: AppDatabase,
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        systemLocale: String? = nil,
        channels: @escaping ChannelFactory,
        channelCheck: ChannelCheck? = nil,
        rooms: RoomFactory? = nil,
        greetings: GreetingSend? = nil,
        configuration: Configuration = Configuration(),
        logger: Logger
    ) {
        self.database = database
        self.clock = clock
        self.now = now
        self.systemTimeZone = systemTimeZone
        self.systemLocale = systemLocale
        self.channels = channels
        self.channelCheck = channelCheck
        self.rooms = rooms
        self.greetings = greetings
        self.configuration = configuration
        self.logger = logger
    }

    /// Whether the pass should stop before the next reminder.
    private static var stopping: Bool { Task.isCancelled || Task.isShuttingDownGracefully }

    /// Marks rows left in `sending` by a crashed daemon as `interrupted`
    /// (not resent; see the type's documentation). Call once at start, while
    /// holding the daemon lock.
    @discardableResult
    package func recoverInterrupted() async throws(StoreError) -> Int {
        let instant = now()
        let count = try await database.interruptSending(now: instant)
        if count > 0 {
            logger.warning("reminders interrupted by an earlier stop were not resent (at most once)", metadata: ["interrupted": "\(count)"])
        }
        return count
    }

    /// Collects what is due, delivers, retries or records misses, then reschedules.
    @discardableResult
    package func runOnePass() async throws(StoreError) -> PassResult {
        let start = now()
        let system = systemTimeZone()
        var result = PassResult()
        let due = try await database.collectDue(now: start, systemTimeZone: system)
        let (settings, stored, queued, work, ids) = (due.settings, due.status, due.queued, due.entries, due.publicIDs)
        let remote = due.remoteChannels
        var status = stored
        if status == .provisional, try await authorizeIfAChannelAnswers(settings) { status = .authorized }
        result.status = status
        result.queued = queued
        let zone = settings.resolvedTimeZone(system: system)
        result.today = LocalDate.today(at: start, in: zone)
        let consent = ChannelConsent(status: status, builtIn: settings.channels, added: remote.map(\.name))
        // A team room's message goes to its room alone, whatever the user's channels: adding the room was its consent.
        let roomSinks = status == .denied ? nil : rooms
        // A friend's greeting likewise: adding the greeting was its consent.
        let greetingSend = status == .denied ? nil : greetings
        let set = consent.delivers ? channels(settings, status, remote) : nil
        let pass = Pass(zone: zone, settings: settings, localizer: settings.localizer(systemLocale: systemLocale), ids: ids)
        // Side by side, at most `concurrentDeliveries` rows at once: one slow room or channel holds up no other row.
        let limit = max(1, configuration.concurrentDeliveries)
        await withTaskGroup(of: PassResult.self) { group in
            var running = 0
            for entry in work {
                // Stopping ends the pass between reminders; those under way finish, the rest stay queued for the next start.
                if Self.stopping { break }
                let work: @Sendable () async -> PassResult
                switch entry.deliveryKind {
                case .announcement(let name):
                    guard let roomSinks else { continue }
                    let room = due.rooms.first { $0.name == name }
                    let target = Target(set: ChannelSet(room.map { [ChannelSet.Member(name: $0.stateName, sink: roomSinks($0))] } ?? []))
                    work = { await self.handle(entry, to: target, in: pass) }
                case .greeting(let personID):
                    guard let greetingSend else { continue }
                    let friend = due.greetings[personID]
                    work = { await self.handleGreeting(entry, friend: friend, send: greetingSend, in: pass) }
                case .reminder, .digest, .invitationNotice:
                    guard let set else { continue }
                    let target = Target(
                        set: set,
                        personChannels: due.personChannels[entry.personID],
                        reach: due.reach[entry.personID],
                        greetingDay: GreetingPlan.skippable(entry, greetingDay: due.unsentGreetings[entry.personID])
                    )
                    work = { await self.handle(entry, to: target, in: pass) }
                }
                if running >= limit, let done = await group.next() {
                    result.add(done)
                    running -= 1
                    if Self.stopping { break }
                }
                running += 1
                group.addTask { await work() }
            }
            for await done in group { result.add(done) }
        }
        if consent.delivers {
            warnedNotAllowed = false
        } else if !warnedNotAllowed {
            warnedNotAllowed = true
            // Team rooms are not the user's channels: only a denied permission stops them.
            let roomsDeliver = roomSinks != nil && !due.rooms.isEmpty
            logger.notice(
                roomsDeliver
                    ? "no channel of the user's delivers; only the team rooms get their messages"
                    : "no channel delivers; no reminder is delivered",
                metadata: ["status": "\(status.rawValue)"]
            )
        }
        let scheduler = NotificationScheduler(database: database, now: now, systemTimeZone: { system }, systemLocale: systemLocale, logger: logger)
        result.scheduled = try await scheduler.reschedule().scheduled
        passes += 1
        logger.info(
            "delivery pass",
            metadata: [
                "queued": "\(result.queued)", "delivered": "\(result.delivered)", "partly": "\(result.partly)", "late": "\(result.late)",
                "retrying": "\(result.retrying)", "failed": "\(result.failed)", "missed": "\(result.missed)",
                "skipped": "\(result.skipped)", "waiting": "\(result.waiting)", "scheduled": "\(result.scheduled)",
                "defaulted": "\(result.defaulted)",
            ]
        )
        return result
    }

    /// Ends a `provisional` permission once a channel answers: asked on every
    /// pass while it lasts (at start, and before anything is delivered), it
    /// stores `authorized` (unless the permission changed meanwhile) and
    /// logs that it did. Whether it did.
    private func authorizeIfAChannelAnswers(_ settings: Settings) async throws(StoreError) -> Bool {
        guard let channelCheck, await channelCheck(settings) else { return false }
        let changed = try await database.authorizeIfProvisional()
        if changed {
            logger.notice(
                "a desktop notification server answers: notifications moved from provisional to authorized",
                metadata: ["channels": "\(settings.channels.map(\.rawValue).joined(separator: ","))"]
            )
        }
        return changed
    }

    /// Saves `entry` if its row is still in one of `states`; whether it was.
    private func finish(_ entry: DeliveryEntry, from states: [DeliveryEntry.State]) async throws(StoreError) -> Bool {
        try await database.finishDelivery(entry, from: states)
    }

    /// The channels of `set` that `entry` goes to: those it is being retried
    /// through, else those its person chose (``Person/channels``) that are
    /// in `set`, else all (`nil`). When none of the person's channels exists
    /// or delivers any more, the reminder is not dropped: it goes through the
    /// whole set, and the second value says so.
    static func channels(for entry: DeliveryEntry, in set: ChannelSet, personChannels: [String]?) -> (only: Set<String>?, defaulted: Bool) {
        if let retrying = entry.channels { return (Set(retrying), false) }
        guard let chosen = personChannels else { return (nil, false) }
        let available = Set(chosen).intersection(set.names)
        return available.isEmpty ? (nil, true) : (available, false)
    }

    /// Where one row goes: the channel set (the pass's, or a room's alone),
    /// the channels its person chose, the ways to reach them and their note.
    private struct Target: Sendable {
        var set: ChannelSet
        var personChannels: [String]? = nil
        var reach: PersonReach? = nil
        /// The day of the friend's greeting this reminder may skip (``Reminder/skippableGreeting``).
        var greetingDay: LocalDate? = nil
    }

    /// What every row of one pass shares: the zone in force, the settings,
    /// their language and the keyed hash of the ids logs show.
    private struct Pass: Sendable {
        var zone: TimeZone
        var settings: Settings
        var localizer: Localizer
        var ids: PublicID
    }

    /// Performs ``DeliveryTransition`` for one row: decides, claims, sends
    /// the words core gives it (``NotificationContent/delivered(_:late:reach:timeZone:settings:in:publicIDs:)``)
    /// through the channels the row goes to, records each channel's outcome
    /// and saves the row; what it counted. Every decision is the
    /// transition's, and the words are core's; this only does the I/O.
    private func handle(_ original: DeliveryEntry, to target: Target, in pass: Pass) async -> PassResult {
        var result = PassResult()
        var entry = original
        let instant = now()
        let (zone, deliveryTime, quietAfter) = (pass.zone, pass.settings.deliveryTime, pass.settings.quietAfter)
        do {
            let decision = entry.decision(
                now: instant,
                timeZone: zone,
                deliveryTime: deliveryTime,
                quietAfter: quietAfter,
                lateAfter: configuration.lateAfter
            )
            guard let late = try await start(entry, decision: decision, at: instant, counting: &result) else { return result }
            let day = entry.localDay(in: zone, deliveryTime: deliveryTime, quietAfter: quietAfter)
            entry.fireAt = entry.localFireAt(in: zone, deliveryTime: deliveryTime, quietAfter: quietAfter)
            let claimed = entry
            guard try await database.claimDelivery(claimed, now: instant) else {
                result.skipped += 1
                return result
            }
            var reminder = NotificationContent.delivered(
                entry,
                late: late,
                reach: target.reach,
                timeZone: zone,
                settings: pass.settings,
                in: pass.localizer,
                publicIDs: pass.ids
            )
            reminder.skippableGreeting = target.greetingDay
            let (only, defaulted) = Self.channels(for: entry, in: target.set, personChannels: target.personChannels)
            if defaulted {
                result.defaulted += 1
                logger.warning(
                    "none of the channels chosen for this reminder's person delivers now; sent through the default channels",
                    metadata: ["id": "\(reminder.logID)"]
                )
            }
            let outcomes = await target.set.deliverEach(reminder, only: only)
            let finished = now()
            let after = DeliveryTransition.after(
                entry,
                outcomes: outcomes,
                late: late,
                finishedAt: finished,
                deadline: RetryPolicy.deadline(dueDay: day, in: zone),
                policy: configuration.retryPolicy
            )
            do {
                try await database.recordChannelOutcomes(after.channels.map { ($0.channel, $0.error) }, at: finished)
            } catch {
                logger.warning("cannot record how the channels fared", metadata: ["error": "\(error)"])
            }
            result.count(after.tally)
            if let warning = after.warning {
                logger.warning(
                    after.entry.state == .delivered || after.entry.deliveredAt != nil
                        ? "reminder delivered, but not through every channel"
                        : after.entry.state == .failed ? "reminder refused by its channels" : "reminder delivery failed",
                    metadata: ["id": "\(reminder.logID)", "error": "\(warning)", "attempts": "\(after.entry.attempts)"]
                )
            }
            _ = try await finish(after.entry, from: [.sending])
        } catch {
            logger.error("cannot update the delivery ledger", metadata: ["error": "\(error)"])
        }
        return result
    }
    /// What the ledger's transition before a send makes of a due row
    /// (``DeliveryTransition/before(_:decision:now:)``): `nil` when it
    /// finished or moved the row (counted in `result`), else whether the send is late.
    private func start(
        _ entry: DeliveryEntry,
        decision: DueDecision,
        at instant: Date,
        counting result: inout PassResult
    ) async throws(StoreError) -> Bool? {
        switch DeliveryTransition.before(entry, decision: decision, now: instant) {
        case .finish(let finished, let states, let tally):
            if try await finish(finished, from: states) { result.count(tally) }
            return nil
        case .move(let moment):
            try await database.moveDelivery(entry, to: moment, now: instant)
            result.count(.waiting)
            return nil
        case .send(let isLate):
            return isLate
        }
    }

    /// Performs a friend's greeting (see "Greetings" in the type's
    /// documentation): decides by their day in their zone, claims, sends it
    /// to them alone and saves the row; what it counted.
    private func handleGreeting(_ entry: DeliveryEntry, friend: GreetingDue?, send: GreetingSend, in pass: Pass) async -> PassResult {
        var result = PassResult()
        let instant = now()
        let plan = GreetingPlan(time: pass.settings.greetingTime, leapDay: pass.settings.leapDay, lateAfter: configuration.lateAfter)
        let occurrence = friend.flatMap { friend in
            plan.occurrence(
                on: entry.occurrenceDate,
                age: friend.person.birthday?.age(in: entry.occurrenceDate.year),
                zone: GreetingPlan.zone(of: friend.person, owner: pass.zone)
            )
        }
        let decision = plan.decision(
            for: entry,
            occurrence: occurrence,
            greeted: friend?.greeting != nil,
            skipped: friend?.skipped.contains(entry.occurrenceDate.year) ?? false,
            now: instant
        )
        let logID = pass.ids.reminder(entry.notificationID)
        do {
            guard let late = try await start(entry, decision: decision, at: instant, counting: &result) else { return result }
            // `.send` comes only for a friend still greeted on a day that exists.
            guard let friend, let greeting = friend.greeting, let occurrence else { return result }
            guard try await database.claimDelivery(entry, now: instant) else {
                result.skipped += 1
                return result
            }
            var failure: DeliveryError?
            do {
                try await send(greeting, friend.person, occurrence, pass.settings, instant)
            } catch {
                failure = error
            }
            let after = DeliveryTransition.after(
                entry,
                outcomes: [ChannelSet.Outcome(channel: "greeting", error: failure)],
                late: late,
                finishedAt: now(),
                deadline: occurrence.ends,
                policy: configuration.retryPolicy
            )
            result.count(after.tally)
            if after.warning != nil {
                logger.warning(
                    after.entry.state == .failed ? "greeting not sent" : "greeting failed; retried within the friend's day",
                    // Not the error's words: a mail program's may quote the friend's address.
                    metadata: ["id": "\(logID)", "attempts": "\(after.entry.attempts)"]
                )
            } else {
                logger.info("greeting sent", metadata: ["id": "\(logID)", "late": "\(late)"])
            }
            _ = try await finish(after.entry, from: [.sending])
        } catch {
            logger.error("cannot update the delivery ledger", metadata: ["error": "\(error)"])
        }
        return result
    }

    /// The next instant the engine has work: the soonest of the next pending
    /// fire instant, the next snooze or retry, and the next local midnight.
    /// Never earlier than one second from now.
    package func nextWakeup() async throws(StoreError) -> Date {
        let instant = now()
        let system = systemTimeZone()
        let inputs = try await database.wakeupInputs()
        let (settings, pending, ledger) = (inputs.settings, inputs.pending, inputs.ledger)
        let zone = settings.resolvedTimeZone(system: system)
        let midnight = RetryPolicy.deadline(dueDay: LocalDate.today(at: instant, in: zone), in: zone)
        let candidates = [pending, ledger, midnight].compactMap { $0 }
        return max(candidates.min() ?? midnight, instant.addingTimeInterval(1))
    }

    /// Makes a sleeping ``run(events:)`` pass again now (or skip its next sleep).
    package nonisolated func poke() {
        alarm.ring()
    }

    /// Applies one event and pokes the loop.
    package func handle(_ event: Event) async {
        let instant = now()
        let ledger = DeliveryLedger(database: database)
        do {
            switch event {
            case .wake(let reason):
                logger.info("woken", metadata: ["reason": "\(reason.logName)"])
            case .reload:
                logger.info("reloading settings")
            case .storeChanged:
                logger.info("passing again after a write by another command")
            case .snooze(let id, let duration):
                let snoozed = try await ledger.snooze(id: id, for: duration, now: instant)
                logger.info("reminder snoozed", metadata: ["found": "\(snoozed != nil)"])
            case .dismiss(let id):
                let count = try await ledger.dismiss(id: id, now: instant)
                logger.info("reminder dismissed", metadata: ["rows": "\(count)"])
            case .skipGreeting(let personID, let day):
                // The pass this pokes plans the next year's greeting, or dismisses a row already due.
                let skipped = try await database.skipGreeting(personID: personID, unlessSentOn: day)
                logger.info(
                    skipped ? "greeting skipped" : "greeting not skipped: it has gone already, or was skipped",
                    metadata: ["found": "\(skipped)"]
                )
            }
        } catch {
            logger.error("cannot record the action", metadata: ["error": "\(error)"])
        }
        poke()
    }

    /// Runs passes until a graceful shutdown or cancellation: recover, then
    /// pass, sleep until ``nextWakeup()`` or an event, pass again. Store
    /// errors are logged and the loop goes on (it tries again at the next wakeup).
    ///
    /// - Parameter newDay: called after a pass that ran on a later local day
    ///   than the one before (the midnight wake), for work that follows the
    ///   day without a timer of its own (the daemon syncs its sources then).
    package func run(events: AsyncStream<Event>, newDay: (@Sendable (LocalDate) -> Void)? = nil) async {
        do { try await recoverInterrupted() } catch { logger.error("cannot read the delivery ledger", metadata: ["error": "\(error)"]) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events { await self.handle(event) }
            }
            var lastDay: LocalDate?
            while !Self.stopping {
                var wakeup = now().addingTimeInterval(60)
                do {
                    let pass = try await runOnePass()
                    if let today = pass.today {
                        if let lastDay, today > lastDay { newDay?(today) }
                        lastDay = today
                    }
                    wakeup = try await nextWakeup()
                } catch {
                    logger.error("delivery pass failed", metadata: ["error": "\(error)"])
                }
                if Self.stopping { break }
                logger.info("next pass", metadata: ["at": "\(ISOInstant.format(wakeup, in: systemTimeZone()))"])
                await sleep(until: wakeup)
            }
            group.cancelAll()
        }
    }

    /// Sleeps until `wakeup`, a poke, a graceful shutdown or cancellation.
    ///
    /// When the next pass is more than twice ``Configuration/restAfter``
    /// away, the sleep is cut in two: once the engine has slept
    /// `restAfter` undisturbed (no poke: a burst of writes from other
    /// commands keeps it awake), ``Configuration/atRest`` is called, then
    /// it sleeps on until `wakeup`, and ``Configuration/awake`` is called.
    private func sleep(until wakeup: Date) async {
        if let atRest = configuration.atRest {
            let rest = now().addingTimeInterval(configuration.restAfter.timeInterval)
            if wakeup.timeIntervalSince(rest) > configuration.restAfter.timeInterval {
                guard await sleepOnce(until: rest) else { return }
                await atRest()
                await sleepOnce(until: wakeup)
                configuration.awake?()
                return
            }
        }
        await sleepOnce(until: wakeup)
    }

    /// Sleeps until `wakeup`, a poke, a graceful shutdown or cancellation;
    /// `true` when it slept until `wakeup`.
    @discardableResult
    private func sleepOnce(until wakeup: Date) async -> Bool {
        let clock = self.clock
        let alarm = self.alarm
        let now = self.now
        return await withGracefulShutdownHandler {
            await alarm.sleep {
                try await clock.sleep(untilWallClock: wakeup, now: now)
            }
        } onGracefulShutdown: {
            alarm.ring()
        }
    }
}
