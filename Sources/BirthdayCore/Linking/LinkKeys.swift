import Foundation

/// A name as ``PersonLinker`` compares it: folded words, the whole ones and
/// the initials apart, in no order.
///
/// Folding ignores case, accents and width (as ``PersonLookup/fold(_:)``
/// does), and writes the letters that have no accent to drop the way people
/// type them without one ("Søren" is "soren", "Ægir" "aegir", "Łukasz"
/// "lukasz", "Þórsson" "thorsson"). Words are split at spaces, commas,
/// hyphens, dots and every other mark; an apostrophe joins ("O'Brien" is
/// "obrien"). A word of one cased letter ("M." in "Ada M. Lovelace") is an
/// initial; a single letter of a script without case ("李") is a whole word.
public struct LinkName: Hashable, Sendable {
    /// The whole words, sorted, each once.
    public let words: [String]
    /// The initials, sorted, each once.
    public let initials: [Character]

    public init(_ text: String) {
        // Names have a few words: arrays, not sets (hashing cost more than the search).
        var words: [String] = []
        var initials: [Character] = []
        func add(_ word: String) {
            if word.utf8.count <= 4, word.count == 1, let letter = word.first, letter.isCased {
                if !initials.contains(letter) { initials.append(letter) }
            } else if !words.contains(word) {
                words.append(word)
            }
        }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // Plain ASCII, byte by byte: letters and digits make words (lower-cased), an apostrophe joins, the rest splits.
            var word: [UInt8] = []
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte | 0x20)
                case UInt8(ascii: "'"), UInt8(ascii: "`"): continue
                default:
                    if !word.isEmpty { add(String(decoding: word, as: UTF8.self)) }
                    word.removeAll(keepingCapacity: true)
                }
            }
            if !word.isEmpty { add(String(decoding: word, as: UTF8.self)) }
        } else {
            var word = ""
            for character in LinkName.fold(text) {
                if character.isLetter || character.isNumber {
                    word.append(character)
                } else if !LinkName.apostrophes.contains(character) {
                    if !word.isEmpty { add(word) }
                    word = ""
                }
            }
            if !word.isEmpty { add(word) }
        }
        self.words = words.sorted()
        self.initials = initials.sorted()
    }

    init(words: [String], initials: [Character]) {
        self.words = words
        self.initials = initials
    }

    /// The name with `word` replaced by the words of `nickname` ("Robert
    /// Smith" called "Bob": "Bob Smith").
    func replacing(_ word: String, with nickname: LinkName) -> LinkName {
        LinkName(words: Array(Set(words.filter { $0 != word } + nickname.words)).sorted(), initials: initials)
    }

    /// Whether there is nothing to compare.
    public var isEmpty: Bool { words.isEmpty && initials.isEmpty }

    /// How two names agree, or `nil` when they do not.
    ///
    /// They agree when they share a whole word and every other whole word of
    /// one is an initial of the other ("Ada M. Lovelace" and "Ada Mary
    /// Lovelace"); an initial on one side only is a middle initial one card
    /// leaves out ("Ada M. Lovelace" and "Ada Lovelace"), but two different
    /// initials ("Ada M. Lovelace", "Ada K. Lovelace") disagree. A whole word
    /// on one side only ("Ada Byron Lovelace", "Ada Lovelace") disagrees: it
    /// may be another person of the family.
    public func agreement(with other: LinkName) -> NameAgreement? {
        if words == other.words && initials == other.initials { return words.isEmpty ? nil : .same(shared: words.count) }
        let shared = words.filter { other.words.contains($0) }.count
        guard shared > 0 else { return nil }
        var mine = initials
        var theirs = other.initials
        // A whole word on one side only must be an initial on the other.
        for word in words where !other.words.contains(word) {
            guard let first = word.first, let at = theirs.firstIndex(of: first) else { return nil }
            theirs.remove(at: at)
        }
        for word in other.words where !words.contains(word) {
            guard let first = word.first, let at = mine.firstIndex(of: first) else { return nil }
            mine.remove(at: at)
        }
        // The initials left: those of one side must all be on the other (a middle initial left out).
        let fewer = mine.count <= theirs.count ? mine : theirs
        let more = mine.count <= theirs.count ? theirs : mine
        guard fewer.allSatisfy(more.contains) else { return nil }
        return .similar(shared: shared)
    }

    /// `text` folded as names are compared (see the type's summary).
    static func fold(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        guard folded.unicodeScalars.contains(where: { unaccented[$0] != nil }) else { return folded }
        var written = ""
        for scalar in folded.unicodeScalars {
            if let plain = unaccented[scalar] { written += plain } else { written.unicodeScalars.append(scalar) }
        }
        return written
    }

    /// Lower-case letters that folding keeps (they have no accent to drop), as people write them without.
    private static let unaccented: [Unicode.Scalar: String] = [
        "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ħ": "h", "ŧ": "t",
    ]

    private static let apostrophes: Set<Character> = ["'", "\u{2019}", "\u{02BC}", "`"]
}

/// How two names agree (``LinkName/agreement(with:)``).
public enum NameAgreement: Hashable, Sendable {
    /// The same words and initials.
    case same(shared: Int)
    /// The same up to a middle initial, an initial for a word, or a nickname.
    case similar(shared: Int)

