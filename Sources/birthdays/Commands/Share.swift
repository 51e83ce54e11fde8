import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import BirthdayText
import Foundation

extension BirthdaysCommand {
    struct ShareCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "share",
            _superCommandName: "birthdays",
            abstract: "Links for family or a team: the page, feed and list of some groups only.",
            discussion: """
                Each share has its own secret link, served by 'birthdays serve' (or 'run' with the serve setting): the \
                page for the year, the calendar feed and the JSON list, limited to the share's groups, with names, dates \
                and (unless refused) ages only; never contact points, notes, zones or anyone outside its groups. Only a \
                hash of its token is stored: the link is printed once, by 'share add' and 'share rotate'.
                """,
            subcommands: [ShareAdd.self, ShareList.self, ShareRotate.self, ShareRemove.self],
            defaultSubcommand: ShareList.self
        )
    }
}

/// Where the share's links point: the options `feed url` has too.
struct ShareAddressOptions: ParsableArguments {
    @Option(help: "The host name the link uses (default: where the feed is served).")
    var host: String?

    @Option(parsing: .unconditional, help: "The port (default: where the feed is served).")
    var port: Int?

    func validate() throws {
        if let port, !FeedAddress.ports.contains(port) { throw ValidationError("--port must be between 1 and 65535, not \(port)") }
        if let host, !FeedAddress.isHostName(host) {
            throw ValidationError("--host must be a host name or an IP address, such as birthdays.example or 192.168.1.5")
        }
    }

    /// The page, feed and list addresses of `token`, and the QR code of the
    /// page; under a loopback address's code, how to serve on the network and
    /// then `again` (the command that prints a new link).
    func links(for token: String, context: Context, again: String) async throws -> String {
        let (settings, _) = try await context.settings()
        let served = ServeRecord.current(database: context.database.path) ?? settings.serve ?? FeedAddress.default
        let address = host ?? FeedURLs.subscriberHost(served.host)
        let urls = FeedURLs(token: token, host: address, port: port ?? served.port)
        let page = urls.page
        let note = FeedAddress.isLoopback(address) ? BirthdaysCommand.Feed.FeedURL.loopbackNote(address, then: again) : nil
        return [
            "page:     " + page,
            "calendar: " + urls.webcal,
            "list:     " + urls.json,
            try QRText.block(for: page, note: note),
        ].joined(separator: "\n")
    }
}

extension BirthdaysCommand.ShareCommand {
    struct ShareAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Make a share of some groups and print its link and QR code (once: only a hash is kept)."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The share's name (Family, Team).")
        var name: String

        @Option(name: .customLong("group"), help: "A group it shows (repeat for more; see birthdays groups).")
        var groups: [String] = []

        @Flag(help: "Show no ages.")
        var noAges = false

        @Flag(help: "Show no years of birth (and so no ages).")
        var noYears = false

        @OptionGroup var address: ShareAddressOptions

        func validate() throws {
            guard Share.validName(name) != nil else { throw ValidationError("the name must be one line of 1 to 64 characters") }
            guard !groups.isEmpty else { throw ValidationError("name at least one --group the share shows (see birthdays groups)") }
            guard groups.allSatisfy({ Share.validName($0) != nil }) else { throw ValidationError("a --group must be one line of 1 to 64 characters") }
        }

        func run() async throws {
            let context = try Context(global)
            // A group nobody is in is a typing mistake, told as every command tells it; nothing is made.
            var chosen: [String] = []
            for typed in groups {
                let group = try await context.group(named: typed)
                if !chosen.contains(group) { chosen.append(group) }
            }
            guard let name = Share.validName(name),
                let (share, token) = try await context.database.addShare(
                    name: name,
                    groups: chosen,
                    showAges: !noAges,
                    showYears: !noYears,
                    now: context.now
                )
            else {
                throw CLIError("there is already a share named \(SafeText.quoted(name)); see birthdays share list")
            }
            let summary = try await context.database.shares().first { $0.share.id == share.id }
            try output("Share \(SafeText.quoted(share.name)) made: \(BirthdaysCommand.ShareCommand.peopleNow(summary)). Its link (shown once):")
            try output(
                try await address.links(for: token, context: context, again: "birthdays share rotate \(SystemdUserService.shellQuoted(share.name))")
            )
        }
    }

    /// "12 people now", and why members of its groups are not among them:
    /// a share shows no labelled dates or name days, and without years no
    /// dates in other calendars.
    static func peopleNow(_ summary: ShareSummary?) -> String {
        let people = summary?.people ?? 0
        var text = "\(people) \(people == 1 ? "person" : "people") now"
        if let summary, summary.leftOut > 0 {
            let more = summary.leftOut == 1 ? "1 more in its groups has" : "\(summary.leftOut) more in its groups have"
            text +=
                summary.share.showYears
                ? " (\(more) only labelled dates, which no share shows)"
                : " (\(more) only labelled dates or dates in other calendars, which a share without years does not show)"
        }
        return text
    }

    struct ShareList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the shares: groups, what they show, how many people.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        /// One element of `share list --json`.
        struct Listed: Encodable {
            var name: String
            var groups: [String]
            var ages: Bool
            var years: Bool
            var people: Int
            var created: String
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let shares = try await context.database.shares()
            if json {
                let listed = shares.map {
                    Listed(
                        name: $0.share.name,
                        groups: $0.share.groups,
                        ages: $0.share.agesShown,
                        years: $0.share.showYears,
                        people: $0.people,
                        created: ISO8601DateFormatter().string(from: $0.share.createdAt)
                    )
                }
                try output(JSONOutput.string(listed, pretty: true))
                return
            }
            guard !shares.isEmpty else {
                try output("No shares yet. Make one with: birthdays share add Family --group Family")
                return
            }
            let rows = shares.map { summary in
                [
                    SafeText.line(summary.share.name),
                    summary.share.groups.map { SafeText.line($0) }.joined(separator: ", "),
                    summary.share.showYears ? (summary.share.agesShown ? "dates, years, ages" : "dates, years") : "dates",
                    String(summary.people),
                ]
            }
            try output(Table.render(rows, header: ["SHARE", "GROUPS", "SHOWS", "PEOPLE"], shrinkable: [1]))
        }
    }

    struct ShareRotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Give a share a new link: its old one stops working at once; no other share and not your feed."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The share's name.")
        var name: String

        @OptionGroup var address: ShareAddressOptions

        func run() async throws {
            let context = try Context(global)
            guard let token = try await context.database.rotateShare(name: name) else {
                throw CLIError("there is no share named \(SafeText.quoted(name)); see birthdays share list")
            }
            try output("Share \(SafeText.quoted(name)) has a new link (shown once); the old one no longer works:")
            try output(try await address.links(for: token, context: context, again: "run this again"))
        }
    }

    struct ShareRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a share: its link stops working at once.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The share's name.")
        var name: String

        func run() async throws {
            let context = try Context(global)
            guard try await context.database.removeShare(name: name) else {
                throw CLIError("there is no share named \(SafeText.quoted(name)); see birthdays share list")
            }
            try output("Share \(SafeText.quoted(name)) removed; its link no longer works.")
        }
    }
}
