import Foundation

/// Finds the person a user means by what they typed: an id, a public id
/// (`p-…`), a whole name or a part of one. `show`, `people` and every
/// command that takes a PERSON use it, so they all read a name the same way.
///
/// ## Rules, in order
/// 1. The stored id, exactly (`ada`, `c-115297eaf930a1f2`).
/// 2. The public id (`p-` and 16 hex digits, ``PublicID/person(_:)``).
/// 3. The whole name, ignoring case, accents and runs of spaces
///    (`ada lovelace`, `Zoe` for "Zoë"). One person with that name is the
///    answer even when the text is part of other names too: `Ada` finds
///    "Ada" before "Ada Lovelace".
/// 4. A part of the name, compared the same way, ranked by where it falls
///    (``Match``): whole words (`ada` in "Ada Lovelace") before the start of
///    a word (`love` in "Ada Lovelace", `ada` in "Zoe Adams") before the
///    inside of a word (`ove` in "Ada Lovelace"). Only the best rank counts:
///    `ada` finds "Ada Lovelace" alone when the other match is "Zoe Adams".
///
/// Several people at the step that decides (for rule 4: at the best rank
/// any name reaches) are ``Result/ambiguous(_:)`` (sorted by name, then id);
/// none at all is ``Result/notFound(suggestions:)`` with the names closest
/// to the text (``suggestions(for:in:limit:)``).
public enum PersonLookup {
    public enum Result: Sendable, Equatable {
        case found(Person)
        /// More than one person fits; sorted by name, then id.
        case ambiguous([Person])
        /// Nobody fits; the people whose names are closest to what was typed (may be empty).
        case notFound(suggestions: [Person])
    }

    /// The person `query` names among `people` (see the rules above).
    ///
    /// - Parameter publicIDs: the database's keyed hash, to read `p-…` ids; `nil` skips rule 2.
    public static func find(_ query: String, in people: [Person], publicIDs: PublicID? = nil) -> Result {
        let typed = query.trimmingWhitespace()
        guard !typed.isEmpty else { return .notFound(suggestions: []) }
        if let byID = people.first(where: { $0.id == typed }) { return .found(byID) }
        if let publicIDs, typed.hasPrefix("p-"), PublicID.looksPublic(typed) {
            let lowered = typed.lowercased()
            if let byPublicID = people.first(where: { publicIDs.person($0.id) == lowered }) { return .found(byPublicID) }
        }
        let folded = fold(typed)
        let keyed = people.map { (person: $0, key: fold($0.name)) }
        let exact = keyed.filter { $0.key == folded }.map(\.person)
        if exact.count == 1 { return .found(exact[0]) }
        if exact.count > 1 { return .ambiguous(sorted(exact)) }
        let ranked = keyed.compactMap { entry in match(folded, in: entry.key).map { (person: entry.person, rank: $0) } }
        let best = ranked.map(\.rank).min()
        let partial = ranked.filter { $0.rank == best }.map(\.person)
        switch partial.count {
        case 0: return .notFound(suggestions: suggestions(for: typed, in: people))
        case 1: return .found(partial[0])
        default: return .ambiguous(sorted(partial))
        }
    }

    /// Where a part of a name falls, best first (rule 4). A word is a run of
    /// characters between spaces, after ``fold(_:)``.
    public enum Match: Int, Sendable, Comparable {
        /// The text is one or more whole words of the name (`ada`, `ada lovelace` in "Ada Lovelace").
        case wholeWords
        /// The text starts a word of the name (`love` in "Ada Lovelace", `ada` in "Zoe Adams").
        case wordStart
        /// The text starts inside a word (`ove` in "Ada Lovelace").
        case insideWord

        public static func < (lhs: Match, rhs: Match) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The best place `text` falls in `name`, both folded (``fold(_:)``), or `nil` when it is not there.
    public static func match(_ text: String, in name: String) -> Match? {
        guard !text.isEmpty else { return nil }
        var best: Match?
        var searchStart = name.startIndex
        while let found = name.range(of: text, range: searchStart..<name.endIndex) {
            let startsWord = found.lowerBound == name.startIndex || name[name.index(before: found.lowerBound)] == " "
            let endsWord = found.upperBound == name.endIndex || name[found.upperBound] == " "
            let here: Match = startsWord ? (endsWord ? .wholeWords : .wordStart) : .insideWord
            if best.map({ here < $0 }) ?? true { best = here }
            if here == .wholeWords { break }
            searchStart = name.index(after: found.lowerBound)
        }
        return best
    }

    /// Everyone whose name contains `query` (rules 3 and 4 together), or
    /// whose id or public id is `query`; for listing (`people ada`).
    public static func matches(_ query: String, in people: [Person], publicIDs: PublicID? = nil) -> [Person] {
        let typed = query.trimmingWhitespace()
        guard !typed.isEmpty else { return people }
        let folded = fold(typed)
        let lowered = typed.lowercased()
        return people.filter { person in
            person.id == typed || fold(person.name).contains(folded)
                || (lowered.hasPrefix("p-") && publicIDs.map { $0.person(person.id) == lowered } == true)
        }
    }

    /// Up to `limit` people whose name, or a word of it, is within a few
    /// typing mistakes of `query` (edit distance at most a third of its
    /// length, and at least 1), nearest first: "did you mean".
    public static func suggestions(for query: String, in people: [Person], limit: Int = 3) -> [Person] {
        let folded = Array(fold(query))
        guard !folded.isEmpty else { return [] }
        let allowed = max(1, folded.count / 3)
        var scored: [(distance: Int, person: Person)] = []
        for person in people {
            let name = fold(person.name)
            guard !name.isEmpty else { continue }
            let candidates = [name] + name.split(separator: " ").map(String.init)
            let best = candidates.map { editDistance(folded, Array($0), limit: allowed) }.min() ?? Int.max
            if best <= allowed { scored.append((best, person)) }
        }
        scored.sort { ($0.distance, $0.person.name, $0.person.id) < ($1.distance, $1.person.name, $1.person.id) }
        return Array(scored.prefix(limit).map(\.person))
    }

    /// `text` lowercased, without accents, its spaces collapsed: how names are compared.
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split(whereSeparator: { $0.isWhitespace })
            .joined(separator: " ")
    }

    private static func sorted(_ people: [Person]) -> [Person] {
        people.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// Levenshtein distance between `a` and `b`, or `limit + 1` as soon as it must exceed `limit`.
    static func editDistance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMin = current[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMin = min(rowMin, current[j])
            }
            if rowMin > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
