import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdaySystem
@testable import BirthdayText

/// What the channels carry of the person's note (issue 34): the desktop
/// always; ntfy, Gotify, e-mail and Apprise only with `notes-on-channels`
/// on; a digest's note lines likewise.
@Suite struct NotePayloadTests {
    static func reminder(sharing: Bool) -> Reminder {
        var reminder = sampleReminder()
        reminder.noteLine = Localizer.english(.showNote("likes orchids"))
        reminder.sharesNote = sharing
        return reminder
    }

    func message(_ request: PushRequest) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        return try #require(object["message"] as? String)
    }

    @Test func ntfyAndGotifyCarryItOnlyWithNotesOnChannels() throws {
        for url in [try PushURL("https://ntfy.sh/topic", kind: .ntfy), try PushURL("https://gotify.example", kind: .gotify)] {
            #expect(
                try message(PushChannel.request(for: Self.reminder(sharing: true), url: url, token: "k")) == "Ada turns 37 today\nNote: likes orchids"
            )
            let off = PushChannel.request(for: Self.reminder(sharing: false), url: url, token: "k")
            #expect(try message(off) == "Ada turns 37 today")
            #expect(!off.body.contains("orchids"))
        }
    }

    @Test func theEmailAndAppriseCarryItOnlyWithNotesOnChannels() {
        func text(_ reminder: Reminder) -> String {
            EmailMessage.reminder(
                reminder,
                from: EmailAddress(address: "me@example.org", displayName: "birthdays"),
                to: EmailAddress(address: "me@example.org", displayName: "Me"),
                host: "laptop",
                now: reminder.fireAt
            ).body
        }
        #expect(text(Self.reminder(sharing: true)) == "Ada's birthday\nAda turns 37 today\nNote: likes orchids\n\n— birthdays\n")
        #expect(text(Self.reminder(sharing: false)) == "Ada's birthday\nAda turns 37 today\n\n— birthdays\n")
        #expect(AppriseChannel.body(of: Self.reminder(sharing: true)) == "Ada turns 37 today\nNote: likes orchids")
        #expect(AppriseChannel.body(of: Self.reminder(sharing: false)) == "Ada turns 37 today")
    }

    @Test func theDesktopShowsItEitherWay() {
        let channel = DesktopNotificationChannel(bus: .address("unix:path=/nonexistent"))
        let arguments = channel.notifyArguments(for: Self.reminder(sharing: false), replacing: 0, capabilities: [])
        #expect(arguments[4] == .string("Ada turns 37 today\nNote: likes orchids"))
    }

    @Test func aDigestLeavesItsNoteLinesOutUnlessShared() throws {
        let today = try #require(LocalDate(iso: "2026-03-09"))
        let ada = UpcomingEvents(today: today).occurrence(
            of: try #require(EventDate(year: 1990, month: 3, day: 10)),
            kind: .birthday,
            personID: "ada",
            name: "Ada"
        )
        var digest = Digest(period: try #require(DigestPeriod.next(.weekly, day: .monday, onOrAfter: today)), events: [ada])
        digest.notes = ["ada": "likes orchids"]
        let lines = digest.lines(in: .english, readOn: today)
        #expect(lines.count == 2 && lines[1] == Digest.noteMarker + "Note: likes orchids", "\(lines)")
        var reminder = sampleReminder()
        reminder.body = lines.joined(separator: "\n")
        reminder.digest = .weekly
        #expect(reminder.sharedBody == lines[0])
        #expect(reminder.safeBody.contains("orchids"), "the desktop shows it")
        reminder.sharesNote = true
        #expect(reminder.sharedBody == reminder.safeBody)
    }

    @Test(arguments: [
        ("  likes orchids\n ask Ben\tabout the book ", "likes orchids ask Ben about the book"),
        ("a\u{7}b\u{202E}c", "abc"),
    ])
    func aNoteIsKeptAsOneLine(text: String, kept: String) throws {
        #expect(try PersonNote.normalized(text) == kept)
    }

    @Test func anEmptyOrLongNoteIsRefusedWithASentence() {
        #expect(throws: PersonNoteError.empty) { try PersonNote.normalized(" \n ") }
        #expect(throws: PersonNoteError.tooLong(281)) { try PersonNote.normalized(String(repeating: "x", count: 281)) }
        #expect(PersonNoteError.tooLong(281).description == "the note has 281 characters; a note holds at most 280")
    }
}
