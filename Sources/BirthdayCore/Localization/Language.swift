import Foundation

/// Which language to write in: the `language` setting, else the POSIX locale
/// of the environment, matched against the catalog's languages.
///
/// Foundation on Linux does not help here: `Locale.current` is `en_001`
/// whatever the environment says, and `Bundle.preferredLocalizations` returns
/// the first localization whatever is preferred. So the variables are read
/// and matched here.
public enum Language {
    /// The languages of the String Catalog, English first and the others
    /// sorted: what the `language` setting accepts. BirthdayText's
    /// `StringCatalog.embedded.languages` are these (a test keeps them so);
    /// they are listed here so that the settings' rules need no catalog.
    public static let available = ["en", "de", "es", "fr", "it", "ja", "nl", "pl", "pt", "zh-Hans"]

    /// The locale for messages from the environment, as a BCP 47 tag: the
    /// first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty
    /// (`de_DE.UTF-8` → `de-DE`). `nil` for `C`, `POSIX`, `C.UTF-8`, an
    /// unreadable value, or none set: untranslated, which is English.
    public static func fromEnvironment(_ environment: [String: String]) -> String? {
        guard let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return nil
        }
        return tag(fromPOSIX: value)
    }

    /// A POSIX locale name or a BCP 47 tag as a BCP 47 tag: `de_DE.UTF-8` →
    /// `de-DE`, `zh_CN.GB18030` → `zh-CN`, `sr_RS@latin` → `sr-Latn-RS`,
    /// `pt-BR` and `zh-Hans` as they are. `nil` for `C`, `POSIX` (with or
    /// without a codeset) and anything that is not a language.
    public static func tag(fromPOSIX value: String) -> String? {
        var text = Substring(value.trimmingWhitespace())
        var modifier: Substring?
        if let at = text.firstIndex(of: "@") {
            modifier = text[text.index(after: at)...]
            text = text[..<at]
        }
        if let dot = text.firstIndex(of: ".") { text = text[..<dot] }
        let parts = text.split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard let first = parts.first else { return nil }
        let language = first.lowercased()
        guard language != "c", language != "posix", (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return nil
        }
        var tag = [language]
        // glibc's script modifiers; others (@euro, @valencia) do not change the language.
        switch modifier?.lowercased() {
        case "latin": tag.append("Latn")
        case "cyrillic": tag.append("Cyrl")
        case "devanagari": tag.append("Deva")
        default: break
        }
        for part in parts.dropFirst() {
            guard (2...8).contains(part.count), part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
            tag.append(part.count == 4 ? part.prefix(1).uppercased() + part.dropFirst().lowercased() : part.uppercased())
        }
        return tag.joined(separator: "-")
    }

    /// The catalog language for `preferred` (a BCP 47 tag), or `nil` when the
    /// catalog has none: the same tag, else the same language in the same
    /// script. `de-AT` → `de`, `pt-PT` → `pt`, `zh-CN` and `zh-SG` → `zh-Hans`,
    /// but `zh-TW` (traditional script) → `nil`.
    public static func match(_ preferred: String, available: [String]) -> String? {
        if let exact = available.first(where: { $0.caseInsensitiveCompare(preferred) == .orderedSame }) { return exact }
        let wanted = subtags(preferred)
        let candidates = available.filter { subtags($0).language == wanted.language }
        guard !candidates.isEmpty else { return nil }
        // Without scripts on either side there is nothing to tell apart (de-AT → de).
        if wanted.script == nil, let plain = candidates.first(where: { subtags($0).script == nil }) { return plain }
        // Otherwise compare scripts, the likely one when the tag has none (ICU's likely subtags: zh-CN → Hans, zh-TW → Hant).
        let script = wanted.script ?? likelyScript(preferred)
        return candidates.first { (subtags($0).script ?? likelyScript($0)) == script }
    }

    /// Language and script subtags of a BCP 47 tag (`zh-Hans-CN` → `zh`, `Hans`).
    private static func subtags(_ tag: String) -> (language: String, script: String?) {
        let parts = tag.split(separator: "-")
        let script = parts.dropFirst().first { $0.count == 4 && $0.allSatisfy(\.isLetter) }
        return (parts.first.map { $0.lowercased() } ?? "", script.map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() })
    }

    private static func likelyScript(_ tag: String) -> String? {
        Locale.Language(identifier: tag).maximalIdentifier.split(separator: "-").dropFirst().first.map(String.init)
    }
}
