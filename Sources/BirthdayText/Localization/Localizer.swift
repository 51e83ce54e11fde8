import BirthdayCore
import Foundation
import Synchronization

/// Writes messages in one language, chosen explicitly (never the process
/// default): the texts come from the String Catalog (``StringCatalog``),
/// plural forms and ordinals from ICU's CLDR rules (``PluralRules``), the
/// names of weekdays and months from Foundation's ICU date formatter with the
/// same locale.
///
/// ## Choosing the language
/// ``init(setting:systemLocale:catalog:)``: the `language` setting when it
/// names one, else the environment's locale (``Language/fromEnvironment(_:)``:
/// `LC_ALL`, `LC_MESSAGES`, `LANG`). Either is matched to a catalog language
/// (``Language/match(_:available:)``); `C`, `POSIX` and a language the
/// catalog does not have give English. Dates use the whole locale when it is
/// the same language (`pt-PT`, `de-AT`).
///
/// ## Rules for texts
/// - A translation that is missing, or whose placeholders do not fit the
///   message's ``Message/Key/signature`` (an argument the message does not
///   have, or text where a number goes), is not used: the English text is.
/// - Plural forms: a whole text varies on its first number; a `%#@name@`
///   substitution on its own argument. A category the translation lacks
///   falls back to `other`.
/// - An empty name is the language's "someone", capitalized when nothing
///   but punctuation comes before it.
/// - Numbers are written in ASCII digits without grouping (`1990`, `36`),
///   which every catalog language reads. Ordinals are the catalog's
///   ``Message/Key/ordinal`` forms chosen by ICU's ordinal rules ("1st",
///   "22nd", "10.", "1er", "10.º"), the same as ICU's number formatter writes.
///
/// ## Memory
/// `birthdays run` plans reminders as it starts, and its resident memory is
/// budgeted (README, Performance). So nothing is loaded until a text is
/// asked for: the texts are string literals in the binary; ICU's plural rules
/// are opened only for a text whose forms differ (about 0.8 MB of ICU data
/// the first time); a `Locale` and ICU's date formatter (1–4 MB) only for
/// ``shortDate(_:)``, which the daemon calls only to write a digest.
public struct Localizer: Sendable {
    /// The catalog language: `en`, `de`, `zh-Hans`.
    public let language: String
    /// The locale for dates: the user's (`de-AT`) when it is the same language, else ``language``.
    public let localeIdentifier: String
    public let catalog: StringCatalog
    /// The templates made so far, each parsed (and its plural rules made) once
    /// per localizer: an export asks for the same few for every event.
    /// `nil` in the copy a template keeps, so that no template holds its cache.
    private let templates: TemplateCache?

    /// ``localeIdentifier`` as a `Locale` (made on each call: only the CLI formats dates).
    public var locale: Locale { Locale(identifier: localeIdentifier) }

    /// English, the catalog's source language.
    public static let english = Localizer(language: "en")

    /// A localizer for `language` exactly (a catalog language), formatting with `localeIdentifier` (default: the language).
    public init(language: String, localeIdentifier: String? = nil, catalog: StringCatalog = .embedded) {
        self.language = catalog.languages.contains(language) ? language : catalog.sourceLanguage
        self.localeIdentifier = localeIdentifier ?? self.language
        self.catalog = catalog
        self.templates = TemplateCache()
    }

    /// `localizer` without a template cache.
    private init(uncached localizer: Localizer) {
        language = localizer.language
        localeIdentifier = localizer.localeIdentifier
        catalog = localizer.catalog
        templates = nil
    }

    /// The language of the `language` setting (a tag, `nil` for "system"),
    /// else of the environment's locale (a tag from ``Language/fromEnvironment(_:)``).
    public init(setting: String?, systemLocale: String?, catalog: StringCatalog = .embedded) {
        let preferred = setting ?? systemLocale
        guard let preferred, let language = Language.match(preferred, available: catalog.languages) else {
            self.init(language: catalog.sourceLanguage, catalog: catalog)
            return
        }
        let sameLanguage = preferred.split(separator: "-").first?.lowercased() == language.split(separator: "-").first?.lowercased()
        self.init(language: language, localeIdentifier: sameLanguage ? preferred : language, catalog: catalog)
    }

    /// The message in this language.
    public func callAsFunction(_ message: Message) -> String {
        template(message.key).render(message.arguments)
    }

    /// The message without arguments.
    public func callAsFunction(_ key: Message.Key) -> String {
        template(key).render([])
    }

    /// The text of `key`, ready to be filled many times (the feed uses one per
    /// kind of text for thousands of events).
    public func template(_ key: Message.Key) -> MessageTemplate {
        guard let templates else { return makeTemplate(key) }
        if let made = templates.made.withLock({ $0[key] }) { return made }
        let made = makeTemplate(key)
        templates.made.withLock { $0[key] = made }
        return made
    }

    private func makeTemplate(_ key: Message.Key) -> MessageTemplate {
        let kept = Localizer(uncached: self)
        for candidate in [language, catalog.sourceLanguage] {
            if let entry = catalog.entry(key.rawValue, language: candidate),
                let template = MessageTemplate(entry, key: key, language: candidate, localizer: kept)
            {
                return template
            }
        }
        return MessageTemplate(literal: key.rawValue)
    }

    // MARK: Formatting in the same locale

    /// An ordinal: "10th", "10.", "10e", "10.º", "第10" (``Message/Key/ordinal``).
    public func ordinal(_ n: Int) -> String {
        template(.ordinal).render([.number(n)])
    }

    /// The weekday, day and month of `date` with the language's pattern
    /// (``Message/Key/datePattern``, ICU pattern letters) and ICU's names:
    /// "Sat 21 Nov", "Sa., 21. Nov.", "11月21日(土)".
    public func shortDate(_ date: LocalDate) -> String {
        shortDates()(date)
    }

