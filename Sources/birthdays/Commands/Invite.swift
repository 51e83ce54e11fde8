import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdaySystem
import Foundation

extension BirthdaysCommand {
    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "invite",
            _superCommandName: "birthdays",
            abstract: "Links that collect missing birthdays: whoever opens one can send their name and birthday.",
            discussion: """
                'birthdays invite Friends' makes a link, served by 'birthdays serve' (or 'run' with the serve setting), \
                and prints it with its QR code, once: only a hash of its token is stored. Opened in a browser, it asks \
                for a name, a day and a month (the year only if they want to give it) and says who will see it. What \
                arrives waits for 'birthdays invites accept' (or is taken at once with --auto-accept); your channels tell \
                you when something arrives, without the name or the date.
                """,
            subcommands: [InviteAdd.self, InviteList.self, InviteRemove.self],
            defaultSubcommand: InviteAdd.self
        )
    }
}

extension BirthdaysCommand.Invite {
    struct InviteAdd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Make an invitation link and print it with its QR code (once: only a hash is kept).",
            discussion: "'birthdays invite NAME' is short for 'birthdays invite add NAME'."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The link's name (Friends, Team): your word for it, in your messages, never on the form.")
        var name: String

        @Option(help: "The group the people who answer join (see birthdays groups).")
        var group: String?

        @Option(
            help: ArgumentHelp(
                "How many answers the link takes (default: no limit; \(Invitation.defaultAutoAcceptUses) with --auto-accept).",
                valueName: "n"
            )
        )
        var uses: Int?

        @Option(help: ArgumentHelp("How long the link stays open: 30m, 12h, 7d, 2w (default: 30d; at most a year).", valueName: "duration"))
        var expires: String?

        @Option(
            help: ArgumentHelp(
                "Who will see the answers, in your words, shown on the form (default: a sentence saying only you will).",
                valueName: "text"
            )
        )
        var note: String?

        @Flag(
            help:
                "Take answers into the group at once, without 'invites accept' (at most \(Invitation.defaultAutoAcceptUses) unless --uses says otherwise; your channels tell you when the link is used up)."
        )
        var autoAccept = false

        @OptionGroup var address: ShareAddressOptions

        func validate() throws {
            guard Share.validName(name) != nil else { throw ValidationError("the name must be one line of 1 to 64 characters") }
            if let group, Share.validName(group) == nil { throw ValidationError("--group must be one line of 1 to 64 characters") }
            if let uses, uses < 1 { throw ValidationError("--uses must be 1 or more, not \(uses)") }
            if let expires, Invitation.duration(expires) == nil {
                throw ValidationError("--expires must be a number and m, h, d or w, such as 7d, up to a year; not '\(SafeText.line(expires))'")
            }
        }

