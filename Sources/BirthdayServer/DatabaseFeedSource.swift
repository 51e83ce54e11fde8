import BirthdayCalendar
import BirthdayCore
import BirthdayStore
import BirthdayText
import Foundation
import Synchronization

/// The feed server's view of the SQLite store: the revision counter decides
/// when the cached body is stale; the export runs only then.
///
/// A calendar app revalidating its subscription must cost next to nothing, so
/// the token and the revision are kept in memory and read again only when
/// the database files changed: every commit by any process (an import, a
/// settings change, `birthdays feed rotate`) appends to the write-ahead log
/// or, after a checkpoint, rewrites the database file, which changes their
/// size or modification time. One `stat` of each (on the blocking pool)
/// replaces a SQLite transaction, taken again only when an inotify watch on the folder saw a
/// change (``FileStampWatch``), and a rotated token still stops working at once.
///
/// ## The year
/// Dates in other calendars are expanded into one event per year from
/// January 1 of the current year (``CalendarExporter``), so such a feed
/// changes on January 1 without any change to the data. The revision the
/// server sees is therefore the data's revision and the current year in the
/// user's zone together (``feedRevision(data:year:)``): a new year is a new
/// revision, and the body is exported again (its `ETag` changes only if the
/// text does).
package struct DatabaseFeedSource: PageSource, InvitationSource {
    let database: AppDatabase
    /// The environment's locale, for the feed's words when the `language` setting is `system`.
    let systemLocale: String?
    /// The current instant: which year the feed's expanded events start in,
    /// and the clock of the invitations' per-address limit.
    package let now: @Sendable () -> Date
    /// The zone when the `time-zone` setting is `system`.
    let systemTimeZone: @Sendable () -> TimeZone
    /// Draws the page's QR code: the text, and the code's accessible name
    /// (escaped by it), to an `<svg>` element (``QRSVG``), or `nil` (no code on the page).
    let drawQR: @Sendable (_ text: String, _ label: String) -> HTML?
    /// Called after an invitation's answer was stored (the daemon wakes its
    /// delivery engine, which tells the owner).
    let answered: @Sendable () -> Void
    /// Called after an answer gave its date to a person already there (a
    /// link with `--auto-accept`), once its transaction is committed and
    /// before the reply: it must return at once (``InvitationFollowUp/post(_:)``
    /// queues the write to their card).
    let dateGiven: @Sendable (InvitationDateGiven) -> Void
    /// The proxy `serve --trusted-proxy` names, which wins over the `trusted-proxy` setting.
    let trustedProxyOption: TrustedProxy?
    private let cache = StateCache()
    private let days = DayCache()
    private let logPath: String
    private let stamps: FileStampWatch

    package init(
        database: AppDatabase,
        systemLocale: String? = nil,
        now: @escaping @Sendable () -> Date,
        systemTimeZone: @escaping @Sendable () -> TimeZone,
        drawQR: @escaping @Sendable (_ text: String, _ label: String) -> HTML? = { _, _ in nil },
        answered: @escaping @Sendable () -> Void = {},
        dateGiven: @escaping @Sendable (InvitationDateGiven) -> Void = { _ in },
        trustedProxy: TrustedProxy? = nil
    ) {
        self.trustedProxyOption = trustedProxy
        self.database = database
        self.systemLocale = systemLocale
        self.now = now
        self.systemTimeZone = systemTimeZone
        self.drawQR = drawQR
        self.answered = answered
        self.dateGiven = dateGiven
        self.logPath = database.path + "-wal"
        self.stamps = FileStampWatch(database: database.path, log: logPath)
    }

    /// The revision of the feed: the data's `revision` and the `year`, in one
    /// number that changes when either does (years 0–4095 of the proleptic
    /// Gregorian calendar each have their own 12 bits).
    static func feedRevision(data revision: Int64, year: Int) -> Int64 {
        revision &* 4096 &+ Int64(year & 4095)
    }

    /// Today in the zone the user's settings resolve to.
    private func today(zone: TimeZone) -> LocalDate {
        LocalDate.today(at: now(), in: zone)
    }

    /// The current year in the state's zone: the year kept with the state
    /// while it lasts (one comparison of instants, for the revalidation fast
    /// path), else worked out again and kept.
    private func year(_ state: StateCache.State) -> Int {
        let instant = now()
        if instant >= state.yearStarted && instant < state.yearEnds { return state.year }
        var updated = state
        (updated.year, updated.yearStarted, updated.yearEnds) = Self.year(at: instant, in: state.zone)
        cache.store(updated)
        return updated.year
    }

    /// The year `instant` falls in, in `zone`, and the instants it starts and ends.
    static func year(at instant: Date, in zone: TimeZone) -> (year: Int, started: Date, ends: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let year = calendar.component(.year, from: instant)
        let started = calendar.date(from: DateComponents(year: year, month: 1, day: 1)) ?? instant
        let ends = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1)) ?? instant
        return (year, started, ends)
    }

    package func revision() async throws -> Int64 {
        let state = try await state()
        return Self.feedRevision(data: state.revision, year: year(state))
    }

    /// Reads the people and exports them, on NIO's thread pool (``Blocking``):
    /// an export of thousands of events must not hold up an event loop.
    package func feed() async throws -> FeedSnapshot {
        try await feed(from: try await database.feedContents())
    }

    /// The feed of `contents` (the owner's, or a share's: a share's has no
    /// alarms, which are the owner's reminder settings).
    func feed(from contents: FeedContents, includeAlarms: Bool = true) async throws -> FeedSnapshot {
        let localizer = contents.settings.localizer(systemLocale: systemLocale)
        let today = today(zone: contents.settings.resolvedTimeZone(system: systemTimeZone()))
        let exporter = CalendarExporter(settings: contents.settings, includeAlarms: includeAlarms, localizer: localizer, today: today)
        let lastChange = exporter.lastChange(of: contents.events, changedAt: contents.changedAt)
        let body = try await Blocking.run { () throws(ExportError) in
            try exporter.export(contents.events, lastChange: lastChange)
        }
        return FeedSnapshot(body: body, lastModified: lastChange, revision: Self.feedRevision(data: contents.revision, year: today.year))
    }

    /// The share whose token is `token`, when `token` is well formed and a
    /// share has it (looked up by its hash: the token is not stored).
    package func share(token: String) async throws -> ShareFeedSource? {
        guard FeedToken.isWellFormed(token), let share = try await database.share(token: token) else { return nil }
        return ShareFeedSource(owner: self, share: share, shareToken: token)
    }

    /// The zone the settings resolve to (cached with the token and revision).
    func zone() async throws -> TimeZone { try await state().zone }

    package func token() async throws -> String {
        try await state().token
    }

    /// The data's revision and today's day number in the user's zone, in one
    /// number (each day has its own 20 bits).
    package func listRevision() async throws -> Int64 {
        let state = try await state()
        return Self.listRevision(data: state.revision, today: LocalDate.today(at: now(), in: state.zone))
    }

    static func listRevision(data revision: Int64, today: LocalDate) -> Int64 {
        revision &* 1_048_576 &+ Int64(today.dayNumber & 0xF_FFFF)
    }

    /// The next 366 days as `upcoming --json` writes them (today's events
    /// included); `Last-Modified` is the later of the data's last change and
    /// the start of today, when `days_until` last moved.
    package func list() async throws -> FeedSnapshot {
        // Today in the zone ``listRevision()`` uses, so the two always agree on the day.
        let zone = try await state().zone
        let today = LocalDate.today(at: now(), in: zone)
        return await list(from: try await database.listContents(today: today, withinDays: 365), today: today, zone: zone)
    }

    /// The JSON list of `contents` (the owner's, or a share's).
    func list(from contents: ListContents, today: LocalDate, zone: TimeZone) async -> FeedSnapshot {
        // Thousands of entries: encoded on the blocking pool, never on an event loop.
        let events = contents.events
        let body = await Blocking.run { JSONOutput.string(events.map(UpcomingJSON.init), pretty: true) + "\n" }
        let dayStarted = FireTime.instant(on: today, at: TimeOfDay(hour: 0, minute: 0)!, in: zone) ?? contents.changedAt
        return FeedSnapshot(
            body: body,
            lastModified: max(contents.changedAt, dayStarted),
            revision: Self.listRevision(data: contents.revision, today: today)
        )
    }

    /// The web page for the year (``YearPage``), rendered on the blocking
    /// pool; `Last-Modified` as for ``list()``, with which it shares its revision.
    package func page(_ request: PageRequest) async throws -> FeedSnapshot {
        let state = try await state()
        let today = LocalDate.today(at: now(), in: state.zone)
        let contents = try await database.pageContents(today: today)
        return await page(from: contents, request: request, token: state.token, today: today, zone: state.zone, showAges: true)
    }

    /// The page of `contents` (the owner's, or a share's) under `token`; the
    /// people's own lines are those `contents` holds (none in a share's).
    func page(
        from contents: PageContents,
        request: PageRequest,
        token: String,
        today: LocalDate,
        zone: TimeZone,
        showAges: Bool
    ) async -> FeedSnapshot {
        let localizer = contents.settings.localizer(systemLocale: systemLocale)
        let webcal = request.host.map { "webcal://\($0)/calendar/\(token).ics" }
        let drawQR = drawQR
        let caption = localizer(request.isLoopback ? .pageQRLoopback : .pageQR)
        // The QR code too is drawn off the event loop: its first drawing loads libqrencode.
        let body = await Blocking.run {
            let page = YearPage(
                today: today,
                year: contents.year,
                next: YearPage.nextEvents(contents.next),
                showAges: showAges,
                layout: request.layout,
                links: YearPage.Links(
                    ics: request.linkBase + token + ".ics",
                    json: request.linkBase + token + ".json",
                    webcal: webcal,
                    qrSVG: webcal.flatMap { drawQR($0, caption) },
                    qrCaption: caption
                ),
                people: contents.people,
                contactLinks: contents.settings.contactLinks
            )
            return page.html(localizer)
        }
        let dayStarted = FireTime.instant(on: today, at: TimeOfDay(hour: 0, minute: 0)!, in: zone) ?? contents.changedAt
        return FeedSnapshot(
            body: body,
            lastModified: max(contents.changedAt, dayStarted),
            revision: Self.listRevision(data: contents.revision, today: today)
        )
    }

    /// The form of the invitation `token` (``InvitePage``) in the owner's
    /// language: 200 while it is open, 410 once used up or expired; `nil`
    /// (404) when no link has it. Rendered on the blocking pool, as the page is.
    package func inviteForm(token: String) async throws -> InviteResponse? {
        let locale = systemLocale
        switch try await database.invitationForm(token: token, now: now()) {
        case .unknown:
            // The work of a closed link's page, thrown away: an unknown token and a closed link take the same time.
            _ = await Blocking.run { InvitePage(kind: .gone, lastYear: 0).html(Localizer(setting: nil, systemLocale: locale)) }
            return nil
        case .gone(let settings):
            let page = InvitePage(kind: .gone, lastYear: lastYear(settings))
            return await Blocking.run { InviteResponse(status: 410, html: page.html(settings.localizer(systemLocale: locale))) }
        case .open(let invitation, let nonce, let settings):
            let page = InvitePage(
                kind: .form(entry: InviteForm.Entry(), problem: nil),
                note: invitation.note,
                nonce: nonce,
                lastYear: lastYear(settings)
            )
            return await Blocking.run { InviteResponse(status: 200, html: page.html(settings.localizer(systemLocale: locale))) }
        }
    }

    /// This year in the owner's zone: the latest the form's year field takes.
    private func lastYear(_ settings: Settings) -> Int {
        LocalDate.today(at: now(), in: settings.resolvedTimeZone(system: systemTimeZone())).year
    }

    /// The form of the invitation `token` again, with what `body` typed and
    /// the problem ``InviteForm/Problem/busy`` (429): what a sender over the
    /// per-address limit gets, so nothing typed is lost; `nil` unless the
    /// link is open (the caller answers a plain 429). Nothing is stored.
    package func inviteBusy(token: String, body: [UInt8]) async throws -> InviteResponse? {
        guard case .open(let invitation, let nonce, let settings) = try await database.invitationForm(token: token, now: now()) else { return nil }
        var typed = InviteForm.entry(body: body)
        typed.nonce = ""
        let page = InvitePage(kind: .form(entry: typed, problem: .busy), note: invitation.note, nonce: nonce, lastYear: lastYear(settings))
        let locale = systemLocale
        return await Blocking.run { InviteResponse(status: 429, html: page.html(settings.localizer(systemLocale: locale))) }
    }

    /// Stores what `body` sent to the invitation `token`, if its link takes
    /// it (``AppDatabase/answerInvitation(token:entry:now:systemTimeZone:systemLocale:)``),
    /// and the page that answers it; `nil` (404) when no link has the token.
    /// A date given to a person already there goes to ``dateGiven``, which
    /// only queues it: the page does not wait for their card.
    package func inviteAnswer(token: String, body: [UInt8]) async throws -> InviteResponse? {
        let entry = InviteForm.entry(body: body)
        let reply = try await database.answerInvitation(
            token: token,
            entry: entry,
            now: now(),
            systemTimeZone: systemTimeZone(),
            systemLocale: systemLocale
        )
        guard let settings = reply.settings else { return nil }
        let kind: InvitePage.Kind
        switch reply.outcome {
        case .stored:
            answered()
            if let given = reply.dateGiven { dateGiven(given) }
            kind = .thanks
        case .repeated: kind = .thanks
        case .form(let typed, let problem): kind = .form(entry: typed, problem: problem)
        case .unknown: return nil
        case .gone, .tooLarge, .tooMany, .foreign: kind = .gone
        }
        let page = InvitePage(kind: kind, note: reply.note, nonce: reply.nonce, lastYear: lastYear(settings))
        let locale = systemLocale
        let status = reply.outcome.status
        return await Blocking.run { InviteResponse(status: status, html: page.html(settings.localizer(systemLocale: locale))) }
    }

    /// `serve --trusted-proxy`, else the `trusted-proxy` setting (read with
    /// the token, again only when the database changed).
    package func trustedProxy() async throws -> TrustedProxy? {
        if let trustedProxyOption { return trustedProxyOption }
        return try await state().trustedProxy
    }

    /// The cached token and revision if the database files are unchanged
    /// since they were read (one `read` of the folder's watch, no SQLite, no `stat`), else `nil`,
    /// as when the folder is not watched: the route then takes the stamp, off the loop.
    package func cachedValidators() -> (token: String, revision: Int64)? {
        stamps.kept().flatMap(cache.state(for:)).map { ($0.token, Self.feedRevision(data: $0.revision, year: year($0))) }
    }

    /// The cached token and ``listRevision()`` if the database files are
    /// unchanged since they were read, else `nil`; today is kept while it
    /// lasts (``DayCache``), so this costs one `read` of the folder's watch and a comparison.
    package func cachedListValidators() -> (token: String, revision: Int64)? {
        stamps.kept().flatMap(cache.state(for:)).map { ($0.token, Self.listRevision(data: $0.revision, today: days.today(at: now(), in: $0.zone))) }
    }

    /// The stamp of the database's files now (``FileStampWatch/current()``):
    /// one `read` of the watch while nothing changed.
    func fileStamp() async -> FileStamp { await stamps.current() }

    /// The stamp kept while the watch saw no change (``FileStampWatch/kept()``), without blocking.
    func keptFileStamp() -> FileStamp? { stamps.kept() }

    /// The stamp now, taken when it must be (``FileStampWatch/currentBlocking()``): the blocking pool only.
    func fileStampBlocking() -> FileStamp { stamps.currentBlocking() }

    /// Whether the database's folder is watched (``FileStampWatch/isWatching``): without a watch, every stamp is two `stat` calls.
    func isWatched() -> Bool { stamps.isWatching }

    /// How many stamps were taken (tests: a kept one takes none).
    var stampsTaken: Int { stamps.stampsTaken }

    private func state() async throws -> StateCache.State {
        let stamp = await stamps.current()
        if let cached = cache.state(for: stamp) { return cached }
        let settings = try await database.settings()
        let zone = settings.resolvedTimeZone(system: systemTimeZone())
        let (year, started, ends) = Self.year(at: now(), in: zone)
        let state = StateCache.State(
            stamp: stamp,
            token: try await database.feedToken(),
            revision: try await database.revision().value,
            zone: zone,
            year: year,
            yearStarted: started,
            yearEnds: ends,
            trustedProxy: settings.trustedProxy
        )
        cache.store(state)
        return state
    }
}

