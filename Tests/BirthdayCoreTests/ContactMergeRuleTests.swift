import Foundation
import Testing

@testable import BirthdayCore

/// ``ContactMerge/merge(_:into:)``: what a contact read again (an import, a
/// source's sync) keeps of the person already stored under its id.
@Suite struct ContactMergeRuleTests {
    private static let ada = EventDate(year: 1815, month: 12, day: 10)
    private static let wedding = EventDate(year: 1835, month: 7, day: 8)
    private static let week = ReminderDays([7, 1, 0])

    private static func person(file: String, birthday: EventDate? = nil, anniversary: EventDate? = nil) -> Person {
        Person(id: "ada", name: "Ada", source: ContactSource(file: file, index: 0, line: 1), birthday: birthday, anniversary: anniversary)
    }

    private static func hebrew(_ kind: EventKind, month: Int, day: Int) throws -> AlternateDate {
        AlternateDate(
            kind: kind,
            date: try #require(CalendarDate(calendar: .hebrew, era: nil, year: nil, month: month, isLeapMonth: false, day: day))
        )
    }

    private static func chinese(_ kind: EventKind, month: Int, day: Int) throws -> AlternateDate {
        AlternateDate(
            kind: kind,
            date: try #require(CalendarDate(calendar: .chinese, era: nil, year: nil, month: month, isLeapMonth: false, day: day))
        )
    }

    /// A stored row from `file` that holds everything a card can hold, and both of the user's choices.
    private static func stored(file: String) throws -> ContactMerge.Stored {
        ContactMerge.Stored(
            sourceFile: file,
            birthday: ada,
            anniversary: wedding,
            nickname: "Countess",
            deathDate: "1852-11-27",
            exclusion: Exclusion(card: true, choice: .include),
            reminderDays: week,
            alternateDates: [try hebrew(.birthday, month: 3, day: 1), try chinese(.anniversary, month: 5, day: 2)]
        )
    }

    @Test func fromAnotherFileNothingStoredIsErased() throws {
        let merged = ContactMerge.merge(Self.person(file: "phone.vcf"), into: try Self.stored(file: "laptop.vcf"))

        #expect(merged.birthday == Self.ada)
        #expect(merged.anniversary == Self.wedding)
        #expect(merged.nickname == "Countess")
        #expect(merged.deathDate == "1852-11-27")
        #expect(merged.exclusion.card)
        #expect(merged.alternateDates == [try Self.hebrew(.birthday, month: 3, day: 1), try Self.chinese(.anniversary, month: 5, day: 2)])
        // The birthday is still laptop.vcf's: that file speaks for the card, whichever was read last.
        #expect(merged.source.file == "laptop.vcf")
        let withoutYear = ContactMerge.merge(
            Self.person(file: "phone.vcf", birthday: EventDate(year: nil, month: 12, day: 10)),
            into: try Self.stored(file: "laptop.vcf")
        )
        #expect(withoutYear.source.file == "laptop.vcf")
        let ownBirthday = ContactMerge.merge(
            Self.person(file: "phone.vcf", birthday: EventDate(year: 1816, month: 1, day: 1)),
            into: try Self.stored(file: "laptop.vcf")
        )
        #expect(ownBirthday.source.file == "phone.vcf")
    }

    @Test func fromAnotherFileWhatTheContactSaysWins() throws {
        let other = EventDate(year: 1816, month: 1, day: 1)
        var incoming = Self.person(file: "phone.vcf", birthday: other)
        incoming.nickname = "Ada L."
        incoming.alternateDates = [try Self.hebrew(.birthday, month: 4, day: 9)]

        let merged = ContactMerge.merge(incoming, into: try Self.stored(file: "laptop.vcf"))

        #expect(merged.birthday == other)
        #expect(merged.anniversary == Self.wedding)
        #expect(merged.nickname == "Ada L.")
        // The contact's Hebrew birthday replaces the stored one; the stored Chinese anniversary stays.
        #expect(merged.alternateDates == [try Self.hebrew(.birthday, month: 4, day: 9), try Self.chinese(.anniversary, month: 5, day: 2)])
    }

    @Test func fromTheSameFileTheContactIsTheTruth() throws {
        let incoming = Self.person(file: "laptop.vcf", birthday: Self.ada)

        let merged = ContactMerge.merge(incoming, into: try Self.stored(file: "laptop.vcf"))

        #expect(merged.anniversary == nil)
        #expect(merged.nickname == "")
        #expect(merged.deathDate == nil)
        #expect(!merged.exclusion.card)
        #expect(merged.alternateDates.isEmpty)
    }

