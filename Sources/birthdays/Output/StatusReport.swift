import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

/// What `birthdays status` reports; built from the database and the lock only.
///
/// Reminder ids are shown in their public form (``PublicID``, `r-…`), which
/// `snooze` and `dismiss` accept: a status report pasted into a bug report
/// says nothing about whose birthday it is. On a terminal (and only there:
/// never in `--json`, a pipe or a log) the text names the people too, since
/// the one reading it is the one whose address book it is.
///
/// A daemon that is not running is a missed birthday waiting to happen, so
/// the text says how to start it: `systemctl --user start birthdays` when the
/// service is installed, else `birthdays service install`. A daemon that
/// runs while the next fire time is more than ``overdueAfter`` past is late
/// or stuck (it moves a due reminder into the ledger within a second, and
/// the slowest channel hands one over within its 60 s timeout and grace),
/// and the text says so and what to look at.
struct StatusReport {
    /// How long past its fire time a reminder may still be pending while a daemon runs.
    static let overdueAfter: TimeInterval = 90

    var pid: Int32?
    var now: Date
    var permission: AuthorizationStatus
    /// The channels that deliver (``ChannelConsent``).
    var channels: [String]
    var pending: Int
    var nextFire: Date?
    var last: DeliveryEntry?
    var recent: [DeliveryEntry]
    var days: Int
    var zone: TimeZone
    var sources: [Source]
    /// The CalDAV calendars `publish` writes into, with how each fares.
    var publishTargets: [PublishTarget] = []
    var ids: PublicID
    /// The id of the person of the next reminder.
    var nextPersonID: String?
    /// Names by person id, for a terminal; empty otherwise.
    var names: [String: String] = [:]
    /// Whether the systemd user service's unit file is installed.
    var serviceInstalled: Bool
    /// How each delivering channel has fared, by name.
    var channelStatuses: [String: ChannelStatus] = [:]
    /// The people (ids, sorted) who chose channels (`remind --channels`) none
    /// of which delivers now (removed, paused, or out of the `channels`
    /// setting): their reminders go through the default channels.
    var defaultedPeople: [String] = []
    /// The team rooms (`birthdays announce`) with their next messages.
    var rooms: [AnnounceRoomSummary] = []

    /// - Parameter names: look up the people's names (for a terminal).
    init(context: Context, days: Int, names: Bool = false) async throws {
        let (_, zone) = try await context.settings()
        let database = context.database
        self.zone = zone
        self.days = days
        now = context.now
        pid = DaemonLock.holder(database: database.path)
        permission = try await database.authorizationStatus()
        ids = try await database.publicIDs()
        channels = try await database.channelConsent().consent.names
        let reminders = try await database.pendingReminders()
        pending = reminders.count
        let ledgerWork = try await database.nextLedgerWork()
        let next = [reminders.first?.request.fireAt, ledgerWork].compactMap { $0 }.min()
        nextFire = next
        nextPersonID = reminders.first.flatMap { $0.request.fireAt == next ? $0.request.personID : nil }
        last = try await database.lastDelivery()
        recent = try await database.deliveries(updatedSince: context.now.addingTimeInterval(-Double(max(days, 0)) * 86_400))
        sources = try await database.sources(counting: false)
        publishTargets = try await database.publishTargets()
        serviceInstalled = context.userService().isInstalled
        channelStatuses = try await database.channelStatuses()
        rooms = try await database.announceSummaries(now: context.now, systemTimeZone: context.systemTimeZone)
        let delivering = Set(channels)  // paused ones are not among them (ChannelConsent)
        defaultedPeople = try await database.channelChoices().filter { delivering.isDisjoint(with: $0.value) }.keys.sorted()
        if names {
            var wanted = Set(recent.map(\.personID)).union(defaultedPeople)
            if let next = nextPersonID { wanted.insert(next) }
            if let last = last?.personID { wanted.insert(last) }
            let found = try await database.names(ids: Array(wanted))
            self.names = found
        }
    }

    /// When the running daemon syncs `source` next; `nil` without a daemon (nothing syncs then).
    func nextSync(_ source: Source) -> Date? {
        pid == nil ? nil : source.status.nextSync
    }

