import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Onboard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "onboard",
            _superCommandName: "birthdays",
            abstract: "Set up birthdays: import contacts, then choose whether to get reminders.",
            discussion: """
                On a terminal it asks; otherwise give the answers as options: --contacts PATH or --no-contacts, \
                --enable-notifications or --no-notifications, --email ADDRESS or --no-channels, and --service or --no-service. \
                With notifications on, it offers to add a channel that reaches your phone or inbox (e-mail or ntfy; Apprise \
                with 'channels add apprise') and sends a test through it, then offers to keep 'birthdays run' running: as a \
                systemd user service, or, where no systemd user manager runs, started now in the background (it then runs \
                until you log out or the machine restarts). Last, it sends a test notification. \
                An interrupted onboarding continues where it stopped, and says where. \
                "Maybe later" (--no-notifications) never asks again; 'birthdays notifications enable' turns reminders on later.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Import this export (file or folder) instead of asking.", valueName: "path"))
        var contacts: String?

        @Flag(help: "Skip the import step.")
        var noContacts = false

        @Flag(help: "Answer the primer with \"Enable notifications\" and allow them.")
        var enableNotifications = false

        @Flag(help: "Answer the primer with \"Maybe later\".")
        var noNotifications = false

        @Option(help: ArgumentHelp("Add this e-mail address as a channel and send a test to it, instead of asking.", valueName: "address"))
        var email: String?

        @Option(
            help: ArgumentHelp(
                "The sendmail-compatible program for an e-mail channel (default /usr/sbin/sendmail, else msmtp).",
                valueName: "program"
            )
        )
        var sendmail: String?

        @Flag(help: "Skip the step that adds an e-mail or ntfy channel (without a terminal and without --email, it is skipped).")
        var noChannels = false

        @Flag(
            help: """
                Keep birthdays run running without asking: install and start it as a systemd user service (see 'birthdays service \
                install'), or, without a systemd user manager, start it now in the background.
                """
        )
        var service = false

        @Flag(help: "Do not install the service (without a terminal, this is the default).")
        var noService = false

        func validate() throws {
            if contacts != nil && noContacts { throw ValidationError("--contacts and --no-contacts exclude each other") }
            if enableNotifications && noNotifications { throw ValidationError("--enable-notifications and --no-notifications exclude each other") }
            if service && noService { throw ValidationError("--service and --no-service exclude each other") }
            if email != nil && noChannels { throw ValidationError("--email and --no-channels exclude each other") }
            if let email {
                // The checks of 'channels add email', word for word.
                do {
                    _ = try OnboardingFlow.addCommand(kind: .email, target: email, sendmail: sendmail, name: "email")
                } catch {
                    throw ValidationError(BirthdaysCommand.Channels.ChannelsAdd.message(for: error))
                }
            } else if let sendmail, !(sendmail.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: sendmail)) {
                throw ValidationError("--sendmail must be the absolute path of an executable program, such as /usr/bin/msmtp")
            }
        }

        func run() async throws {
            var answers = OnboardingFlow.Answers()
            if noContacts { answers.contacts = .skip } else if let contacts { answers.contacts = .path(contacts) }
            if enableNotifications { answers.notifications = true } else if noNotifications { answers.notifications = false }
            if service { answers.service = true } else if noService { answers.service = false }
            if noChannels { answers.channel = .skip } else if let email { answers.channel = .email(email) }
            answers.sendmail = sendmail
            try await OnboardingFlow.run(global, answers: answers, interactive: FileHandle.isTerminal(0))
        }
    }
}
