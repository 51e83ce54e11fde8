import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation

extension BirthdaysCommand {
    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish",
            _superCommandName: "birthdays",
            abstract: "Publish the birthday calendar, alarms included, into a CalDAV calendar the phone syncs.",
            discussion: """
                Each event of the feed (the same UIDs, dates and alarms as 'birthdays export') becomes one resource, \
                UID.ics, of a CalDAV calendar: one that 'publish add' finds or makes. Only what changed since the last \
                publish is written, and only resources publish wrote are ever changed or deleted (an event with the \
                PRODID and UID birthdays writes is its own, and adopted); an event whose address holds anything else is \
                left alone, and 'publish list' and 'status' say how many. A publish that would delete more than half of \
                10 or more published events needs 'publish sync --force'. 'publish remove' deletes the events it wrote \
                unless --keep-events. The running daemon \
                ('birthdays run') publishes within seconds of every change, at start, at each wake and every 6 hours, \
                and retries a failed publish (see 'birthdays status'); it never forces one.
                """,
            subcommands: [PublishAdd.self, PublishList.self, PublishSync.self, PublishRemove.self],
            defaultSubcommand: PublishList.self
        )

        /// The commands refuse pretend time: they write to a server, which a trial copy cannot undo.
        static func refuseTrial(_ context: Context) throws {
            if Context.isTrial(context.environment) {
                throw CLIError("publish writes to a CalDAV server, so it does not run at a pretend time (unset BIRTHDAYS_NOW)")
            }
        }

        /// The password printed by `command`, if any.
        static func password(_ command: String?, context: Context) async throws -> String? {
            guard let command, !command.isEmpty else { return nil }
            do {
                return try await PasswordCommand.run(command, environment: context.environment)
            } catch {
                throw CLIError(error.description)
            }
        }

        /// Publishes to each target, returning the reports (a helper that cannot run is a failed report).
        static func publish(
            _ targets: [PublishTarget],
            force: Bool,
            withdraw: Bool = false,
            context: Context,
            password: String? = nil
        ) async throws -> [PublishReport] {
            let publisher = TargetPublisher(database: context.database, environment: context.environment)
            var reports: [PublishReport] = []
            for target in targets {
                reports.append(
                    await publisher.publish(
                        target,
                        force: force,
                        withdraw: withdraw,
                        password: password,
                        now: context.now,
                        timeZone: context.systemTimeZone,
                        locale: context.systemLocale
                    )
                )
            }
            return reports
        }

        /// `publish sync --json` (and `publish add --json`).
        struct Synced: Encodable {
            var name: String
            var put: Int
            var deleted: Int
            var unchanged: Int
            /// Addresses that hold a resource birthdays did not write: left alone.
            var foreign: [String]
            /// Events the server refused again and again (412), by resource name: not written this time.
            var skipped: [String]
            var requests: Int
            var error: String?

            init(_ report: PublishReport) {
                name = report.name
                put = report.put
                deleted = report.deleted
                unchanged = report.unchanged
                foreign = report.foreign
                skipped = report.skipped
                requests = report.requests
                error = report.error?.description
            }
        }

        /// "3 events left alone: …": why a publish did not write them, for `publish sync`, `publish list` and `status`.
        static func leftAlone(_ count: Int) -> String {
            "\(count) event\(count == 1 ? "" : "s") left alone: their address holds an event birthdays did not write "
                + "(not its PRODID and UID: another client's, or the feed imported by one); remove those, or publish to another calendar"
        }

        /// Prints the reports; exits with status 1 when one failed.
        static func finish(_ reports: [PublishReport], json: Bool) throws {
            if json {
                try output(JSONOutput.string(reports.map(Synced.init), pretty: true))
            } else {
                for report in reports where report.succeeded || !report.skipped.isEmpty {
                    try output(
                        "\(SafeText.line(report.name)): \(report.put) written, \(report.deleted) deleted, \(report.unchanged) unchanged"
                    )
                    if !report.foreign.isEmpty {
                        try output(
                            "\(SafeText.line(report.name)): \(leftAlone(report.foreign.count)): "
                                + report.foreign.prefix(3).map { SafeText.line(PublishPlan.resourceName(href: $0)) }.joined(separator: ", ")
                                + (report.foreign.count > 3 ? ", …" : "")
                        )
                    }
                }
            }
            let failed = reports.filter { !$0.succeeded }
            guard !failed.isEmpty else { return }
            throw CLIError(failed.map { "\(SafeText.line($0.name)): \($0.error?.description ?? "failed")" }.joined(separator: "\n"))
        }
    }
}

