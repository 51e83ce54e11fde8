import ArgumentParser
import BirthdayCore
import BirthdayServer
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand.Feed {
    struct FeedURL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "url",
            abstract: "Print the feed's http:// and webcal:// addresses and its page's (the token is created on first use).",
            discussion: """
                The address is the one actually served: a running 'birthdays serve' for this database, else the 'serve' \
                setting (the feed 'birthdays run' serves), else 127.0.0.1:8484. --host and --port override it; a server \
                listening on every address (0.0.0.0 or ::) is named by this machine's host name.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The host name subscribers use (default: where the feed is served).")
        var host: String?

        @Option(parsing: .unconditional, help: "The port (default: where the feed is served).")
        var port: Int?

        func validate() throws {
            if json && qr { throw ValidationError("--qr and --json cannot be combined: the code is for a terminal, the JSON for a program") }
            if let port, !FeedAddress.ports.contains(port) { throw ValidationError("--port must be between 1 and 65535, not \(port)") }
            if let host, !FeedAddress.isHostName(host) {
                throw ValidationError("--host must be a host name or an IP address, such as birthdays.example or 192.168.1.5")
            }
        }

        @Flag(
            help:
                "Print {\"http\":...,\"webcal\":...,\"json\":...,\"page\":...} (json: the next 366 days as upcoming --json prints them; page: the web page for the year)."
        )
        var json = false

        @Flag(help: "Also draw the webcal:// address as a QR code, to subscribe from a phone's camera (needs libqrencode).")
        var qr = false

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let (settings, _) = try await context.settings()
            let served = ServeRecord.current(database: context.database.path) ?? settings.serve ?? FeedAddress.default
            let urls = FeedURLs(
                token: try await context.database.feedToken(),
                host: host ?? FeedURLs.subscriberHost(served.host),
                port: port ?? served.port
            )
            if json {
                try output(JSONOutput.string(urls))
            } else {
                try output(urls.http)
                try output(urls.webcal)
                try output(urls.page)
            }
            if qr {
                let address = host ?? FeedURLs.subscriberHost(served.host)
                try output(QRText.block(for: urls.webcal, note: FeedAddress.isLoopback(address) ? Self.loopbackNote(address) : nil))
            }
        }
    }
}

extension BirthdaysCommand.Feed.FeedURL {
    /// Under a QR code of a loopback address: no phone reaches it; serve on
    /// the network, then `then` ("run this again", or the command that prints a
    /// link shown only once anew, such as `birthdays share rotate Family`).
    static func loopbackNote(_ host: String, then: String = "run this again") -> String {
        "\(host) is this machine only: a phone cannot reach it. Serve the feed on your network "
            + "(birthdays settings set serve 0.0.0.0:8484 on a trusted network, or behind a reverse proxy with TLS; "
            + "see the README's calendar feed step), then \(then)."
    }
}

/// The two spellings of the subscription address, its JSON twin and its page (`feed url --json`).
struct FeedURLs: Encodable {
    var http: String
    var webcal: String
    /// The next 366 days as `upcoming --json` prints them, for dashboards.
    var json: String
    /// The web page for the year (the address without an extension).
    var page: String

    init(token: String, host: String, port: Int) {
        let authority = (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + ":" + String(port)
        http = "http://\(authority)/calendar/\(token).ics"
        webcal = "webcal://\(authority)/calendar/\(token).ics"
        json = "http://\(authority)/calendar/\(token).json"
        page = "http://\(authority)/calendar/\(token)"
    }

    /// The host subscribers use for a server bound to `host`: this machine's
    /// name for a wildcard address (0.0.0.0, ::), which no client can connect to.
    static func subscriberHost(_ host: String) -> String {
        guard ["0.0.0.0", "::", "[::]", "*"].contains(host) else { return host }
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "localhost" : text
    }
}
