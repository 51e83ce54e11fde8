import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Onboard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set up birthdays: import contacts, then choose whether to get reminders.",
            discussion: """
                On a terminal it asks; otherwise give the answers as options: --contacts PATH or --no-contacts, \
                --enable-notifications or --no-notifications, and --service or --no-service. With notifications on, it offers \
                to keep 'birthdays run' running as a systemd user service and sends a test notification. \
                An interrupted onboarding continues where it stopped. \
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

        @Flag(help: "Install and start birthdays run as a systemd user service without asking (see 'birthdays service install').")
        var service = false

        @Flag(help: "Do not install the service (without a terminal, this is the default).")
        var noService = false

        func validate() throws {
            if contacts != nil && noContacts { throw ValidationError("--contacts and --no-contacts exclude each other") }
            if enableNotifications && noNotifications { throw ValidationError("--enable-notifications and --no-notifications exclude each other") }
            if service && noService { throw ValidationError("--service and --no-service exclude each other") }
        }

        func run() async throws {
            let context = try Context(global)
            var answers = OnboardingFlow.Answers()
            if noContacts { answers.contacts = .skip } else if let contacts { answers.contacts = .path(contacts) }
            if enableNotifications { answers.notifications = true } else if noNotifications { answers.notifications = false }
            if service { answers.service = true } else if noService { answers.service = false }
            let flow = OnboardingFlow(context: context, answers: answers, interactive: FileHandle.isTerminal(0))
            try await flow.run()
        }
    }
}
