import BirthdayCore
import Testing

/// `run --all-users`'s decisions as values: who is started and stopped as
/// the users root changes, and when a user whose daemon failed is tried again.
@Suite struct UserRosterTests {
    let alice: UserName
    let bob: UserName
    let carol: UserName

    init() throws {
        alice = try UserName("alice")
        bob = try UserName("bob")
        carol = try UserName("carol")
    }

    @Test func theListingStartsNewUsersAndStopsGoneOnesOnce() {
        var roster = UserRoster()
        #expect(roster.listed([bob, alice]) == [.start(alice), .start(bob)])
        #expect(roster.started(alice) == [] && roster.started(bob) == [])
        #expect(roster.listed([alice, bob]) == [], "the same listing changes nothing")
        #expect(roster.listed([alice, carol]) == [.start(carol), .stop(bob)])
        #expect(roster.listed([alice, carol]) == [], "a user asked to stop is not asked twice")
        #expect(roster.ended(bob) == [], "a stopped user is not retried")
        #expect(roster.users[bob] == nil)
        #expect(roster.served == [alice, carol])
    }

    @Test func aFailedUserIsRetriedWithAGrowingWaitWhileListed() {
        var roster = UserRoster()
        _ = roster.listed([alice])
        #expect(roster.ended(alice) == [.retry(alice, after: .seconds(5))])
        #expect(roster.listed([alice]) == [], "a listing does not start a user waiting for a retry")
        #expect(roster.retryDue(alice) == [.start(alice)])
        #expect(roster.ended(alice) == [.retry(alice, after: .seconds(10))])
        #expect(roster.retryDue(alice) == [.start(alice)])
        #expect(roster.ended(alice) == [.retry(alice, after: .seconds(20))])
        #expect(roster.retryDue(alice) == [.start(alice)])
        #expect(roster.started(alice) == [])
        #expect(roster.ended(alice) == [.retry(alice, after: .seconds(5))], "a daemon that started resets the wait")
        #expect(UserRoster.retryDelay(failures: 100) == UserRoster.longestRetry)
    }

    @Test func aUserRemovedWhileWaitingIsNotRetried() {
        var roster = UserRoster()
        _ = roster.listed([alice])
        _ = roster.ended(alice)
        #expect(roster.listed([]) == [])
        #expect(roster.retryDue(alice) == [])
        #expect(roster.listed([alice]) == [.start(alice)], "added again, they start at once")
    }

    @Test func aUserRemovedWhileBeingBuiltIsStoppedOnceStarted() {
        var roster = UserRoster()
        _ = roster.listed([alice])
        #expect(roster.listed([]) == [.stop(alice)])
        #expect(roster.started(alice) == [.stop(alice)])
        #expect(roster.ended(alice) == [])
    }

    @Test func aUserAddedAgainBeforeTheirDaemonStoppedStartsOnceItHas() {
        var roster = UserRoster()
        _ = roster.listed([alice])
        _ = roster.started(alice)
        #expect(roster.listed([]) == [.stop(alice)])
        #expect(roster.listed([alice]) == [], "one daemon per user: the old one has not stopped yet")
        #expect(roster.ended(alice) == [.start(alice)])
        #expect(roster.served == [alice])
    }
}