    /// How a publish target fares: `ok` (its last publish succeeded), `partial`
    /// (it succeeded but left events alone: their address holds an event birthdays did not write, ``PublishTarget/leftAlone``),
    /// `retrying` (it failed; the running daemon tries again at ``nextPublish(_:)``)
    /// or `failing` (it failed and nothing retries it: no daemon runs, or a
    /// publish that would delete most of the events waits for `publish sync --force`).
    func state(_ target: PublishTarget) -> String {
        if target.lastError == nil { return target.leftAlone > 0 ? "partial" : "ok" }
        return nextPublish(target) == nil ? "failing" : "retrying"
    }

    /// When the running daemon publishes to a failing `target` again; `nil` without a daemon.
    func nextPublish(_ target: PublishTarget) -> Date? {
        pid == nil ? nil : target.nextAttempt
    }

    /// " (Ada Lovelace)" for a terminal, "" otherwise.
    func named(_ personID: String?) -> String {
        guard let personID, let name = names[personID] else { return "" }
        return " (" + (name.isEmpty ? "no name" : SafeText.line(name, maxCharacters: 60)) + ")"
    }

    /// How to start the daemon: the service when its unit is installed, else the command that installs it.
    var startHint: String {
        serviceInstalled
            ? "start it with: systemctl --user start birthdays (journalctl --user -u birthdays says why it stopped)"
            : "start it with: birthdays service install (or keep 'birthdays run' running yourself)"
    }

    static let problemStates: [DeliveryEntry.State] = [.failed, .missed, .interrupted, .retrying]

    /// The state a row is reported in: a reminder that a channel delivered is
    /// `delivered`, even while another channel is still retried.
    static func reported(_ entry: DeliveryEntry) -> DeliveryEntry.State {
        entry.state == .retrying && entry.deliveredAt != nil ? .delivered : entry.state
    }

    func count(_ state: DeliveryEntry.State) -> Int { recent.filter { Self.reported($0) == state }.count }

    /// The friends' greetings (`birthdays greet`) of the last ``days`` days in `state`.
    func greetings(_ state: DeliveryEntry.State) -> Int {
        recent.filter { $0.deliveryKind.greetedPersonID != nil && Self.reported($0) == state }.count
    }

    var problems: [DeliveryEntry] { recent.filter { Self.problemStates.contains(Self.reported($0)) } }

    func iso(_ date: Date?) -> String? { date.map { ISOInstant.format($0, in: zone) } }

    /// `birthdays status --json`.
    struct Output: Encodable {
        struct Daemon: Encodable {
            var running: Bool
            var pid: Int?
            /// The fire time a running daemon should have handled more than 90 s ago (late or stuck); absent otherwise.
            var overdue_since: String?
        }

        /// The desktop had nowhere to show a reminder (no session, no notification server).
        struct DesktopUnavailable: Encodable {
            var since: String?
            var error: String?
            /// The channels that delivered instead; empty when the reminders wait for a desktop session.
            var delivered_instead: [String]
        }

        /// A channel that refused its last reminders for good, or is paused.
        struct ChannelProblem: Encodable {
            var name: String
            /// `refused` or `paused`.
            var state: String
            var error: String?
        }

        struct LastDelivery: Encodable {
            var id: String
            var occurrence: String
            var fire_at: String
            var delivered_at: String?
            var late: Bool
        }

