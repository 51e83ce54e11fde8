import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

@Suite struct OnboardingMachineTests {
    typealias Machine = OnboardingMachine

    @Test func enableWithAReachableChannelAuthorizes() {
        var machine = Machine()
        #expect(machine.handle(.start) == .showWelcome)
        #expect(machine.handle(.welcomeAcknowledged) == .askForContacts(problem: nil))
        #expect(machine.handle(.importContacts(paths: ["contacts.vcf"])) == .importContacts(paths: ["contacts.vcf"]))
        #expect(machine.step == .contactsImport)
        #expect(machine.handle(.importSucceeded) == .showPrimer)
        #expect(machine.handle(.enableNotifications) == .probeChannel)
        #expect(machine.handle(.channelProbed(reachable: true)) == .askForPermission(channelReachable: true))
        #expect(machine.handle(.permissionAnswered(allowed: true)) == .offerChannels)
        #expect(machine.step == .channels)
        #expect(machine.handle(.channelsOffered) == .offerService(.authorized))
        #expect(machine.step == .service)
        #expect(machine.status == .authorized)
        #expect(machine.handle(.serviceAnswered(install: true)) == .finish(.notificationsOn(.authorized, installService: true)))
        #expect(machine.step == .complete)
    }

    @Test func enableWithoutAChannelIsProvisional() {
        var machine = Machine(step: .notificationPrimer)
        #expect(machine.handle(.start) == .showPrimer)
        #expect(machine.handle(.enableNotifications) == .probeChannel)
        #expect(machine.handle(.channelProbed(reachable: false)) == .askForPermission(channelReachable: false))
        #expect(machine.handle(.permissionAnswered(allowed: true)) == .offerChannels)
        #expect(machine.handle(.channelsOffered) == .offerService(.provisional))
        #expect(machine.handle(.serviceAnswered(install: false)) == .finish(.notificationsOn(.provisional, installService: false)))
    }

    /// Reminders fire only while the daemon runs: an onboarding that ends
    /// with notifications on always offers the service first, and one
    /// interrupted there offers it again.
    @Test func anInterruptedServiceOfferIsMadeAgain() {
        var machine = Machine(step: .notificationPrimer)
        _ = machine.handle(.start)
        _ = machine.handle(.enableNotifications)
        _ = machine.handle(.channelProbed(reachable: true))
        #expect(machine.handle(.permissionAnswered(allowed: true)) == .offerChannels)
        #expect(machine.handle(.channelsOffered) == .offerService(.authorized))
        var resumed = Machine(step: machine.step, status: machine.status)
        #expect(resumed.handle(.start) == .offerService(.authorized))
        #expect(resumed.handle(.permissionAnswered(allowed: false)) == .ignored)
        #expect(resumed.handle(.channelsOffered) == .ignored)
        #expect(resumed.handle(.serviceAnswered(install: true)) == .finish(.notificationsOn(.authorized, installService: true)))
        #expect(resumed.handle(.serviceAnswered(install: true)) == .ignored)
    }

    /// An interrupted onboarding says where it picks up: the step `.start`
    /// lands on (an open permission question is the primer again; a primer
    /// with notifications already allowed is the channel offer), never the
    /// welcome of a new one nor an onboarding already complete.
    @Test(arguments: [
        (Machine.Step.welcome, AuthorizationStatus.notDetermined, Machine.Step?.none),
        (.contactsImport, .notDetermined, .contactsImport),
        (.notificationPrimer, .notDetermined, .notificationPrimer),
        (.permissionRequest, .notDetermined, .notificationPrimer),
        (.notificationPrimer, .authorized, .channels),
        (.channels, .provisional, .channels),
        (.service, .authorized, .service),
        (.complete, .denied, nil),
    ])
    func aResumedFlowSaysWhereItPicksUp(stored: Machine.Step, status: AuthorizationStatus, resumed: Machine.Step?) {
        var machine = Machine(step: stored, status: status)
        _ = machine.handle(.start)
        #expect(machine.resumedStep == resumed)
        #expect((resumed.flatMap(Message.onboardingResuming) != nil) == (resumed != nil), "every step it resumes at has its words")
    }

    @Test func aNewFlowNeverSaysItResumes() {
        var machine = Machine()
        #expect(machine.handle(.start) == .showWelcome)
        #expect(machine.resumedStep == nil)
        _ = machine.handle(.welcomeAcknowledged)
        #expect(machine.resumedStep == .contactsImport, "past the welcome, a stop here is resumed here")
    }

