import ArgumentParser
import BirthdayCore
import BirthdayServer
import BirthdayStore
import Foundation

extension BirthdaysCommand.Feed {
    struct FeedURL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "url",
            abstract: "Print the feed's http:// and webcal:// addresses (the token is created on first use)."
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The host name subscribers use.")
        var host = FeedServerDefaults.host

        @Option(help: "The port `birthdays serve` listens on.")
        var port = FeedServerDefaults.port

        @Flag(help: "Print {\"http\":...,\"webcal\":...}.")
        var json = false

        func run() async throws {
            let context = try Context(global)
            let urls = FeedURLs(token: try await context.database.feedToken(), host: host, port: port)
            if json {
                print(JSONOutput.string(urls))
            } else {
                print(urls.http)
                print(urls.webcal)
            }
        }
    }
}

/// The two spellings of the subscription address (`feed url --json`).
struct FeedURLs: Encodable {
    var http: String
    var webcal: String

    init(token: String, host: String, port: Int) {
        let authority = (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + ":" + String(port)
        http = "http://\(authority)/calendar/\(token).ics"
        webcal = "webcal://\(authority)/calendar/\(token).ics"
    }
}
