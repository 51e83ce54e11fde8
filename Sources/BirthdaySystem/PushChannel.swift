import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Delivers a reminder to a phone through an [ntfy](https://docs.ntfy.sh/publish/)
/// or [Gotify](https://gotify.net/docs/pushmsg) server: one JSON `POST`,
/// sent by the `birthdays-network` helper (``PushRequest`` on its standard
/// input, ``PushReply`` on its output), so that `birthdays` itself never
/// links an HTTP and TLS stack (see ``NetworkHelper``).
///
/// Rules:
/// - ntfy: `POST` to the server's root with `topic`, `title`, `message`
///   (at most 4096 bytes, cut), `tags: ["birthday"]` (`["calendar"]` for a digest), `priority: 3`, and
///   `Authorization: Bearer TOKEN` when the channel has a token command,
///   and with `contact-links` on, the person's first contact link as a
///   `view` action button (`actions: [{"action": "view", "label": "Write to Ada", "url": "mailto:…"}]`).
///   The URL (its topic is a password on a public server) is read at each
///   delivery from the channel's 0600 file.
/// - Gotify: `POST /message` with `X-Gotify-Key: TOKEN`, `title`, `message`
///   and `priority: 5`; with `contact-links` on, the person's first contact
///   link as the click URL (`extras: {"client::notification": {"click": {"url": "mailto:…"}}}`).
/// - With `notes-on-channels` on, the message of either ends with the person's note ("Note: likes orchids").
/// - The token is the first line the channel's token command prints
///   (``PasswordCommand``), read at each delivery; it reaches the helper on
///   its standard input only, never an argument list, an environment, the
///   database or a log.
/// - Title and message are one line each (``SafeText/line(_:maxCharacters:)``);
///   non-ASCII stays as it is, inside the JSON body. Their names and notes
///   cannot ping or disguise a link where the phone forwards them to a chat:
///   mention and link syntax is shown, not parsed (``ChatText``); the
///   action's address is left whole.
/// - The helper gives the request a total deadline (10 s, or
///   `BIRTHDAYS_HTTP_DEADLINE` seconds) and follows no redirect.
///
/// | answer | error |
/// |---|---|
/// | 2xx | none: delivered |
/// | 429, 5xx, no connection, the deadline | ``DeliveryError/remoteUnavailable(channel:reason:)``: retried |
/// | 3xx (not followed), other 4xx | ``DeliveryError/remoteRefused(channel:reason:)`` with the server's words: not retried |
/// | no helper, no URL file | `remoteRefused`, saying what to do |
/// | the token command fails | `remoteUnavailable` (a locked password store may open later) |
package struct PushChannel: NotificationSink {
    /// Which server, and where its URL is.
    package enum Service: Sendable, Hashable {
        /// ntfy: the URL (server and topic) is in this file.
        case ntfy(urlFile: String)
        /// Gotify: the server's URL.
        case gotify(server: String)
    }

    /// The longest ntfy message, in bytes (a longer one becomes an attachment).
    package static let messageLimit = 4096

    package let name: String
    package let service: Service
    package let tokenCommand: String?
    /// The helper that sends the request.
    package let helper: String
    /// The whole request's deadline.
    package let deadline: Duration
    private let environment: [String: String]
    private let clock: any Clock<Duration>

    /// - Parameters:
    ///   - environment: what the token command and the helper inherit; its
    ///     `BIRTHDAYS_HTTP_DEADLINE` (seconds) overrides the 10 s deadline.
    ///   - helper: the helper executable; `nil` for ``NetworkHelper/locate(environment:)``.
    package init(
        name: String,
        service: Service,
        tokenCommand: String?,
        environment: [String: String],
        clock: any Clock<Duration> = ContinuousClock(),
        helper: String? = nil
    ) {
        self.name = name
        self.service = service
        self.tokenCommand = tokenCommand
        self.environment = environment
        self.clock = clock
        self.helper = helper ?? NetworkHelper.locate(environment: environment)
        self.deadline = Self.deadline(environment: environment)
    }

    /// `BIRTHDAYS_HTTP_DEADLINE` in seconds (more than 0, at most 600), else 10 s.
    package static func deadline(environment: [String: String]) -> Duration {
        guard let text = environment["BIRTHDAYS_HTTP_DEADLINE"], let seconds = Double(text), seconds > 0, seconds <= 600 else {
            return .seconds(10)
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    package func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        guard access(helper, X_OK) == 0 else {
            throw .remoteRefused(
                channel: name,
                reason: "\(helper), which sends ntfy and Gotify messages, is missing: install it next to birthdays (make install puts it there)"
            )
        }
        let url = try resolvedURL()
        var token: String?
        if let tokenCommand {
            do {
                token = try await PasswordCommand.run(tokenCommand, environment: environment, clock: clock)
            } catch {
                if Task.isCancelled { throw .cancelled }
                throw .remoteUnavailable(channel: name, reason: "the token command failed: " + Self.reason(error))
            }
        }
        let request = Self.request(for: reminder, url: url, token: token)
        let reply = try await Self.post(request, helper: helper, environment: environment, deadline: deadline, clock: clock, channel: name)
        if let error = Self.error(for: reply, channel: name, deadline: deadline, masking: url.topic) { throw error }
    }

    /// The server and topic of this delivery.
    /// Hands `request` to the network helper's `post` (on its standard input:
    /// the URL and any token never reach an argument list) and reads its
    /// ``PushReply``: the one way an ntfy or Gotify channel and a team room's
    /// webhook send. The helper gets `deadline` for the server, and 5 s more
    /// before it is stopped.
    static func post(
        _ request: PushRequest,
        helper: String,
        environment: [String: String],
        deadline: Duration,
        clock: any Clock<Duration>,
        channel name: String
    ) async throws(DeliveryError) -> PushReply {
        let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                [helper, "post", "--deadline", String(seconds)],
                environment: environment,
                input: request.encoded(),
                output: .capture(limit: 64 * 1024),
                timeout: deadline + .seconds(5),
                clock: clock
            )
        } catch {
            throw .remoteUnavailable(channel: name, reason: "cannot start \(helper): \(error.reason)")
        }
        if Task.isCancelled { throw .cancelled }
        if outcome.timedOut {
            throw .remoteUnavailable(channel: name, reason: "the server did not answer within \(Self.shown(deadline)) and the helper was stopped")
        }
        guard let reply = try? JSONDecoder().decode(PushReply.self, from: Data(outcome.output)) else {
            let ended =
                switch outcome.termination {
                case .exited(let status): "exited with status \(status)"
                case .signalled(let signal): "was killed by signal \(signal)"
                }
            throw .remoteUnavailable(channel: name, reason: "\(helper) \(ended) without an answer")
        }
        return reply
    }

    private func resolvedURL() throws(DeliveryError) -> PushURL {
        switch service {
        case .ntfy(let file):
            do throws(ChannelSecretError) {
                return try ChannelSecrets.ntfyURL(file: file)
            } catch {
                throw .remoteRefused(channel: name, reason: error.description)
            }
        case .gotify(let server):
            guard let url = try? PushURL(server, kind: .gotify) else {
                throw .remoteRefused(
                    channel: name,
                    reason: "its stored server is not a Gotify server's http(s) URL; add the channel again under another --name with the right URL, "
                        + "then remove this one"
                )
            }
            return url
        }
    }

    /// The request that delivers `reminder` to `url` (ntfy when it has a topic, else Gotify).
    static func request(for reminder: Reminder, url: PushURL, token: String?) -> PushRequest {
        // Names and notes cannot ping or disguise a link where the message is forwarded to a chat (``ChatText``).
        let title = ChatText.harmless(SafeText.line(reminder.title, maxCharacters: 250))
        let text = ChatText.harmless(reminder.safeBody) + (reminder.sharedNoteLine.map { "\n" + ChatText.harmless($0) } ?? "")
        let message =
            reminder.digest == nil ? cut(text, toBytes: messageLimit) : cutLines(ChatText.harmless(reminder.sharedBody), toBytes: messageLimit)
        var headers = ["Content-Type": "application/json", "User-Agent": "birthdays"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let link = reminder.sharedContactLink
        let body: Data?
        let target: String
        if let topic = url.topic {
            target = url.server
            if let token { headers["Authorization"] = "Bearer " + token }
            body = try? encoder.encode(
                NtfyMessage(
                    topic: topic,
                    title: title,
                    message: message,
                    tags: [reminder.digest == nil ? "birthday" : "calendar"],
                    priority: 3,
                    actions: link.map {
                        [NtfyMessage.Action(action: "view", label: ChatText.harmless(SafeText.line($0.label, maxCharacters: 100)), url: $0.uri)]
                    }
                )
            )
        } else {
            target = url.server + "message"
            if let token { headers["X-Gotify-Key"] = token }
            let extras = link.map { GotifyMessage.Extras(clientNotification: .init(click: .init(url: $0.uri))) }
            body = try? encoder.encode(GotifyMessage(title: title, message: message, priority: 5, extras: extras))
        }
        return PushRequest(url: target, headers: headers, body: String(decoding: body ?? Data("{}".utf8), as: UTF8.self))
    }

    /// A digest's `lines` within `limit` UTF-8 bytes: whole lines from the
    /// first (where a late note is), then `…` on a line of its own for the
    /// ones left out; a first line longer than the limit is cut as ``cut(_:toBytes:)`` cuts.
    static func cutLines(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let ending = "\n…"
        var kept: [Substring] = []
        var bytes = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let size = line.utf8.count + (kept.isEmpty ? 0 : 1)
            if bytes + size + ending.utf8.count > limit { break }
            kept.append(line)
            bytes += size
        }
        guard !kept.isEmpty else { return cut(text, toBytes: limit) }
        return kept.joined(separator: "\n") + ending
    }

    /// `text` cut to at most `limit` UTF-8 bytes at a character boundary, ending in `…` when cut.
    static func cut(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var kept = ""
        var bytes = 0
        let room = limit - "…".utf8.count
        for character in text {
            let size = character.utf8.count
            if bytes + size > room { break }
            kept.append(character)
            bytes += size
        }
        return kept + "…"
    }

    /// The longest wait a `Retry-After` is followed for: 6 hours (a reminder's
    /// retries end with its day anyway).
    static let longestRetryAfter = Duration.seconds(6 * 3600)

    /// A `Retry-After` value (RFC 9110 §10.2.3): delay-seconds, or an
    /// HTTP-date, as the wait from `now` (at least 1 s, at most
    /// ``longestRetryAfter``); `nil` for anything else.
    static func retryAfter(_ text: String, now: Date) -> Duration? {
        let value = text.trimmingWhitespace()
        let seconds: Double
        if !value.isEmpty, value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) {
            guard let whole = Double(value) else { return nil }
            seconds = whole
        } else {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 0)
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            guard let date = formatter.date(from: value) else { return nil }
            seconds = date.timeIntervalSince(now)
        }
        return .seconds(Int64(min(max(seconds, 1), Double(longestRetryAfter.components.seconds))))
    }

    /// The error for the helper's reply; `nil` for a 2xx answer. `masking` (an ntfy topic) never appears in it.
    static func error(for reply: PushReply, channel: String, deadline: Duration, masking secret: String?, now: Date = Date()) -> DeliveryError? {
        func masked(_ text: String) -> String {
            let line = SafeText.line(text, maxCharacters: 300)
            guard let secret, !secret.isEmpty else { return line }
            return line.replacingOccurrences(of: secret, with: "…")
        }
        if reply.timedOut == true {
            return .remoteUnavailable(channel: channel, reason: "the server did not answer within \(shown(deadline))")
        }
        if let error = reply.error { return .remoteUnavailable(channel: channel, reason: masked("the server could not be reached: " + error)) }
        guard let status = reply.status else { return .remoteUnavailable(channel: channel, reason: "the helper gave no answer") }
        let words = serverWords(reply.body ?? "").map { " " + $0 } ?? ""
        switch status {
        case 200..<300:
            return nil
        case 429:
            let reason = "the server answered 429" + (words.isEmpty ? " (too many requests)" : words)
            guard let text = reply.retryAfter, let wait = retryAfter(text, now: now) else {
                return .remoteUnavailable(channel: channel, reason: masked(reason))
            }
            return .remoteThrottled(
                channel: channel,
                reason: masked(reason + "; it asks to wait \(Int(wait.components.seconds)) s (Retry-After), and it is not asked again sooner"),
                retryAfter: wait
            )
        case 300..<400:
            return .remoteRefused(
                channel: channel,
                reason:
                    "the server answered \(status), a redirect, which is not followed (it would carry the token elsewhere); add the channel with the URL it points to"
            )
        case 400..<500:
            return .remoteRefused(channel: channel, reason: masked("the server answered \(status)\(words)"))
        default:
            return .remoteUnavailable(channel: channel, reason: masked("the server answered \(status)\(words)"))
        }
    }

    /// What the server said in its answer's body: ntfy's `{"code":40101,"error":"unauthorized"}` as
    /// `40101: unauthorized`, Gotify's `{"error":"Unauthorized","errorDescription":"…"}` as
    /// `Unauthorized: …`, else the body's first line; `nil` for an empty body.
    static func serverWords(_ body: String) -> String? {
        if let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any], let error = object["error"] as? String {
            if let code = object["code"] as? Int { return "\(code): \(error)" }
            if let description = object["errorDescription"] as? String { return "\(error): \(description)" }
            return error
        }
        let line = body.split(whereSeparator: \.isNewline).first.map { SafeText.line($0, maxCharacters: 200) } ?? ""
        return line.isEmpty ? nil : line
    }

    private static func reason(_ error: RemoteError) -> String {
        if case .passwordCommand(let reason) = error { return reason }
        return "\(error)"
    }

    /// `10 s`, `1.5 s`.
    static func shown(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

/// ntfy's JSON message (https://docs.ntfy.sh/publish/#publish-as-json).
struct NtfyMessage: Encodable {
    var topic: String
    var title: String
    var message: String
    var tags: [String]
    var priority: Int
    /// Buttons (https://docs.ntfy.sh/publish/#action-buttons): the contact link, with `contact-links` on.
    var actions: [Action]?

    struct Action: Encodable {
        var action: String
        var label: String
        var url: String
    }
}

/// Gotify's message (https://gotify.net/docs/pushmsg).
struct GotifyMessage: Encodable {
    var title: String
    var message: String
    var priority: Int
    /// The click URL (https://gotify.net/docs/msgextras): the contact link, with `contact-links` on.
    var extras: Extras?

    struct Extras: Encodable {
        var clientNotification: ClientNotification

        enum CodingKeys: String, CodingKey {
            case clientNotification = "client::notification"
        }

        struct ClientNotification: Encodable {
            var click: Click
        }

        struct Click: Encodable {
            var url: String
        }
    }
}

/// One HTTP `POST` for the helper to send: read as JSON from its standard
/// input (headers hold the token, so never an argument).
package struct PushRequest: Codable, Sendable, Hashable {
    package var url: String
    package var headers: [String: String]
    package var body: String

    package init(url: String, headers: [String: String], body: String) {
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The JSON line the helper reads.
    func encoded() -> [UInt8] {
        Array((try? JSONEncoder().encode(self)) ?? Data("{}".utf8)) + [0x0A]
    }
}

/// The helper's answer to a ``PushRequest``: the status, `Retry-After` and
/// the first 4 KiB of the body; or why there was no answer.
package struct PushReply: Codable, Sendable, Hashable {
    package var status: Int?
    package var retryAfter: String?
    package var body: String?
    /// Why no answer came (no connection, TLS), one sentence.
    package var error: String?
    /// The deadline passed first.
    package var timedOut: Bool?

    package init(status: Int? = nil, retryAfter: String? = nil, body: String? = nil, error: String? = nil, timedOut: Bool? = nil) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
        self.error = error
        self.timedOut = timedOut
    }
}
