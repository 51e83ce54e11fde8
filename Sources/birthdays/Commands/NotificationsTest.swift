import ArgumentParser
import BirthdayCore
import BirthdayDaemon
import BirthdayStore
import BirthdaySystem
import BirthdayText
import Foundation

extension BirthdaysCommand.Notifications {
    struct NotificationsTest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Send a sample notification through each configured channel now, and say OK or FAIL for each.",
            discussion: """
                Nothing is recorded: the delivery ledger and the pending reminders stay as they are. Every channel of the \
                'channels' setting and every channel added with 'channels add' is tried (or only those given with --channel), \
                whatever the permission; exits 1 when one failed. 'channels test' does the same and records how each fared.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(
            name: .customLong("channel"),
            help: ArgumentHelp("Only this channel: desktop, command, log or an added channel's name (repeatable).", valueName: "channel")
        )
        var channels: [String] = []

        func validate() throws {
            for name in channels where RemoteChannel.builtInNames.contains(name) == false && RemoteChannel.problem(withName: name) != nil {
                throw ValidationError(
                    "'\(SafeText.line(name))' is not a channel: desktop, command, log, or the name of one added with 'channels add'"
                )
            }
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (settings, zone, localizer) = try await context.settingsAndLanguage()
            let added = try await context.database.remoteChannels()
            for name in channels where !RemoteChannel.builtInNames.contains(name) && !added.contains(where: { $0.name == name }) {
                throw ValidationError("there is no channel named '\(SafeText.line(name))'; see 'birthdays channels list'")
            }
            let outcomes = await NotificationTester.send(
                context: context,
                settings: settings,
                channels: channels.isEmpty ? settings.channels : channels.compactMap(ChannelKind.init(rawValue:)),
                added: channels.isEmpty ? added : added.filter { channels.contains($0.name) },
                zone: zone,
                localizer: localizer
            )
            try await NotificationTester.report(outcomes, context: context, settings: settings, localizer: localizer)
            if outcomes.isEmpty || outcomes.contains(where: { $0.error != nil }) { throw ExitCode.failure }
        }
    }
}

/// `--channel desktop`.
extension ChannelKind: ExpressibleByArgument {}

/// A sample notification through the channels, for `notifications test`
/// and the end of the onboarding: the same channels `birthdays run` builds,
/// handed a reminder that is in no table, so nothing is recorded.
enum NotificationTester {
    /// Delivers the sample to each of `channels` at once; their outcomes in that order.
    static func send(
        context: Context,
        settings: Settings,
        channels: [ChannelKind],
        added: [RemoteChannel] = [],
        zone: TimeZone,
        localizer: Localizer
    ) async -> [ChannelSet.Outcome] {
        var chosen = settings
        chosen.channels = channels
        let clock = ContinuousClock()
        let factory = ReminderChannels.factory(
            desktop: channels.contains(.desktop) ? DesktopNotificationChannel(labels: .init(localizer)) : nil,
            environment: context.environment,
            clock: clock,
            databasePath: context.database.path,
            log: { line in try StandardOutput.write(line + "\n") }
        )
        let today = LocalDate.today(at: context.now, in: zone)
        let sample = Reminder(
            id: "birthdays-test",
            personID: "",
            kind: .birthday,
            when: .dayOf,
            fireAt: context.now,
            timeZone: zone,
            title: localizer(.testTitle),
            body: localizer(.testBody),
            late: false,
            occurrenceDate: today,
            logID: "test"
        )
        // The permission decides what `birthdays run` uses; a test tries what was asked.
        return await factory(chosen, .authorized, added).deliverEach(sample)
    }

    /// ``report(_:settings:status:consent:hasRooms:localizer:)`` with what
    /// the store says now: the permission, the added channels that are on and
    /// not paused, and whether there are team rooms.
    static func report(_ outcomes: [ChannelSet.Outcome], context: Context, settings: Settings, localizer l: Localizer) async throws {
        let status = try await context.database.authorizationStatus()
        let added = try await context.database.remoteChannels()
        let statuses = try await context.database.channelStatuses()
        let consent = ChannelConsent(
            status: status,
            builtIn: settings.channels,
            added: added.filter { $0.isOn && statuses[$0.name]?.paused != true }.map(\.name)
        )
        let hasRooms = !(try await context.database.announceRooms()).isEmpty
        try report(outcomes, settings: settings, status: status, consent: consent, hasRooms: hasRooms, localizer: l)
    }

    /// One line per channel ("desktop: OK", "command: FAIL: …"), a warning
    /// for a `command` channel without a command, and what the permission
    /// makes of them in `birthdays run`, by the one consent model
    /// (``ChannelConsent``): before it is asked for, only the desktop waits;
    /// when nothing of the user's delivers, team rooms still get their
    /// messages unless the permission is denied.
    static func report(
        _ outcomes: [ChannelSet.Outcome],
        settings: Settings,
        status: AuthorizationStatus,
        consent: ChannelConsent,
        hasRooms: Bool,
        localizer l: Localizer
    ) throws {
        if outcomes.isEmpty { try output(l(.testNoChannels)) }
        for outcome in outcomes {
            if let error = outcome.error {
                try output(l(.testFailed(channel: outcome.channel, reason: l(.testError(error)))))
            } else {
                try output(l(.testOK(channel: outcome.channel)))
            }
        }
        if outcomes.contains(where: { $0.channel == ChannelKind.command.rawValue }) && settings.command.trimmingWhitespace().isEmpty {
            printError("warning: the 'command' channel is on, but no command is set; set one with: birthdays settings set command '…'")
        }
        switch status {
        case .provisional: try output(l(.testProvisional))
        case .notDetermined where consent.delivers:
            if settings.channels.contains(.desktop) { try output(l(.testNotAsked(status: status.rawValue))) }
        case .notDetermined where hasRooms: try output(l(.testDisabledRooms(status: status.rawValue)))
        case .notDetermined, .denied: try output(l(.testDisabled(status: status.rawValue)))
        case .authorized: break
        }
    }
}
