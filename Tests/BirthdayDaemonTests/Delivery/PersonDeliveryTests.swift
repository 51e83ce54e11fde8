import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayDaemon
@testable import BirthdayStore

/// Per-person channels and weekends through the delivery engine (issue 20),
/// with the daemon's real channel factory: a real `command` channel (a shell
/// command appending the person's id to a file) and the `log` channel.
@Suite struct PersonDeliveryTests {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func withLock<T>(_ body: (inout [String]) -> T) -> T { lines.withLock { body(&$0) } }
    }

    let temporary: TemporaryDatabase
    var database: AppDatabase { temporary.database }
    let folder: TemporaryDirectory
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    let logs = LogRecorder()
    /// What the `log` channel wrote.
    let logLines = Lines()
    let epoch = Date(timeIntervalSince1970: 0)

    /// Ada and Bob have their birthday on Tuesday 2026-03-10, Cy on Sunday
    /// 2026-03-15; the day of only; channels `command,log`.
    init() async throws {
        temporary = try TemporaryDatabase(file: true)
        folder = try TemporaryDirectory()
        try temporary.database.insertPeople(
            [
                try Fixture.person("ada", "Ada Lovelace", birthday: "1990-03-10"),
                try Fixture.person("bob", "Bob Builder", birthday: "1985-03-10"),
                try Fixture.person("cy", "Cy Twombly", birthday: "1980-03-15"),
            ],
            now: epoch
        )
        _ = try await temporary.database.setSetting(.reminders, to: "0", now: epoch)
        _ = try await temporary.database.setSetting(.channels, to: "command,log", now: epoch)
        _ = try await temporary.database.setSetting(
            .command,
            to: "printf '%s\\n' \"$BIRTHDAYS_PERSON_ID\" >> '\(folder.file("command.txt"))'",
            now: epoch
        )
        try await temporary.database.setAuthorizationStatus(.authorized)
    }

    func at(_ text: String) throws -> Date { try Fixture.instant(text, zone: berlin) }

    func choose(_ id: String, channels: [String]? = nil, weekend: WeekendRule? = nil) async throws {
        let result = try await database.setReminderChoices(
            days: .keep,
            channels: channels.map { .set($0) } ?? .keep,
            weekend: weekend.map { .set($0) } ?? .keep,
            personID: id,
            now: epoch
        )
        #expect(result != nil)
    }

    /// An engine at `now` with the real factory, plus `extra` channels.
    func engine(now: Date, extra: [ChannelSet.Member] = []) -> DeliveryEngine {
        let zone = berlin
        let lines = logLines
        let factory = ReminderChannels.factory(
            desktop: nil,
            environment: ProcessInfo.processInfo.environment,
            clock: ContinuousClock(),
            databasePath: database.path,
            log: { line in lines.withLock { $0.append(line) } }
        )
        return DeliveryEngine(
            database: database,
            clock: ContinuousClock(),
            now: { now },
            systemTimeZone: { zone },
            channels: { settings, status, remote in ChannelSet(factory(settings, status, remote).members + extra) },
            logger: logs.logger
        )
    }

    func commandLines() -> [String] {
        ((try? String(contentsOfFile: folder.file("command.txt"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).sorted()
    }

    func logged(_ notificationID: String) async throws -> Bool {
        let id = try await database.publicIDs().reminder(notificationID)
        return logLines.withLock { $0 }.contains { $0.contains("id=" + id + " ") }
    }

    @Test func aPersonRestrictedToLogGetsItThereOnlyWhileOthersGetEveryChannel() async throws {
        defer { folder.cleanup() }
        try await choose("ada", channels: ["log"])
        try await Fixture.scheduler(database, now: at("2026-03-10T08:00:00"), zone: berlin).reschedule()
        let pass = try await engine(now: at("2026-03-10T09:00:05")).runOnePass()
        #expect(pass.delivered == 2)
        #expect(pass.defaulted == 0)
        #expect(commandLines() == ["bob"], "Ada's reminder does not run the command")
        #expect(try await logged("ada-birthday-dayof"))
        #expect(try await logged("bob-birthday-dayof"))
        let rows = try await database.deliveries(updatedSince: .distantPast)
        #expect(rows.map(\.state) == [.delivered, .delivered])
    }

    /// A person whose only channel was removed still gets the reminder,
    /// through the default set, with a warning that names nobody.
    @Test func aPersonWhoseChannelsAreGoneGetsTheDefaultSet() async throws {
        defer { folder.cleanup() }
        try await choose("ada", channels: ["mail"])
        try await Fixture.scheduler(database, now: at("2026-03-10T08:00:00"), zone: berlin).reschedule()
        let pass = try await engine(now: at("2026-03-10T09:00:05")).runOnePass()
        #expect(pass.delivered == 2)
        #expect(pass.defaulted == 1)
        #expect(commandLines() == ["ada", "bob"])
        #expect(try await logged("ada-birthday-dayof"))
        let warnings = logs.all.filter { $0.hasPrefix("warning") && $0.contains("default channels") }
        #expect(warnings.count == 1)
        let all = logs.all.joined(separator: "\n")
        #expect(!all.contains("Ada") && !all.contains("Lovelace") && !all.contains("ada-birthday") && !all.contains("mail"))
    }

    /// A person's channel that fails is retried alone: the channels that
    /// delivered are not given the reminder again. (Bob, with every channel,
    /// has `mail` fail too: retried there only, his command not run twice.)
    @Test func aRetryGoesOnlyToThePersonsChannelThatFailed() async throws {
        defer { folder.cleanup() }
        let mail = EngineSink()
        await mail.setFailing(true)
        try await choose("ada", channels: ["log", "mail"])
        try await Fixture.scheduler(database, now: at("2026-03-10T08:00:00"), zone: berlin).reschedule()
        let first = try await engine(now: at("2026-03-10T09:00:05"), extra: [.init(name: "mail", sink: mail)]).runOnePass()
        // Each reminder counts as delivered (the log or the command took it); mail is retried alone.
        #expect(first.delivered == 2 && first.partly == 2 && first.retrying == 0)
        let rows = try await database.deliveries(updatedSince: .distantPast).sorted { $0.personID < $1.personID }
        #expect(rows.map(\.personID) == ["ada", "bob"])
        #expect(rows.map(\.state) == [.retrying, .retrying])
        #expect(rows.map(\.channels) == [["mail"], ["mail"]])
        #expect(commandLines() == ["bob"])
        #expect(try await logged("ada-birthday-dayof"))
        await mail.setFailing(false)
        logLines.withLock { $0.removeAll() }
        let retryAt = try #require(rows.compactMap(\.nextAttemptAt).max()).addingTimeInterval(1)
        let second = try await engine(now: retryAt, extra: [.init(name: "mail", sink: mail)]).runOnePass()
        #expect(second.delivered == 0, "counted once, when the first channel took them")
        #expect(try await database.deliveries(updatedSince: .distantPast).map(\.state) == [.delivered, .delivered])
        #expect(await mail.reminders.map(\.id).sorted() == ["ada-birthday-dayof", "bob-birthday-dayof"])
        #expect(logLines.withLock { $0 }.isEmpty, "the log channel took both the first time")
        #expect(commandLines() == ["bob"], "the command ran once, for Bob only")
    }

    /// Cy's Sunday birthday with `--weekend friday` is delivered on Friday at
    /// nine, through the ledger, and not again on Sunday.
    @Test func aWeekendReminderIsDeliveredOnFriday() async throws {
        defer { folder.cleanup() }
        try await choose("cy", weekend: .friday)
        try await Fixture.scheduler(database, now: at("2026-03-11T08:00:00"), zone: berlin).reschedule()
        let friday = try await engine(now: at("2026-03-13T09:00:05")).runOnePass()
        #expect(friday.delivered == 1)
        #expect(friday.missed == 0)
        #expect(commandLines() == ["cy"])
        let sunday = try await engine(now: at("2026-03-15T09:00:05")).runOnePass()
        #expect(sunday.delivered == 0 && sunday.queued == 0)
        #expect(commandLines() == ["cy"])
        let row = try #require(try await database.deliveries(updatedSince: .distantPast).first)
        #expect(row.notificationID == "cy-birthday-dayof" && row.occurrenceDate == date(2026, 3, 15))
        #expect(ISOInstant.format(row.fireAt, in: berlin) == "2026-03-13T09:00:00+01:00")
    }
}
