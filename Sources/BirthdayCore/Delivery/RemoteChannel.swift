import Foundation

/// A channel the user added by name (`birthdays channels add`): it reaches
/// them where they are, away from this desktop.
///
/// ## One model for every channel
/// Every channel has a name. The built-in ones are `desktop`, `command` and
/// `log`. Every channel is on or off (``isOn``; `settings set channels`
/// names those that are on); an added one is on from the moment it is
/// added: adding it was the user's consent. ``ChannelConsent`` says which
/// deliver: the permission holds back only the desktop channel, and
/// `denied` (`notifications disable`) stops every one. Several channels of
/// one kind are fine (two addresses); names are unique.
///
/// ## Secrets
/// Nothing here is secret: an e-mail channel holds addresses and a program
/// path; an Apprise channel's URL (which carries tokens and passwords) and
/// an ntfy channel's URL (whose topic is its password on a public server)
/// live only in a 0600 file in the database's own `<database>.secrets` folder (the system layer's `ChannelSecrets`),
/// and ``target`` keeps the scheme (`tgram://…`) or the server
/// (`https://ntfy.sh/…`) alone. An ntfy or Gotify token is printed by the
/// user's ``tokenCommand`` at each delivery and never stored.
public struct RemoteChannel: Sendable, Hashable {
    /// What kind of channel: how it delivers.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// E-mail through a sendmail-compatible program (msmtp).
        case email
        /// Any Apprise URL (Telegram, Matrix, Signal, Pushover, …) through Debian's `apprise`.
        case apprise
        /// An ntfy server and topic (`https://ntfy.sh/TOPIC`), with an optional access token.
        case ntfy
        /// A Gotify server, with the application token its command prints.
        case gotify
    }

    public var name: String
    public var kind: Kind
    /// E-mail: the address reminders go to. Apprise: the URL's scheme, masked (`tgram://…`).
    public var target: String
    /// E-mail: the sender (`--from`); `nil` sends from the target address.
    public var from: String?
    /// E-mail: the sendmail-compatible program (`--sendmail`); `nil` finds one.
    public var sendmail: String?
    /// ntfy and Gotify: the command (run with `/bin/sh -c`) whose first line
    /// of output is the access token (`--token-command`); `nil` sends none.
    public var tokenCommand: String?
    /// Whether it is on (`settings set channels` turns it off and on again).
    public var isOn: Bool

    public init(
        name: String,
        kind: Kind,
        target: String,
        from: String? = nil,
        sendmail: String? = nil,
        tokenCommand: String? = nil,
        isOn: Bool = true
    ) {
        self.name = name
        self.kind = kind
        self.target = target
        self.from = from
        self.sendmail = sendmail
        self.tokenCommand = tokenCommand
        self.isOn = isOn
    }

    /// The built-in channels' names, which an added channel cannot take.
    public static let builtInNames: Set<String> = Set(ChannelKind.allCases.map(\.rawValue))

    /// Why `name` cannot name an added channel, or `nil` when it can: 1 to 32
    /// of a-z, 0-9 and `-`, starting with a letter, not a built-in name.
    public static func problem(withName name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        guard let first = name.first, first.isLetter, first.isASCII, name.count <= 32, name.allSatisfy({ allowed.contains($0) }) else {
            return "a channel name is 1 to 32 of a-z, 0-9 and '-', starting with a letter"
        }
        if builtInNames.contains(name) { return "'\(name)' is a built-in channel" }
        return nil
    }

    /// `url`'s scheme with the rest masked (`tgram://…`): what lists and logs
    /// show of an Apprise URL, whose rest holds tokens and passwords.
    public static func maskedURL(_ url: String) -> String {
        guard let range = url.range(of: "://") else { return "…" }
        return String(url[..<range.upperBound]) + "…"
    }
}

/// How an added or built-in channel has fared lately, for `channels list`
/// and `status`.
///
/// Rule: a refusal that waiting will not fix (``DeliveryError/isPermanent``)
/// counts towards ``pauseAfter``; after that many in a row the channel is
/// paused and delivers nothing until a `channels test` through it succeeds
/// (Monica's rule). A success resets the count; a passing failure (retried)
/// or an unreachable desktop neither counts nor resets it.
public struct ChannelStatus: Sendable, Hashable {
    /// Refusals in a row that pause a channel.
    public static let pauseAfter = 10

    /// What the last attempt that failed met.
    public enum Failure: String, Sendable, Hashable, Codable {
        /// A passing failure (a timeout, a 5xx, a full queue): retried.
        case retrying
        /// A refusal waiting will not fix (``DeliveryError/isPermanent``).
        case refused
        /// Nowhere to show it: no desktop session or notification server
        /// (``DeliveryError/isUnavailable``); not a failure of the channel.
        case unavailable

        /// The kind of `error`.
        public init(_ error: DeliveryError) {
            self = error.isPermanent ? .refused : error.isUnavailable ? .unavailable : .retrying
        }
    }

    public var lastSuccess: Date?
    /// The last failure, one line (the server's or program's words, never a name).
    public var lastError: String?
    public var lastErrorAt: Date?
    /// The kind of the last failure; `nil` when nothing failed since the last success.
    public var lastFailure: Failure?
    /// Permanent refusals in a row.
    public var refusals: Int
    public var paused: Bool

