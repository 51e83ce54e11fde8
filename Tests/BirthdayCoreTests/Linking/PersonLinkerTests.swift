import Foundation
import Testing

@testable import BirthdayCore

/// ``PersonLinker``, rule by rule: which cards are one person on their own,
/// which are suggested, which stay apart, and whose date a person has.
@Suite struct PersonLinkerTests {
    static func card(
        _ source: String,
        _ id: String,
        _ name: String,
        nickname: String = "",
        uid: String? = nil,
        emails: [String] = [],
        phones: [String] = [],
        _ birthday: String? = nil,
        changed: TimeInterval? = nil
    ) -> LinkCard {
        LinkCard(
            key: LinkCard.Key(source: source, id: id),
            uid: uid,
            name: name,
            nickname: nickname,
            emails: emails,
            phones: phones,
            birthday: birthday.flatMap(date),
            changed: changed.map { Date(timeIntervalSince1970: $0) }
        )
    }

    /// `1990-05-01`, or `--05-01` without a year.
    static func date(_ text: String) -> EventDate? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: true).compactMap { Int($0) }
        return parts.count == 3 ? EventDate(year: parts[0], month: parts[1], day: parts[2]) : EventDate(year: nil, month: parts[0], day: parts[1])
    }

    /// The groups as sets of card ids, for comparing without caring for order.
    static func people(_ result: LinkResult, _ cards: [LinkCard]) -> Set<Set<String>> {
        Set(result.groups.map { Set($0.cards.map { cards[$0].key.id }) })
    }

    static func linked(_ cards: [LinkCard], exceptions: [LinkException] = []) -> Set<Set<String>> {
        people(PersonLinker(exceptions: exceptions).link(cards), cards)
    }

    // MARK: Keys

    @Test(arguments: ["+44 20 7946 0958", "+442079460958", "tel:+44-20-7946-0958", "TEL:+44 (20) 7946-0958", "020 7946 0958", "0044 20 7946 0958"])
    func phoneFormatsAreOneNumber(_ written: String) throws {
        let key = try #require(LinkKeys.phone(written))
        let reference = try #require(LinkKeys.phone("+44 20 7946 0958"))
        #expect(key.matches(reference))
    }

    @Test func phonesWithOtherCountryCodesOrFewDigitsAreNotOne() throws {
        let london = try #require(LinkKeys.phone("+44 20 7946 0958"))
        let elsewhere = try #require(LinkKeys.phone("+33 20 7946 0958"))
        #expect(!london.matches(elsewhere), "both written with their country code: every digit counts")
        #expect(try !london.matches(#require(LinkKeys.phone("+44 20 7946 0959"))))
        #expect(LinkKeys.phone("112") == nil)
        #expect(LinkKeys.phone("tel:7946;ext=0958") == nil, "an extension is not part of the number")
    }

    @Test func emailsAreCompareInLowerCase() {
        #expect(LinkKeys.email(" Ada.Lovelace@Example.ORG ") == "ada.lovelace@example.org")
        #expect(LinkKeys.email("mailto:ADA@example.org") == "ada@example.org")
        #expect(LinkKeys.email("ada") == nil)
        #expect(LinkKeys.email("@example.org") == nil)
    }

    @Test(arguments: [
        ("Ada Lovelace", "lovelace ADA"),
        ("Ada Lovelace", "Lovelace, Ada"),
        ("Zoë Müller", "Zoe Muller"),
        ("Søren Østergaard", "Soren Ostergaard"),
        ("Ægir Þórsson", "Aegir Thorsson"),
        ("Łukasz Kowalski", "Lukasz Kowalski"),
        ("Nguyễn Đức", "Nguyen Duc"),
        ("Ελένη Παπαδόπουλος", "ελενη παπαδοπουλος"),
        ("Tim Berners-Lee", "Tim Berners Lee"),
        ("Tim O'Brien", "Tim OBrien"),
        ("Tim O\u{2019}Brien, Jr.", "tim o'brien jr"),
        ("Renée M. Dupont", "Renee M Dupont"),
        ("ＡＤＡ Lovelace", "Ada Lovelace"),
    ])
    func namesAgreeAsSetsOfFoldedWords(_ a: String, _ b: String) {
        #expect(LinkName(a).agreement(with: LinkName(b)) == .same(shared: LinkName(a).words.count), "\(LinkName(a).words) \(LinkName(b).words)")
    }

    @Test func aMiddleInitialMayBeLeftOutButNotChanged() {
        let full = LinkName("Ada M. Lovelace")
        #expect(full.initials == ["m"])
        #expect(full.agreement(with: LinkName("Ada Lovelace")) == .similar(shared: 2))
        #expect(full.agreement(with: LinkName("Ada Mary Lovelace")) == .similar(shared: 2), "the initial stands for the word")
        #expect(full.agreement(with: LinkName("Ada K. Lovelace")) == nil)
        #expect(LinkName("Ada Byron Lovelace").agreement(with: LinkName("Ada Lovelace")) == nil, "a whole word on one side only is someone else")
        #expect(LinkName("Mary Smith").agreement(with: LinkName("Jane Smith")) == nil)
        #expect(LinkName("李 王芳").initials.isEmpty, "a letter without case is a word, not an initial")
    }

    @Test func datesAgreeWhenEqualOrAYearIsMissing() throws {
        let known = try #require(Self.date("1990-05-01"))
        #expect(DateAgreement(known, Self.date("1990-05-01")) == .same)
        #expect(DateAgreement(known, Self.date("--05-01")) == .sameDay)
        #expect(DateAgreement(Self.date("--05-01"), Self.date("--05-01")) == .sameDay)
        #expect(DateAgreement(known, nil) == .oneUndated)
        #expect(DateAgreement(nil, nil) == .bothUndated)
        #expect(DateAgreement(known, Self.date("1991-05-01")) == .conflict)
        #expect(DateAgreement(known, Self.date("--05-10")) == .conflict)
    }

    // MARK: Linked on their own

    @Test func theSameUIDIsOneCardWhateverItSays() {
        let cards = [
            Self.card("icloud", "a", "Ada Lovelace", uid: "urn:uuid:0A0B", "1815-12-10"),
            Self.card("nextcloud", "b", "Augusta King", uid: "0a0b", "1816-12-10"),
        ]
        let result = PersonLinker().link(cards)
        #expect(result.groups.count == 1)
        #expect(result.groups.first?.evidence == [.uid])
    }

    @Test func aSharedPhoneInOtherFormatsWithTheSameNameLinks() {
        let cards = [
            Self.card("google", "g", "Ada Lovelace", phones: ["+44 20 7946 0958"], "1815-12-10"),
            Self.card("icloud", "i", "Lovelace Ada", phones: ["+442079460958"], "1815-12-10"),
            Self.card("nextcloud", "n", "ADA LOVELACE", phones: ["tel:+44-20-7946-0958"], "1815-12-10"),
        ]
        let result = PersonLinker().link(cards)
        #expect(Self.people(result, cards) == [["g", "i", "n"]])
        #expect(result.groups.first?.evidence == [.phone])
        #expect(result.suggestions.isEmpty)
    }

    @Test func aSharedEmailInOtherCaseWithAccentsDroppedLinks() {
        let cards = [
            Self.card("google", "g", "Zoë Müller", emails: ["Zoe.Muller@Example.org"], "1990-05-01"),
            Self.card("icloud", "i", "Zoe Muller", emails: ["zoe.muller@example.org"], "1990-05-01"),
        ]
        #expect(Self.linked(cards) == [["g", "i"]])
    }

    @Test func aMiddleInitialOrAYearOnOneSideOnlyStillLinks() {
        let cards = [
            Self.card("google", "g", "Ada M. Lovelace", emails: ["ada@example.org"], "1815-12-10"),
            Self.card("icloud", "i", "Ada Lovelace", emails: ["ADA@example.org"], "--12-10"),
            Self.card("nextcloud", "n", "Ada Lovelace", emails: ["ada@example.org"]),
        ]
        #expect(Self.linked(cards) == [["g", "i", "n"]], "a card without a birthday contradicts nothing")
    }

    @Test func aNicknameTheCardCarriesStandsForItsName() {
        let robert = Self.card("icloud", "i", "Robert Smith", nickname: "Bob", phones: ["+1 555 010 0001"], "1970-01-02")
        let bob = Self.card("google", "g", "Bob Smith", phones: ["+1-555-010-0001"], "1970-01-02")
        #expect(Self.linked([robert, bob]) == [["i", "g"]])
        var plain = robert
        plain.nickname = ""
        #expect(Self.linked([plain, bob]) == [["i"], ["g"]], "without the nickname, Bob is another name")
    }

    @Test func twinsWithTheSameBirthdayAndPhoneStayTwo() {
        let cards = [
            Self.card("google", "mary", "Mary Smith", phones: ["+1 555 010 0002"], "2001-03-04"),
            Self.card("google", "jane", "Jane Smith", phones: ["+1 555 010 0002"], "2001-03-04"),
        ]
        let result = PersonLinker().link(cards)
        #expect(result.groups.count == 2)
        #expect(result.suggestions.isEmpty)
    }

    @Test func aFamilyEmailLinksNoOneWithAnotherNameOrDate() {
        let cards = [
            Self.card("google", "father", "John Smith", emails: ["smiths@example.org"], "1960-07-08"),
            Self.card("icloud", "son", "John Smith", emails: ["smiths@example.org"], "1990-02-03"),
            Self.card("icloud", "mother", "Anna Smith", emails: ["smiths@example.org"], "1962-09-10"),
        ]
        let result = PersonLinker().link(cards)
        #expect(result.groups.count == 3)
        #expect(result.suggestions.isEmpty)
    }

    @Test func theSameNameAndDayDecadesApartStaysTwoEvenWithAnAddressShared() {
        let cards = [
            Self.card("google", "grandmother", "Ada Lovelace", emails: ["lovelaces@example.org"], "1955-12-10"),
            Self.card("icloud", "granddaughter", "Ada Lovelace", emails: ["lovelaces@example.org"], "1985-12-10"),
        ]
        let result = PersonLinker().link(cards)
        #expect(result.groups.count == 2)
        #expect(result.suggestions.isEmpty)
    }

    @Test func namesakesOnOtherDaysStayTwoAndAreNotSuggested() {
        let cards = [Self.card("google", "a", "Ada Lovelace", "1815-12-10"), Self.card("icloud", "b", "Ada Lovelace", "1815-12-11")]
        let result = PersonLinker().link(cards)
        #expect(result.groups.count == 2)
        #expect(result.suggestions.isEmpty)
    }

    @Test(arguments: [("1990-05-01", "1991-05-01"), ("--05-01", "--05-10"), ("1990-05-01", "--05-10")])
    func cardsThatDisagreeOnTheDateAreNotLinkedOnTheirOwn(_ a: String, _ b: String) {
        let cards = [
            Self.card("google", "g", "Ada Lovelace", emails: ["ada@example.org"], a),
            Self.card("icloud", "i", "Ada Lovelace", emails: ["ada@example.org"], b),
        ]
        let result = PersonLinker().link(cards)
        #expect(result.groups.count == 2)
        #expect(result.suggestions.isEmpty)
    }

    @Test func aThirdCardDoesNotJoinTwoBirthdaysThatDisagree() {
        // A and C disagree on the year; B, without one, shares an address with each.
        let cards = [
            Self.card("google", "a", "Ada Lovelace", emails: ["ada@example.org"], "1990-05-01"),
            Self.card("icloud", "b", "Ada Lovelace", emails: ["ada@example.org"], phones: ["+1 555 010 0003"], "--05-01"),
            Self.card("nextcloud", "c", "Ada Lovelace", phones: ["+1 555 010 0003"], "1991-05-01"),
        ]
        let groups = Self.linked(cards)
        #expect(groups == [["a", "b"], ["c"]], "the e-mail is tried before the phone; then C contradicts the person")
        #expect(Self.linked(cards.reversed()) == groups, "the order of the cards does not matter")
    }

    @Test func anAddressSharedByManyIsNoEvidence() {
        let cards = (0..<40).map { Self.card("google", "c\($0)", "Ada Lovelace", emails: ["office@example.org"]) }
        #expect(PersonLinker().link(cards).groups.count == 40)
        #expect(PersonLinker(sharedLimit: 64).link(cards).groups.count == 1)
    }

    // MARK: Who may be linked

    /// A crowd with every kind of evidence and every way it fails: shared and
    /// over-shared addresses, numbers written two ways, names that disagree,
    /// birthdays that contradict, a `UID` held twice, decisions both ways.
    static func crowd() -> (cards: [LinkCard], exceptions: [LinkException]) {
        let names = ["Ada Lovelace", "Ada M. Lovelace", "Grace Hopper", "Alan Turing", "Lovelace, Ada", "Ada Byron Lovelace"]
        let dates = [nil, "1815-12-10", "--12-10", "1816-12-10", "1906-12-09"]
        var cards: [LinkCard] = []
        for n in 0..<240 {
            let email = n % 3 == 0 ? ["p\(n % 37)@example.org"] : n % 5 == 0 ? ["office@example.org"] : []
            let phone = n % 4 == 0 ? [n % 8 == 0 ? "+44 20 7946 \(1000 + n % 29)" : "020 7946 \(1000 + n % 29)"] : []
            cards.append(
                Self.card(
                    ["google", "icloud", "vdir"][n % 3],
                    "id\(n)",
                    names[(n * 7) % names.count],
                    uid: n % 50 == 7 ? "SHARED-UID" : n % 2 == 0 ? "uid-\(n)" : nil,
                    emails: email,
                    phones: phone,
                    dates[(n * 5 / 3) % dates.count]
                )
            )
        }
        let exceptions = [
            LinkException(.keepTogether, cards[1].key, cards[2].key),
            LinkException(.keepTogether, cards[11].key, cards[200].key),
            LinkException(.keepSeparate, cards[0].key, cards[3].key),
            LinkException(.keepSeparate, cards[6].key, cards[42].key),
        ]
        return (cards, exceptions)
    }

    @Test func linkingOnlyTheCardsThatMayLinkGroupsThemAsLinkingEveryone() {
        let (cards, exceptions) = Self.crowd()
        let linker = PersonLinker(exceptions: exceptions)
        let scope = linker.mayLink(cards)
        let all = Self.people(linker.link(cards), cards)
        let some = Self.people(linker.link(scope.map { cards[$0] }), scope.map { cards[$0] })
        let inScope = Set(scope.map { cards[$0].key.id })
        #expect(all.filter { $0.count > 1 }.count > 10, "the crowd has people of several cards")
        #expect(scope.count < cards.count, "and cards that can be no one else")
        #expect(all.filter { $0.count > 1 }.allSatisfy { $0.isSubset(of: inScope) }, "every card of a person of several is in scope")
        #expect(some.filter { $0.count > 1 } == all.filter { $0.count > 1 }, "and they are grouped as among everyone")
        #expect(scope == scope.sorted())
    }

    /// ``PersonLinker/mayLink(_:)`` groups keys by their hashes; keys whose
    /// hashes are alike but texts differ are never taken for one: with every
    /// hash made the same, the answer is the one of the real hashes.
    @Test func keysWhoseHashesCollideAreToldApartByTheirTexts() {
        let (cards, exceptions) = Self.crowd()
        for linker in [PersonLinker(), PersonLinker(exceptions: exceptions), PersonLinker(sharedLimit: 2)] {
            let scope = linker.mayLink(cards)
            #expect(scope.count > 10 && scope.count < cards.count)
            #expect(linker.mayLink(cards, hashMask: 0) == scope, "every UID and every address hashed alike")
            #expect(linker.mayLink(cards, hashMask: 1) == scope, "half of them alike")
        }
        // Alone on their cards, one address, one UID and one number each: only the number is shared.
        let few = [
            Self.card("google", "a", "Ada Lovelace", uid: "U-1", emails: ["ada@example.org"], phones: ["+44 20 7946 0958"]),
            Self.card("icloud", "b", "Grace Hopper", uid: "u-2", emails: ["grace@example.org"]),
            Self.card("vdir", "c", "Alan Turing", uid: "u-3", phones: ["020 7946 0958"]),
        ]
        #expect(PersonLinker().mayLink(few, hashMask: 0) == [0, 2])
        #expect(PersonLinker().mayLink(few) == [0, 2])
    }

    /// ``PersonLinker/mayLink(_:distinctUIDs:)`` leaves the `UID`s out only
    /// when no two can be the same as compared: distinct texts that differ
    /// only in case, or in a `urn:uuid:` prefix, are still one `UID`.
    @Test(arguments: [
        ["uid-1", "UID-1"], ["uid-1", "urn:uuid:uid-1"], ["uid 1", "uid_1"],
        ["2265b1f5-91b7-4d8f-8cd6-1027c386bbc4", "2265B1F5-91B7-4D8F-8CD6-1027C386BBC4"],
    ])
    func distinctUIDTextsThatAreOneUIDStillLink(_ uids: [String]) {
        let cards = [
            Self.card("google", uids[0], "Ada Lovelace", uid: uids[0]),
            Self.card("google", "lone", "Grace Hopper", uid: "lone"),
            Self.card("icloud", uids[1], "Ada Lovelace", uid: uids[1]),
        ]
        let expected = uids[0] == "uid 1" ? [Int]() : [0, 2]
        #expect(PersonLinker().mayLink(cards) == expected)
        #expect(PersonLinker().mayLink(cards, distinctUIDs: true) == expected)
        let people = Self.people(PersonLinker().link(cards, distinctUIDs: true), cards)
        #expect(people.contains([uids[0], uids[1]]) == !expected.isEmpty)
    }

    /// With `distinctUIDs` and every `UID` in the form it is compared in,
    /// the answer is the one of hashing every `UID` (the crowd's, made distinct).
    @Test func distinctUIDsInTheirComparedFormAreLeftOut() {
        var (cards, exceptions) = Self.crowd()
        for index in cards.indices where cards[index].uid != nil { cards[index].uid = "uid-\(index)" }
        #expect(PersonLinker.isComparedForm("2265b1f5-91b7-4d8f-8cd6-1027c386bbc4"))
        #expect(!PersonLinker.isComparedForm("2265B1F5") && !PersonLinker.isComparedForm("") && !PersonLinker.isComparedForm("a:b"))
        #expect(!PersonLinker.isComparedForm(String(repeating: "a", count: 97)) && PersonLinker.isComparedForm(String(repeating: "a", count: 96)))
        for linker in [PersonLinker(), PersonLinker(exceptions: exceptions), PersonLinker(sharedLimit: 2)] {
            let scope = linker.mayLink(cards)
            #expect(scope.count > 10 && scope.count < cards.count)
            #expect(linker.mayLink(cards, distinctUIDs: true) == scope)
            #expect(linker.mayLink(cards, hashMask: 0, distinctUIDs: true) == scope, "every address hashed alike")
            let result = linker.link(cards)
            let left = linker.link(cards, distinctUIDs: true)
            #expect(Self.people(left, cards) == Self.people(result, cards))
            #expect(left.suggestions.map(\.groups) == result.suggestions.map(\.groups))
        }
    }

    /// ``PersonLinker/link(_:)`` prepares the addresses of the cards that
    /// hold one another card holds, however many hold it: an address held by
    /// more than the limit stays no evidence when only some of its holders
    /// also share a `UID`.
    @Test func anAddressHeldByTooManyStaysNoEvidenceWhenSomeOfItsHoldersShareAUID() throws {
        let cards = [
            Self.card("google", "a", "Ada Lovelace", uid: "ada", emails: ["office@example.org"]),
            Self.card("icloud", "b", "Ada Lovelace", uid: "ADA", emails: ["office@example.org"]),
            Self.card("vdir", "c", "Ada Lovelace", emails: ["office@example.org"]),
        ]
        let result = PersonLinker(sharedLimit: 2).link(cards)
        let linked = try #require(result.groups.first { $0.cards.count > 1 })
        #expect(linked.cards == [0, 1])
        #expect(linked.evidence == [.uid], "three hold the address, over the limit of two")
        #expect(PersonLinker(sharedLimit: 3).link(cards).groups.first?.evidence == [.uid, .email])
    }

    /// ``PersonID/fromUID(_:)`` drops a `urn:uuid:` written in any case, and only that.
    @Test(
        arguments: [
            ("urn:uuid:0A0B", "0A0B"), ("URN:UUID:0A0B", "0A0B"), ("Urn:Uuid:x-1", "x-1"), ("urn:uuid", "urn_uuid-"),
            ("urn:uuix:1", "urn_uuix_1-"), ("urn\u{1A}uuid:1", "urn_uuid_1-"),
        ] as [(String, String)]
    )
    func aUIDsURNPrefixIsDroppedInAnyCase(_ uid: String, _ id: String) throws {
        let made = try #require(PersonID.fromUID(uid))
        #expect(made == id || (made.hasPrefix(id) && id.hasSuffix("-")), "\(uid): \(made)")
    }

    /// The tail ``PersonLinker/mayLink(_:)`` groups numbers by is the key's
    /// tail: the same for two numbers exactly when theirs is, `nil` when the key is.
    @Test func aPhonesTailIsTheKeysTail() {
        let written = [
            "+44 20 7946 0958", "020 7946 0958", "tel:+44-20-7946-0958", " 0044 20 7946 0958", "7946 0958", "946 0958", "0946 0958",
            "1234567", "01234567", "001234567", "0012345678", "00123456789", "+1 555 010 0003;ext=12", "555 0100", "12 34", "", "tel:",
            "\t+33 1 23 45 67 89", "(0)123-456", "+49 (0) 30 1234 5678",
        ]
        for a in written {
            #expect((LinkKeys.phoneTail(a) == nil) == (LinkKeys.phone(a) == nil), "\(a)")
            for b in written {
                let same = LinkKeys.phone(a).map { String($0.tail) } == LinkKeys.phone(b).map { String($0.tail) }
                #expect(LinkKeys.phoneTail(a) == LinkKeys.phoneTail(b) || LinkKeys.phoneTail(a) == nil || !same, "\(a) \(b)")
                #expect(LinkKeys.phoneTail(a) != LinkKeys.phoneTail(b) || same, "\(a) \(b)")
            }
        }
    }

    @Test(
        arguments: [
            ("ada@example.org", "ada@example.org"), ("Ada@Example.org", "ada@example.org"), (" ada@example.org ", "ada@example.org"),
            ("mailto:ada@example.org", "ada@example.org"), ("MAILTO:Ada@example.org", "ada@example.org"), ("@example.org", nil),
            ("ada@", nil), ("ada", nil), ("åsa@example.org", "åsa@example.org"), ("Åsa@example.org", "åsa@example.org"),
        ] as [(String, String?)]
    )
    func anAddressIsComparedLowerCasedWithoutMailto(_ written: String, _ compared: String?) {
        #expect(LinkKeys.email(written) == compared)
    }

    @Test func aKeepTogetherAndASharedUIDBringCardsIntoScope() {
        let cards = [
            Self.card("google", "a", "Ada Lovelace"),
            Self.card("icloud", "b", "Grace Hopper"),
            Self.card("vdir", "c", "Ada Lovelace", uid: "urn:uuid:X-1"),
            Self.card("google", "d", "Ada Lovelace", uid: "x-1"),
            Self.card("google", "e", "Ada Lovelace", emails: ["office@example.org"]),
        ]
        #expect(PersonLinker().mayLink(cards) == [2, 3], "one UID written two ways")
        #expect(PersonLinker(exceptions: [LinkException(.keepTogether, cards[0].key, cards[1].key)]).mayLink(cards) == [0, 1, 2, 3])
        #expect(PersonLinker(exceptions: [LinkException(.keepSeparate, cards[0].key, cards[1].key)]).mayLink(cards) == [2, 3])
        let office = (0..<3).map { Self.card("google", "o\($0)", "Someone", emails: ["Office@Example.org"]) }
        #expect(PersonLinker(sharedLimit: 2).mayLink(cards + office).count == 2, "an address held by more than the limit links no one")
        #expect(PersonLinker().mayLink(cards + office) == [2, 3, 4, 5, 6, 7])
    }

    // MARK: Suggested

    @Test func theSameNameAndBirthdayWithoutAnAddressIsSuggested() {
        let cards = [
            Self.card("google", "g", "Ada Lovelace", "1815-12-10"),
            Self.card("icloud", "i", "Lovelace, Ada", "1815-12-10"),
            Self.card("nextcloud", "n", "Grace Hopper", "--12-09"),
            Self.card("icloud", "h", "Grace Hopper", "1906-12-09"),
            Self.card("google", "k", "Ada K. Lovelace", "1815-12-10"),
        ]
        let result = PersonLinker().link(cards)
        #expect(result.groups.count == 5, "nothing is linked on its own")
        let suggested = result.suggestions.map { suggestion in
            (Set(suggestion.groups.flatMap { result.groups[$0].cards }.map { cards[$0].key.id }), suggestion.reason)
        }
        #expect(suggested.count == 2)
        #expect(suggested.first?.0 == ["g", "i", "k"])
        #expect(suggested.first?.1 == .similarNameSameBirthday, "the least certain pair names the suggestion")
        #expect(suggested.last?.0 == ["n", "h"])
        #expect(suggested.last?.1 == .sameNameSameDay)
    }

    @Test func suggestionsComeMostCertainFirst() {
        let cards = [
            Self.card("google", "a1", "Alan Turing", "--06-23"),
            Self.card("icloud", "a2", "Alan Turing", "1912-06-23"),
            Self.card("google", "b1", "Barbara Liskov", "1939-11-07"),
            Self.card("icloud", "b2", "Barbara J. Liskov", "1939-11-07"),
            Self.card("google", "c1", "Carl Sagan", "1934-11-09"),
            Self.card("icloud", "c2", "Sagan Carl", "1934-11-09"),
        ]
        let result = PersonLinker().link(cards)
        #expect(result.suggestions.map(\.reason) == [.sameNameSameBirthday, .similarNameSameBirthday, .sameNameSameDay])
    }

    @Test func aCardThatWouldJoinTwoPeopleWhoDisagreeIsNotSuggested() {
        let cards = [
            Self.card("google", "old", "Ada Lovelace", "1815-12-10"),
            Self.card("google", "young", "Ada Lovelace", "1845-12-10"),
            Self.card("icloud", "either", "Ada Lovelace", "--12-10"),
        ]
        #expect(PersonLinker().link(cards).suggestions.isEmpty, "which one it is would be a guess")
    }

    @Test func aNicknameOnOneCardBridgesTheOthersOfASuggestion() {
        let cards = [
            Self.card("icloud", "nick", "José Smith", nickname: "Pepe", "1980-01-02"),
            Self.card("google", "called", "Pepe Smith", "1980-01-02"),
            Self.card("nextcloud", "plain", "Jose Smith", "--01-02"),
        ]
        let result = PersonLinker().link(cards)
        #expect(result.suggestions == [LinkSuggestion(groups: [0, 1, 2], reason: .sameNameSameDay)], "named by its least certain pair")
    }

    @Test func twoMiddleInitialsThatDisagreeAreNotSuggestedThroughAThirdName() {
        let cards = [
            Self.card("icloud", "m", "Ada M. Lovelace", "1815-12-10"),
            Self.card("google", "plain", "Ada Lovelace", "1815-12-10"),
            Self.card("nextcloud", "k", "Ada K. Lovelace", "1815-12-10"),
        ]
        #expect(PersonLinker().link(cards).suggestions.isEmpty)
    }

    @Test func aNameOfOneWordIsNotSuggested() {
        let cards = [Self.card("google", "a", "Mom", "--05-01"), Self.card("icloud", "b", "Mom", "--05-01")]
        #expect(PersonLinker().link(cards).suggestions.isEmpty)
        let linked = [
            Self.card("google", "a", "Mom", phones: ["+1 555 010 0004"], "--05-01"), Self.card("icloud", "b", "mom", phones: ["5550100004"]),
        ]
        #expect(Self.linked(linked) == [["a", "b"]], "a shared number links it")
    }

    // MARK: Remembered decisions

    @Test func keepSeparateWinsOverEveryEvidenceAndSuggestion() {
        let a = LinkCard.Key(source: "google", id: "a")
        let b = LinkCard.Key(source: "icloud", id: "b")
        let cards = [
            Self.card("google", "a", "Ada Lovelace", uid: "same", emails: ["ada@example.org"], "1815-12-10"),
            Self.card("icloud", "b", "Ada Lovelace", uid: "same", emails: ["ada@example.org"], "1815-12-10"),
        ]
        let result = PersonLinker(exceptions: [LinkException(.keepSeparate, b, a)]).link(cards)
        #expect(result.groups.count == 2)
        #expect(result.suggestions.isEmpty)
        var plain = cards
        plain[0].uid = nil
        plain[1].uid = nil
        plain[0].emails = []
        #expect(PersonLinker(exceptions: [LinkException(.keepSeparate, a, b)]).link(plain).suggestions.isEmpty)
        #expect(PersonLinker().link(plain).suggestions.count == 1)
    }

    @Test func keepTogetherLinksCardsThatDisagreeAndCarriesOthersAlong() {
        let cards = [
            Self.card("google", "a", "Ada Lovelace", "1990-05-01"),
            Self.card("icloud", "b", "A. Byron", phones: ["+1 555 010 0005"], "1991-05-01"),
            Self.card("nextcloud", "c", "Ada Byron", phones: ["+15550100005"], "1991-05-01"),
        ]
        let together = LinkException(.keepTogether, cards[0].key, cards[1].key)
        let result = PersonLinker(exceptions: [together]).link(cards)
        #expect(Self.people(result, cards) == [["a", "b"], ["c"]], "c agrees with b but contradicts a, of the same person: it is not pulled in")
        #expect(result.groups.first?.evidence == [.byHand])
        let both = PersonLinker(exceptions: [together, LinkException(.keepTogether, cards[2].key, cards[0].key)]).link(cards)
        #expect(both.groups.count == 1)
        #expect(both.groups.first?.evidence == [.byHand, .phone])
    }

    @Test func exceptionsNamingCardsNoLongerThereAreIgnored() {
        let cards = [Self.card("google", "a", "Ada Lovelace", "1815-12-10")]
        let gone = LinkCard.Key(source: "icloud", id: "gone")
        let result = PersonLinker(exceptions: [LinkException(.keepTogether, cards[0].key, gone), LinkException(.keepSeparate, gone, cards[0].key)])
            .link(cards)
        #expect(result.groups == [LinkGroup(cards: [0], evidence: [])])
    }

    // MARK: The person's date

    @Test func theDateIsTheCardsWithAYearThenTheNewestThenTheChosenSource() throws {
        let cards = [
            Self.card("google", "a", "Ada", "--05-01", changed: 300),
            Self.card("icloud", "b", "Ada", "1990-05-01", changed: 100),
            Self.card("nextcloud", "c", "Ada", "1991-05-01", changed: 200),
            Self.card("vdir", "d", "Ada"),
        ]
        let choice = try #require(PersonLinker.birthday(of: cards))
        #expect(choice.card == 2, "a year over none, then the most recently changed")
        #expect(choice.date == Self.date("1991-05-01"))
        #expect(choice.disagreement)
        #expect(PersonLinker.birthday(of: cards, preferring: "icloud")?.card == 1)
        #expect(PersonLinker.birthday(of: cards, preferring: "google")?.card == 0)
        #expect(PersonLinker.birthday(of: cards, preferring: "vdir")?.card == 2, "a source without a date chooses nothing")
        #expect(PersonLinker.birthday(of: [cards[0], cards[1]])?.disagreement == false, "a missing year is no disagreement")
        #expect(PersonLinker.birthday(of: [cards[3]]) == nil)
    }

    /// `show` says which rule chose the date over the cards that say otherwise: the last rule needed.
    @Test func theChoiceSaysWhichRuleChoseTheDate() {
        let newest = [Self.card("icloud", "b", "Ada", "1990-05-01", changed: 100), Self.card("nextcloud", "c", "Ada", "1991-05-01", changed: 200)]
        #expect(PersonLinker.birthday(of: newest)?.reason == .changed)
        #expect(PersonLinker.birthday(of: newest, preferring: "icloud")?.reason == .dateFrom)
        let year = [Self.card("icloud", "b", "Ada", "--05-10", changed: 300), Self.card("nextcloud", "c", "Ada", "1991-05-01", changed: 200)]
        #expect(PersonLinker.birthday(of: year)?.reason == .year, "05-01 against 05-10: the card with a year")
        let tie = [Self.card("nextcloud", "c", "Ada", "1991-05-01"), Self.card("icloud", "b", "Ada", "1990-05-01")]
        #expect(PersonLinker.birthday(of: tie)?.reason == .order)
        let agreeing = [Self.card("icloud", "b", "Ada", "--05-01"), Self.card("nextcloud", "c", "Ada", "1991-05-01")]
        #expect(PersonLinker.birthday(of: agreeing)?.reason == nil, "a year on one side only is no disagreement")
    }

    @Test func theDateOfCardsThatSayNothingOfWhenIsTheFirstInKeyOrder() {
        let cards = [Self.card("nextcloud", "c", "Ada", "1991-05-01"), Self.card("icloud", "b", "Ada", "1990-05-01")]
        #expect(PersonLinker.birthday(of: cards)?.card == 1)
    }

    /// `duplicates` suggests between the people the store linked already
    /// (``PersonLinker/suggest(_:people:)``): the same groups and the same
    /// suggestions as linking the cards again, over random cards that share
    /// names, days, addresses and numbers, with decisions both ways.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func suggestionsBetweenLinkedPeopleAreThoseOfLinkingAgain(seed: UInt64) {
        var state = seed
        func roll(_ count: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(count))
        }
        let names = ["Ada Lovelace", "Ada M. Lovelace", "Lovelace Ada", "Ada K. Lovelace", "Augusta Ada King", "Grace Hopper", "Grace B. Hopper"]
        let dates = [
            nil, EventDate(year: 1815, month: 12, day: 10), EventDate(year: nil, month: 12, day: 10), EventDate(year: 1816, month: 12, day: 10),
            EventDate(year: 1906, month: 12, day: 9),
        ]
        var suggested = 0
        for round in 0..<20 {
            let cards = (0..<(8 + roll(24))).map { index in
                LinkCard(
                    key: LinkCard.Key(source: ["a", "b", "c"][roll(3)], id: "card-\(round)-\(index)"),
                    uid: roll(8) == 0 ? ["u1", "u2"][roll(2)] : nil,
                    name: names[roll(names.count)],
                    nickname: roll(6) == 0 ? "Addie" : "",
                    emails: (0..<roll(2)).map { _ in ["a@x.org", "b@x.org", "c@x.org"][roll(3)] },
                    phones: (0..<roll(2)).map { _ in ["+44 20 7946 0958", "555 0100 77"][roll(2)] },
                    birthday: dates[roll(dates.count)]
                )
            }
            // In random order: the suggestions' order is the cards' keys', whatever order they come in.
            var shuffled = cards
            for index in shuffled.indices.dropLast() { shuffled.swapAt(index, index + roll(shuffled.count - index)) }
            var exceptions: [LinkException] = []
            for _ in 0..<roll(4) {
                let a = shuffled[roll(shuffled.count)].key
                let b = shuffled[roll(shuffled.count)].key
                exceptions.append(LinkException(roll(2) == 0 ? .keepTogether : .keepSeparate, a, b))
            }
            let linker = PersonLinker(exceptions: exceptions, sharedLimit: 6)
            let linked = linker.link(shuffled)
            // Each person as any one of their cards.
            let shown = linked.groups.map { $0.cards[roll($0.cards.count)] }
            let people = linked.groupOf.map { shown[$0] }
            let again = linker.suggest(shuffled, people: people)
            #expect(again.groups.map(\.cards) == linked.groups.map(\.cards), "seed \(seed), round \(round)")
            #expect(again.groupOf == linked.groupOf, "seed \(seed), round \(round)")
            #expect(again.suggestions == linked.suggestions, "seed \(seed), round \(round)")
            suggested += linked.suggestions.count
        }
        // The cards look alike often enough to be suggested.
        #expect(suggested > 5)
    }
}
