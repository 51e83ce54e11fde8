/// A short note the user keeps about a person for their day ("likes
/// orchids; ask Ben about the book"): `birthdays note PERSON TEXT`.
///
/// It is the user's own, never read from a card (a card's `NOTE` holds
/// anything), and never logged. `show`, `upcoming --json`, the desktop
/// reminder and the digest carry it; the added channels (e-mail, ntfy,
/// Gotify, Apprise) and your `command` (which may forward anywhere) only
/// under the `notes-on-channels` setting.
public enum PersonNote {
    /// The longest note kept, in characters.
    public static let maximumLength = 280

    /// `text` as it is kept: one line (line breaks and tabs become spaces,
    /// other control characters are dropped), trimmed.
    ///
    /// - Throws: ``PersonNoteError`` when nothing is left or it is longer
    ///   than ``maximumLength``.
    public static func normalized(_ text: String) throws(PersonNoteError) -> String {
        var line = ""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .spaceSeparator:
                // A line break, a tab or a run of spaces is one space; other control characters are dropped.
                let space = scalar == "\n" || scalar == "\r" || scalar == "\t" || scalar.properties.generalCategory != .control
                if space && !line.hasSuffix(" ") { line.unicodeScalars.append(" ") }
            case .format where scalar.properties.isBidiControl:
                continue
            default:
                line.unicodeScalars.append(scalar)
            }
        }
        let trimmed = line.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .empty }
        guard trimmed.count <= maximumLength else { throw .tooLong(trimmed.count) }
        return trimmed
    }
}

/// A note that cannot be kept.
public enum PersonNoteError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooLong(Int)

    public var description: String {
        switch self {
        case .empty: "the note is empty; to remove a note, use --clear"
        case .tooLong(let count): "the note has \(count) characters; a note holds at most \(PersonNote.maximumLength)"
        }
    }
}