    @Test func dontAllowDenies() {
        var machine = Machine(step: .notificationPrimer)
        _ = machine.handle(.start)
        _ = machine.handle(.enableNotifications)
        _ = machine.handle(.channelProbed(reachable: true))
        #expect(machine.handle(.permissionAnswered(allowed: false)) == .finish(.notificationsOff(.denied)))
        #expect(machine.status == .denied)
    }

    @Test func maybeLaterCompletesWithoutAskingAndNeverNags() {
        var machine = Machine()
        _ = machine.handle(.start)
        _ = machine.handle(.welcomeAcknowledged)
        #expect(machine.handle(.skipContacts) == .showPrimer)
        #expect(machine.handle(.maybeLater) == .finish(.notificationsOff(.notDetermined)))
        #expect(machine.status == .notDetermined)
        #expect(machine.step == .complete)
        // Coming back later does not show the primer again.
        var resumed = Machine(step: machine.step, status: machine.status)
        #expect(resumed.handle(.start) == .alreadyComplete(.notDetermined))
        #expect(resumed.handle(.enableNotifications) == .ignored)
    }

    @Test func deniedIsNeverAskedAgain() {
        var machine = Machine(step: .notificationPrimer, status: .denied)
        #expect(machine.handle(.start) == .showPrimer)
        #expect(machine.handle(.enableNotifications) == .finish(.alreadyDenied))
        #expect(machine.status == .denied)
    }

    @Test(arguments: [AuthorizationStatus.authorized, .provisional])
    func alreadyAllowedSkipsThePrimer(_ status: AuthorizationStatus) {
        var machine = Machine(step: .contactsImport, status: status)
        #expect(machine.handle(.start) == .askForContacts(problem: nil))
        #expect(machine.handle(.skipContacts) == .offerChannels)
        #expect(machine.handle(.channelsOffered) == .offerService(status))
        #expect(machine.handle(.serviceAnswered(install: false)) == .finish(.notificationsOn(status, installService: false)))
    }

    /// The channel offer comes only with notifications on, after the
    /// permission; one interrupted there is made again, and its answer moves on to the service.
    @Test func anInterruptedChannelOfferIsMadeAgain() {
        var machine = Machine(step: .notificationPrimer)
        #expect(machine.handle(.channelsOffered) == .ignored)
        _ = machine.handle(.start)
        _ = machine.handle(.enableNotifications)
        _ = machine.handle(.channelProbed(reachable: false))
        #expect(machine.handle(.channelsOffered) == .ignored)
        #expect(machine.handle(.permissionAnswered(allowed: true)) == .offerChannels)
        var resumed = Machine(step: machine.step, status: machine.status)
        #expect(resumed.step == .channels)
        #expect(resumed.handle(.start) == .offerChannels)
        #expect(resumed.handle(.serviceAnswered(install: true)) == .ignored)
        #expect(resumed.handle(.channelsOffered) == .offerService(.provisional))
        #expect(resumed.handle(.channelsOffered) == .ignored)
    }

    @Test func aFailedImportAsksAgain() {
        var machine = Machine(step: .contactsImport)
        #expect(machine.handle(.importContacts(paths: ["missing.vcf"])) == .importContacts(paths: ["missing.vcf"]))
        #expect(machine.handle(.importFailed(message: "cannot read missing.vcf")) == .askForContacts(problem: "cannot read missing.vcf"))
        #expect(machine.step == .contactsImport)
    }

    @Test func thePrimerComesBeforeAnyRequest() {
        for step in [Machine.Step.welcome, .contactsImport, .notificationPrimer, .complete] {
            var machine = Machine(step: step)
            #expect(machine.handle(.permissionAnswered(allowed: true)) == .ignored)
            #expect(machine.handle(.channelProbed(reachable: true)) == .ignored)
            #expect(machine.status == .notDetermined)
        }
    }

    @Test(arguments: [
        (Machine.Step.welcome, Machine.Action.showWelcome),
        (.contactsImport, .askForContacts(problem: nil)),
        (.notificationPrimer, .showPrimer),
        (.permissionRequest, .showPrimer),
        (.channels, .offerChannels),
        (.service, .offerService(.notDetermined)),
        (.complete, .alreadyComplete(.notDetermined)),
    ])
    func resumesWhereItStopped(_ step: Machine.Step, _ action: Machine.Action) {
        var machine = Machine(step: step)
        #expect(machine.handle(.start) == action)
    }
}

@Suite struct AuthorizationStatusTests {
    @Test(arguments: [
        (true, true, AuthorizationStatus.authorized),
        (true, false, .provisional),
        (false, true, .denied),
        (false, false, .denied),
    ])
    func afterRequest(_ allowed: Bool, _ reachable: Bool, _ expected: AuthorizationStatus) {
        #expect(AuthorizationStatus.afterRequest(allowed: allowed, channelReachable: reachable) == expected)
    }
}