/// Size, modification time and inode of the database file and its
/// write-ahead log: two `stat` calls, no allocation, taken when the
/// database's folder changed (``FileStampWatch``).
struct FileStamp: Equatable, Sendable {
    /// One file's stat figures; all zero when the file does not exist.
    struct File: Equatable, Sendable {
        var size = 0
        var seconds = 0
        var nanoseconds = 0
        var inode: UInt = 0

        init(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return }
            size = Int(info.st_size)
            seconds = Int(info.st_mtim.tv_sec)
            nanoseconds = Int(info.st_mtim.tv_nsec)
            inode = UInt(info.st_ino)
        }
    }

    var database: File
    var log: File
    /// How many times ``FileStampWatch`` saw the folder change before this
    /// stamp was taken (0 without a watch): a write that leaves both files'
    /// size, time and inode as they were (a log restarted after a checkpoint,
    /// within one tick of the clock) still makes a new stamp.
    var changes: UInt64 = 0

    init(database: String, log: String, changes: UInt64 = 0) {
        self.database = File(database)
        self.log = File(log)
        self.changes = changes
    }
}

/// The last token and revision read, with the file stamp they were read at.
final class StateCache: Sendable {
    struct State: Sendable {
        var stamp: FileStamp
        var token: String
        /// The data's revision.
        var revision: Int64
        /// The zone the settings resolve to: where the year changes.
        var zone: TimeZone
        /// The year in ``zone`` when the state was read, and when it started and ends.
        var year: Int
        var yearStarted: Date
        var yearEnds: Date
        /// The `trusted-proxy` setting.
        var trustedProxy: TrustedProxy?
    }

    private let current = Mutex<State?>(nil)

    func state(for stamp: FileStamp) -> State? {
        current.withLock { state in state.flatMap { $0.stamp == stamp ? $0 : nil } }
    }

    func store(_ state: State) {
        current.withLock { $0 = state }
    }
}

/// Today in a zone, kept with the instants it starts and ends at, so the
/// revalidation fast path compares instants instead of asking a calendar.
final class DayCache: Sendable {
    private let current = Mutex<(zone: TimeZone, day: LocalDate, started: Date, ends: Date)?>(nil)

    /// The same day as `LocalDate.today(at: instant, in: zone)`.
    func today(at instant: Date, in zone: TimeZone) -> LocalDate {
        if let kept = current.withLock({ $0 }), kept.zone == zone, instant >= kept.started, instant < kept.ends {
            return kept.day
        }
        let day = LocalDate.today(at: instant, in: zone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let started = calendar.startOfDay(for: instant)
        if let ends = calendar.date(byAdding: .day, value: 1, to: started), started <= instant, instant < ends {
            current.withLock { $0 = (zone, day, started, ends) }
        }
        return day
    }
}
