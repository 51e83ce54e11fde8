import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import BirthdayUseCases
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension BirthdaysCommand {
    struct Channels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "channels",
            _superCommandName: "birthdays",
            abstract: "Reach you where you are: add e-mail, ntfy, Gotify and Apprise channels by name, list them, test them.",
            discussion: """
                Every channel has a name, and is on or off: 'settings set channels' names those that are on, built-in \
                (desktop, command, log) and added alike. A channel you add is on from the moment it is added: adding \
                it is your consent. The permission ('notifications') is about the desktop only, which waits for it; \
                'notifications disable' stops every channel. A channel that refuses \
                10 reminders in a row for good (a wrong password, an address the server rejects) is paused until \
                'channels test NAME' gets through it. Secrets never reach the database, the lists or the log: \
                an Apprise or ntfy URL is kept in a 0600 file in the database's own folder DATABASE.secrets, and a token is printed by \
                your --token-command at each delivery.
                """,
            subcommands: [ChannelsList.self, ChannelsAdd.self, ChannelsRemove.self, ChannelsTest.self, ChannelsQR.self],
            defaultSubcommand: ChannelsList.self
        )
    }
}

extension BirthdaysCommand.Channels {
    struct ChannelsList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List every channel that can deliver: kind, target (secrets masked), state, last success and last error."
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print the channels as JSON.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (settings, zone) = try await context.settings()
            let status = try await context.database.authorizationStatus()
            let rows = ChannelsOutput.rows(
                settings: settings,
                permission: status,
                added: try await context.database.remoteChannels(),
                statuses: try await context.database.channelStatuses()
            )
            if json {
                try output(JSONOutput.string(rows.map { ChannelsOutput.Listed($0, zone: zone) }, pretty: true))
            } else {
                try output(ChannelsOutput.table(rows, zone: zone))
            }
        }
    }

    struct ChannelsAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a channel: 'email ADDRESS', 'ntfy URL', 'gotify URL' or 'apprise URL' (tgram://, matrixs://, pover://, …).",
            discussion: """
                email: the message is composed here (the Subject names the person, in your language) and handed to \
                --sendmail (default /usr/sbin/sendmail, else msmtp on PATH) with an argument list, never a shell. \
                apprise: any URL Debian's 'apprise' takes; the URL is kept in a 0600 file in DATABASE.secrets and \
                given to apprise with -c, never in an argument list, the database or a log. \
                ntfy: the server and topic (https://ntfy.sh/TOPIC); the topic is a password, so the URL is kept in a \
                0600 file too. gotify: the server (https://gotify.example) and --token-command, which prints the \
                application token. The token command runs with /bin/sh -c at each delivery; its first line is the \
                token, which is never stored. \
                The channel delivers from now on; try it with 'birthdays channels test NAME'.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp("The kind of channel: email, ntfy, gotify or apprise.", valueName: "kind"))
        var kind: String

        @Argument(
            help: ArgumentHelp(
                "The address (email), the server and topic (ntfy), the server (gotify) or the Apprise URL (apprise).",
                valueName: "target"
            )
        )
        var target: String

        @Option(help: ArgumentHelp("The channel's name (default: its kind).", valueName: "name"))
        var name: String?

        @Option(
            help: ArgumentHelp(
                "email: the sender address (default: none of ours; the mail program chooses, msmtp the 'from' of ~/.msmtprc).",
                valueName: "address"
            )
        )
        var from: String?

        @Option(help: ArgumentHelp("email: the sendmail-compatible program (default /usr/sbin/sendmail, else msmtp).", valueName: "program"))
        var sendmail: String?

        @Option(
            help: ArgumentHelp(
                "ntfy, gotify: a command (run with /bin/sh -c) that prints the access token, such as 'pass show ntfy'.",
                valueName: "command"
            )
        )
        var tokenCommand: String?

        /// The kind, parsed; checked in ``validate()``.
        var channelKind: RemoteChannel.Kind { RemoteChannel.Kind(rawValue: kind.lowercased()) ?? .email }
        var channelName: String { name ?? channelKind.rawValue }

        func validate() throws {
            guard let parsed = RemoteChannel.Kind(rawValue: kind.lowercased()) else {
                let known = RemoteChannel.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("'\(SafeText.line(kind))' is not a kind of channel; the kinds are \(known)")
            }
            if let problem = RemoteChannel.problem(withName: channelName) { throw ValidationError(problem) }
            switch parsed {
            case .email:
                guard EmailAddress(parsing: target) != nil else {
                    throw ValidationError("'\(SafeText.line(target))' is not an e-mail address (like ada@example.org)")
                }
                if let from, EmailAddress(parsing: from) == nil {
                    throw ValidationError("--from '\(SafeText.line(from))' is not an e-mail address (like birthdays@example.org)")
                }
                if let sendmail, !(sendmail.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: sendmail)) {
                    throw ValidationError("--sendmail must be the absolute path of an executable program, such as /usr/bin/msmtp")
                }
                if tokenCommand != nil { throw ValidationError("--token-command is for ntfy and Gotify channels only") }
            case .apprise:
                guard let scheme = target.range(of: "://"), !target[..<scheme.lowerBound].isEmpty, !target.contains(where: \.isWhitespace) else {
                    throw ValidationError("the Apprise URL must look like SCHEME://… (tgram://, matrixs://, mailtos://, json://…), without spaces")
                }
                if from != nil || sendmail != nil { throw ValidationError("--from and --sendmail are for e-mail channels only") }
                if tokenCommand != nil { throw ValidationError("--token-command is for ntfy and Gotify channels only") }
            case .ntfy, .gotify:
                do {
                    _ = try PushURL(target, kind: parsed)
                } catch {
                    throw ValidationError(error.description)
                }
                if from != nil || sendmail != nil { throw ValidationError("--from and --sendmail are for e-mail channels only") }
                if let tokenCommand, tokenCommand.trimmingCharacters(in: .whitespaces).isEmpty {
                    throw ValidationError("--token-command must be a command that prints the token, such as 'pass show gotify'")
                }
                if parsed == .gotify && tokenCommand == nil {
                    throw ValidationError("a Gotify channel needs --token-command, a command that prints the application's token")
                }
            }
        }

        func run() async throws {
            let context = try Context(global)
            let channel = try await add(to: context)
            // Adding a channel is consent: it may be the first that delivers, so the reminders are planned now.
            let rescheduled = try await context.scheduler().reschedule()
            let added = "Added \(channelName) (\(channel.kind.rawValue) → \(SafeText.line(channel.target)))"
            if rescheduled.status == .denied {
                try output(
                    added + ", but notifications are off, so nothing is delivered until: birthdays notifications enable. "
                        + "Try it: birthdays channels test \(channelName)"
                )
            } else {
                try output(
                    added + "; it delivers every reminder from now on (\(Wording.count(rescheduled.scheduled, "reminder")) pending). "
                        + "Try it: birthdays channels test \(channelName)"
                )
            }
        }

        /// Stores the channel (its secret in its file, through ``AddedChannels``)
        /// and returns it, as stored (the target masked); the onboarding adds its channel here too.
        func add(to context: Context) async throws -> RemoteChannel {
            let channel: RemoteChannel
            var secret: String?
            switch channelKind {
            case .email:
                channel = RemoteChannel(name: channelName, kind: .email, target: target, from: from, sendmail: sendmail)
            case .apprise:
                channel = RemoteChannel(name: channelName, kind: .apprise, target: RemoteChannel.maskedURL(target))
                secret = target
            case .ntfy:
                let url = try PushURL(target, kind: .ntfy)
                channel = RemoteChannel(name: channelName, kind: .ntfy, target: url.masked, tokenCommand: tokenCommand)
                secret = target
            case .gotify:
                let url = try PushURL(target, kind: .gotify)
                channel = RemoteChannel(name: channelName, kind: .gotify, target: url.server, tokenCommand: tokenCommand)
            }
            do {
                return try await AddedChannels(database: context.database, environment: context.environment).add(
                    channel,
                    secret: secret,
                    now: context.now
                )
            } catch {
                throw CLIError(error.description)
            }
        }
    }

    struct ChannelsRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an added channel (and its secret file); the built-in ones are turned off with 'settings set channels'."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The channel's name (see 'birthdays channels list').")
        var name: String

        func validate() throws {
            if RemoteChannel.builtInNames.contains(name) {
                throw ValidationError("'\(name)' is a built-in channel: turn it off with 'birthdays settings set channels …'")
            }
        }

        func run() async throws {
            let context = try Context(global)
            guard try await AddedChannels(database: context.database, environment: context.environment).remove(named: name) else {
                throw CLIError("there is no channel named '\(SafeText.line(name))'; see 'birthdays channels list'")
            }
            _ = try await context.scheduler().reschedule()
            try output("Removed \(name).")
        }
    }

    struct ChannelsTest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Send a sample reminder through the named channels (or every channel) now, and say OK or FAIL for each.",
            discussion: """
                The delivery ledger and the pending reminders stay as they are. A channel that gets the sample through \
                has the success recorded, and is resumed when it was paused; a failed test is not tried again and \
                leaves the channel's state as it was. Exits 1 when one failed.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The channels to test (default: every channel that can deliver).")
        var names: [String] = []

        func run() async throws {
            let context = try Context(global)
            let (settings, _, localizer) = try await context.settingsAndLanguage()
            let outcomes = try await Self.test(names, context: context)
            try await NotificationTester.report(outcomes, context: context, settings: settings, localizer: localizer)
            if outcomes.isEmpty || outcomes.contains(where: { $0.error != nil }) { throw ExitCode.failure }
        }

        /// Sends the sample through the channels named (every channel when
        /// none is) and records each success (a paused channel resumes); a
        /// failure is only reported, since nothing tries a test again and the
        /// channel's delivery state is about its reminders. The onboarding
        /// tests the channel it added here too.
        static func test(_ names: [String], context: Context) async throws -> [ChannelSet.Outcome] {
            let (settings, zone, localizer) = try await context.settingsAndLanguage()
            let added = try await context.database.remoteChannels()
            let known = Set(RemoteChannel.builtInNames).union(added.map(\.name))
            for name in names where !known.contains(name) {
                throw ValidationError(
                    "there is no channel named '\(SafeText.line(name))'; the channels are \(known.sorted().joined(separator: ", "))"
                )
            }
            let builtIn = names.isEmpty ? settings.channels : names.compactMap(ChannelKind.init(rawValue:))
            let chosen = names.isEmpty ? added : added.filter { names.contains($0.name) }
            let outcomes = await NotificationTester.send(
                context: context,
                settings: settings,
                channels: builtIn,
                added: chosen,
                zone: zone,
                localizer: localizer
            )
            let succeeded = outcomes.filter { $0.error == nil }.map { (channel: $0.channel, error: DeliveryError?.none) }
            try await context.database.recordChannelOutcomes(succeeded, at: context.now)
            return outcomes
        }
    }

    struct ChannelsQR: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "qr",
            abstract: "Print an ntfy channel's subscribe link and a QR code of it, for the ntfy app on a phone.",
            discussion: """
                The link is ntfy://HOST/TOPIC (with ?secure=false for a server reached over http): scanned with the \
                phone's camera, the ntfy app subscribes to the topic. The topic is a secret: anyone who has it reads the \
                reminders, so show the code only to your own phone. Needs libqrencode (Debian: libqrencode4).
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The ntfy channel's name (see 'birthdays channels list').")
        var name: String

        func run() async throws {
            let context = try Context(global, readOnly: true)
            guard let channel = try await context.database.remoteChannels().first(where: { $0.name == name }) else {
                throw CLIError("there is no added channel named '\(SafeText.line(name))'; see 'birthdays channels list'")
            }
            guard channel.kind == .ntfy else {
                throw CLIError(
                    "'\(channel.name)' is \(["email", "apprise"].contains(channel.kind.rawValue) ? "an" : "a") \(channel.kind.rawValue) channel; a subscribe code is for ntfy channels"
                )
            }
            let url: PushURL
            do {
                url = try ChannelSecrets(databasePath: context.database.path).ntfyURL(name: channel.name)
            } catch {
                throw CLIError("the topic of '\(channel.name)' cannot be read: " + error.description)
            }
            guard let link = url.subscribeLink else {
                throw CLIError("the topic of '\(channel.name)' makes no subscribe link")
            }
            try output(link)
            try output(try QRText.block(for: link, note: nil))
        }
    }
}
