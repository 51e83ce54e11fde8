extension SettingKey {
    /// The key named `text` as typed on the command line.
    ///
    /// - Parameter value: the value the user gave with it, for the error message.
    /// - Throws: ``SettingsError`` naming the nearest keys when `text` is not one.
    public init(parsing text: String, value: String = "") throws(SettingsError) {
        guard let key = SettingKey(rawValue: text.trimmingWhitespace().lowercased()) else { throw SettingsError(key: text, value: value) }
        self = key
    }

    /// Up to three settings `typed` may have meant, nearest first: those
    /// within two typing mistakes (three for a name of eight letters or
    /// more), and those with a word that starts with it (`zone` is
    /// `time-zone`, `delivery` is `delivery-time`). Never the alias
    /// ``dayBefore``, which `settings show` does not list either.
    public static func suggestions(for typed: String) -> [SettingKey] {
        let word = typed.trimmingWhitespace().lowercased()
        guard !word.isEmpty else { return [] }
        let letters = Array(word)
        let allowed = letters.count >= 8 ? 3 : 2
        var found: [(distance: Int, key: SettingKey)] = []
        for key in shown {
            let distance = PersonLookup.editDistance(letters, Array(key.rawValue), limit: allowed)
            let words = key.rawValue.split(separator: "-")
            if distance <= allowed {
                found.append((distance, key))
            } else if letters.count >= 3, word != key.rawValue, words.contains(where: { $0.hasPrefix(word) }) || key.rawValue.hasPrefix(word) {
                found.append((allowed + 1, key))
            }
        }
        // Stable: keys at the same distance keep the order settings show lists them in.
        return found.enumerated().sorted { ($0.element.distance, $0.offset) < ($1.element.distance, $1.offset) }.prefix(3).map(\.element.key)
    }
}
