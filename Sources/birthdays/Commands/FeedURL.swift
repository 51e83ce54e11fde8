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

        func validate() throws {
            guard FeedAddress.ports.contains(port) else { throw ValidationError("--port must be between 1 and 65535, not \(port)") }
        }

        @Flag(help: "Print {\"http\":...,\"webcal\":...}.")
        var json = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let urls = FeedURLs(token: try await context.database.feedToken(), host: host, port: port)
            if json {
                try output(JSONOutput.string(urls))
            } else {
                try output(urls.http)
                try output(urls.webcal)
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