    public init(
        lastSuccess: Date? = nil,
        lastError: String? = nil,
        lastErrorAt: Date? = nil,
        lastFailure: Failure? = nil,
        refusals: Int = 0,
        paused: Bool = false
    ) {
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.lastFailure = lastFailure
        self.refusals = refusals
        self.paused = paused
    }

    /// The state word `channels list` shows: `paused`; else, when its last
    /// attempt failed, what that failure was: `refused` (fix it, then
    /// `channels test`), `unavailable` (no desktop to show it on) or
    /// `retrying`; else `ok`.
    public var state: String {
        if paused { return "paused" }
        guard let lastFailure, let lastErrorAt, lastErrorAt > (lastSuccess ?? .distantPast) else { return "ok" }
        return lastFailure.rawValue
    }

    /// This status after one delivery attempt ended with `error` (`nil`: delivered) at `instant`.
    public func recording(_ error: DeliveryError?, at instant: Date) -> ChannelStatus {
        var next = self
        guard let error else {
            next.lastSuccess = instant
            next.lastFailure = nil
            next.refusals = 0
            next.paused = false
            return next
        }
        next.lastError = SafeText.line(error.description, maxCharacters: 300)
        next.lastErrorAt = instant
        next.lastFailure = Failure(error)
        if error.isPermanent {
            next.refusals += 1
            if next.refusals >= Self.pauseAfter { next.paused = true }
        }
        return next
    }
}

extension RemoteChannel {
    /// What to do when a channel's secret file (the system layer's `ChannelSecrets`)
    /// is missing or does not hold a URL of its kind: name the file and say
    /// how to write it again, keeping the channel (its name, its history and
    /// who chose it).
    public static func missingSecret(file: String, kind: Kind) -> String {
        let example = kind == .ntfy ? "the server and topic, like https://ntfy.sh/TOPIC" : "the Apprise URL, like tgram://BOTTOKEN/CHATID"
        return "\(file) is missing or holds no \(kind == .ntfy ? "ntfy" : "Apprise") URL; write \(example), on one line into it "
            + "(then chmod 600 \(file)), and the channel delivers again"
    }

    /// Whether a channel of `kind` keeps its URL in a 0600 file of its database's (the system layer's `ChannelSecrets`).
    public static func hasSecretFile(_ kind: Kind) -> Bool { kind == .apprise || kind == .ntfy }
}

/// The URL of an ntfy or Gotify channel, checked: an `http` or `https`
/// server without user information, query or fragment; for ntfy, a topic
/// as its last path segment (1 to 64 of A-Z, a-z, 0-9, `_` and `-`, as
/// ntfy's server accepts them).
public struct PushURL: Sendable, Hashable {
    /// The server, ending in `/` (`https://ntfy.sh/`, `https://example.org/gotify/`).
    public let server: String
    /// ntfy: the topic; Gotify: `nil`.
    public let topic: String?

    /// Parses `text` for a channel of `kind` (``RemoteChannel/Kind/ntfy`` or ``RemoteChannel/Kind/gotify``).
    /// - Throws: a sentence saying what is wrong (never repeating a topic).
    public init(_ text: String, kind: RemoteChannel.Kind) throws(PushURLProblem) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw PushURLProblem("the URL must start with https:// (or http://) and name a server, like https://ntfy.sh/TOPIC")
        }
        if components.user != nil || components.password != nil {
            throw PushURLProblem("the URL must not hold a user or password; give the token with --token-command")
        }
        if components.query != nil || components.fragment != nil {
            throw PushURLProblem("the URL must not have a query (?…) or a fragment (#…); give the token with --token-command")
        }
        var segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if kind == .ntfy {
            guard let last = segments.popLast() else {
                throw PushURLProblem("the ntfy URL must end with the topic, like https://ntfy.sh/TOPIC")
            }
            let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
            guard last.count <= 64, last.allSatisfy({ allowed.contains($0) }) else {
                throw PushURLProblem("an ntfy topic is 1 to 64 of A-Z, a-z, 0-9, '_' and '-'")
            }
            topic = last
        } else {
            topic = nil
        }
        let port = components.port.map { ":\($0)" } ?? ""
        let path = segments.isEmpty ? "/" : "/" + segments.joined(separator: "/") + "/"
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[" + host + "]" : host
        server = scheme + "://" + bracketed + port + path
    }

    /// What lists show: the server, and `…` for an ntfy topic (`https://ntfy.sh/…`).
    public var masked: String { topic == nil ? server : server + "…" }
}

/// Why a URL cannot make an ntfy or Gotify channel: one sentence.
public struct PushURLProblem: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension PushURL {
    /// The link the ntfy app opens to subscribe to the topic
    /// (https://docs.ntfy.sh/subscribe/phone/, "deep links"):
    /// `ntfy://HOST[:PORT][/PATH]/TOPIC`, with `?secure=false` for a server
    /// reached over plain http; `nil` for Gotify, which has no topic.
    public var subscribeLink: String? {
        guard let topic else { return nil }
        let plain = server.lowercased().hasPrefix("http://")
        let rest = server.drop { $0 != ":" }.dropFirst(3)  // after "://", ending in "/"
        return "ntfy://" + rest + topic + (plain ? "?secure=false" : "")
    }
}
