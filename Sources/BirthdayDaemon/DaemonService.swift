import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// The delivery daemon as a `Service`: the engine's loop, fed by the wake
/// monitor, the database watch, SIGHUP and the desktop notification
/// buttons, the sources' follower (``SourceFollower``), which syncs at
/// the same wakes, and the publisher (``PublishFollower``), which publishes
/// at them and after every write that moves the store's data revision.
///
/// ## Hearing every write
/// Any command that writes the database (`import`, `settings set`,
/// `exclude`, `remind`, `sources add`, a sync) is heard without being sent
/// anything: ``DatabaseWatcher`` says the file may have been written, and
/// SQLite's `data_version` on the daemon's own writing connection says
/// whether another connection committed (the daemon's own writes never
/// change it, so they wake nothing; the network helper it starts is another
/// process, so a sync that wrote costs one more pass, which finds nothing to do). Then the engine passes again
/// (reschedule, delivery time, channels, language, zone), the follower
/// reads its sources again (a new source is synced, a removed one dropped,
/// a new `sync-interval` applied), and what follows the settings hears
/// (`settingsChanged`: the feed's address, the buttons' language). SIGHUP
/// does all of that too, and also syncs every source.
///
/// On graceful shutdown (SIGTERM, SIGINT) the engine finishes the reminder
/// it is handing over, stops before the next one (it checks
/// `Task.isShuttingDownGracefully` between reminders) and `run()` returns;
/// the event feeders are cancelled once the engine has stopped.
struct DaemonService: Service {
    let engine: DeliveryEngine
    let follower: SourceFollower
    let publisher: PublishFollower
    let desktop: DesktopNotificationChannel?
    let database: AppDatabase
    let now: @Sendable () -> Date
    let systemTimeZone: @Sendable () -> TimeZone
    let systemLocale: String?
    /// What `xdg-open` runs with when a reminder's contact button is clicked.
    let environment: [String: String]
    let watchesWake: Bool
    /// Wake reasons from a monitor shared with other daemons, heard as the daemon's own monitor's.
    let wakeReasons: AsyncStream<WakeReason>?
    /// The database's watch, when it is watched (``buildDaemon(_:)`` starts it; it is stopped here).
    let watcher: DatabaseWatcher?
    /// `data_version` as `buildDaemon` read it, before anything read the settings.
    let startVersion: Int?
    /// Called when the database's folder is deleted or moved (`run --all-users`: the daemon ends); `nil` goes on.
    let folderGone: (@Sendable () -> Void)?
    /// Tells what follows the settings that they may have changed.
    let settingsChanged: @Sendable () async -> Void
    /// Called once the engine has stopped.
    let stopped: @Sendable () -> Void
    let logger: Logger

    func run() async throws {
        let (events, continuation) = AsyncStream.makeStream(of: DeliveryEngine.Event.self, bufferingPolicy: .bufferingNewest(256))
        let monitor = watchesWake ? WakeMonitor.ofTheSystemZone(logger: logger) : nil
        defer { monitor?.stop() }
        let watcher = self.watcher
        defer { watcher?.stop() }
        let wakes = monitor?.reasons ?? wakeReasons
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let settingsChanged = self.settingsChanged

        let follower = self.follower
        let publisher = self.publisher
        await withTaskGroup(of: Void.self) { group in
            if let wakes {
                group.addTask {
                    for await reason in wakes {
                        continuation.yield(.wake(reason))
                        follower.post(.syncAll(reason: reason.logName))
                        publisher.post(.all(reason: reason.logName))
                    }
                }
            }
            if let watcher {
                let database = self.database
                let logger = self.logger
                let startVersion = self.startVersion
                group.addTask {
                    var version = startVersion
                    // Once at once (a write between the start and the watch has no event of its own), then at each event.
                    var events = watcher.changes.makeAsyncIterator()
                    repeat {
                        guard let current = try? await database.dataVersion(), current != version else { continue }
                        let first = version == nil
                        version = current
                        if first { continue }
                        logger.info("the database was written by another command")
                        continuation.yield(.storeChanged)
                        follower.post(.reread)
                        publisher.post(.storeChanged)
                        await settingsChanged()
                    } while await events.next() != nil
                }
                if let folderGone {
                    group.addTask {
                        for await _ in watcher.gone {
                            logger.notice("the database's folder was removed or moved; stopping")
                            folderGone()
                            return
                        }
                    }
                }
            }
            group.addTask {
                for await _ in hangups {
                    continuation.yield(.reload)
                    follower.post(.syncAll(reason: "reload"))
                    publisher.post(.all(reason: "reload"))
                    await settingsChanged()
                }
            }
            group.addTask { await follower.run() }
            group.addTask { await publisher.run() }
            if let desktop {
                group.addTask {
                    for await action in desktop.actions { await self.handle(action, continuation: continuation) }
                }
            }
            await engine.run(events: events) { _ in
                follower.post(.syncAll(reason: "midnight"))
                publisher.post(.midnight)
            }
            continuation.finish()
            stopped()
            group.cancelAll()
        }
        logger.notice("birthdays run stopped")
    }

