import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem

/// What a room's webhook, ntfy, Gotify and Apprise get when a name (from a
/// card, or a stranger's through an invitation) holds mention or link
/// syntax: it is shown, not parsed (``ChatText``), and a contact link's own
/// address stays whole. (AnnounceCommandTests sends such a name through
/// the real helper and Debian's apprise.)
@Suite struct ChatTextChannelTests {
    static let name = "<!everyone> @channel [prize](http://evil.example/x)"

    /// Whether `text` still holds any of the syntax a chat service would parse.
    static func parsable(_ text: String) -> Bool {
        ["<!", "<@", "<http", "@channel", "@everyone", "@here", "@room", "](", "][", "]:"].contains { text.contains($0) }
    }

    static var reminder: Reminder {
        var reminder = sampleReminder(title: "\(name)'s birthday", body: "\(name) turns 37 today")
        reminder.noteLine = "Note: ask @here about [cake](http://evil.example/y)"
        reminder.sharesNote = true
        reminder.contactLinks = [ContactLink(kind: .email, scheme: "mailto", uri: "mailto:ada@example.org", label: "Write to \(name)")]
        reminder.sharesContactLinks = true
        return reminder
    }

    @Test func theWebhookJSONTextIsHarmless() throws {
        let request = WebhookChannel.request(for: Self.reminder, room: "team", url: "http://127.0.0.1:9/hook")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        let text = try #require(body["text"] as? String)
        #expect(!Self.parsable(text), "\(text)")
        #expect(text.contains("prize") && text.contains("http://evil.example/x"), "shown, not dropped: \(text)")
    }

    @Test(arguments: [RemoteChannel.Kind.ntfy, .gotify])
    func ntfyAndGotifyMessagesAreHarmless(_ kind: RemoteChannel.Kind) throws {
        let url = try PushURL(kind == .ntfy ? "https://ntfy.example/topic" : "https://gotify.example", kind: kind)
        let request = PushChannel.request(for: Self.reminder, url: url, token: nil)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        let title = try #require(body["title"] as? String)
        let message = try #require(body["message"] as? String)
        #expect(!Self.parsable(title), "\(title)")
        #expect(!Self.parsable(message), "\(message)")
        if kind == .ntfy {
            let action = try #require((body["actions"] as? [[String: Any]])?.first)
            #expect(!Self.parsable(action["label"] as? String ?? "<!"), "\(action)")
            #expect(action["url"] as? String == "mailto:ada@example.org", "the address stays whole")
        }
    }

    @Test func appriseGetsAHarmlessTitleAndBodyWithTheAddressWhole() {
        let input = String(decoding: AppriseChannel.titledInput(of: Self.reminder), as: UTF8.self)
        let lines = input.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        for line in lines { #expect(!Self.parsable(line), "\(line)") }
        #expect(lines.last?.hasSuffix(": mailto:ada@example.org") == true, "\(lines)")
        #expect(!Self.parsable(String(decoding: AppriseChannel.plainInput(of: Self.reminder), as: UTF8.self)))
    }
}
