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

    /// The root listing `names`, each in the folder (and database) first made for them.
    func listing(_ names: [UserName]) -> [UserRoster.Listed] {
        names.map { name in Self.user(name, folder: [alice, bob, carol].firstIndex(of: name).map { UInt64($0) + 1 } ?? 99) }
    }

    /// User `name` listed with folder inode `folder` and database inode `folder + 1000` on one device.
    static func user(_ name: UserName, folder: UInt64, database: UInt64? = nil) -> UserRoster.Listed {
        UserRoster.Listed(
            name: name,
            identity: .init(folder: .init(device: 2049, inode: folder), database: .init(device: 2049, inode: database ?? folder + 1000))
        )
    }

    @Test func theListingStartsNewUsersAndStopsGoneOnesOnce() {
        var roster = UserRoster()
        #expect(roster.listed(listing([bob, alice])) == [.start(alice), .start(bob)])
        #expect(roster.started(alice) == [] && roster.started(bob) == [])
        #expect(roster.listed(listing([alice, bob])) == [], "the same listing changes nothing")
        #expect(roster.listed(listing([alice, carol])) == [.start(carol), .stop(bob)])
        #expect(roster.listed(listing([alice, carol])) == [], "a user asked to stop is not asked twice")
        #expect(roster.ended(bob) == [], "a stopped user is not retried")
        #expect(roster.users[bob] == nil)
        #expect(roster.served == [alice, carol])
    }

    @Test func aFailedUserIsRetriedWithAGrowingWaitWhileListed() {
        var roster = UserRoster()
        _ = roster.listed(listing([alice]))
        #expect(roster.ended(alice) == [.retry(alice, after: .seconds(5))])
        #expect(roster.listed(listing([alice])) == [], "a listing does not start a user waiting for a retry")
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
        _ = roster.listed(listing([alice]))
        _ = roster.ended(alice)
        #expect(roster.listed(listing([])) == [])
        #expect(roster.retryDue(alice) == [])
        #expect(roster.listed(listing([alice])) == [.start(alice)], "added again, they start at once")
    }

    @Test func aUserRemovedWhileBeingBuiltIsStoppedOnceStarted() {
        var roster = UserRoster()
        _ = roster.listed(listing([alice]))
        #expect(roster.listed(listing([])) == [.stop(alice)])
        #expect(roster.started(alice) == [.stop(alice)])
        #expect(roster.ended(alice) == [])
    }

    @Test func aUserAddedAgainBeforeTheirDaemonStoppedStartsOnceItHas() {
        var roster = UserRoster()
        _ = roster.listed(listing([alice]))
        _ = roster.started(alice)
        #expect(roster.listed(listing([])) == [.stop(alice)])
        #expect(roster.listed(listing([alice])) == [], "one daemon per user: the old one has not stopped yet")
        #expect(roster.ended(alice) == [.start(alice)])
        #expect(roster.served == [alice])
    }

    // MARK: - A user removed and added again under the same name

    @Test func aUserAddedAgainInAnotherFolderBetweenTwoListingsIsStoppedThenStartedAgain() {
        var roster = UserRoster()
        _ = roster.listed([Self.user(alice, folder: 10), Self.user(bob, folder: 20)])
        _ = roster.started(alice)
        _ = roster.started(bob)
        // users remove alice, users add alice: the listing finds the name again, in another folder.
        #expect(roster.listed([Self.user(alice, folder: 11), Self.user(bob, folder: 20)]) == [.stop(alice)])
        #expect(roster.listed([Self.user(alice, folder: 11), Self.user(bob, folder: 20)]) == [], "asked to stop once")
        #expect(roster.served == [bob], "the old alice's daemon is stopping")
        #expect(roster.ended(alice) == [.start(alice)], "the new alice starts once the old one's daemon has stopped")
        #expect(roster.served == [alice, bob])
        #expect(roster.listed([Self.user(alice, folder: 11), Self.user(bob, folder: 20)]) == [], "and is then the same user")
    }

    @Test func aDatabaseReplacedInTheSameFolderIsAnotherUserToo() {
        var roster = UserRoster()
        _ = roster.listed([Self.user(alice, folder: 10, database: 30)])
        _ = roster.started(alice)
        #expect(roster.listed([Self.user(alice, folder: 10, database: 31)]) == [.stop(alice)])
        #expect(roster.ended(alice) == [.start(alice)])
    }

    @Test func aUserWaitingForARetryInAnotherFolderIsStartedAtOnce() {
        var roster = UserRoster()
        _ = roster.listed([Self.user(alice, folder: 10)])
        #expect(roster.ended(alice) == [.retry(alice, after: .seconds(5))])
        #expect(roster.listed([Self.user(alice, folder: 10)]) == [])
        #expect(roster.listed([Self.user(alice, folder: 11)]) == [.start(alice)], "a new folder is not the old one's failure")
        #expect(roster.retryDue(alice) == [], "the old retry finds them started")
    }

    @Test func aUserRemovedWhileStoppingAndAddedAgainStartsOnceStopped() {
        var roster = UserRoster()
        _ = roster.listed([Self.user(alice, folder: 10)])
        _ = roster.started(alice)
        #expect(roster.listed([]) == [.stop(alice)])
        #expect(roster.listed([Self.user(alice, folder: 11)]) == [])
        #expect(roster.ended(alice) == [.start(alice)])
        #expect(roster.listed([Self.user(alice, folder: 11)]) == [], "the folder it was started for is the new one")
    }

    // MARK: - Memory handed back once for every user

    @Test func memoryIsHandedBackOnceWhenEveryServedUserRests() {
        var roster = UserRoster()
        _ = roster.listed(listing([alice, bob, carol]))
        _ = roster.started(alice)
        _ = roster.started(bob)
        #expect(roster.rested(alice) == [])
        #expect(roster.rested(bob) == [], "carol's daemon is still being built")
        _ = roster.started(carol)
        #expect(roster.rested(carol) == [.releaseMemory])
        #expect(roster.rested(carol) == [], "once, not once per user")
        roster.woke(bob)
        #expect(roster.rested(alice) == [], "bob passes")
        #expect(roster.rested(bob) == [.releaseMemory], "bob passed since: once more")
        #expect(roster.listed(listing([alice, bob])) == [.stop(carol)])
        #expect(roster.ended(carol) == [])
        #expect(roster.rested(alice) == [], "nothing passed since")
    }

    @Test func aUserWhoseDaemonFailedDoesNotHoldTheReleaseBack() {
        var roster = UserRoster()
        _ = roster.listed(listing([alice, bob]))
        _ = roster.started(alice)
        #expect(roster.rested(alice) == [])
        #expect(roster.ended(bob) == [.retry(bob, after: .seconds(5))])
        #expect(roster.rested(alice) == [.releaseMemory], "bob waits for a retry: no daemon of his runs")
    }
}
