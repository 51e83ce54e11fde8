/// Stable person identifiers.
///
/// - A contact with a vCard `UID` gets that UID, without a `urn:uuid:`
///   prefix. Characters outside `A-Z a-z 0-9 . _ -` are replaced by `_`, and
///   then a short hash of the original is appended so two UIDs that differ
///   only in such characters stay apart.
/// - A contact without a UID (and every CSV row) gets `c-` followed by a hash
///   of its normalized name (else email, else content) and its ordinal among
///   contacts with the same name in the same file. Importing the same export
///   again yields the same ids; two people with the same name stay two people.
/// - Such a card whose derived id another file's card already holds with
///   another birthday is a namesake, not that card: it gets
///   ``namesake(of:born:year:)`` (``ContactMerge/cardID(_:file:birthday:held:)``).
public enum PersonID {
    static let maxLength = 96

    /// The id for a vCard UID, or `nil` when the UID is empty.
    public static func fromUID(_ uid: String) -> String? {
        var text = uid.trimmingWhitespace()
        // Only a text whose first nine bytes are `urn:uuid:` in some case can have the prefix: no lower-cased copy of every UID.
        if mayHaveURNPrefix(text), text.lowercased().hasPrefix("urn:uuid:") { text = String(text.dropFirst(9)) }
        guard !text.isEmpty else { return nil }
        // Fast path: most UIDs are UUIDs, already safe.
        if text.utf8.count <= maxLength && text.utf8.allSatisfy({ isSafe(Unicode.Scalar($0)) }) { return text }
        var safe = ""
        var replaced = false
        for scalar in text.unicodeScalars {
            if isSafe(scalar) {
                safe.unicodeScalars.append(scalar)
            } else {
                safe.append("_")
                replaced = true
            }
        }
        if safe.count > maxLength {
            safe = String(safe.prefix(maxLength))
            replaced = true
        }
        return replaced ? safe + "-" + StableHash.hex(text) : safe
    }

    /// Whether `text` starts with `urn:uuid:` in any case, byte by byte (no
    /// other letter lower-cases to one of its letters).
    private static func mayHaveURNPrefix(_ text: String) -> Bool {
        let prefix = "urn:uuid:".utf8
        guard text.utf8.count >= prefix.count else { return false }
        return zip(text.utf8, prefix).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }

    /// The id for a contact without a UID.
    ///
    /// - Parameters:
    ///   - key: what identifies the contact in its file (see ``ParsedContact/derivationKey``).
    ///   - ordinal: how many contacts with the same key came before it in the same file.
    public static func derived(key: String, ordinal: Int) -> String {
        "c-" + StableHash.hex(ordinal == 0 ? key : key + "\u{1F}" + String(ordinal))
    }

    /// The id of a namesake of the card derived as `id` (a card of the same
    /// name in another file, born on another day): `id` salted with the day
    /// (`--MM-DD`), or with the whole date when `year` is true (the same name
    /// and day in another year).
    public static func namesake(of id: String, born birthday: EventDate, year: Bool) -> String {
        let day = year ? birthday.description : EventDate(year: nil, month: birthday.month, day: birthday.day)?.description ?? birthday.description
        return "c-" + StableHash.hex(id + "\u{1F}" + day)
    }

    /// `text` as a derived id compares it: lowercased, runs of spaces, tabs and no-break spaces made one space.
    package static func normalize(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\u{00A0}" }).joined(separator: " ")
    }

    static func isSafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true  // 0-9 A-Z a-z
        case 0x2D, 0x2E, 0x5F: true  // - . _
        default: false
        }
    }

    /// Whether `id` is made only of characters safe in notification ids and URLs.
    public static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.unicodeScalars.allSatisfy(isSafe)
    }
}
