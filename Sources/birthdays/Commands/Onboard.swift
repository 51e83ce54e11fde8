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
                and --enable-notifications or --no-notifications. An interrupted onboarding continues where it stopped. \
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

        func validate() throws {
            if contacts != nil && noContacts { throw ValidationError("--contacts and --no-contacts exclude each other") }
            if enableNotifications && noNotifications { throw ValidationError("--enable-notifications and --no-notifications exclude each other") }
        }

        func run() async throws {
            let context = try Context(global)
            var answers = OnboardingFlow.Answers()
            if noContacts { answers.contacts = .skip } else if let contacts { answers.contacts = .path(contacts) }
            if enableNotifications { answers.notifications = true } else if noNotifications { answers.notifications = false }
            let flow = OnboardingFlow(context: context, answers: answers, interactive: FileHandle.isTerminal(0))
            try await flow.run()
        }
    }
}
