import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand.Publish {
    struct PublishAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a CalDAV calendar to publish into, and publish once.",
            discussion: """
                URL is a CalDAV calendar, used as it is, or a server or account: then the calendar named --calendar \
                (default: the calendar-name setting) in the account's calendar home is used, and made when there is \
                none (current-user-principal, calendar-home-set, MKCALENDAR). Events already in that calendar with \
                the PRODID and UID birthdays writes (left by 'publish remove --keep-events') are adopted: compared, and \
                rewritten only when they differ; any other event is never touched. A wrong password, an unreachable \
                server or a first publish that writes or adopts nothing stores nothing. Only the password command is stored: it is run with /bin/sh -c at each publish, and \
                the first line it prints is the password.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The http(s):// URL of a CalDAV server, account or calendar.", valueName: "url"))
        var url: String

        @Option(help: "The CalDAV username.")
        var username: String?

        @Option(help: ArgumentHelp("A command that prints the CalDAV password, such as 'pass show dav'.", valueName: "command"))
        var passwordCommand: String?

        @Option(help: "The display name of the calendar to use or make (default: the calendar-name setting).")
        var calendar: String?

        @Option(help: "The target's name (default: the server's host name).")
        var name: String?

        @Flag(help: "Print the first publish's report as JSON (as 'publish sync --json').")
        var json = false

        func validate() throws {
            let lower = url.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), let components = URLComponents(string: url),
                components.host?.isEmpty == false
            else {
                throw ValidationError("URL must be an http:// or https:// URL")
            }
            if components.password != nil {
                throw ValidationError("the URL holds a password; give it with --password-command instead")
            }
            for (option, value) in [("--name", name), ("--calendar", calendar)] {
                if let value, value.trimmingCharacters(in: .whitespaces).isEmpty || !SafeText.isSafeLine(value) {
                    throw ValidationError("\(option) must be one line, not empty, without control characters or spaces around it")
                }
            }
            if let passwordCommand, passwordCommand.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--password-command must not be empty")
            }
        }

        func run() async throws {
            let context = try Context(global)
            try BirthdaysCommand.Publish.refuseTrial(context)
            guard var components = URLComponents(string: url) else { throw ValidationError("URL must be an http:// or https:// URL") }
            let user = username ?? components.user
            components.user = nil
            let location = components.string ?? url
            let targetName = name ?? components.host ?? location
            if try await context.database.publishTarget(named: targetName) != nil {
                throw CLIError(PublishError.duplicateTarget(name: targetName).description)
            }
            let settings = try await context.settingsAndLanguage().0
            let password = try await BirthdaysCommand.Publish.password(passwordCommand, context: context)
            let found: PublishDiscovery
            do {
                found = try await NetworkHelper(database: context.database.path, environment: context.environment, password: password)
                    .publishDiscover(location, username: user, calendar: calendar ?? settings.calendarName)
            } catch {
                throw CLIError(error.description)
            }
            let target: PublishTarget
            do {
                target = try await context.database.addPublishTarget(
                    PublishTarget(
                        name: targetName,
                        url: location,
                        calendarURL: found.calendarURL,
                        username: user,
                        passwordCommand: passwordCommand,
                        createdCalendar: found.created
                    ),
                    now: context.now
                )
            } catch {
                throw CLIError(error.description)
            }
            if !json {
                try output("Added \(SafeText.line(targetName)): \(found.created ? "made" : "found") the calendar \(found.calendarURL)")
            }
            let reports = try await BirthdaysCommand.Publish.publish([target], force: false, context: context, password: password)
            // A first publish that wrote nothing (a read-only calendar, a full account, a calendar whose
            // every address holds an event birthdays did not write) leaves nothing behind: the target is
            // forgotten and a calendar made for it deleted. One that wrote or adopted some events keeps
            // its target, so the next publish finishes or removes them.
            if let report = reports.first, report.put == 0,
                !report.succeeded || (report.unchanged == 0 && !report.foreign.isEmpty)
            {
                if found.created {
                    try? await NetworkHelper(database: context.database.path, environment: context.environment, password: password)
                        .deleteCalendar(found.calendarURL, username: user)
                }
                _ = try? await context.database.removePublishTarget(named: targetName)
                let reason = report.error?.description ?? BirthdaysCommand.Publish.leftAlone(report.foreign.count)
                throw CLIError(
                    "\(SafeText.line(targetName)): \(reason); nothing was kept"
                        + (found.created ? " (the calendar made for it is deleted)" : "")
                )
            }
            try BirthdaysCommand.Publish.finish(reports, json: json)
        }
    }
}
