import ArgumentParser
import BirthdayCore
import BirthdayServer
import BirthdayStore
import BirthdaySystem
import BirthdayUseCases
import Foundation
import Hummingbird
import Logging
import NIOCore

extension BirthdaysCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            _superCommandName: "birthdays",
            abstract: "Publish the birthdays over HTTP: the calendar subscription (webcal), its web page, shares and invitations.",
            discussion: """
                Serves GET/HEAD /calendar/<token>.ics (the feed) with ETag and Last-Modified, /calendar/<token>.json \
                (the next 366 days), /calendar/<token> (the web page for the year, to look at or print), the same three \
                for each share's token ('birthdays share add'), /invite/<token> (the form of an invitation, \
                'birthdays invite'), and GET /healthz. `birthdays feed url` prints the feed's and the page's addresses; \
                a share's and an invitation's link is printed once, when made. Loopback only by default; put it behind \
                a TLS reverse proxy to reach it from a phone, and name the proxy with --trusted-proxy (or the \
                trusted-proxy setting) so that the invitation form's limit per address counts each visitor by the \
                address the proxy gives in X-Forwarded-For or Forwarded, not every visitor as the proxy. Those headers \
                count only on requests from that address.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The address to listen on.")
        var host = FeedServerDefaults.host

        @Option(help: "The TCP port to listen on.")
        var port = FeedServerDefaults.port

        @Option(
            help: ArgumentHelp(
                "The IP address of the reverse proxy in front of the server: its X-Forwarded-For or Forwarded names the client (default: the trusted-proxy setting).",
                valueName: "address"
            )
        )
        var trustedProxy: String?

        func validate() throws {
            guard FeedAddress.ports.contains(port) else { throw ValidationError("--port must be between 1 and 65535, not \(port)") }
            guard FeedAddress.isHostName(host) else {
                throw ValidationError("--host must be an address to listen on, such as 127.0.0.1, 0.0.0.0 or ::")
            }
            if let trustedProxy, TrustedProxy(trustedProxy) == nil {
                throw ValidationError("--trusted-proxy must be an IP address, such as 127.0.0.1 or ::1, not '\(SafeText.line(trustedProxy))'")
            }
        }

        func run() async throws {
            let context = try await Context.offTheLoop(global, readOnly: true)
            _ = try await context.database.feedToken()
            // Access lines at info by default (BIRTHDAYS_LOG_LEVEL=warning turns them off).
            let logger = context.logger("birthdays.serve", level: .info)
            // `birthdays feed url` prints where this server listens, for as long as it does.
            let record = ServeRecord.publish(database: context.database.path, address: FeedAddress(host: host, port: port))
            defer { withExtendedLifetime(record) {} }
            // Where the page is, without its token (a secret: never logged).
            let address = FeedURLs(token: "<token>", host: FeedURLs.subscriberHost(host), port: port)
            // A date an `--auto-accept` answer gave to someone already there goes to their card too, as with
            // `invites accept`, after the answer is stored and without holding up its reply.
            let writeBack = CardWriteBack(
                database: context.database,
                environment: context.environment,
                logger: context.logger("birthdays.writeback", level: .info)
            )
            let followUp = InvitationFollowUp(logger: logger) { personID, date in
                _ = await writeBack.writeBirthday(personID: personID, date)
            }
            let source = DatabaseFeedSource(
                database: context.database,
                systemLocale: context.systemLocale,
                now: context.flowingNow(),
                systemTimeZone: context.liveSystemTimeZone(),
                drawQR: QRCode.svg(encoding:label:),
                dateGiven: { followUp.post($0) },
                trustedProxy: trustedProxy.flatMap(TrustedProxy.init)
            )
            let app = buildFeedApplication(
                source: source,
                invitations: source,
                host: host,
                port: port,
                logger: logger,
                // Said once the port is ours: a port in use is then only its own one line.
                onServerRunning: { _ in
                    logger.info("the page for the year is \(address.page), the feed \(address.http); birthdays feed url prints them with the token")
                }
            )
            do {
                try await runFeedServer(app, before: [followUp], logger: logger)
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                throw CLIError("port \(port) is in use (another birthdays serve?)")
            }
        }
    }
}
