import Foundation
import Testing

@testable import BirthdayCore

/// What a pending request or a ledger row is, as a value (``DeliveryKind``):
/// its stored text, and the rules that switch over it.
@Suite struct DeliveryKindTests {
    @Test(arguments: [
        (DeliveryKind.reminder(DeliveryKind.Occasion()), #"{"reminder":{}}"#),
        (
            .reminder(
                DeliveryKind.Occasion(calendar: .chinese, movedTo: LocalDate(unchecked: 2026, 12, 11), zone: PersonZone(cardValue: "Asia/Tokyo"))
            ),
            #"{"reminder":{"calendar":"chinese","moved_to":"2026-12-11","zone":"Asia/Tokyo"}}"#
        ),
        (
            .reminder(DeliveryKind.Occasion(label: #"Started "work"/Ünï"#, labelID: "date-1f2e3d4c")),
            #"{"reminder":{"label":"Started \"work\"/Ünï","label_id":"date-1f2e3d4c"}}"#
        ),
        (.digest(.monthly), #"{"digest":"monthly"}"#),
        (.announcement(room: "team/a"), #"{"announce":"team/a"}"#),
        (.invitationNotice(answerID: 3), #"{"invite":3}"#),
        (.greeting(personID: "ana"), #"{"greeting":"ana"}"#),
    ])
    func eachKindIsStoredAsOneKeyAndReadBack(kind: DeliveryKind, stored: String) {
        #expect(kind.storedValue == stored)
        #expect(DeliveryKind(storedValue: stored) == kind)
    }

    /// A greeting's text is written without an encoder when its person id
    /// is plain (issue 44: one per greeted friend each reschedule), and is
    /// then what the encoder writes; an id an encoder escapes goes through it.
    @Test(arguments: ["ana", "3f1c2b7e-0d4a-4c1e-9b2f-6a5d8e7c9b10", "a.b_c-D", "with \"quote\"", #"back\slash"#, "slash/ed", "tab\t", "Ünï 美咲", ""])
    func aGreetingIsStoredAsTheEncoderWouldWriteIt(personID: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let encoded = String(decoding: try encoder.encode(["greeting": personID]), as: UTF8.self)
        #expect(DeliveryKind.greeting(personID: personID).storedValue == encoded)
        #expect(DeliveryKind(storedValue: encoded) == .greeting(personID: personID))
    }

    /// Nothing is guessed: no kind, two kinds, a kind or a frequency this version does not know.
    @Test(arguments: ["{}", #"{"digest":"weekly","announce":"team"}"#, #"{"greeting":{}}"#, #"{"digest":"daily"}"#, "", "[]"])
    func whatIsNotOneKnownKindDoesNotRead(stored: String) {
        #expect(DeliveryKind(storedValue: stored) == nil)
    }

    /// An occasion's value this version cannot read is left out, as the old `userInfo` keys were.
    @Test func anUnknownCalendarOrZoneIsLeftOutOfTheOccasion() {
        let read = DeliveryKind(storedValue: #"{"reminder":{"calendar":"klingon","zone":"Mars/Olympus","moved_to":"2026-12-11"}}"#)
        #expect(read == .reminder(DeliveryKind.Occasion(movedTo: LocalDate(unchecked: 2026, 12, 11))))
    }

    /// The rules that read the kind: which rows are due at their own instant, which on a moved day.
    @Test func theLedgerJudgesEachKindByItsOwnRule() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let nine = try #require(TimeOfDay(hour: 9, minute: 0))
        let quiet = try #require(TimeOfDay(hour: 21, minute: 0))
        let instant = try #require(ISO8601DateFormatter().date(from: "2026-03-14T15:30:00Z"))
        func entry(_ kind: DeliveryKind) -> DeliveryEntry {
            let request = NotificationRequest(
                personID: "",
                kind: .birthday,
                timing: .dayOf,
                fireAt: instant,
                occurrenceDate: LocalDate(unchecked: 2026, 3, 14),
                title: "t",
                body: "b",
                deliveryKind: kind
            )
            return DeliveryEntry(queued: request, at: instant)
        }
        let atNine = try #require(ISO8601DateFormatter().date(from: "2026-03-14T08:00:00Z"))
        #expect(entry(.invitationNotice(answerID: 1)).localFireAt(in: berlin, deliveryTime: nine, quietAfter: quiet) == instant)
        #expect(entry(.announcement(room: "team")).localFireAt(in: berlin, deliveryTime: nine, quietAfter: quiet) == atNine)
        #expect(entry(.digest(.weekly)).localFireAt(in: berlin, deliveryTime: nine, quietAfter: quiet) == atNine)
        let moved = entry(.reminder(DeliveryKind.Occasion(movedTo: LocalDate(unchecked: 2026, 3, 13))))
        #expect(moved.localDay(in: berlin, deliveryTime: nine, quietAfter: quiet) == LocalDate(unchecked: 2026, 3, 13))
    }
}
