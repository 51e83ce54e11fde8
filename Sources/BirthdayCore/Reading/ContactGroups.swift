import Foundation

/// The groups a contact is in, read where contacts keep them.
///
/// - vCard `CATEGORIES` (Nextcloud, Thunderbird's CardBook, vCard 3.0 and
///   4.0): a comma list, `\,` keeping a comma in a name; every
///   `CATEGORIES` line of a card counts.
/// - Google's CSV: the `Labels` column (`Group Membership` before 2020),
///   names separated by ` ::: `. Google writes its own system groups with a
///   leading `* `: `* myContacts` holds every contact, so it is dropped;
///   `* starred` becomes `Starred` (the favourites, what people ask to be
///   reminded of), and the older system groups `* friends`, `* family` and
///   `* coworkers` become `Friends`, `Family` and `Coworkers`, the names
///   Google showed for them. Any other `* ` name is a system group we do not
///   know, and is dropped.
/// - Outlook's CSV `Categories` column: names separated by `;`.
/// - Group cards (``GroupCard``): Apple's `X-ADDRESSBOOKSERVER-KIND:group`
///   with `X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:…`, and vCard 4
///   `KIND:group` with `MEMBER:urn:uuid:…`. A group card is not a person:
///   its name is its `FN` (else `N`), and its members are the cards of the
///   same import, vdir or address book whose `UID` it lists; a member that
///   is not there is ignored.
///
/// Names are trimmed, at most ``maxLength`` characters, kept as written
/// otherwise; a contact's list is sorted and without repeats. Names are
/// contact text: never logged.
public enum ContactGroups {
    /// The longest group name kept (longer ones are cut).
    public static let maxLength = 100
    /// The most groups kept for one contact (a corrupt card cannot flood the store).
    public static let maxCount = 64

    /// `names` trimmed, cut, without empty ones and repeats, sorted.
    public static func normalized(_ names: some Sequence<String>) -> [String] {
        var seen = Set<String>()
        for name in names {
            var trimmed = name.trimmingWhitespace()
            guard !trimmed.isEmpty else { continue }
            if trimmed.count > maxLength { trimmed = String(trimmed.prefix(maxLength)) }
            seen.insert(trimmed)
            if seen.count == maxCount { break }
        }
        return seen.sorted()
    }

    /// The groups of a CSV cell: Google's ` ::: ` list (system groups as
    /// the type says) when `google`, else Outlook's `;` list.
    public static func csv(_ cell: String, google: Bool) -> [String] {
        guard !cell.isEmpty else { return [] }
        if google {
            return normalized(cell.components(separatedBy: ":::").compactMap(Self.google))
        }
        return normalized(cell.split(separator: ";").map(String.init))
    }

    /// One entry of a Google label list; `nil` for a system group that is dropped.
    static func google(_ entry: String) -> String? {
        let name = entry.trimmingWhitespace()
        guard name.hasPrefix("*") else { return name }
        switch name.dropFirst().trimmingWhitespace().lowercased() {
        case "starred": return "Starred"
        case "friends": return "Friends"
        case "family": return "Family"
        case "coworkers": return "Coworkers"
        default: return nil
        }
    }

    /// Adds the groups of `cards` to the members among `people` (an
    /// import's run: the group cards and the people read together).
    public static func apply(_ cards: [GroupCard], to people: inout [Person]) {
        guard !cards.isEmpty else { return }
        var byMember: [String: [String]] = [:]
        for card in cards {
            for member in card.members { byMember[member, default: []].append(card.name) }
        }
        for index in people.indices {
            guard let names = byMember[people[index].id] else { continue }
            people[index].groups = normalized(people[index].groups + names)
        }
    }
}

/// A group card: Apple's `X-ADDRESSBOOKSERVER-KIND:group` or vCard 4
/// `KIND:group`, with its members' ids (``PersonID/fromUID(_:)`` of each
/// `MEMBER` or `X-ADDRESSBOOKSERVER-MEMBER`, so `urn:uuid:` is dropped).
public struct GroupCard: Hashable, Sendable {
    /// The group's name: the card's `FN`, else its `N`.
    public var name: String
    /// The ids of the people it lists, sorted, without repeats.
    public var members: [String]

    public init(name: String, members: [String]) {
        self.name = name
        self.members = Array(Set(members)).sorted()
    }
}
