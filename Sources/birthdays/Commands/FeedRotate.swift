import ArgumentParser
import BirthdayCore
import BirthdayStore
import Foundation

extension BirthdaysCommand.Feed {
    struct FeedRotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rotate", abstract: "Replace the token: the old address stops working at once.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let context = try Context(global)
            try await context.database.rotateFeedToken()
            try output("The feed token was replaced; subscribers need the new address from `birthdays feed url`.")
        }
    }
}
