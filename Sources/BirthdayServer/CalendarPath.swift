/// The one reading of a calendar address, `/calendar/<token>.ics` (the
/// feed), `/calendar/<token>.json` (its JSON twin) or `/calendar/<token>`
/// (the page for the year): the routes (``CalendarController``,
/// ``PageController``) take their token and kind from it, and so do the
/// revalidation fast paths (``FeedRevalidationHandler``,
/// ``FeedRevalidationBytes``), so the two can never read one path apart.
enum CalendarPath {
    /// What a calendar address asks for.
    enum Kind: Sendable, Equatable {
        case feed, list, page
    }

    private static let prefix = Array("/calendar/".utf8)
    private static let ics = Array(".ics".utf8)
    private static let json = Array(".json".utf8)

    /// The token's bytes in `path` and what they ask for, when `path` is one
    /// of the three without a query or an escape; `nil` for anything else:
    /// an empty token, another extension (`.ics.bak`, `.txt`), a dot in the
    /// page's token, a further `/`. A share's token reads as the owner's
    /// does: which of the two it is, is the route's question.
    static func parse<Path: BidirectionalCollection<UInt8>>(_ path: Path) -> (token: Path.SubSequence, kind: Kind)? {
        guard path.starts(with: prefix), !path.contains(UInt8(ascii: "?")), !path.contains(UInt8(ascii: "%")) else { return nil }
        let file = path.dropFirst(prefix.count)
        guard !file.contains(UInt8(ascii: "/")) else { return nil }
        if file.reversed().starts(with: ics.reversed()) {
            let token = file.dropLast(ics.count)
            return token.isEmpty ? nil : (token, .feed)
        }
        if file.reversed().starts(with: json.reversed()) {
            let token = file.dropLast(json.count)
            return token.isEmpty ? nil : (token, .list)
        }
        guard !file.isEmpty, !file.contains(UInt8(ascii: ".")) else { return nil }
        return (file, .page)
    }

    /// The token of `path` when it asks for `kind` (what a route answers), else `nil` (404).
    static func token(_ path: String, asking kind: Kind) -> String? {
        guard let (token, found) = parse(path.utf8), found == kind else { return nil }
        return String(token)
    }
}