        /// Counts by state, in the order of ``DeliveryEntry/State``.
        struct Recent: Encodable {
            var days: Int
            var counts: [(String, Int)]

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: JSONKey.self)
                try container.encode(days, forKey: JSONKey("days"))
                for (state, count) in counts { try container.encode(count, forKey: JSONKey(state)) }
            }
        }

        /// A source as status shows it: no location, no people count.
        struct SourceState: Encodable {
            var name: String
            var kind: String
            var last_sync: String?
            var next_sync: String?
            var error: String?
        }

        /// A publish target as status shows it: no server, calendar or password.
        struct PublishState: Encodable {
            var name: String
            /// `ok`, `partial`, `retrying` or `failing`.
            var state: String
            var events: Int
            /// Events of the feed its last publish left alone: their address holds an event birthdays did not write.
            var left_alone: Int
            var last_publish: String?
            var next_attempt_at: String?
            var failures: Int
            var error: String?
        }

        /// A team room as the text's `Team rooms:` line shows it: no target, so no secret.
        struct RoomState: Encodable {
            var name: String
            var group: String
            /// The next message's day (YYYY-MM-DD) and how many people it names; `null` when no birthday of the group lies ahead.
            var next_day: String?
            var next_people: Int?
            /// Its last message failed (it is retried, as a channel's).
            var failing: Bool
            var last_error: String?
        }

        struct GreetingCounts: Encodable {
            var sent: Int
            var missed: Int
            /// A daemon stopped while handing them over: perhaps sent, never sent again.
            var interrupted: Int
        }

        struct Problem: Encodable {
            var id: String
            var occurrence: String
            var state: String
            var fire_at: String
            var attempts: Int
            var next_attempt_at: String?
            var error: String?
        }

        var daemon: Daemon
        var permission: String
        var channels: [String]
        var pending: Int
        var next_fire: String?
        var last_delivery: LastDelivery?
        var recent: Recent
        var problems: [Problem]
        var sources: [SourceState]
        var publish_targets: [PublishState]
        var rooms: [RoomState]
        var channel_problems: [ChannelProblem]
        /// The friends' greetings of the last `days` days: sent, missed and interrupted.
        var greetings: GreetingCounts
        var desktop_unavailable: DesktopUnavailable?
        /// The desktop is the only channel and no notification server took a reminder in the last week.
        var desktop_unanswered: Bool
        /// Public ids of the people none of whose chosen channels delivers: their reminders use the default channels.
        var people_on_default_channels: [String]
    }

    /// The channels that refused their last reminders for good, or are paused, with their status.
    var channelProblems: [(name: String, status: ChannelStatus)] {
        channels.compactMap { name in channelStatuses[name].flatMap { $0.state == "refused" || $0.paused ? (name, $0) : nil } }
    }

    /// The desktop's last attempt found nowhere to show the reminder: since
    /// when, why, and which channels delivered since (empty: the reminders
    /// wait for a desktop session). `nil` when the desktop is off or fine.
    var desktopUnavailable: (since: Date, error: String?, deliveredInstead: [String])? {
        let desktop = ChannelKind.desktop.rawValue
        guard channels.contains(desktop), let status = channelStatuses[desktop], status.state == "unavailable", let since = status.lastErrorAt
        else { return nil }
        // Every channel's outcome of one attempt is recorded at the same instant.
        let instead = channels.filter { $0 != desktop && (channelStatuses[$0]?.lastSuccess ?? .distantPast) >= since }
        return (since, status.lastError, instead)
    }

    /// Whether the desktop is the only channel and no notification server has
    /// taken a reminder in the last week although one was tried: reminders
    /// may be going nowhere while the machine runs without a desktop.
    var desktopUnanswered: Bool {
        guard channels == [ChannelKind.desktop.rawValue], let desktop = channelStatuses[ChannelKind.desktop.rawValue],
            let failedAt = desktop.lastErrorAt, failedAt > now.addingTimeInterval(-7 * 86_400)
        else { return false }
        // Tried in the last week, and nothing got through since a week ago.
        return failedAt > (desktop.lastSuccess ?? .distantPast) && (desktop.lastSuccess ?? .distantPast) < now.addingTimeInterval(-7 * 86_400)
    }

    /// The fire time a running daemon should have handled by now, if any.
    var overdue: Date? {
        guard pid != nil, let nextFire, now.timeIntervalSince(nextFire) > Self.overdueAfter else { return nil }
        return nextFire
    }

    var output: Output {
        Output(
            daemon: .init(running: pid != nil, pid: pid.map(Int.init), overdue_since: iso(overdue)),
            permission: permission.rawValue,
            channels: channels,
            pending: pending,
            next_fire: iso(nextFire),
            last_delivery: last.map { entry in
                .init(
                    id: ids.reminder(entry.notificationID),
                    occurrence: entry.occurrenceDate.description,
                    fire_at: ISOInstant.format(entry.fireAt, in: zone),
                    delivered_at: iso(entry.deliveredAt),
                    late: entry.late
                )
            },
            recent: .init(
                days: days,
                counts: DeliveryEntry.State.allCases.filter { $0 != .queued && $0 != .sending }.map { ($0.rawValue, count($0)) }
            ),
            problems: problems.map { entry in
                .init(
                    id: ids.reminder(entry.notificationID),
                    occurrence: entry.occurrenceDate.description,
                    state: entry.state.rawValue,
                    fire_at: ISOInstant.format(entry.fireAt, in: zone),
                    attempts: entry.attempts,
                    next_attempt_at: iso(entry.nextAttemptAt),
                    error: entry.lastError
                )
            },
            sources: sources.map { source in
                .init(
                    name: source.name,
                    kind: source.kind.rawValue,
                    last_sync: iso(source.status.lastSync),
                    next_sync: iso(nextSync(source)),
                    error: source.status.error
                )
            },
            publish_targets: publishTargets.map { target in
                .init(
                    name: target.name,
                    state: state(target),
                    events: target.events,
                    left_alone: target.leftAlone,
                    last_publish: iso(target.lastPublish),
                    next_attempt_at: iso(nextPublish(target)),
                    failures: target.failures,
                    error: target.lastError
                )
            },
            rooms: rooms.map { summary in
                .init(
                    name: summary.room.name,
                    group: summary.room.group,
                    next_day: summary.next?.day.description,
                    next_people: summary.next?.people.count,
                    failing: summary.status?.lastFailure != nil,
                    last_error: summary.status?.lastError
                )
            },
            channel_problems: channelProblems.map { .init(name: $0.name, state: $0.status.state, error: $0.status.lastError) },
            greetings: .init(sent: greetings(.delivered), missed: greetings(.missed), interrupted: greetings(.interrupted)),
            desktop_unavailable: desktopUnavailable.map { .init(since: iso($0.since), error: $0.error, delivered_instead: $0.deliveredInstead) },
            desktop_unanswered: desktopUnanswered,
            people_on_default_channels: defaultedPeople.map(ids.person)
        )
    }

    var text: String {
        var lines: [String] = []
        lines.append("Daemon: " + (pid.map { "running (pid \($0))" } ?? "not running; reminders are delivered only while it runs, so " + startHint))
        lines.append("Notifications: \(permission.rawValue); channels: \(channels.isEmpty ? "none" : channels.joined(separator: ","))")
        if !rooms.isEmpty {
            let each = rooms.map { summary in
                summary.room.name + (summary.next.map { " (next " + AnnounceOutput.day($0) + ")" } ?? "")
                    + (summary.status?.lastFailure != nil ? " failing: " + SafeText.line(summary.status?.lastError ?? "", maxCharacters: 120) : "")
            }
            lines.append(
                "Team rooms: " + each.joined(separator: ", ") + (permission == .denied ? "; notifications are off, so none gets a message" : "")
            )
        }
        if channels.isEmpty, !rooms.isEmpty, permission != .denied {
            lines.append(
                "Only the team rooms get messages: no channel of yours is on. Allow the desktop with: birthdays notifications enable, "
                    + "or add a channel: birthdays channels add email ADDRESS (or ntfy URL)"
            )
        } else if channels.isEmpty {
            lines.append(
                permission == .denied
                    ? "Nothing is delivered: notifications are off. Turn them on with: birthdays notifications enable"
                    : "Nothing is delivered: no channel is on. Allow the desktop with: birthdays notifications enable, "
                        + "or add a channel: birthdays channels add email ADDRESS (or ntfy URL)"
            )
        }
        lines.append("Pending: \(pending)" + (iso(nextFire).map { "; next \($0)" + named(nextPersonID) } ?? ""))
        if let overdue {
            let minutes = Int(now.timeIntervalSince(overdue) / 60)
            lines.append(
                "Warning: the next reminder was due at \(Wording.wallClock(overdue, zone: zone))"
                    + (minutes > 0 ? " (\(minutes) min ago)" : "")
                    + " and the running daemon has not handled it: it is late or stuck. "
                    + (serviceInstalled
                        ? "See journalctl --user -u birthdays, or restart it: systemctl --user restart birthdays"
                        : "See its log, or stop it and start birthdays run again")
            )
        }
        for (name, status) in channelProblems {
            let error = status.lastError.map { ": " + SafeText.line($0) } ?? ""
            lines.append(
                status.paused
                    ? "Channel \(name) is paused after \(ChannelStatus.pauseAfter) refusals in a row\(error). Fix it, then resume it: birthdays channels test \(name)"
                    : "Channel \(name) refused its last reminder\(error). Fix it, then check: birthdays channels test \(name)"
            )
        }
        if let (since, error, instead) = desktopUnavailable {
            let why = error.map { " (" + SafeText.line($0) + ")" } ?? ""
            lines.append(
                "Desktop: could not be reached at \(Wording.wallClock(since, zone: zone))\(why); "
                    + (instead.isEmpty
                        ? "reminders wait for a desktop session until the end of their day. "
                            + "Add a channel that reaches you elsewhere: birthdays channels add email ADDRESS"
                        : "reminders went through \(instead.joined(separator: ", ")) instead.")
            )
        }
        if desktopUnanswered {
            lines.append(
                "Warning: the desktop is the only channel and no notification server has taken a reminder in the last week; "
                    + "add one that reaches your phone or inbox: birthdays channels add email ADDRESS (or apprise URL)"
            )
        }
        if !defaultedPeople.isEmpty {
            let who = defaultedPeople.map { ids.person($0) + named($0) }.joined(separator: ", ")
            lines.append(
                "Warning: none of the channels chosen for \(defaultedPeople.count == 1 ? "1 person" : "\(defaultedPeople.count) people") "
                    + "delivers now, so their reminders go through the default channels: \(who). "
                    + "Choose again with: birthdays remind PERSON --channels NAMES (or --default)"
            )
        }
        if let last {
            lines.append(
                "Last delivery: \(ids.reminder(last.notificationID))\(named(last.personID)) at \(iso(last.deliveredAt) ?? "?")\(last.late ? " (late)" : "")"
            )
        }
        lines.append(
            "Last \(days) days: \(count(.delivered)) delivered, \(count(.failed)) failed, \(count(.missed)) missed, "
                + "\(count(.interrupted)) interrupted, \(count(.retrying)) retrying, \(count(.dismissed)) dismissed"
        )
        if recent.contains(where: { $0.deliveryKind.greetedPersonID != nil }) {
            let interrupted = greetings(.interrupted)
            lines.append(
                "Greetings to friends, last \(days) days: \(greetings(.delivered)) sent, \(greetings(.missed)) missed"
                    + (interrupted > 0 ? ", \(interrupted) interrupted (perhaps sent; never sent again)" : "")
            )
        }
        for entry in problems {
            lines.append(
                "  \(entry.state.rawValue) \(ids.reminder(entry.notificationID)) (\(entry.occurrenceDate))\(named(entry.personID))"
                    + (entry.lastError.map { ": " + SafeText.line($0) } ?? "")
            )
        }
        if !sources.isEmpty {
            lines.append("Sources: \(sources.count)")
            for source in sources {
                var line =
                    "  \(SafeText.line(source.name)) (\(source.kind.rawValue)): last sync "
                    + (source.status.lastSync.map { Wording.wallClock($0, zone: zone) } ?? "never")
                if let next = nextSync(source) { line += ", next " + Wording.wallClock(next, zone: zone) }
                if let error = source.status.error { line += "; failing: " + SafeText.line(error) }
                lines.append(line)
            }
        }
        if !publishTargets.isEmpty {
            lines.append("Publish targets: \(publishTargets.count)")
            for target in publishTargets {
                var line =
                    "  \(SafeText.line(target.name)): \(state(target)), \(target.events) events"
                    + (target.leftAlone > 0
                        ? ", \(target.leftAlone) left alone (their address holds an event birthdays did not write; see birthdays publish list)"
                        : "")
                    + ", last publish "
                    + (target.lastPublish.map { Wording.wallClock($0, zone: zone) } ?? "never")
                if let next = nextPublish(target) { line += ", next attempt " + Wording.wallClock(next, zone: zone) }
                if let error = target.lastError {
                    line += "; \(target.failures) failure\(target.failures == 1 ? "" : "s") in a row: " + SafeText.line(error)
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