        func run() async throws {
            let context = try Context(global)
            guard let name = Share.validName(name) else { return }
            // A name near a group's is a typing mistake, told as every command tells it, and nothing is made;
            // a name near none starts a group with the first answer accepted.
            var group: (name: String, new: Bool)?
            if let typed = self.group.flatMap(Share.validName) { group = try await context.groupOrNew(named: typed) }
            let lasts = expires.flatMap(Invitation.duration) ?? Invitation.defaultDuration
            let invitation = Invitation(
                id: 0,
                name: name,
                group: group?.name,
                usesAllowed: Invitation.usesAllowed(uses, autoAccept: autoAccept),
                expiresAt: context.now.addingTimeInterval(lasts),
                note: Invitation.cleanNote(note),
                autoAccept: autoAccept,
                createdAt: context.now
            )
            guard let (made, token) = try await context.database.addInvitation(invitation) else {
                throw CLIError("there is already an invitation named \(SafeText.quoted(name)); see birthdays invite list")
            }
            let zone = try await context.settings().1
            let expiry = made.expiresAt.map { ISOInstant.format($0, in: zone) } ?? "never"
            let uses = made.usesAllowed.map { "\($0) \($0 == 1 ? "answer" : "answers")" } ?? "any number of answers"
            try output("Invitation \(SafeText.quoted(made.name)) made: \(uses) until \(expiry). Its link (shown once):")
            if let group, group.new {
                printError("Note: no group is called '\(SafeText.line(group.name))' yet; the first answer accepted starts it.")
            }
            try output(try await address.inviteLink(for: token, name: made.name, context: context))
        }
    }

    struct InviteList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the invitation links: uses, expiry, waiting answers.")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print a JSON array.")
        var json = false

        /// One element of `invite list --json`.
        struct Listed: Encodable {
            var name: String
            var group: String?
            var uses: Int?
            var used: Int
            var expires: String?
            var open: Bool
            var autoAccept: Bool
            var waiting: Int

            enum CodingKeys: String, CodingKey {
                case name, group, uses, used, expires, open, waiting
                case autoAccept = "auto_accept"
            }
        }

        func run() async throws {
            let context = try Context(global, readOnly: true)
            let links = try await context.database.invitations()
            let zone = try await context.settings().1
            if json {
                let listed = links.map { summary in
                    let link = summary.invitation
                    return Listed(
                        name: link.name,
                        group: link.group,
                        uses: link.usesAllowed,
                        used: link.used,
                        expires: link.expiresAt.map { ISOInstant.format($0, in: zone) },
                        open: link.standing(at: context.now) == .open,
                        autoAccept: link.autoAccept,
                        waiting: summary.waiting
                    )
                }
                try output(JSONOutput.string(listed, pretty: true))
                return
            }
            guard !links.isEmpty else {
                try output("No invitations yet. Make one with: birthdays invite Friends --group Friends")
                return
            }
            let rows = links.map { summary -> [String] in
                let link = summary.invitation
                let standing: String =
                    switch link.standing(at: context.now) {
                    case .open: link.expiresAt.map { "open until " + String(ISOInstant.format($0, in: zone).prefix(16)) } ?? "open"
                    case .used: "used up"
                    case .expired: "expired"
                    }
                return [
                    SafeText.line(link.name),
                    link.group.map { SafeText.line($0) } ?? "-",
                    "\(link.used)/\(link.usesAllowed.map(String.init) ?? "any")",
                    standing + (link.autoAccept ? ", auto-accept" : ""),
                    String(summary.waiting),
                ]
            }
            try output(Table.render(rows, header: ["INVITATION", "GROUP", "USED", "STATE", "WAITING"], shrinkable: [0]))
        }
    }

    struct InviteRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an invitation link: it stops working at once; answers already sent stay."
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The invitation's name.")
        var name: String

        func run() async throws {
            let context = try Context(global)
            guard try await context.database.removeInvitation(name: name) else {
                throw CLIError("there is no invitation named \(SafeText.quoted(name)); see birthdays invite list")
            }
            try output("Invitation \(SafeText.quoted(name)) removed; its link no longer works.")
        }
    }
}

extension ShareAddressOptions {
    /// An invitation's address (`<base>/invite/<token>`, the base as `share add`
    /// finds it) and its QR code; under a loopback address's code, how to get a
    /// new link once served on the network: an invitation has no rotation, so
    /// remove it (its answers stay) and make it again.
    func inviteLink(for token: String, name: String, context: Context) async throws -> String {
        let (settings, _) = try await context.settings()
        let served = ServeRecord.current(database: context.database.path) ?? settings.serve ?? FeedAddress.default
        let host = self.host ?? FeedURLs.subscriberHost(served.host)
        let authority = (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + ":" + String(port ?? served.port)
        let link = "http://\(authority)/invite/\(token)"
        let again =
            "make the link again: birthdays invite remove \(SystemdUserService.shellQuoted(name)) (answers already sent stay), "
            + "then birthdays invite \(SystemdUserService.shellQuoted(name)) with the same options"
        let note = FeedAddress.isLoopback(host) ? BirthdaysCommand.Feed.FeedURL.loopbackNote(host, then: again) : nil
        return ["link: " + link, try QRText.block(for: link, note: note)].joined(separator: "\n")
    }
}
