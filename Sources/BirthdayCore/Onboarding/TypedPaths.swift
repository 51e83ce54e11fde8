import Foundation

/// The files a person typed, pasted or dragged into a terminal at a prompt
/// (onboarding's "which contacts?"), as paths.
///
/// Rules, as a shell would read the line, with no shell involved:
/// - Paths are separated by unquoted spaces or tabs, so a phone export and a
///   Google CSV can be given together.
/// - `'…'` is taken literally and `"…"` keeps everything but `\"` and `\\`:
///   a file dragged into GNOME Terminal or Konsole arrives as
///   `'/home/ada/My Contacts.vcf' ` (quoted, a space after).
/// - Outside quotes, a backslash keeps the next character (`My\ Contacts.vcf`,
///   as xterm and others write a dragged name).
/// - A leading `~` or `~/` is the home folder; `~user` is left as typed.
/// - A `file://` URI (some terminals drop those) becomes its path, percent-decoded.
public enum TypedPaths {
    public static func parse(_ line: String, home: String?) -> [String] {
        var words: [String] = []
        var current = ""
        var started = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            switch quote {
            case "'":
                if character == "'" { quote = nil } else { current.append(character) }
            case "\"":
                if character == "\"" {
                    quote = nil
                } else if character == "\\" {
                    escaped = true
                } else {
                    current.append(character)
                }
            default:
                if character == " " || character == "\t" || character.isNewline {
                    if started { words.append(current) }
                    current = ""
                    started = false
                } else if character == "'" || character == "\"" {
                    quote = character
                    started = true
                } else if character == "\\" {
                    escaped = true
                    started = true
                } else {
                    current.append(character)
                    started = true
                }
            }
        }
        if started { words.append(current) }
        return words.filter { !$0.isEmpty }.map { expand($0, home: home) }
    }

    private static func expand(_ word: String, home: String?) -> String {
        if word.hasPrefix("file://"), let url = URL(string: word), url.isFileURL { return url.path }
        guard let home, !home.isEmpty else { return word }
        if word == "~" { return home }
        if word.hasPrefix("~/") { return home + word.dropFirst() }
        return word
    }
}