    /// How many whole words both names have.
    public var shared: Int {
        switch self {
        case .same(let shared), .similar(let shared): shared
        }
    }

    public var isSame: Bool {
        if case .same = self { true } else { false }
    }
}

/// How two birthdays agree.
public enum DateAgreement: Int, Hashable, Sendable, Comparable {
    /// The same day of the same year.
    case same
    /// The same day, a year on one side only (or on neither).
    case sameDay
    /// One card has no birthday.
    case oneUndated
    /// Neither card has one.
    case bothUndated
    /// Another day, or another year on both sides: not the same person, or one card is wrong.
    case conflict

    public init(_ a: EventDate?, _ b: EventDate?) {
        switch (a, b) {
        case (nil, nil): self = .bothUndated
        case (nil, _), (_, nil): self = .oneUndated
        case (let a?, let b?):
            if a.month != b.month || a.day != b.day {
                self = .conflict
            } else if let x = a.year, let y = b.year {
                self = x == y ? .same : .conflict
            } else {
                self = .sameDay
            }
        }
    }

    /// The stronger agreement first.
    public static func < (lhs: DateAgreement, rhs: DateAgreement) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The forms e-mail addresses and phone numbers are compared in.
public enum LinkKeys {
    /// An e-mail address as compared: without a `mailto:`, trimmed, lower-cased;
    /// `nil` when it is no address (no `@` with text on both sides).
    public static func email(_ raw: String) -> String? {
        // Most addresses are stored as they are compared: no copy then.
        if let at = raw.utf8.firstIndex(of: UInt8(ascii: "@")), at > raw.utf8.startIndex, raw.utf8.index(after: at) < raw.utf8.endIndex,
            raw.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }),
            !raw.hasPrefix("mailto:")
        {
            return raw
        }
        var lowered = raw.trimmingWhitespace().lowercased()
        if lowered.hasPrefix("mailto:") { lowered = String(lowered.dropFirst(7)) }
        guard let at = lowered.firstIndex(of: "@"), at > lowered.startIndex, lowered.index(after: at) < lowered.endIndex else { return nil }
        return lowered
    }

    /// A phone number as compared (``PhoneKey``), or `nil` when it has fewer
    /// than seven digits (an extension or a short code is no evidence).
    public static func phone(_ raw: String) -> PhoneKey? {
        var bytes = Substring(raw.trimmingWhitespace()).utf8[...]
        if bytes.count >= 4, String(decoding: bytes.prefix(4), as: UTF8.self).lowercased() == "tel:" { bytes = bytes.dropFirst(4) }
        var digits: [UInt8] = []
        var international = false
        var started = false
        for byte in bytes {
            if byte == UInt8(ascii: ";") { break }  // tel: parameters (ext=, phone-context=)
            if byte == UInt8(ascii: "+") && !started { international = true }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { continue }
            started = true
            digits.append(byte)
        }
        // 00 is the international prefix of most countries.
        if !international && digits.count > 9 && digits[0] == UInt8(ascii: "0") && digits[1] == UInt8(ascii: "0") {
            digits.removeFirst(2)
            international = true
        }
        guard digits.count >= 7 else { return nil }
        return PhoneKey(digits: String(decoding: digits, as: UTF8.self), international: international)
    }
}

extension LinkKeys {
    /// The ``PhoneKey/tail`` of the number `raw` as one value (its digits,
    /// and how many: `0123 4567` is not `123 4567`), without making the key:
    /// numbers whose tails differ are never the same. `nil` when
    /// ``phone(_:)`` is.
    public static func phoneTail(_ raw: String) -> UInt64? {
        var digits = 0
        var tail: UInt64 = 0
        var international = false
        var started = false
        var firstTwo = 0
        // Spaces and a `tel:` need no skipping: they are no digits, and come before the first.
        for byte in raw.utf8 {
            if byte == UInt8(ascii: ";") { break }
            if byte == UInt8(ascii: "+") && !started { international = true }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { continue }
            started = true
            if digits < 2 { firstTwo = firstTwo * 10 + Int(byte - UInt8(ascii: "0")) }
            digits += 1
            tail = (tail * 10 + UInt64(byte - UInt8(ascii: "0"))) % 100_000_000
        }
        // 00 is the international prefix of most countries (as ``phone(_:)`` drops it).
        if !international && digits > 9 && firstTwo == 0 { digits -= 2 }
        guard digits >= 7 else { return nil }
        return UInt64(min(digits, 8)) << 32 | tail
    }
}

/// A phone number's digits, and whether it was written with its country code
/// (`+44 20 7946 0958`, `tel:+44-20-7946-0958` and `+442079460958` are the same).
///
/// Two numbers are the same when their last eight digits are (a country
/// code or a trunk `0` written on one side only does not matter:
/// `020 7946 0958` is `+44 20 7946 0958`) and, when both carry their
/// country code, all their digits are.
public struct PhoneKey: Hashable, Sendable {
    public let digits: String
    public let international: Bool

    /// The last eight digits (all of a seven-digit number): what numbers are grouped by.
    public var tail: Substring { digits.suffix(8) }

    public func matches(_ other: PhoneKey) -> Bool {
        guard tail == other.tail else { return false }
        return !(international && other.international) || digits == other.digits
    }
}
