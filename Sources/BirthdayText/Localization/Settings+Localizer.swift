import BirthdayCore

extension Settings {
    /// The localizer for these settings: ``language``, else `systemLocale`
    /// (``Language/fromEnvironment(_:)``), else English.
    public func localizer(systemLocale: String?) -> Localizer {
        Localizer(setting: language, systemLocale: systemLocale)
    }
}