    @Test(arguments: ["laptop.vcf", "phone.vcf"])
    func theUsersChoicesOutlastEveryReading(file: String) throws {
        var incoming = Self.person(file: file, birthday: Self.ada)
        incoming.exclusion = Exclusion(card: false, choice: .exclude)
        incoming.reminderDays = ReminderDays([0])

        let merged = ContactMerge.merge(incoming, into: try Self.stored(file: "laptop.vcf"))

        #expect(merged.exclusion.choice == .include)
        #expect(merged.reminderDays == Self.week && Self.week != nil)
    }

    @Test func aStoredRowWithoutChoicesClearsNone() throws {
        let stored = ContactMerge.Stored(Self.person(file: "laptop.vcf", birthday: Self.ada))

        let merged = ContactMerge.merge(Self.person(file: "laptop.vcf", birthday: Self.ada), into: stored)

        #expect(merged == Self.person(file: "laptop.vcf", birthday: Self.ada))
    }
}

/// ``ContactMerge/cardID(_:file:birthday:held:)``: whose id a card without a
/// `UID` has when a card of the same name is held already (issue 43).
@Suite struct CardIDRuleTests {
    private static func date(_ year: Int?, _ month: Int, _ day: Int) throws -> EventDate {
        try #require(EventDate(year: year, month: month, day: day))
    }

    private static let john = ContactMerge.Derivation(key: "n:john smith", ordinal: 0)

    /// `cardID` of a card from `file` born `birthday` with `held` holding ids.
    private static func id(_ file: String, _ birthday: EventDate?, _ held: [String: ContactMerge.Holder]) -> String {
        ContactMerge.cardID(john, file: file, birthday: birthday) { held[$0] }
    }

    @Test func aNamesakeBornAnotherDayOrYearGetsAnIdOfTheirOwn() throws {
        let may1970 = try Self.date(1970, 5, 1)
        let held = [Self.john.id: ContactMerge.Holder(file: "google.csv", birthday: may1970)]
        #expect(Self.id("google.csv", may1970, [:]) == Self.john.id, "nobody holds it")
        #expect(Self.id("google.csv", try Self.date(1971, 9, 12), held) == Self.john.id, "the file speaks for its own card")
        let september = try Self.date(1980, 9, 12)
        let namesake = Self.id("outlook.csv", september, held)
        #expect(namesake == PersonID.namesake(of: Self.john.id, born: september, year: false))
        #expect(namesake.hasPrefix("c-") && namesake != Self.john.id)
        let sameDay = Self.id("outlook.csv", try Self.date(1980, 5, 1), held)
        #expect(sameDay != Self.john.id && sameDay != namesake, "the same day in another year is someone else")
        // Three of the name on one day: the third gets the id salted with the whole date.
        let third = try Self.date(2000, 5, 1)
        var three = held
        three[sameDay] = ContactMerge.Holder(file: "outlook.csv", birthday: try Self.date(1980, 5, 1))
        #expect(Self.id("phone.vcf", third, three) == PersonID.namesake(of: Self.john.id, born: third, year: true))
    }

