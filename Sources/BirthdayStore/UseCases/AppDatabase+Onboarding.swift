import BirthdayCore
import GRDB

extension AppDatabase {
    /// The saved onboarding progress and the notification permission, as a
    /// machine ready to resume.
    package func onboardingMachine() async throws(StoreError) -> OnboardingMachine {
        try await read { db in
            let step = try SettingRecord.value(.onboardingStep, db).flatMap(OnboardingMachine.Step.init(rawValue:)) ?? .welcome
            return OnboardingMachine(step: step, status: try SettingRecord.authorizationStatus(db))
        }
    }

    /// Saves the machine's step and permission, in one transaction.
    package func saveOnboarding(_ machine: OnboardingMachine) async throws(StoreError) {
        try await write { db in
            try SettingRecord.set(machine.step.rawValue, for: .onboardingStep, db)
            try SettingRecord.set(machine.status.rawValue, for: .authorization, db)
        }
    }
}
