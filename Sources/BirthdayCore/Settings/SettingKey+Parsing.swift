extension SettingKey {
    /// The key named `text` as typed on the command line.
    ///
    /// - Parameter value: the value the user gave with it, for the error message.
    /// - Throws: ``SettingsError`` naming the known keys when `text` is not one.
    public init(parsing text: String, value: String = "") throws(SettingsError) {
        guard let key = SettingKey(rawValue: text.trimmingWhitespace().lowercased()) else { throw SettingsError(key: text, value: value) }
        self = key
    }
}
