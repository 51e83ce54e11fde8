import ArgumentParser
import BirthdayCore
import BirthdayDaemon
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
                count only on requests from that address. \
                With --all-users, one server serves every user of the users root (birthdays users add) on one port, \
                each token reaching its own user's data only, and follows the root: a user added is served, a user \
                removed answers 404 at once, without a restart. Behind a proxy that authenticates people, \
                --user-header Remote-User (with --trusted-proxy) makes GET / show the page of the user the proxy \
                names in that header, only on requests from the proxy's address.
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

        @Flag(help: "Serve every user of the users root, each from their own database (not with --user or --database).")
        var allUsers = false

        @Option(
            help: ArgumentHelp(
                "With --all-users and --trusted-proxy: the header in which the proxy names the user it authenticated; GET / shows their page.",
                valueName: "name"
            )
        )
        var userHeader: String?

        func validate() throws {
            if allUsers { try GlobalOptions.refuseWithAllUsers(global) }
            if let userHeader {
                guard allUsers, let trustedProxy else {
                    throw ValidationError("--user-header needs --all-users and --trusted-proxy (the proxy whose header counts)")
                }
                if let proxy = TrustedProxy(trustedProxy), UserHeader(proxy: proxy, name: userHeader) == nil {
                    throw ValidationError("--user-header must be a header's name, such as Remote-User, not '\(SafeText.line(userHeader))'")
                }
            }
            guard FeedAddress.ports.contains(port) else { throw ValidationError("--port must be between 1 and 65535, not \(port)") }
            guard FeedAddress.isHostName(host) else {
                throw ValidationError("--host must be an address to listen on, such as 127.0.0.1, 0.0.0.0 or ::")
            }
            if let trustedProxy, TrustedProxy(trustedProxy) == nil {
                throw ValidationError("--trusted-proxy must be an IP address, such as 127.0.0.1 or ::1, not '\(SafeText.line(trustedProxy))'")
            }
        }

        func run() async throws {
            if allUsers { return try await runAllUsers() }
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

extension BirthdaysCommand.Serve {
    /// `serve --all-users`: every user's feed server, as `serve --user NAME`
    /// builds it, on one port; `BIRTHDAYS_USER` and `BIRTHDAYS_DATABASE` are
    /// not read. No user's serve record is written (``ServeRecord``): `users
    /// remove` removes a user under it, and their tokens answer 404 from then on.
    func runAllUsers() async throws {
        let environment = ProcessInfo.processInfo.environment
        let folders = Context.users(environment).folders
        let logger = Context.logger("birthdays.serve", level: .info, environment: environment)
        let now = try Context.flowingNow(environment)
        let proxy = trustedProxy.flatMap(TrustedProxy.init)
        let header = proxy.flatMap { proxy in userHeader.flatMap { UserHeader(proxy: proxy, name: $0) } }
        let follower = UsersFeedFollower(
            folders: folders,
            open: { name in
                let context = try await Context.offTheLoop(GlobalOptions.user(name), readOnly: true, ignoringChoiceVariables: true)
                _ = try await context.database.feedToken()
                return DatabaseFeedSource(
                    database: context.database,
                    systemLocale: context.systemLocale,
                    now: now,
                    systemTimeZone: context.liveSystemTimeZone(),
                    drawQR: QRCode.svg(encoding:label:),
                    trustedProxy: proxy
                )
            },
            logger: logger,
            now: now,
            trustedProxy: proxy
        )
        do {
            try await Blocking.run { () throws(UserFolderError) in try folders.makeRoot() }
            let openFiles = OpenFileLimit.raise()
            logger.info("open files allowed", metadata: ["limit": "\(openFiles.map(String.init) ?? "unknown")"])
            try await follower.follow()
        } catch {
            throw CLIError(error.description)
        }
        let app = buildAllUsersFeedApplication(
            feeds: follower.feeds,
            userHeader: header,
            host: host,
            port: port,
            logger: logger,
            onServerRunning: { _ in
                logger.info("serving every user of \(folders.root) at \(FeedAddress(host: host, port: port))")
            }
        )
        do {
            try await runFeedServer(app, beside: [follower], logger: logger)
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CLIError("port \(port) is in use (another birthdays serve?)")
        }
    }
}
