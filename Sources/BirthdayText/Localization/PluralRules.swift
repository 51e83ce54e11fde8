import BirthdayCore
import CICUPlural
import Foundation

/// A CLDR plural category, as String Catalogs name their plural variations.
public enum PluralCategory: String, Sendable, Hashable, CaseIterable, Comparable {
    case zero, one, two, few, many, other

    /// CLDR's order: zero, one, two, few, many, other.
    private var rank: Int {
        switch self {
        case .zero: 0
        case .one: 1
        case .two: 2
        case .few: 3
        case .many: 4
        case .other: 5
        }
    }

    public static func < (a: PluralCategory, b: PluralCategory) -> Bool { a.rank < b.rank }
}

/// A language's plural rules from ICU (CLDR): which form of a word a number
/// takes. Polish says "1 rok", "2 lata", "5 lat", "22 lata"; English "1 year",
/// "2 years"; Japanese has one form.
///
/// The rules come from the ICU that Foundation ships, through its C API
/// (`uplrules_select`), opened once per instance and closed when it goes.
/// ICU reads a rule set without changing it, so one instance may be used from
/// any thread. A language ICU does not know gets the root rules (`other` for
/// every number).
public final class PluralRules: @unchecked Sendable {
    /// Cardinal rules ("5 days") or ordinal rules ("5th day").
    public enum Kind: Sendable {
        case cardinal
        case ordinal
    }

    public let language: String
    public let kind: Kind
    private let rules: OpaquePointer?

    /// Opens the rules of `language` (a BCP 47 tag such as `pl`, `pt-BR` or `zh-Hans`).
    public init(language: String, kind: Kind = .cardinal) {
        self.language = language
        self.kind = kind
        var status: UErrorCode = 0
        let opened = swift_uplrules_openForType(
            language.replacingOccurrences(of: "-", with: "_"),
            kind == .cardinal ? UPLURAL_TYPE_CARDINAL : UPLURAL_TYPE_ORDINAL,
            &status
        )
        rules = status > 0 ? nil : opened
    }

    deinit {
        if let rules { swift_uplrules_close(rules) }
    }

    /// The category of the whole number `n`; `other` when ICU gives none.
    public func category(of n: Int) -> PluralCategory {
        guard let rules else { return .other }
        var status: UErrorCode = 0
        var buffer = [UChar](repeating: 0, count: 8)
        let length = swift_uplrules_select(rules, Double(n), &buffer, Int32(buffer.count), &status)
        guard status <= 0, length > 0, length <= buffer.count else { return .other }
        return PluralCategory(rawValue: String(decoding: buffer[0..<Int(length)], as: UTF16.self)) ?? .other
    }

    /// The categories the language uses for whole numbers, found by sampling
    /// 0…200 and powers of ten up to two million (ICU's keyword list includes
    /// categories that only fractions reach, which a count never does).
    public var categoriesOfWholeNumbers: Set<PluralCategory> {
        Set((Array(0...200) + [1_000, 10_000, 100_000, 1_000_000, 2_000_000]).map(category(of:)))
    }
}
