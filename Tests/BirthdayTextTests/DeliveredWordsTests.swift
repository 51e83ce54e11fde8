import Foundation
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// The words a ledger row goes out with (``NotificationContent/delivered(_:late:reach:timeZone:settings:in:publicIDs:)``):
/// the late note, the ways to reach the person and their note, by kind.
@Suite struct DeliveredWordsTests {
    let due = Date(timeIntervalSince1970: 1_773_475_200)  // 2026-03-14T08:00:00Z, 09:00 in Berlin
    let reach = PersonReach(name: "Ada", nickname: "", points: [ContactPoint(kind: .email, value: "ada@example.org")], note: "likes orchids")

    private func entry(_ kind: DeliveryKind, body: String = "Ada turns 37 today!") -> DeliveryEntry {
        let request = NotificationRequest(
            personID: "ada",
            kind: .birthday,
            timing: .dayOf,
            fireAt: due,
            occurrenceDate: LocalDate(unchecked: 2026, 3, 14),
            title: "Ada's Birthday!",
            body: body,
            deliveryKind: kind
        )
        return DeliveryEntry(queued: request, at: due)
    }

    private func words(_ kind: DeliveryKind, late: Bool, body: String = "Ada turns 37 today!", settings: Settings = Settings()) throws -> Reminder {
        NotificationContent.delivered(
            entry(kind, body: body),
            late: late,
            reach: reach,
            timeZone: try #require(TimeZone(identifier: "Europe/Berlin")),
            settings: settings,
            in: .english,
            publicIDs: try #require(PublicID(key: Array(0..<16)))
        )
    }

    @Test func aLateReminderSaysWhenItWasDueAtItsEndAndCarriesTheWaysToReachThePerson() throws {
        var settings = Settings()
        settings.contactLinks = true
        let reminder = try words(.reminder(DeliveryKind.Occasion()), late: true, settings: settings)
        #expect(reminder.body == "Ada turns 37 today! (sent late: it was due at 09:00)")
        #expect(reminder.contactLinks.map(\.uri).first?.hasPrefix("mailto:ada@example.org") == true)
        #expect(reminder.sharesContactLinks && !reminder.sharesNote)
        #expect(reminder.noteLine == "Note: likes orchids")
        #expect(try words(.reminder(DeliveryKind.Occasion()), late: false).body == "Ada turns 37 today!")
    }

    @Test func aLateDigestSaysSoOnItsFirstLineAndCarriesNoOnesWays() throws {
        let reminder = try words(.digest(.weekly), late: true, body: "Sat 14 Mar (today): Ada, 37th birthday")
        #expect(reminder.body == "(sent late: it was due at 09:00)\nSat 14 Mar (today): Ada, 37th birthday")
        #expect(reminder.contactLinks.isEmpty && reminder.noteLine == nil && reminder.digest == .weekly)
    }

    @Test(arguments: [DeliveryKind.announcement(room: "team"), .invitationNotice(answerID: 3)])
    func aRoomsMessageAndAnInvitationsNoticeAreTheSameWheneverTheyArrive(kind: DeliveryKind) throws {
        let reminder = try words(kind, late: true, body: "🎂 Happy birthday, Ada!")
        #expect(reminder.body == "🎂 Happy birthday, Ada!")
        #expect(reminder.contactLinks.isEmpty && reminder.noteLine == nil)
    }
}
