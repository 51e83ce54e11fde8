import ArgumentParser
import BirthdayKit
import BirthdayServer
import Foundation
import Hummingbird
import Logging

extension BirthdaysCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish the birthdays as a calendar subscription (webcal) over HTTP.",
            discussion: """
                Serves GET/HEAD /calendar/<token>.ics with ETag and Last-Modified, and GET /healthz. \
                `birthdays feed url` prints the address to subscribe to. Loopback only by default; \
                put it behind a TLS reverse proxy to reach it from a phone.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The address to listen on.")
        var host = FeedServerDefaults.host

        @Option(help: "The TCP port to listen on.")
        var port = FeedServerDefaults.port

        func run() async throws {
            let context = try Context(global)
            _ = try context.database.feedToken()
            // Access lines at info by default (BIRTHDAYS_LOG_LEVEL=warning turns them off).
            let logger = context.logger("birthdays.serve", level: .info)
            let app = buildFeedApplication(source: DatabaseFeedSource(database: context.database), host: host, port: port, logger: logger)
            try await app.runService()
        }
    }

    struct Feed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or rotate the calendar subscription address.",
            subcommands: [URLCommand.self, Rotate.self],
            defaultSubcommand: URLCommand.self
        )

        struct URLCommand: AsyncParsableCommand {
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
                let urls = FeedURLs(token: try context.database.feedToken(), host: host, port: port)
                if json {
                    print(JSONValue.object([("http", .string(urls.http)), ("webcal", .string(urls.webcal))]).serialized())
                } else {
                    print(urls.http)
                    print(urls.webcal)
                }
            }
        }

        struct Rotate: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Replace the token: the old address stops working at once.")

            @OptionGroup var global: GlobalOptions

            func run() async throws {
                let context = try Context(global)
                try context.database.rotateFeedToken()
                print("The feed token was replaced; subscribers need the new address from `birthdays feed url`.")
            }
        }
    }
}

/// The two spellings of the subscription address.
struct FeedURLs {
    var http: String
    var webcal: String

    init(token: String, host: String, port: Int) {
        let authority = (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + ":" + String(port)
        http = "http://\(authority)/calendar/\(token).ics"
        webcal = "webcal://\(authority)/calendar/\(token).ics"
    }
}
