import ArgumentParser
import BirthdayCore
import BirthdayServer
import BirthdayStore
import Foundation

extension BirthdaysCommand {
    struct Feed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "feed",
            _superCommandName: "birthdays",
            abstract: "Show or rotate the calendar subscription address.",
            subcommands: [FeedURL.self, FeedRotate.self],
            defaultSubcommand: FeedURL.self
        )
    }
}
