import BirthdayCore
import Foundation

/// The texts of every language, from `Localizable.xcstrings` (Apple's String
/// Catalog format, the only place texts live), compiled into the binary.
///
/// Foundation on Linux neither compiles a String Catalog nor evaluates plural
/// rules for an app's strings (`.stringsdict` lookups crash), and a resource
/// bundle is not found once the binary is installed elsewhere. So the
/// `EmbedStringCatalog` build plugin turns the catalog into Swift
/// (`catalog-compiler`): one lookup function per language, whose texts are
/// string literals in the binary. Nothing is decoded or allocated until a text
/// is asked for, and only that text.
public struct StringCatalog: Sendable {
    /// The catalog's source language (English), the fallback for everything.
    public let sourceLanguage: String
    /// Every language with translations, the source language first.
    public let languages: [String]
    /// Every key, sorted.
    public let keys: [String]
    private let lookup: @Sendable (_ language: String, _ key: String) -> CatalogEntry?

    public init(
        sourceLanguage: String,
        languages: [String],
        keys: [String],
        lookup: @escaping @Sendable (_ language: String, _ key: String) -> CatalogEntry?
    ) {
        self.sourceLanguage = sourceLanguage
        self.languages = languages
        self.keys = keys
        self.lookup = lookup
    }

    /// The entry for `key` in `language`, if the catalog has one.
    public func entry(_ key: String, language: String) -> CatalogEntry? {
        lookup(language, key)
    }
}

/// One key in one language, as a String Catalog holds it: a format string
/// (`%1$@ turns %2$lld`), or whole-string plural variations chosen by the
/// first number argument, and `%#@name@` substitutions with plural
/// variations of their own (Xcode's form for a count among other arguments).
public struct CatalogEntry: Sendable, Hashable {
    /// A plural-varied piece: `%#@age@` in the value is replaced by the form
    /// for argument `argument`, in which `%arg` stands for that argument.
    public struct Substitution: Sendable, Hashable {
        public var name: String
        /// 1-based.
        public var argument: Int
        /// The argument's printf conversion without `%`: `lld`, `@`.
        public var formatSpecifier: String
        public var plural: [PluralCategory: String]

        public init(name: String, argument: Int, formatSpecifier: String, plural: [PluralCategory: String]) {
            self.name = name
            self.argument = argument
            self.formatSpecifier = formatSpecifier
            self.plural = plural
        }
    }

    /// The format string, when the text does not vary as a whole.
    public var value: String?
    /// Whole-string plural variations; empty when there are none.
    public var plural: [PluralCategory: String]
    public var substitutions: [Substitution]

    public init(value: String? = nil, plural: [PluralCategory: String] = [:], substitutions: [Substitution] = []) {
        self.value = value
        self.plural = plural
        self.substitutions = substitutions
    }

    /// Whether choosing a form needs the language's plural rules.
    var needsPluralRules: Bool { !plural.isEmpty || !substitutions.isEmpty }

    /// Every format string a number could select, with substitutions
    /// expanded: what a translation may say, for checking its placeholders.
    public var allForms: [String] {
        let bases = plural.isEmpty ? [value ?? ""] : plural.keys.sorted().compactMap { plural[$0] }
        var forms = bases
        for substitution in substitutions {
            let pieces = substitution.plural.keys.sorted().compactMap { substitution.plural[$0] }.map { substitution.expanded($0) }
            forms = forms.flatMap { form in pieces.map { FormatString.replace(substitution: substitution.name, in: form, with: $0) } }
        }
        return forms
    }
}

extension CatalogEntry.Substitution {
    /// The piece with `%arg` written as the argument's own placeholder (`%2$lld`).
    func expanded(_ piece: String) -> String {
        piece.replacingOccurrences(of: "%arg", with: "%\(argument)$\(formatSpecifier)")
    }
}