    /// A click on a notification: open shows the person's details in place
    /// of the reminder; snooze, dismiss and skip greeting go to the engine; the contact
    /// button opens its link with the desktop's handler (`xdg-open`).
    private func handle(_ action: NotificationAction, continuation: AsyncStream<DeliveryEngine.Event>.Continuation) async {
        switch action.event {
        case .invoked(.snooze):
            continuation.yield(.snooze(id: action.reminderID, duration: .seconds(15 * 60)))
        case .invoked(.dismiss):
            continuation.yield(.dismiss(id: action.reminderID))
        case .invoked(.skipGreeting):
            guard let day = action.greetingDay else { return }
            continuation.yield(.skipGreeting(personID: action.personID, day: day))
        case .invoked(.contact):
            // The link itself is never logged.
            guard let link = action.link else { return }
            do {
                try SchemeHandlers.open(link, environment: environment)
                logger.info("reminder contact link opened")
            } catch {
                logger.warning("cannot open the contact link", metadata: ["error": "\(error)"])
            }
        case .invoked(.open):
            logger.info("reminder opened")
            guard let desktop, let person = try? await database.person(id: action.personID), let settings = try? await database.settings() else {
                return
            }
            let today = LocalDate.today(at: now(), in: settings.resolvedTimeZone(system: systemTimeZone()))
            let lines = PersonDetails.lines(
                for: person,
                today: today,
                leapDay: settings.leapDay,
                anniversaries: settings.anniversaries,
                in: settings.localizer(systemLocale: systemLocale)
            )
            let details = Reminder(
                id: action.reminderID,
                personID: person.id,
                kind: .birthday,
                when: .dayOf,
                fireAt: now(),
                timeZone: .gmt,
                title: SafeText.line(person.name, maxCharacters: NotificationContent.maxNameCharacters),
                body: lines.joined(separator: "\n"),
                late: false,
                occurrenceDate: today
            )
            do {
                try await desktop.deliver(details)
            } catch {
                logger.warning("cannot show the person's details", metadata: ["error": "\(error)"])
            }
        case .closed:
            break
        }
    }
}

extension WakeMonitor {
    /// A monitor of the system's clock, zone and resumes, the zone read
    /// afresh at each change; `nil`, with one warning, when it cannot be set up.
    static func ofTheSystemZone(logger: Logger) -> WakeMonitor? {
        do {
            return try WakeMonitor(currentTimeZone: {
                NSTimeZone.resetSystemTimeZone()
                return TimeZone.current
            })
        } catch {
            logger.warning("clock changes and resumes will not be noticed", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

extension UsersWatcher {
    /// A watch of the users root; `nil`, with one warning, when it cannot be set up (SIGHUP still lists the root).
    static func orWarning(root: String, logger: Logger) -> UsersWatcher? {
        do {
            return try UsersWatcher(root: root)
        } catch {
            logger.warning("users added or removed will be noticed only at SIGHUP", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
