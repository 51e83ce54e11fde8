import ArgumentParser
import BirthdayCalendar
import BirthdayCore
import BirthdayNetwork
import BirthdayStore
import BirthdaySystem
import BirthdayText
import Foundation
import Logging
import Synchronization

extension NetworkHelperCommand {
    /// `birthdays-network publish-discover URL`: the CalDAV calendar to publish into, found or made.
    struct PublishDiscover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish-discover",
            abstract: "Find (or make) the CalDAV calendar behind a URL."
        )

        @Argument var url: String
        @Option var username: String?
        @Option(help: "The display name of the calendar to use, or to make when there is none.") var calendar: String
        @OptionGroup var secret: PasswordOption

        func run() async throws {
            NetworkHelperCommand.watchParent()
            let password = secret.password()
            let deadline = DAVLimits.deadline(environment: ProcessInfo.processInfo.environment)
            do throws(PublishError) {
                let found = try await CalDAVPublisher(deadline: deadline).discover(
                    url,
                    username: username,
                    password: password,
                    calendarName: calendar
                )
                NetworkHelperCommand.publishReply(found, nil)
            } catch {
                NetworkHelperCommand.publishReply(PublishDiscovery?.none, error)
            }
        }
    }

    /// `birthdays-network publish`: the birthday calendar into one target's calendar, incrementally.
    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Publish the birthday calendar to one CalDAV target.")

        @OptionGroup var caller: CallerOptions
        @Option var targetId: Int64
        @Flag var force = false
        @Flag(
            help: """
                Publish only when the events differ from those of the last successful publish (their calendar hash): \
                otherwise report them unchanged without a request.
                """
        )
        var ifChanged = false
        @Flag(
            help: """
                Delete every event this target published instead (for 'birthdays publish remove'): resources that are \
                not ours are never touched.
                """
        )
        var withdraw = false
        @OptionGroup var secret: PasswordOption

        func run() async throws {
            NetworkHelperCommand.watchParent()
            let environment = ProcessInfo.processInfo.environment
            let known = secret.password()
            let instant = caller.instant
            let zone = caller.zone
            let database: AppDatabase
            let target: PublishTarget
            let published: [String: PublishedEvent]
            do {
                database = try AppDatabase.openFile(at: caller.database, create: false)
                guard let found = try await database.publishTarget(id: targetId) else {
                    NetworkHelperCommand.publishReply(PublishReport?.none, .unknownTarget(name: "#\(targetId)"))
                    throw ExitCode(HelperExit.failed)
                }
                target = found
                published = try await database.publishedEvents(targetId: targetId)
            } catch let exit as ExitCode {
                throw exit
            } catch {
                NetworkHelperCommand.publishReply(PublishReport?.none, .store("\(error)"))
                throw ExitCode(HelperExit.failed)
            }
            let locale = caller.locale
            let withdraw = self.withdraw
            // The events, and the calendar hash a success records, made while the listing is asked for.
            let calendarHash = Built()
            let build: @Sendable () async throws(PublishError) -> [PublishEvent] = { () async throws(PublishError) -> [PublishEvent] in
                let events: [PublishEvent]
                do {
                    if withdraw {
                        events = []
                    } else {
                        let contents = try await database.feedContents()
                        let today = LocalDate.today(at: instant, in: contents.settings.resolvedTimeZone(system: zone))
                        let exporter = CalendarExporter(
                            settings: contents.settings,
                            localizer: contents.settings.localizer(systemLocale: locale),
                            today: today
                        )
                        events = try exporter.events(
                            contents.events,
                            lastChange: exporter.lastChange(of: contents.events, changedAt: contents.changedAt)
                        )
                    }
                } catch {
                    throw .store("\(error)")
                }
                calendarHash.set(PublishPlan.calendarHash(events))
                return events
            }
            var building = build
            // The daemon's check after a write to the store: the events the last
            // publish, a success, left published need no request at all.
            if ifChanged, !withdraw, target.lastError == nil {
                let events: [PublishEvent]
                do throws(PublishError) {
                    events = try await build()
                } catch {
                    NetworkHelperCommand.publishReply(PublishReport?.none, error)
                    throw ExitCode(HelperExit.failed)
                }
                if target.eventsHash == calendarHash.value {
                    var report = PublishReport(name: target.name)
                    report.unchanged = events.count
                    NetworkHelperCommand.publishReply(report, nil)
                    return
                }
                building = { events }
            }
            var report: PublishReport
            do throws(RemoteError) {
                var password = known
                if password == nil, let command = target.passwordCommand, !command.isEmpty {
                    password = try await PasswordCommand.run(command, environment: environment)
                }
                let publisher = CalDAVPublisher(
                    deadline: DAVLimits.deadline(environment: environment),
                    inFlight: environment["BIRTHDAYS_PUBLISH_IN_FLIGHT"].flatMap(Int.init) ?? CalDAVPublisher.defaultInFlight
                )
                report = await publisher.publish(
                    to: target,
                    password: password,
                    building: building,
                    published: published,
                    productID: CalendarExporter.productID,
                    force: force || withdraw,
                    record: { event throws(PublishError) in
                        do { try await database.recordPublished(targetId: target.id, event) } catch { throw .store("\(error)") }
                    },
                    forget: { uid throws(PublishError) in
                        do { try await database.forgetPublished(targetId: target.id, uid: uid) } catch { throw .store("\(error)") }
                    }
                )
            } catch {
                report = PublishReport(name: target.name)
                report.error = .connection(error)
            }
            // A publish that got through every event knows how many it left alone.
            let wentThrough: Bool
            switch report.error {
            case nil, .skipped?: wentThrough = true
            default: wentThrough = false
            }
            try? await database.recordPublishOutcome(
                targetId: target.id,
                now: instant,
                error: report.error?.description,
                eventsHash: report.succeeded && !withdraw ? calendarHash.value : nil,
                leftAlone: wentThrough ? report.foreign.count : nil,
                syncToken: report.syncToken,
                syncCollection: report.syncCollection
            )
            let logger = NetworkHelperCommand.logger(environment)
            if let error = report.error {
                logger.warning("publish to \(target.name) failed: \(error.description)")
            } else {
                let counts = "\(report.put) written, \(report.deleted) deleted, \(report.unchanged) unchanged, \(report.foreign.count) left alone"
                logger.info("published to \(target.name): \(counts)")
            }
            NetworkHelperCommand.publishReply(report, nil)
            if !report.succeeded { throw ExitCode(HelperExit.failed) }
        }
    }

    /// `birthdays-network publish-delete-calendar`: deletes a calendar publish add made.
    struct PublishDeleteCalendar: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish-delete-calendar",
            abstract: "Delete the calendar collection at a URL."
        )

        @Argument var url: String
        @Option var username: String?
        @OptionGroup var secret: PasswordOption

        func run() async throws {
            NetworkHelperCommand.watchParent()
            let password = secret.password()
            let deadline = DAVLimits.deadline(environment: ProcessInfo.processInfo.environment)
            let target = PublishTarget(name: "", url: url, calendarURL: url, username: username)
            do throws(PublishError) {
                try await CalDAVPublisher(deadline: deadline).deleteCalendar(target, password: password)
                NetworkHelperCommand.publishReply(true, nil)
            } catch {
                NetworkHelperCommand.publishReply(Bool?.none, error)
            }
        }
    }
}

/// The calendar hash of the events a publish built, once they are built.
private final class Built: Sendable {
    private let hash = Mutex<String?>(nil)

    var value: String? { hash.withLock { $0 } }

    func set(_ value: String) { hash.withLock { $0 = value } }
}
