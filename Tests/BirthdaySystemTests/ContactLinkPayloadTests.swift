import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem
@testable import BirthdayText

/// What the added channels carry of the person's contact links: nothing
/// unless `contact-links` is on; then ntfy's `view` button, Gotify's click
/// URL, and a line in the e-mail's and Apprise's body.
@Suite struct ContactLinkPayloadTests {
    static func reminder(sharing: Bool) -> Reminder {
        var reminder = sampleReminder()
        reminder.contactLinks = ContactLink.links(
            for: [ContactPoint(kind: .email, value: "ada@example.org"), ContactPoint(kind: .phone, value: "+44 20 7946 0000")],
            name: "Ada",
            event: .birthday,
            in: .english
        )
        reminder.sharesContactLinks = sharing
        return reminder
    }

    static let mailto = "mailto:ada@example.org?subject=Happy%20birthday%21"

    func json(_ request: PushRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
    }

    @Test func ntfyHasAViewButtonOnlyWithContactLinksOn() throws {
        let url = try PushURL("https://ntfy.sh/topic", kind: .ntfy)
        let on = try json(PushChannel.request(for: Self.reminder(sharing: true), url: url, token: nil))
        let actions = try #require(on["actions"] as? [[String: String]])
        #expect(actions == [["action": "view", "label": "Write to Ada", "url": Self.mailto]])
        let off = PushChannel.request(for: Self.reminder(sharing: false), url: url, token: nil)
        #expect(try json(off)["actions"] == nil)
        #expect(!off.body.contains("example.org") && !off.body.contains("7946"))
    }

    @Test func gotifyHasTheClickURLOnlyWithContactLinksOn() throws {
        let url = try PushURL("https://gotify.example", kind: .gotify)
        let on = try json(PushChannel.request(for: Self.reminder(sharing: true), url: url, token: "k"))
        let extras = try #require(on["extras"] as? [String: Any])
        let click = (extras["client::notification"] as? [String: Any])?["click"] as? [String: String]
        #expect(click == ["url": Self.mailto])
        let off = PushChannel.request(for: Self.reminder(sharing: false), url: url, token: "k")
        #expect(try json(off)["extras"] == nil)
        #expect(!off.body.contains("example.org"))
    }

    @Test func theEmailBodyHasTheLinkOnlyWithContactLinksOn() {
        func text(_ reminder: Reminder) -> String {
            let message = EmailMessage.reminder(
                reminder,
                from: EmailAddress(address: "me@example.org", displayName: "birthdays"),
                to: EmailAddress(address: "me@example.org", displayName: "Me"),
                host: "laptop",
                now: reminder.fireAt
            )
            return message.body
        }
        #expect(text(Self.reminder(sharing: true)) == "Ada's birthday\nAda turns 37 today\nWrite to Ada: \(Self.mailto)\n\n— birthdays\n")
        #expect(text(Self.reminder(sharing: false)) == "Ada's birthday\nAda turns 37 today\n\n— birthdays\n")
    }

    @Test func appriseGetsALineOnlyWithContactLinksOn() {
        #expect(AppriseChannel.body(of: Self.reminder(sharing: true)) == "Ada turns 37 today\nWrite to Ada: \(Self.mailto)")
        #expect(AppriseChannel.body(of: Self.reminder(sharing: false)) == "Ada turns 37 today")
    }

    @Test func aDigestCarriesNone() {
        var digest = Self.reminder(sharing: true)
        digest.digest = .weekly
        #expect(digest.sharedContactLink == nil && digest.contactLine == nil)
    }

    /// The desktop offers the button between Open and Snooze, and only for a link it was given.
    @Test func theDesktopButtonSitsAfterOpen() {
        let channel = DesktopNotificationChannel(bus: .address("unix:path=/nonexistent"))
        let reminder = Self.reminder(sharing: false)
        let with = channel.notifyArguments(for: reminder, replacing: 0, capabilities: ["actions"], contact: reminder.contactLinks[1])
        #expect(with[5] == .strings(["default", "Open", "contact", "Call Ada", "snooze", "Snooze 15 min", "dismiss", "Dismiss"]))
        let without = channel.notifyArguments(for: reminder, replacing: 0, capabilities: ["actions"])
        #expect(without[5] == .strings(["default", "Open", "snooze", "Snooze 15 min", "dismiss", "Dismiss"]))
    }
}
