import Foundation
import Testing

@testable import BirthdayCore

/// ``PersonLookup``: the one place that reads a PERSON typed by a user.
@Suite struct PersonLookupTests {
    let people = [
        person("lovelace", "Ada Lovelace"),
        person("byron", "Ada Byron"),
        person("plain-ada", "Ada"),
        person("zoe", "Zoë  Smith"),
        person("li", "李小龍"),
    ]

    static func person(_ id: String, _ name: String) -> Person {
        Person(id: id, name: name, source: ContactSource(file: "f.vcf", index: 0, line: 1))
    }

    func find(_ query: String) -> PersonLookup.Result { PersonLookup.find(query, in: people) }

    @Test func anIdWinsOverNames() {
        #expect(find("byron") == .found(people[1]))
        #expect(find("plain-ada") == .found(people[2]))
    }

    @Test func aWholeNameWinsOverPartsOfOthers() {
        #expect(find("ada") == .found(people[2]), "Ada before Ada Lovelace and Ada Byron")
        #expect(find("  ADA  LOVELACE ") == .found(people[0]))
    }

    @Test func partsIgnoreCaseAccentsAndSpaces() {
        #expect(find("love") == .found(people[0]))
        #expect(find("zoe smith") == .found(people[3]))
        #expect(find("小龍") == .found(people[4]))
    }

    @Test func aTieIsSortedByNameThenId() {
        #expect(find("ada ") == .found(people[2]))
        #expect(find("Ada L") == .found(people[0]))
        #expect(PersonLookup.find("ad", in: Array(people.prefix(2))) == .ambiguous([people[1], people[0]]))
    }

    // MARK: Where a part falls

    @Test func aWholeWordWinsOverTheStartOfAnotherWord() {
        let two = [Self.person("ada", "Ada Lovelace"), Self.person("zoe", "Zoe Adams")]
        #expect(PersonLookup.find("ada", in: two) == .found(two[0]), "Ada, not Zoe Adams")
        #expect(PersonLookup.find("adam", in: two) == .found(two[1]))
    }

    @Test func theStartOfAWordWinsOverTheInsideOfOne() {
        let two = [Self.person("glover", "Kim Glover"), Self.person("ada", "Ada Lovelace")]
        #expect(PersonLookup.find("love", in: two) == .found(two[1]), "Lovelace starts with it; Glover only holds it")
        #expect(PersonLookup.find("ove", in: two) == .ambiguous([two[1], two[0]]), "inside a word in both")
    }

    @Test func onlyMatchesOfTheSameRankAreAmbiguous() {
        let three = [Self.person("a", "Ada Lovelace"), Self.person("b", "Ada Byron"), Self.person("c", "Zoe Adams")]
        #expect(PersonLookup.find("ada", in: three) == .ambiguous([three[1], three[0]]), "two whole words; Adams is left out")
        #expect(PersonLookup.find("zoe ada", in: three) == .found(three[2]))
    }

    @Test(arguments: [
        ("ada", "ada lovelace", PersonLookup.Match.wholeWords),
        ("ada lovelace", "ada lovelace", .wholeWords),
        ("lovelace", "ada lovelace", .wholeWords),
        ("love", "ada lovelace", .wordStart),
        ("ada l", "ada lovelace", .wordStart),
        ("ada", "zoe adams", .wordStart),
        ("ove", "ada lovelace", .insideWord),
        ("ada", "adam ada", .wholeWords),
    ])
    func aPartIsRankedByWhereItFalls(_ text: String, _ name: String, _ rank: PersonLookup.Match) {
        #expect(PersonLookup.match(text, in: name) == rank)
    }

    @Test func aTextNotInTheNameHasNoRank() {
        #expect(PersonLookup.match("xyz", in: "ada lovelace") == nil)
        #expect(PersonLookup.match("", in: "ada lovelace") == nil)
    }

    @Test func aMissSuggestsNamesAndWordsWithinAFewTypos() {
        #expect(find("Lovelase") == .notFound(suggestions: [people[0]]))
        #expect(find("Byrom") == .notFound(suggestions: [people[1]]))
        #expect(find("xyzzy") == .notFound(suggestions: []))
        #expect(find("") == .notFound(suggestions: []))
    }

    @Test func publicIdsNameThePerson() throws {
        let ids = try #require(PublicID(hexKey: "000102030405060708090a0b0c0d0e0f"))
        #expect(PersonLookup.find(ids.person("li"), in: people, publicIDs: ids) == .found(people[4]))
        #expect(PersonLookup.matches(ids.person("zoe"), in: people, publicIDs: ids) == [people[3]])
    }

    @Test func matchesListEveryoneWhoseNameContainsTheText() {
        #expect(PersonLookup.matches("ADA", in: people).map(\.id) == ["lovelace", "byron", "plain-ada"])
        #expect(PersonLookup.matches("", in: people).count == people.count)
    }

    @Test(arguments: [("kitten", "sitting", 3), ("ada", "ada", 0), ("", "abc", 3), ("abc", "xyz", 3)])
    func editDistance(_ a: String, _ b: String, _ distance: Int) {
        #expect(PersonLookup.editDistance(Array(a), Array(b), limit: 10) == distance)
        #expect(PersonLookup.editDistance(Array(a), Array(b), limit: 1) == min(distance, 2))
    }
}

/// Short forms of public ids, as `pending` shows them.
@Suite struct ShortReminderIDTests {
    @Test func eachShortIdStartsItsOwnPublicIdOnly() throws {
        let ids = try #require(PublicID(hexKey: "0f0e0d0c0b0a09080706050403020100"))
        let known = (0..<5000).map { "p\($0)-birthday-dayof" }
        let shown = Array(known.prefix(64)) + ["p1-birthday-dayof-snooze"]
        let short = ids.shortReminderIDs(shown, among: known)
        for id in shown {
            let form = try #require(short[id])
            let base = id.hasSuffix("-snooze") ? String(id.dropLast(7)) : id
            #expect(form.hasSuffix("-snooze") == id.hasSuffix("-snooze"))
            let prefix = id.hasSuffix("-snooze") ? String(form.dropLast(7)) : form
            #expect(prefix.count >= 6)
            #expect(known.filter { ids.reminder($0).hasPrefix(prefix) } == [base], "\(prefix) names \(base) alone")
            #expect(
                prefix.count == 6 || known.contains { $0 != base && ids.reminder($0).hasPrefix(String(prefix.dropLast())) },
                "no longer than needed"
            )
        }
    }
}
