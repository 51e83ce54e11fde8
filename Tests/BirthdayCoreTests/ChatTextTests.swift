import Foundation
import Testing

@testable import BirthdayCore

/// ``ChatText``: names that would ping a room or disguise a link are shown,
/// not parsed, by each chat format a room or a channel reaches.
@Suite struct ChatTextTests {
    /// A chat format and what it reads as a mention or a link (its parser's
    /// own patterns: Slack's control sequences and `link_names` words,
    /// Mattermost's and Rocket.Chat's Markdown and `@` words, Discord's
    /// mentions and masked links, Matrix's `@room` and Markdown links).
    struct Format: CustomTestStringConvertible, Sendable {
        var name: String
        var patterns: [String]
        var testDescription: String { name }

        /// The pieces of `text` this format would parse.
        func parsed(in text: String) -> [String] {
            patterns.flatMap { pattern -> [String] in
                let regex = try? NSRegularExpression(pattern: pattern)
                let range = NSRange(text.startIndex..., in: text)
                return (regex?.matches(in: text, range: range) ?? []).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
            }
        }
    }

    static let formats: [Format] = [
        Format(name: "Slack", patterns: [#"<[!@#][^>]*>"#, #"<https?://[^>]*>"#, #"<[^>]*\|[^>]*>"#, #"@(channel|here|everyone)\b"#]),
        Format(name: "Mattermost", patterns: [#"@(channel|all|here)\b"#, #"@[a-z][a-z0-9._-]*"#, #"!?\[[^\]]*\]\([^)]*\)"#, #"<https?://[^>]*>"#]),
        Format(name: "Discord", patterns: [#"@(everyone|here)"#, #"<@[!&]?\d+>"#, #"<#\d+>"#, #"\[[^\]]*\]\(<?https?://[^)]*\)"#]),
        Format(name: "Matrix", patterns: [#"@room\b"#, #"!?\[[^\]]*\]\([^)]*\)"#, #"<a\s[^>]*>"#]),
    ]

    static let hostile = [
        "<!everyone> @channel [prize](http://evil.example/x)",
        "<!channel> <!here> <@U024BE7LH> <#C024BE7LH|general>",
        "<http://evil.example|Ada Lovelace>",
        "@here @all @everyone @room @alice",
        "Ada <@123456789> <@&987654321> <#112233>",
        "![cake](http://evil.example/pixel.png) [Ada](https://matrix.to/#/@ada:example.org)",
        "[Ada][1] [1]: http://evil.example",
        "Ada <a href=\"http://evil.example\">Lovelace</a>",
    ]

    /// What a person sees: the harmless text with its invisible spaces dropped and the look-alikes read as the signs they stand for.
    static func seen(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != ChatText.zeroWidthSpace }))
            .replacingOccurrences(of: "\u{FF1C}", with: "<").replacingOccurrences(of: "\u{FF1E}", with: ">")
    }

    @Test(arguments: formats)
    func noMentionOrLinkSurvivesInAnyFormat(_ format: Format) {
        #expect(Self.hostile.filter { !format.parsed(in: $0).isEmpty }.count >= 3, "the cases are ones \(format.name) parses")
        for name in Self.hostile {
            let harmless = ChatText.harmless(name)
            #expect(format.parsed(in: harmless).isEmpty, "\(format.name) still parses \(format.parsed(in: harmless)) in \(harmless)")
            #expect(Self.seen(harmless) == name, "shown as it was typed")
        }
    }

    @Test func ourOwnWordsAndPlainNamesPassUnchanged() {
        for text in ["🎂 Happy birthday, Ada Lovelace and Alan Turing!", "Zoë Ñúñez turns 37 today", "Ada (36) [team]", "a > b"] {
            #expect(ChatText.harmless(text) == text.replacingOccurrences(of: ">", with: "\u{FF1E}"))
        }
        #expect(ChatText.harmless("🎂 Happy birthday, Ada!") == "🎂 Happy birthday, Ada!")
    }

    @Test func itIsIdempotent() {
        for name in Self.hostile {
            let once = ChatText.harmless(name)
            #expect(ChatText.harmless(once) == once)
        }
    }
}
