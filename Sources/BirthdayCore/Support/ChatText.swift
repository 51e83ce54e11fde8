/// Text from a card or a stranger made harmless for the chat services a
/// room, an added channel or a greeting reaches (Slack, Mattermost,
/// Rocket.Chat, Teams, Discord, Matrix; through a room's webhook JSON,
/// Apprise, ntfy or Gotify), which read mention and link syntax in a
/// message's text.
///
/// A name such as `<!everyone> @channel [prize](http://evil.example/x)`
/// would otherwise ping a whole room and show a disguised link. So, in
/// ``harmless(_:)``, every piece of such syntax is shown as it was typed,
/// but no longer parsed:
///
/// - **`@`** (Slack's, Mattermost's and Rocket.Chat's `@channel`, `@here`,
///   `@all`, `@everyone`; Discord's `@everyone` and `@here`; Matrix's
///   `@room`; anyone's `@name`) gets a zero-width space (U+200B) after it:
///   the mention's word no longer follows the `@`, and nothing visible
///   changes. Every `@` is treated so, not only the room-wide words, since
///   `@name` pings one person as surely.
/// - **`<` and `>`** (Slack's `<!everyone>`, `<@U123>`, `<#C123>` and
///   `<http://x|label>`; Discord's `<@123>`, `<@&role>` and `<#channel>`;
///   Teams' `<at>`; Markdown's `<http://…>` autolinks and inline HTML)
///   become the full-width look-alikes `＜` (U+FF1C) and `＞` (U+FF1E), which
///   no service reads as markup. An escape such as `&lt;` would not do: it
///   is shown as typed by the services that do not decode entities.
/// - **`]` before `(`, `[` or `:`** (Markdown's links `[text](url)`, images
///   `![alt](url)`, reference links `[text][ref]` and definitions
///   `[ref]: url`, Discord's masked links) gets a zero-width space after
///   it: the text and the address stay visible, side by side, and the
///   address is an address, never a disguise.
///
/// Nothing else changes: letters, emoji and our own words pass as they are,
/// and the result is harmless again (the function is idempotent). It is
/// applied to the text that people and cards wrote (names, notes, the
/// labels that hold names), never to a `mailto:` or `tel:` address the
/// program built, which a zero-width space would break.
public enum ChatText {
    /// The zero-width space put after `@` and after `]` before `(`, `[` or `:`.
    public static let zeroWidthSpace: Unicode.Scalar = "\u{200B}"

    /// `text` with its mention and link syntax shown, not parsed (see the type's rules).
    public static func harmless(_ text: some StringProtocol) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "]") })
        else { return String(text) }
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar {
            case "<": out.append("\u{FF1C}")
            case ">": out.append("\u{FF1E}")
            case "@":
                out.append(scalar)
                if next != zeroWidthSpace { out.append(zeroWidthSpace) }
            case "]":
                out.append(scalar)
                if next == "(" || next == "[" || next == ":" { out.append(zeroWidthSpace) }
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
