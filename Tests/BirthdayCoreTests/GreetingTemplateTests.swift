import Foundation
import TestSupport
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// A greeting's words (issue 44): `--message` with `{first}`, `{name}` and
/// `{age}`, every other placeholder refused by name; the age only where
/// written; names neutralised as in rooms; the default text in all ten
/// languages, with the first name and no age.
@Suite struct GreetingTemplateTests {
    @Test func placeholdersBecomeTheFriendsNameAndAge() throws {
        let template = try GreetingTemplate("Happy {age}th, {first}! ({name}) {{not a placeholder}}")
        #expect(template.render(first: "Ana", name: "Ana Lima", age: 40) == "Happy 40th, Ana! (Ana Lima) {not a placeholder}")
        #expect(template.usesAge)
    }

    /// The age appears only where written: a text without `{age}` has none
    /// whatever the age; one with it has no words without a known age.
    @Test func theAgeAppearsOnlyWhereWritten() throws {
        let plain = try GreetingTemplate("Happy birthday, {first}!")
        #expect(plain.render(first: "Ana", name: "Ana Lima", age: 40) == "Happy birthday, Ana!")
        #expect(!plain.usesAge)
        #expect(try GreetingTemplate("{age} today!").render(first: "Ana", name: "Ana", age: nil) == nil)
    }

    @Test(arguments: [
        ("Happy birthday, {frist}!", GreetingTemplateError.unknownPlaceholder("frist")),
        ("Happy {Age}", .unknownPlaceholder("Age")),
        ("{}", .unknownPlaceholder("")),
        ("Happy birthday, {first", .unclosed),
        ("   ", .empty),
        ("Hi\u{7}{first}", .controlCharacter),
        (String(repeating: "a", count: 1001), .tooLong),
    ])
    func aMessageThatIsNotOneIsOneLineNamingWhy(text: String, error: GreetingTemplateError) {
        #expect(throws: error) { try GreetingTemplate(text) }
        #expect(!error.description.contains("\n"))
    }

    @Test func anUnknownPlaceholderIsNamed() {
        #expect(
            GreetingTemplateError.unknownPlaceholder("frist").description
                == "--message: {frist} is not a placeholder; use {first}, {name} or {age} ({{ for a brace)"
        )
    }

    /// A name from a card cannot ping a room or disguise a link, nor add a
    /// line; the owner's own words (line breaks, a link) are kept as written.
    @Test func namesAreNeutralisedTheOwnersWordsKept() throws {
        let template = try GreetingTemplate("Dear {name},\nsee [our photos](https://example.org/p)")
        let hostile = "<!everyone> @channel [prize](http://evil.example/x)\r\nBcc: x@y"
        let text = try #require(template.render(first: hostile, name: hostile, age: nil))
        #expect(!text.contains("<!everyone>"))
        #expect(text.contains("@\u{200B}channel"))
        #expect(text.contains("[prize]\u{200B}(http://evil.example/x)"))
        #expect(text.components(separatedBy: "\n").count == 2, "the name adds no line: \(text)")
        #expect(text.hasSuffix("\nsee [our photos](https://example.org/p)"))
    }

    /// The first name: the card's given name, else the name's first word, else the whole name.
    @Test(arguments: [
        (NameParts(given: "Ana", family: "Lima"), "Dr. Ana Lima", "Ana"),
        (NameParts(), "Ana Lima", "Ana"),
        (NameParts(), "山田太郎", "山田太郎"),
    ])
    func theFirstName(parts: NameParts, name: String, first: String) {
        var person = Person(id: "p", name: name, source: ContactSource(file: "x", index: 0, line: 1))
        person.nameParts = parts
        #expect(GreetingTemplate.firstName(of: person) == first)
    }

    /// The default text in each of the ten languages: the first name, one
    /// sentence, no number (no age), never the English in another language.
    @Test(arguments: StringCatalog.embedded.languages)
    func theDefaultTextInEveryLanguageHasTheFirstNameAndNoAge(language: String) {
        let localizer = Localizer(language: language)
        let text = localizer(Message.greeting(first: "Ana"))
        #expect(text.contains("Ana"), "\(language): \(text)")
        let hasDigit = text.contains { $0.isASCII && $0.isNumber }
        #expect(!hasDigit, "\(language): \(text)")
        #expect(!text.contains("\n"))
        #expect(!text.contains("%"), "\(language): \(text)")
        if language != "en" { #expect(text != Localizer.english(Message.greeting(first: "Ana")), "\(language) is translated") }
    }
}
