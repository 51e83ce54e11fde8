import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayStore

@Suite struct OnboardingStoreTests {
    typealias Machine = OnboardingMachine

    @Test func progressIsStored() async throws {
        let temporary = try TemporaryDatabase()
        let db = temporary.database
        var machine = try await db.onboardingMachine()
        #expect(machine == Machine())
        _ = machine.handle(.start)
        _ = machine.handle(.welcomeAcknowledged)
        _ = machine.handle(.skipContacts)
        _ = machine.handle(.enableNotifications)
        try await db.saveOnboarding(machine)
        // Interrupted while asking: resumes at the primer.
        var resumed = try await db.onboardingMachine()
        #expect(resumed.step == .notificationPrimer)
        #expect(resumed.handle(.start) == .showPrimer)
        _ = resumed.handle(.maybeLater)
        try await db.saveOnboarding(resumed)
        #expect(try await db.onboardingMachine().step == .complete)
    }
}
