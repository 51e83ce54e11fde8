import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Delivers a team room's message to a webhook: one JSON `POST`
/// (``AnnounceWebhookBody``: `text`, `day`, `room`) to the room's `https` URL,
/// sent by the `birthdays-network` helper's `post` as an ntfy message is
/// (``PushChannel``).
///
/// Rules:
/// - The URL (its path or query is the room's token, as in Slack's and
///   Mattermost's incoming webhooks) is read at each delivery from the room's
///   0600 file (``ChannelSecrets``) and reaches the helper on its standard
///   input only: never an argument list, an environment, the database or a log.
/// - The helper follows no redirect and gives the request a total deadline
///   (10 s, or `BIRTHDAYS_HTTP_DEADLINE` seconds).
/// - The text's names cannot ping the room or disguise a link: mention and
///   link syntax is shown, not parsed (``ChatText``).
/// - The answers count as for ntfy (``PushChannel/error(for:channel:deadline:masking:now:)``):
///   2xx delivered; 429, 5xx, no connection or the deadline retried; 3xx and
///   other 4xx refused for good. The server's words are kept with every part
///   of the URL four characters or longer masked.
package struct WebhookChannel: NotificationSink {
    package let name: String
    /// The file holding the URL.
    package let urlFile: String
    package let helper: String
    package let deadline: Duration
    private let environment: [String: String]
    private let clock: any Clock<Duration>

    package init(name: String, urlFile: String, environment: [String: String], clock: any Clock<Duration> = ContinuousClock(), helper: String? = nil)
    {
        self.name = name
        self.urlFile = urlFile
        self.environment = environment
        self.clock = clock
        self.helper = helper ?? NetworkHelper.locate(environment: environment)
        self.deadline = PushChannel.deadline(environment: environment)
    }

    /// The request for `reminder` (a room's message: its body is the text, its occurrence the day).
    static func request(for reminder: Reminder, room: String, url: String) -> PushRequest {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = AnnounceWebhookBody(
            text: ChatText.harmless(SafeText.line(reminder.body, maxCharacters: 2000)),
            day: reminder.occurrenceDate.description,
            room: room
        )
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        return PushRequest(
            url: url,
            headers: ["Content-Type": "application/json", "User-Agent": "birthdays"],
            body: String(decoding: data, as: UTF8.self)
        )
    }

    package func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        guard access(helper, X_OK) == 0 else {
            throw .remoteRefused(
                channel: name,
                reason: "\(helper), which sends webhook messages, is missing: install it next to birthdays (make install puts it there)"
            )
        }
        let url: String
        do throws(RoomSecretError) {
            url = try ChannelSecrets.roomURL(file: urlFile)
        } catch {
            throw .remoteRefused(channel: name, reason: error.description)
        }
        let request = Self.request(for: reminder, room: name, url: url)
        let reply = try await PushChannel.post(request, helper: helper, environment: environment, deadline: deadline, clock: clock, channel: name)
        if let error = PushChannel.error(for: reply, channel: name, deadline: deadline, masking: nil) {
            throw Self.masking(url, in: error)
        }
    }

    /// `error` with every part of `url` masked in its reason.
    static func masking(_ url: String, in error: DeliveryError) -> DeliveryError {
        switch error {
        case .remoteRefused(let channel, let reason): .remoteRefused(channel: channel, reason: AppriseChannel.masking(url, in: reason))
        case .remoteUnavailable(let channel, let reason): .remoteUnavailable(channel: channel, reason: AppriseChannel.masking(url, in: reason))
        case .remoteThrottled(let channel, let reason, let wait):
            .remoteThrottled(channel: channel, reason: AppriseChannel.masking(url, in: reason), retryAfter: wait)
        default: error
        }
    }
}

/// A team room's Apprise URL: the message alone (the room's name, the
/// request's title, is for `pending`), through ``AppriseChannel``.
package struct AppriseRoom: NotificationSink {
    package let channel: AppriseChannel

    package init(channel: AppriseChannel) { self.channel = channel }

    package func deliver(_ reminder: Reminder) async throws(DeliveryError) {
        var message = reminder
        message.title = ""
        try await channel.deliver(message)
    }
}
