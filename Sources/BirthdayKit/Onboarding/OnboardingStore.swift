extension AppDatabase {
    /// The saved onboarding progress and the notification authorization
    /// status, as a machine ready to resume.
    public func onboardingMachine() throws(StoreError) -> OnboardingMachine {
        try read { db in
            let step = try AppDatabase.internalValue(AppDatabase.onboardingStepKey, db: db).flatMap(OnboardingMachine.Step.init(rawValue:)) ?? .welcome
            return OnboardingMachine(step: step, status: try AppDatabase.authorizationStatus(db))
        }
    }

    /// Saves the machine's step and status, in one transaction.
    public func saveOnboarding(_ machine: OnboardingMachine) throws(StoreError) {
        try write { db in
            try AppDatabase.setInternalValue(machine.step.rawValue, for: AppDatabase.onboardingStepKey, db: db)
            try AppDatabase.setAuthorizationStatus(machine.status, db: db)
        }
    }
}