    @Test func aCardWhoseBirthdayAgreesIsTheSameCardExportedAgain() throws {
        let may1970 = try Self.date(1970, 5, 1)
        let september = try Self.date(1980, 9, 12)
        let namesake = PersonID.namesake(of: Self.john.id, born: september, year: false)
        let held = [
            Self.john.id: ContactMerge.Holder(file: "google.csv", birthday: may1970),
            namesake: ContactMerge.Holder(file: "outlook.csv", birthday: september),
        ]
        #expect(Self.id("google (1).csv", may1970, held) == Self.john.id)
        #expect(Self.id("google (1).csv", try Self.date(nil, 5, 1), held) == Self.john.id, "a year on one side only")
        #expect(Self.id("outlook-2.csv", september, held) == namesake)
        #expect(Self.id("phone.vcf", try Self.date(nil, 9, 12), held) == namesake)
        #expect(Self.id("phone.vcf", nil, held) == Self.john.id, "a card without a birthday contradicts no one")
        // Its own file's card first, even once another file's card of the name has its date.
        let corrected = [Self.john.id: ContactMerge.Holder(file: "google.csv", birthday: september), namesake: try #require(held[namesake])]
        #expect(Self.id("outlook.csv", september, corrected) == namesake)
    }

    /// The store's cards, by id, as ``ContactMerge/Holders`` reads them (every card named John Smith).
    private static func holders(_ stored: [String: ContactMerge.Holder]) -> ContactMerge.Holders {
        ContactMerge.Holders(
            stored: { stored[$0] },
            inFile: { file, key in key == john.key ? stored.filter { $0.value.file == file }.map(\.key) : [] }
        )
    }

    private static func card(_ file: String, _ birthday: EventDate?, ordinal: Int = 0) -> ContactMerge.Card {
        ContactMerge.Card(ContactMerge.Derivation(key: john.key, ordinal: ordinal), file: file, birthday: birthday)
    }

    @Test func anUndatedCardKeepsTheNamesakeIdItsFileHolds() throws {
        let september = try Self.date(1980, 9, 12)
        let namesake = PersonID.namesake(of: Self.john.id, born: september, year: false)
        let stored = [
            Self.john.id: ContactMerge.Holder(file: "a.csv", birthday: try Self.date(1980, 5, 1)),
            namesake: ContactMerge.Holder(file: "b.csv", birthday: september),
        ]
        // The date deleted at the source: still b.csv's John, not a.csv's.
        #expect(ContactMerge.ids(of: [Self.card("b.csv", nil)], holders: Self.holders(stored)) == [namesake])
        // And once the store holds the card without its date, and when the date comes back.
        var undated = stored
        undated[namesake]?.birthday = nil
        #expect(ContactMerge.ids(of: [Self.card("b.csv", nil)], holders: Self.holders(undated)) == [namesake])
        #expect(ContactMerge.ids(of: [Self.card("b.csv", september)], holders: Self.holders(undated)) == [namesake])
        // Its date corrected: still its card.
        #expect(ContactMerge.ids(of: [Self.card("b.csv", try Self.date(1980, 9, 13))], holders: Self.holders(stored)) == [namesake])
        // Another file's card without a date is still the card of the name.
        #expect(ContactMerge.ids(of: [Self.card("phone.vcf", nil)], holders: Self.holders(stored)) == [Self.john.id])
        // A card with a `UID` of the name in the same file is not the card without one.
        let withUID = ["john-uid": ContactMerge.Holder(file: "solo.vcf", birthday: try Self.date(1990, 1, 2))]
        #expect(ContactMerge.ids(of: [Self.card("solo.vcf", nil)], holders: Self.holders(withUID)) == [Self.john.id])
    }

    @Test func theStoredCardOfTheSameFileIsFoundWhateverTheOrderOfTheRun() throws {
        let stored = [Self.john.id: ContactMerge.Holder(file: "a.csv", birthday: try Self.date(1980, 5, 1))]
        // a.csv's John corrected to 05-02; the phone's John still says 05-01.
        let own = Self.card("a.csv", try Self.date(1980, 5, 2))
        let phone = Self.card("phone.vcf", try Self.date(1980, 5, 1))
        let phoneFirst = ContactMerge.ids(of: [phone, own], holders: Self.holders(stored))
        let ownFirst = ContactMerge.ids(of: [own, phone], holders: Self.holders(stored))
        #expect(phoneFirst[1] == Self.john.id, "a.csv speaks for its card")
        #expect(phoneFirst == [ownFirst[1], ownFirst[0]])
    }

    @Test func aCardAgreeingWithAnotherOrdinalOfItsNameIsThatCard() throws {
        let second = ContactMerge.Derivation(key: Self.john.key, ordinal: 1)
        let september = try Self.date(1980, 9, 12)
        let stored = [
            Self.john.id: ContactMerge.Holder(file: "a.csv", birthday: try Self.date(1970, 5, 1)),
            second.id: ContactMerge.Holder(file: "a.csv", birthday: september),
        ]
        #expect(ContactMerge.ids(of: [Self.card("b.csv", september)], holders: Self.holders(stored)) == [second.id])
        #expect(ContactMerge.ids(of: [Self.card("b.csv", try Self.date(nil, 9, 12))], holders: Self.holders(stored)) == [second.id])
        // Nobody of the name born that day: someone else.
        let other = ContactMerge.ids(of: [Self.card("b.csv", try Self.date(1990, 1, 2))], holders: Self.holders(stored))
        #expect(other != [Self.john.id] && other != [second.id])
    }
}
