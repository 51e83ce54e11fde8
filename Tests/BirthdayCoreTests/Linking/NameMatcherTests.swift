import Foundation
import Testing

@testable import BirthdayCore

/// ``NameMatcher``: who a name and a date without a card are, by the
/// linker's name rules, never someone with another birthday.
@Suite struct NameMatcherTests {
    typealias T = PersonLinkerTests

    /// Vera undated; Bob (Robert, by his nickname) dated; two undated Ada
    /// Lovelaces; Hedy dated; and José linked from two cards, one dated.
    static let people: [[LinkCard]] = [
        [T.card("Phone", "vera", "Vera Vdir")],
        [T.card("Phone", "bob", "Robert Builder", nickname: "Bob", "1980-02-03")],
        [T.card("Phone", "ada-1", "Ada Lovelace")],
        [T.card("Google", "ada-2", "Ada Lovelace")],
        [T.card("Phone", "hedy", "Hedy Lamarr", "1914-11-09")],
        [T.card("Phone", "jose", "José Pérez"), T.card("Google", "jose-g", "Jose Perez", "--04-02")],
    ]

    @Test(arguments: [
        // Order, case and accents do not matter; a nickname the card carries stands for its name.
        ("vdir VERA", "1991-05-17", [0]),
        ("Bob Builder", "1980-02-03", [1]),
        ("Bob Builder", "--02-03", [1]),
        // Another birthday is another person, whatever the name.
        ("Robert Builder", "1981-02-03", []),
        ("Hedy Lamarr", "1914-11-10", []),
        // Namesakes are both returned: the caller does not guess.
        ("Ada Lovelace", "--12-10", [2, 3]),
        // A linked person matches through any card, and every card's date counts.
        ("Jose Perez", "1970-04-02", [5]),
        ("José Pérez", "1970-04-03", []),
        // One word of two is not the name; a whole word on one side only is someone else.
        ("Vera", "--05-17", []),
        ("Vera Maria Vdir", "--05-17", []),
        // A middle initial on one side only is the same name.
        ("Vera M. Vdir", "--05-17", [0]),
    ])
    func matches(name: String, date: String, expected: [Int]) {
        #expect(NameMatcher(people: Self.people).matches(name: name, birthday: T.date(date)) == expected)
    }
}