    /// ``shortDate(_:)`` for many dates, with one ICU formatter (making one
    /// costs far more than formatting a date with it).
    public func shortDates() -> (LocalDate) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = self(.datePattern)
        return { date in formatter.string(from: Date(timeIntervalSince1970: (Double(date.dayNumber) + 0.5) * 86_400)) }
    }

    /// The name of `date`'s month as it stands alone in the language
    /// (ICU's `LLLL`): "December", "Dezember", "grudzień", "12月".
    public func monthName(_ date: LocalDate) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "LLLL"
        return formatter.string(from: Date(timeIntervalSince1970: (Double(date.dayNumber) + 0.5) * 86_400))
    }
}

/// One message's text in one language, parsed: its format strings, their
/// plural forms, and the rules that choose among them.
public struct MessageTemplate: Sendable {
    private enum Forms: Sendable {
        case single(FormatString)
        /// Whole-text plural forms, chosen by the first number argument.
        case plural([PluralCategory: FormatString], PluralRules)
        /// `%#@name@` substitutions: the base text, and per substitution its argument (0-based) and forms.
        case substituted(base: String, [(name: String, argument: Int, forms: [PluralCategory: String])], PluralRules)
    }

    /// Whether a plural's forms differ at all: when they do not ("%lld.",
    /// "%lld jaar" for one and other), there is nothing to choose and ICU is not asked.
    private static func differ(_ forms: [PluralCategory: String]) -> Bool {
        Set(forms.values).count > 1
    }

    private let forms: Forms
    private let localizer: Localizer?

    /// A text that is shown as it is (a key missing from the catalog).
    init(literal: String) {
        forms = .single(FormatString(literal: literal))
        localizer = nil
    }

    /// `nil` when the entry is unusable: no text, or a form whose placeholders do not fit the key's signature.
    init?(_ entry: CatalogEntry, key: Message.Key, language: String, localizer: Localizer) {
        let allowed = key.allowedPlaceholders
        for form in entry.allForms {
            guard let parsed = FormatString(form), parsed.placeholders.isSubset(of: allowed) else { return nil }
        }
        self.localizer = localizer
        if !entry.substitutions.isEmpty {
            guard let base = entry.value, entry.plural.isEmpty, entry.substitutions.allSatisfy({ $0.plural[.other] != nil }) else { return nil }
            let substitutions = entry.substitutions.map { substitution in
                (substitution.name, substitution.argument - 1, substitution.plural.mapValues { substitution.expanded($0) })
            }
            if substitutions.contains(where: { Self.differ($0.2) }) {
                forms = .substituted(base: base, substitutions, PluralRules(language: language, kind: key.pluralKind))
            } else {
                // Nothing to choose: every substitution reads the same for every number.
                var text = base
                for substitution in substitutions {
                    text = FormatString.replace(substitution: substitution.0, in: text, with: substitution.2[.other] ?? "")
                }
                guard let parsed = FormatString(text) else { return nil }
                forms = .single(parsed)
            }
        } else if !entry.plural.isEmpty {
            guard let other = entry.plural[.other], let otherFormat = FormatString(other) else { return nil }
            forms =
                Self.differ(entry.plural)
                ? .plural(entry.plural.compactMapValues { FormatString($0) }, PluralRules(language: language, kind: key.pluralKind))
                : .single(otherFormat)
        } else if let value = entry.value, let parsed = FormatString(value) {
            forms = .single(parsed)
        } else {
            return nil
        }
    }

    /// The text with `arguments` in place (as many as the key's signature has).
    public func render(_ arguments: [MessageArgument]) -> String {
        switch forms {
        case .single(let format):
            return fill(format, arguments)
        case .plural(let byCategory, let rules):
            let count = arguments.lazy.compactMap { if case .number(let n) = $0 { n } else { nil } }.first ?? 0
            guard let format = byCategory[rules.category(of: count)] ?? byCategory[.other] else { return "" }
            return fill(format, arguments)
        case .substituted(let base, let substitutions, let rules):
            var text = base
            for substitution in substitutions {
                var count = 0
                if arguments.indices.contains(substitution.argument), case .number(let n) = arguments[substitution.argument] { count = n }
                let piece = substitution.forms[rules.category(of: count)] ?? substitution.forms[.other] ?? ""
                text = FormatString.replace(substitution: substitution.name, in: text, with: piece)
            }
            return FormatString(text).map { fill($0, arguments) } ?? ""
        }
    }

    private func fill(_ format: FormatString, _ arguments: [MessageArgument]) -> String {
        var out = ""
        for piece in format.pieces {
            switch piece {
            case .text(let text):
                out += text
            case .argument(let placeholder):
                guard arguments.indices.contains(placeholder.position - 1) else { continue }
                switch arguments[placeholder.position - 1] {
                case .text(let text):
                    out += text
                case .name(let name):
                    let trimmed = name.trimmingWhitespace()
                    guard trimmed.isEmpty, let localizer else {
                        out += trimmed
                        continue
                    }
                    let someone = localizer(.someone)
                    // Sentence start: nothing but spaces and punctuation (¡, «, ") before it.
                    let startsSentence = !out.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }
                    out += startsSentence ? someone.prefix(1).uppercased() + someone.dropFirst() : someone
                case .number(let n):
                    out += String(n)
                case .ordinal(let n):
                    out += localizer?.ordinal(n) ?? String(n)
                }
            }
        }
        return out
    }
}

/// A localizer's templates by key (see ``Localizer/template(_:)``).
private final class TemplateCache: Sendable {
    let made = Mutex<[Message.Key: MessageTemplate]>([:])
}
