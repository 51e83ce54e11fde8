import Foundation

/// Which labelled dates (``LabelledDate``) get reminders, feed events and
/// `upcoming` entries: the `labelled-dates` setting (``on``, default on) and
/// the user's choices per label (`birthdays exclude --label TEXT`,
/// `birthdays include --label TEXT`), which outlast every import and sync.
///
/// ## Precedence
/// A person left out (``Exclusion``, a group's or a source's rule:
/// ``RulePrecedence``) has none of their dates counted, labelled ones
/// included. For everyone else, a label's own choice wins over the setting:
/// `exclude --label "Started work"` leaves those dates out even with
/// `labelled-dates on`, and `include --label "Name day"` keeps them even with
/// `labelled-dates off`. Labels compare as ``LabelledDate/key(_:)`` does
/// (without case, runs of spaces as one).
public struct LabelRules: Hashable, Sendable {
    /// The `labelled-dates` setting.
    public var on = true
    /// The choice per label key: `true` included, `false` excluded.
    public private(set) var choices: [String: Bool] = [:]

    public init(on: Bool = true, choices: [String: Bool] = [:]) {
        self.on = on
        self.choices = choices
    }

    /// Whether dates under the label `key` count.
    public func counts(_ key: String) -> Bool {
        choices[key] ?? on
    }

    /// Whether `labelled` counts: a name day by the one key its choice is kept
    /// under (``LabelRules/nameDayKey``), whichever language wrote its label
    /// (reminders follow the environment's language, the feed the setting's).
    public func counts(_ labelled: LabelledDate) -> Bool {
        counts(labelled.nameDayList == nil ? labelled.key : Self.nameDayKey)
    }

    /// The name-day label (the catalog's `nameday.label`) in every language
    /// of ``Language/available``, in that order, English first: a label is
    /// data here (the key a choice is kept under), so the rule needs no
    /// catalog; a test in BirthdayText keeps them equal to the catalog's.
    public static let nameDayLabels = [
        "Name day", "Namenstag", "Onomástica", "Fête", "Onomastico", "名前の日", "Naamdag", "Imieniny", "Dia do nome", "命名日",
    ]

    /// The name-day label in `language` (a tag: the `language` setting),
    /// English when it is `nil` or not one of ``Language/available``.
    public static func nameDayLabel(language: String?) -> String {
        guard let language, let matched = Language.match(language, available: Language.available),
            let index = Language.available.firstIndex(of: matched)
        else { return nameDayLabels[0] }
        return nameDayLabels[index]
    }

    /// The key a choice about name days is kept under: the English label's.
    public static let nameDayKey = LabelledDate.key(nameDayLabels[0])

    /// The keys of the name-day label in every language of the catalog.
    static let nameDayKeys: Set<String> = Set(nameDayLabels.map(LabelledDate.key))

    /// Records the user's choice for `label`: `true` includes it, `false`
    /// excludes it, `nil` forgets the choice (the setting decides again).
    /// The name-day label in any language is one choice (``nameDayKey``).
    public mutating func choose(_ label: String, included: Bool?) {
        var key = LabelledDate.key(label)
        guard !key.isEmpty else { return }
        if Self.nameDayKeys.contains(key) { key = Self.nameDayKey }
        choices[key] = included
    }

    /// The name the choices are stored under in the `setting` table (no dot:
    /// a change moves the data revision, as every choice about events does).
    public static let storedKey = "label-rules"

    /// The stored text: one line per label, `+` (included) or `-` (excluded)
    /// and the label's key, sorted.
    public var storedValue: String {
        choices.keys.sorted().map { (choices[$0] == true ? "+" : "-") + $0 }.joined(separator: "\n")
    }

    /// Reads ``storedValue``; lines it cannot read are skipped.
    public init(on: Bool, stored: String) {
        self.on = on
        for line in stored.split(separator: "\n") {
            guard let sign = line.first, sign == "+" || sign == "-" else { continue }
            let key = LabelledDate.key(String(line.dropFirst()))
            if !key.isEmpty { choices[key] = sign == "+" }
        }
    }
}
