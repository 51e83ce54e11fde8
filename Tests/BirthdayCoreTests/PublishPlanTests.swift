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
                PublishPlan.Put(uid: "a@birthdays", href: "/alice/birthdays/a@birthdays.ics", condition: .create),
                PublishPlan.Put(uid: "b@birthdays", href: "/alice/birthdays/b@birthdays.ics", condition: .update(etag: "\"b\"")),
            ]
        )
        #expect(plan.deletes == [PublishPlan.Delete(uid: "gone@birthdays", href: "/alice/birthdays/gone@birthdays.ics", etag: "\"g\"")])
        #expect(plan.unchanged == 1 && plan.forgets.isEmpty)
    }

    /// The listing's tags, by decoded path, as the helper reads them.
    static func listing(_ tags: [String: String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: tags.map { (PublishPlan.decodedPath(PublishPlan.href(uid: $0.key, in: calendar)), $0.value) })
    }

    @Test func anEventAnotherClientChangedIsFetchedFirst() {
        let plan = PublishPlan(
            wanted: ["c@birthdays": "3"],
            published: ["c@birthdays": Self.published("c@birthdays", hash: "3", etag: "\"old\"")],
            calendarPath: Self.calendar,
            listing: Self.listing(["c@birthdays": "\"new\""])
        )
        #expect(plan.puts == [PublishPlan.Put(uid: "c@birthdays", href: "/alice/birthdays/c@birthdays.ics", condition: .check)])
        #expect(plan.unchanged == 0)
    }

    @Test func nothingChangedMeansNothingToSend() {
        for listing in [nil, Self.listing(["c@birthdays": "\"e\""])] {
            let plan = PublishPlan(
                wanted: ["c@birthdays": "3"],
                published: ["c@birthdays": Self.published("c@birthdays", hash: "3")],
                calendarPath: Self.calendar,
                listing: listing
            )
            #expect(plan.puts.isEmpty && plan.deletes.isEmpty && plan.forgets.isEmpty && plan.unchanged == 1)
        }
    }

    /// Someone emptied the calendar: what the listing says is gone is created at once (one PUT,
    /// `If-None-Match: *`), not updated with a tag that can only fail; ours no longer wanted and gone
    /// are forgotten without a request.
    @Test func whatTheListingShowsGoneIsCreatedDirectlyOrForgotten() {
        let plan = PublishPlan(
            wanted: ["a@birthdays": "1", "b@birthdays": "2-new"],
            published: [
                "a@birthdays": Self.published("a@birthdays", hash: "1"),
                "b@birthdays": Self.published("b@birthdays", hash: "2"),
                "old@birthdays": Self.published("old@birthdays", hash: "4"),
            ],
            calendarPath: Self.calendar,
            listing: [:]
        )
        #expect(
            plan.puts == [
                PublishPlan.Put(uid: "a@birthdays", href: "/alice/birthdays/a@birthdays.ics", condition: .create),
                PublishPlan.Put(uid: "b@birthdays", href: "/alice/birthdays/b@birthdays.ics", condition: .create),
            ]
        )
        #expect(plan.deletes.isEmpty && plan.forgets == ["old@birthdays"] && plan.unchanged == 0)
    }

    /// An address the listing shows taken that we have no record of (a calendar published to before,
    /// left by `publish remove --keep-events`; someone else's event) is looked at before anything is
    /// written; a create we recorded but never saw answered too.
    @Test func aTakenAddressWeDoNotKnowAsOursIsCheckedFirst() {
        let pending = PublishedEvent(uid: "p@birthdays", href: PublishPlan.href(uid: "p@birthdays", in: Self.calendar), etag: nil, hash: "pending")
        let plan = PublishPlan(
            wanted: ["a@birthdays": "1", "n@birthdays": "2", "p@birthdays": "3"],
            published: ["p@birthdays": pending],
            calendarPath: Self.calendar,
            listing: Self.listing(["a@birthdays": "\"x\"", "p@birthdays": "\"y\""])
        )
        #expect(
            plan.puts == [
                PublishPlan.Put(uid: "a@birthdays", href: "/alice/birthdays/a@birthdays.ics", condition: .check),
                PublishPlan.Put(uid: "n@birthdays", href: "/alice/birthdays/n@birthdays.ics", condition: .create),
                PublishPlan.Put(uid: "p@birthdays", href: "/alice/birthdays/p@birthdays.ics", condition: .check),
            ]
        )
        // A recorded create no longer wanted is deleted only after a look (no tag to match).
        let dropped = PublishPlan(
            wanted: [:],
            published: ["p@birthdays": pending],
            calendarPath: Self.calendar,
            listing: Self.listing(["p@birthdays": "\"y\""])
        )
        #expect(dropped.deletes == [PublishPlan.Delete(uid: "p@birthdays", href: pending.href, etag: nil)])
    }

    /// Ours is what carries our PRODID and, in every VEVENT, the UID of the event at that address
    /// (an alarm's own UID, as iOS adds, does not count); anything else is not.
    @Test func writtenByUsNeedsOurProductAndTheEventsUID() {
        let product = "-//birthdays//birthdays 1.0//EN"
        let ours = Self.ours.replacingOccurrences(of: "VERSION:2.0\r\n", with: "VERSION:2.0\r\nPRODID:\(product)\r\n")
        #expect(PublishPlan.writtenByUs(ours, uid: "ada-birthday@birthdays", productID: product))
        let alarmUID = ours.replacingOccurrences(of: "BEGIN:VALARM\r\n", with: "BEGIN:VALARM\r\nUID:1234-alarm\r\n")
        #expect(PublishPlan.writtenByUs(alarmUID, uid: "ada-birthday@birthdays", productID: product))
        #expect(!PublishPlan.writtenByUs(ours, uid: "bob-birthday@birthdays", productID: product))
        #expect(!PublishPlan.writtenByUs(Self.ours, uid: "ada-birthday@birthdays", productID: product), "no PRODID")
        let imported = ours.replacingOccurrences(of: product, with: "-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN")
        #expect(!PublishPlan.writtenByUs(imported, uid: "ada-birthday@birthdays", productID: product))
        let twoEvents = ours.replacingOccurrences(
            of: "END:VCALENDAR",
            with: "BEGIN:VEVENT\r\nUID:dentist@example\r\nDTSTART;VALUE=DATE:20260401\r\nEND:VEVENT\r\nEND:VCALENDAR"
        )
        #expect(!PublishPlan.writtenByUs(twoEvents, uid: "ada-birthday@birthdays", productID: product))
    }

    @Test func aReportNamesAnEventByItsResourceName() {
        #expect(PublishPlan.resourceName(href: "/alice/birthdays/ada-birthday@birthdays.ics") == "ada-birthday@birthdays.ics")
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

    /// Every stored hash was made from the text's lines: the hash read from the
    /// bytes must give the same value, or every target would rewrite every event once.
    @Test func theHashOfTheBytesIsTheHashOfTheText() {
        #expect(PublishPlan.hash(Array(Self.ours.utf8)) == "914b9cd064ba1ba1")
        #expect(PublishPlan.byteHash(Array(Self.ours.utf8)) != nil)
    }

    @Test(arguments: [
        "",
        "\r\n\r\n",
        "A:1\nB:2",
        "A:1\rB:2\r\n\r\nC:3\n",
        " leading fold\r\nA:1\r\n",
        "A:1\r\n\tfolded with a tab\r\n \r\n  two spaces\r\n",
        "DTSTAMP:20260101T000000Z\r\n more stamp\r\nUID:x\r\n",
        "DTST\r\n AMP:20260101T000000Z\r\nUID:x\r\n",
        "DTSTAMP;TZID=Europe/Paris:20260101T000000\r\nUID:x\r\n",
        "DTSTAMPX:1\r\nDTSTAMP\r\nDTSTAMP:\r\nX-DTSTAMP:2\r\n",
        "SUMMARY:Zoë 🎂\r\n Æ\r\nDESCRIPTION:日本\r\n",
        "SUMMARY:e\r\n \u{301}combining after the fold\r\n",
        "DTSTAMP:\u{301}\r\nUID:x\r\n",
        "A:1\r\n\u{301}B\r\n",
    ])
    func theHashOfTheBytesIsTheHashOfTheTextFor(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(PublishPlan.hash(bytes) == PublishPlan.textHash(bytes))
    }

    @Test func invalidUTF8IsHashedAsTheTextReadsIt() {
        let bytes: [UInt8] = Array("SUMMARY:A".utf8) + [0xFF, 0xC3] + Array("\r\nDTSTAMP:1\r\n".utf8)
        #expect(PublishPlan.byteHash(bytes) == nil)
        #expect(PublishPlan.hash(bytes) == PublishPlan.textHash(bytes))
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

    // MARK: - The listing from a sync-token (RFC 6578)

    /// What changed since the last publish's token, over what we recorded: the plan is the one a full
    /// listing gives (ours unchanged, ours deleted by someone made again, ours changed by someone
    /// fetched first, a create never seen answered fetched first), with one request instead of a listing.
    @Test func aSyncCollectionDeltaOverTheRecordsPlansWhatAFullListingWould() {
        let published = [
            "a@birthdays": Self.published("a@birthdays", hash: "1", etag: "\"a\""),
            "b@birthdays": Self.published("b@birthdays", hash: "2", etag: "\"b\""),
            "c@birthdays": Self.published("c@birthdays", hash: "3", etag: "\"c\""),
            "d@birthdays": Self.published("d@birthdays", hash: PublishedEvent.pending, etag: ""),
        ]
        let path = { (uid: String) in PublishPlan.decodedPath(PublishPlan.href(uid: uid, in: Self.calendar)) }
        let derived = PublishPlan.listing(
            published: published,
            changed: [path("b@birthdays"): "\"b2\"", path("foreign@test"): "\"f\""],
            removed: [path("c@birthdays")]
        )
        let full = Self.listing(["a@birthdays": "\"a\"", "b@birthdays": "\"b2\"", "d@birthdays": "\"d\"", "foreign@test": "\"f\""])
        let wanted = ["a@birthdays": "1", "b@birthdays": "2", "c@birthdays": "3", "d@birthdays": "4"]
        let fromDelta = PublishPlan(wanted: wanted, published: published, calendarPath: Self.calendar, listing: derived)
        #expect(fromDelta == PublishPlan(wanted: wanted, published: published, calendarPath: Self.calendar, listing: full))
        #expect(
            fromDelta.puts == [
                PublishPlan.Put(uid: "b@birthdays", href: "/alice/birthdays/b@birthdays.ics", condition: .check),
                PublishPlan.Put(uid: "c@birthdays", href: "/alice/birthdays/c@birthdays.ics", condition: .create),
                PublishPlan.Put(uid: "d@birthdays", href: "/alice/birthdays/d@birthdays.ics", condition: .check),
            ]
        )
        #expect(fromDelta.unchanged == 1 && fromDelta.deletes.isEmpty)
        // Nothing changed since the token: everything recorded is as we left it.
        let quiet = PublishPlan.listing(published: published, changed: [:], removed: [])
        #expect(quiet[path("a@birthdays")] == "\"a\"" && quiet[path("d@birthdays")] == "" && quiet.count == 4)
    }

    /// After a publish that wrote, the token is kept only when every change since the listing is ours.
    @Test func theTokenAfterWritesIsKeptOnlyWhenEveryChangeSinceTheListingIsOurs() {
        let expected: [String: String?] = ["/c/a.ics": "\"a2\"", "/c/b.ics": "\"b\"", "/c/p.ics": nil]
        // Our write of a, someone else's new event, our delete of x.
        #expect(
            PublishPlan.changesAreOurs(
                changed: ["/c/a.ics": "\"a2\"", "/c/f.ics": "\"f\""],
                removed: ["/c/x.ics"],
                expected: expected,
                wrote: ["/c/a.ics"]
            )
        )
        // Someone changed b (ours, untouched by this publish) after the listing.
        #expect(
            !PublishPlan.changesAreOurs(changed: ["/c/a.ics": "\"a2\"", "/c/b.ics": "\"b9\""], removed: [], expected: expected, wrote: ["/c/a.ics"])
        )
        // Someone deleted b.
        #expect(!PublishPlan.changesAreOurs(changed: ["/c/a.ics": "\"a2\""], removed: ["/c/b.ics"], expected: expected, wrote: ["/c/a.ics"]))
        // What we wrote is not listed (made and deleted again since the listing: a server need not say so).
        #expect(!PublishPlan.changesAreOurs(changed: [:], removed: [], expected: expected, wrote: ["/c/a.ics"]))
        // A resource whose tag we do not know.
        #expect(!PublishPlan.changesAreOurs(changed: ["/c/p.ics": "\"p\""], removed: [], expected: expected, wrote: []))
    }
}
