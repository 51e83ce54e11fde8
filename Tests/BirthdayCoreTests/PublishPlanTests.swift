import BirthdayCore
import Foundation
import Testing

/// The pure half of `birthdays publish`: which PUTs and DELETEs a publish
/// sends, the mass-removal guard, resource names and what makes an event on
/// the server ours.
@Suite struct PublishPlanTests {
    static let calendar = "/alice/birthdays/"

    static func published(_ uid: String, hash: String, etag: String = "\"e\"") -> PublishedEvent {
        PublishedEvent(uid: uid, href: PublishPlan.href(uid: uid, in: calendar), etag: etag, hash: hash)
    }

    @Test func newEventsAreCreatedChangedOnesUpdatedAndOursNoLongerWantedDeleted() {
        let plan = PublishPlan(
            wanted: ["a@birthdays": "1", "b@birthdays": "2-new", "c@birthdays": "3"],
            published: [
                "b@birthdays": Self.published("b@birthdays", hash: "2", etag: "\"b\""),
                "c@birthdays": Self.published("c@birthdays", hash: "3"),
                "gone@birthdays": Self.published("gone@birthdays", hash: "4", etag: "\"g\""),
            ],
            calendarPath: Self.calendar
        )
        #expect(
            plan.puts == [
                PublishPlan.Put(uid: "a@birthdays", href: "/alice/birthdays/a@birthdays.ics", etag: nil),
                PublishPlan.Put(uid: "b@birthdays", href: "/alice/birthdays/b@birthdays.ics", etag: "\"b\""),
            ]
        )
        #expect(plan.deletes == [PublishPlan.Delete(uid: "gone@birthdays", href: "/alice/birthdays/gone@birthdays.ics", etag: "\"g\"")])
        #expect(plan.unchanged == 1)
    }

    @Test func anEventAnotherClientChangedIsPutAgainWithTheTagWeKnow() {
        let plan = PublishPlan(
            wanted: ["c@birthdays": "3"],
            published: ["c@birthdays": Self.published("c@birthdays", hash: "3", etag: "\"old\"")],
            calendarPath: Self.calendar,
            changedElsewhere: ["c@birthdays"]
        )
        #expect(plan.puts == [PublishPlan.Put(uid: "c@birthdays", href: "/alice/birthdays/c@birthdays.ics", etag: "\"old\"")])
        #expect(plan.unchanged == 0)
    }

    @Test func nothingChangedMeansNothingToSend() {
        let plan = PublishPlan(
            wanted: ["c@birthdays": "3"],
            published: ["c@birthdays": Self.published("c@birthdays", hash: "3")],
            calendarPath: Self.calendar
        )
        #expect(plan.puts.isEmpty && plan.deletes.isEmpty && plan.unchanged == 1)
    }

    @Test(arguments: [
        (5, 9, false), (9, 9, false), (5, 10, false), (6, 10, true), (10, 10, true), (1, 1, false), (0, 100, false), (51, 100, true),
    ])
    func deletingMoreThanHalfOfTenOrMoreNeedsForce(_ deleting: Int, _ published: Int, _ needs: Bool) {
        #expect(PublishPlan.needsForce(deleting: deleting, of: published) == needs)
    }

    @Test func resourceNamesPercentEncodeWhatAPathSegmentCannotHold() {
        #expect(PublishPlan.resourceName(uid: "ada-birthday@birthdays") == "ada-birthday@birthdays.ics")
        #expect(PublishPlan.resourceName(uid: "a b/c?d#é") == "a%20b%2Fc%3Fd%23%C3%A9.ics")
        #expect(PublishPlan.href(uid: "x", in: "/cal") == "/cal/x.ics")
    }

    static let ours = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        BEGIN:VEVENT\r
        UID:ada-birthday@birthdays\r
        DTSTAMP:20260101T000000Z\r
        DTSTART;VALUE=DATE:19900310\r
        RRULE:FREQ=YEARLY\r
        SUMMARY:🎂 Ada\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        DESCRIPTION:Ada's birthday is to\r
         day\r
        TRIGGER;RELATED=START:PT9H\r
        END:VALARM\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    @Test func theHashIgnoresTheStampButNotTheEvent() {
        let restamped = Self.ours.replacingOccurrences(of: "DTSTAMP:20260101T000000Z", with: "DTSTAMP:20270101T000000Z")
        #expect(PublishPlan.hash(Array(Self.ours.utf8)) == PublishPlan.hash(Array(restamped.utf8)))
        let moved = Self.ours.replacingOccurrences(of: "19900310", with: "19900311")
        #expect(PublishPlan.hash(Array(Self.ours.utf8)) != PublishPlan.hash(Array(moved.utf8)))
    }

    @Test func anEventWithAnAcknowledgedAlarmIsStillOursButAnotherTitleIsNot() {
        let acknowledged = Self.ours
            .replacingOccurrences(of: "END:VALARM", with: "ACKNOWLEDGED:20260310T090000Z\r\nEND:VALARM")
            .replacingOccurrences(of: "DTSTAMP:20260101T000000Z", with: "DTSTAMP:20260310T090000Z\r\nX-APPLE-DEFAULT-ALARM:FALSE")
            .replacingOccurrences(of: "is to\r\n day", with: "is today")
        #expect(PublishPlan.sameEvent(Array(Self.ours.utf8), acknowledged))
        #expect(!PublishPlan.sameEvent(Array(Self.ours.utf8), Self.ours.replacingOccurrences(of: "🎂 Ada", with: "Ada")))
        #expect(!PublishPlan.sameEvent(Array(Self.ours.utf8), Self.ours.replacingOccurrences(of: "PT9H", with: "-PT15H")))
    }

    /// The daemon's "did the events change" is one hash of the whole calendar: the same events in
    /// any order, or with another DTSTAMP, hash the same; one changed alarm does not.
    @Test func theCalendarHashFollowsTheEventsButNotTheirOrderOrStamp() {
        let ada = PublishEvent(uid: "ada", bytes: Array(Self.ours.utf8))
        let bob = PublishEvent(uid: "bob", bytes: Array(Self.ours.replacingOccurrences(of: "Ada", with: "Bob").utf8))
        let hash = PublishPlan.calendarHash([ada, bob])
        #expect(PublishPlan.calendarHash([bob, ada]) == hash)
        let restamped = Self.ours.replacingOccurrences(of: "DTSTAMP:", with: "DTSTAMP:2030")
        #expect(restamped != Self.ours)
        #expect(PublishPlan.calendarHash([PublishEvent(uid: "ada", bytes: Array(restamped.utf8)), bob]) == hash)
        let moved = PublishEvent(uid: "ada", bytes: Array(Self.ours.replacingOccurrences(of: "PT9H", with: "-PT15H").utf8))
        #expect(PublishPlan.calendarHash([moved, bob]) != hash)
        #expect(PublishPlan.calendarHash([ada]) != hash)
    }
}