extension BirthdaysCommand.Publish {
    struct PublishList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the publish targets: server, calendar, events, last publish, last error (no passwords)."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the targets as JSON.")
        var json = false

        struct Listed: Encodable {
            var name: String
            var server: String
            var calendar: String
            var events: Int
            /// Events of the feed the last publish did not write: their address holds an event birthdays did not write.
            var left_alone: Int
            /// How a publish lists the calendar: `sync-collection` (RFC 6578: only what changed since the
            /// last publish), or `propfind` where the server refuses it (every event's ETag each time).
            var listing: String
            var last_publish: String?
            var error: String?
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let targets = try await context.database.publishTargets()
            let (_, zone, localizer) = try await context.settingsAndLanguage()
            if json {
                let listed = targets.map {
                    Listed(
                        name: $0.name,
                        server: $0.url,
                        calendar: $0.calendarURL,
                        events: $0.events,
                        left_alone: $0.leftAlone,
                        listing: $0.syncRefused ? "propfind" : "sync-collection",
                        last_publish: $0.lastPublish.map { ISOInstant.format($0, in: zone) },
                        error: $0.lastError
                    )
                }
                try output(JSONOutput.string(listed, pretty: true))
                return
            }
            guard !targets.isEmpty else {
                try output("No publish targets. Add one with: birthdays publish add URL")
                return
            }
            let rows = targets.map { target in
                [
                    target.name, String(target.events) + (target.leftAlone > 0 ? " (+\(target.leftAlone) left alone)" : ""),
                    target.lastPublish.map { Wording.wallClock($0, zone: zone) } ?? "never", target.url,
                    target.calendarURL,
                ]
            }
            var text = Table.render(rows, header: ["NAME", "EVENTS", "LAST PUBLISH", "SERVER", "CALENDAR"])
            for target in targets {
                if target.leftAlone > 0 {
                    text += "\n\(SafeText.line(target.name)): " + BirthdaysCommand.Publish.leftAlone(target.leftAlone)
                }
                if target.syncRefused { text += "\n\(SafeText.line(target.name)): " + localizer(.plain(.publishListingPropfind)) }
                if let error = target.lastError { text += "\n\(SafeText.line(target.name)): \(SafeText.line(error))" }
            }
            try output(text)
        }
    }

    struct PublishSync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Publish now (to every target, or the one named).",
            discussion: """
                Writes what changed since the last publish, after one listing of the calendar (what changed there \
                since the last publish's sync-token, RFC 6578; every member's ETag where the server refuses that): what it shows gone is \
                created again directly. A listing the server answers with an error, a redirect or anything but a \
                multistatus fails the publish (only 405, 501 or a listing without ETags mean the server does not list). \
                A publish that fails stops where it is and exits with status 1; what it wrote is remembered, and the \
                next one goes on from there without duplicates. An event the server refuses with 412 again and again is \
                skipped and named by its resource name; the others are written, and the publish exits with status 1.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The target to publish to (default: all).", valueName: "name"), completion: Completions.publishTargets)
        var name: String?

        @Flag(help: "Let this publish delete more than half of the published events.")
        var force = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            try BirthdaysCommand.Publish.refuseTrial(context)
            var targets = try await context.database.publishTargets()
            if let name {
                targets = targets.filter { $0.name == name }
                if targets.isEmpty { throw CLIError(PublishError.unknownTarget(name: name).description) }
            }
            let reports = try await BirthdaysCommand.Publish.publish(targets, force: force, context: context)
            try BirthdaysCommand.Publish.finish(reports, json: json)
        }
    }

    struct PublishRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Stop publishing to a target (or --all), and delete the events it wrote (--keep-events leaves them).",
            discussion: """
                By default the events publish wrote are deleted from the calendar first (a stale birthday on the phone \
                is worse than none); events it did not write are never touched. When they cannot be deleted (a server \
                that cannot be reached), the target stays and the command exits with status 1. With --keep-events they \
                stay in the calendar, and a later 'publish add' of that calendar adopts those still wanted. With \
                --delete-calendar the calendar itself is deleted, events and all, but only when 'publish add' made it; \
                a calendar that was there before is never deleted (with NAME that is an error, with --all its target is \
                removed, its events deleted unless --keep-events, and the calendar kept).
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The target's name (see 'birthdays publish list').", completion: Completions.publishTargets)
        var name: String?

        @Flag(help: "Remove every target.")
        var all = false

        @Flag(help: "Delete the calendar too (only one that 'publish add' made).")
        var deleteCalendar = false

        @Flag(help: "Leave the events publish wrote in the calendar (a later 'publish add' adopts them).")
        var keepEvents = false

        func validate() throws {
            if name == nil && !all { throw ValidationError("name a target, or give --all to remove every target") }
            if name != nil && all { throw ValidationError("give a target's name or --all, not both") }
        }

        func run() async throws {
            let context = try Context(global)
            let targets: [PublishTarget]
            if let name {
                guard let target = try await context.database.publishTarget(named: name) else {
                    throw CLIError(PublishError.unknownTarget(name: name).description)
                }
                if deleteCalendar && !target.createdCalendar {
                    throw CLIError(
                        "'\(SafeText.line(name))' publishes into a calendar that was there before, so it is not deleted; "
                            + "run publish remove without --delete-calendar"
                    )
                }
                targets = [target]
            } else {
                targets = try await context.database.publishTargets()
                if targets.isEmpty {
                    try output("No publish targets to remove.")
                    return
                }
            }
            // Deleting events or a calendar writes to the server, which a trial copy cannot undo.
            if deleteCalendar || !keepEvents { try BirthdaysCommand.Publish.refuseTrial(context) }
            var failures: [String] = []
            for target in targets {
                let name = SafeText.line(target.name)
                let deletesCalendar = deleteCalendar && target.createdCalendar
                var deleted = 0
                do {
                    if deletesCalendar {
                        let password = try await BirthdaysCommand.Publish.password(target.passwordCommand, context: context)
                        try await NetworkHelper(database: context.database.path, environment: context.environment, password: password)
                            .deleteCalendar(target.calendarURL, username: target.username)
                    } else if !keepEvents {
                        let reports = try await BirthdaysCommand.Publish.publish([target], force: true, withdraw: true, context: context)
                        if let error = reports.first?.error { throw CLIError(error.description) }
                        deleted = reports.first?.deleted ?? 0
                    }
                } catch {
                    let sentence = (error as? CLIError)?.description ?? "\(error)"
                    failures.append(
                        "\(name): \(sentence); it is still published to (to forget it and leave its events, run: "
                            + "birthdays publish remove '\(name)' --keep-events)"
                    )
                    continue
                }
                do {
                    try await context.database.removePublishTarget(named: target.name)
                } catch {
                    failures.append("\(name): \(error.description)")
                    continue
                }
                let calendar = SafeText.line(target.calendarURL)
                if deletesCalendar {
                    try output("Removed \(name) and deleted its calendar.")
                } else if keepEvents {
                    try output(
                        "Removed \(name); its events stay in \(calendar)"
                            + (deleteCalendar ? " (the calendar was there before publish add)." : ".")
                    )
                } else {
                    try output(
                        "Removed \(name) and deleted the \(deleted) event\(deleted == 1 ? "" : "s") it wrote from \(calendar)"
                            + (deleteCalendar ? " (the calendar was there before publish add, so it stays)." : ".")
                    )
                }
            }
            if !failures.isEmpty { throw CLIError(failures.joined(separator: "\n")) }
        }
    }
}
