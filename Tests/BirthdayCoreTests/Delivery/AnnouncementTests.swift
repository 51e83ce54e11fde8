import BirthdayCore
import BirthdayText
import Foundation
import Testing

/// A team room's decisions (`birthdays announce`), as values: which day a
/// birthday is announced on, who one message names, and its words in every language.
@Suite struct AnnouncementTests {
    static func day(_ text: String) throws -> LocalDate { try #require(LocalDate(iso: text)) }
    static func date(_ year: Int?, _ month: Int, _ day: Int) throws -> EventDate { try #require(EventDate(year: year, month: month, day: day)) }
    static let room = AnnounceRoom(name: "team", group: "Team", kind: .apprise, target: "slack://…")

    // MARK: - Weekends

    /// 2026-03-13 is a Friday, 14 a Saturday, 15 a Sunday, 16 a Monday.
    @Test(arguments: [
        (AnnounceWeekend.friday, "2026-03-14", "2026-03-13"),
        (.friday, "2026-03-15", "2026-03-13"),
        (.friday, "2026-03-16", "2026-03-16"),
        (.friday, "2026-03-13", "2026-03-13"),
        (.monday, "2026-03-14", "2026-03-16"),
        (.monday, "2026-03-15", "2026-03-16"),
        (.monday, "2026-03-13", "2026-03-13"),
        (.off, "2026-03-14", "2026-03-14"),
        (.off, "2026-03-15", "2026-03-15"),
    ])
    func aWeekendBirthdayIsAnnouncedAsTheRoomChose(rule: AnnounceWeekend, birthday: String, announced: String) throws {
        #expect(rule.announceDay(for: try Self.day(birthday)) == (try Self.day(announced)))
    }

    @Test func theFridayBeforeNamesTheWeekendsBirthdaysWithThatDays() throws {
        var planner = AnnouncePlanner(room: Self.room, firstDay: try Self.day("2026-03-11"), leapDay: .feb28)
        planner.offer(try Self.date(1990, 3, 14), personID: "alan", name: "Alan Turing")
        planner.offer(try Self.date(1815, 3, 13), personID: "ada", name: "Ada Lovelace")
        planner.offer(try Self.date(nil, 3, 15), personID: "grace", name: "Grace Hopper")
        planner.offer(try Self.date(1930, 3, 20), personID: "edsger", name: "Edsger Dijkstra")
        let next = try #require(planner.announcement())
        #expect(next.day == (try Self.day("2026-03-13")))
        #expect(next.people.map(\.name) == ["Ada Lovelace", "Alan Turing", "Grace Hopper"], "in order of their birthdays")
        #expect(next.message(in: .english) == "🎂 Happy birthday, Ada Lovelace, Alan Turing, and Grace Hopper!")
    }

    /// On a Monday under `--weekend monday`, Saturday's and Sunday's birthdays (before the first day) are still announced.
    @Test func theMondayAfterNamesTheWeekendBeforeIt() throws {
        var room = Self.room
        room.weekend = .monday
        var planner = AnnouncePlanner(room: room, firstDay: try Self.day("2026-03-16"), leapDay: .feb28)
        planner.offer(try Self.date(1990, 3, 14), personID: "alan", name: "Alan Turing")
        planner.offer(try Self.date(1990, 3, 16), personID: "ada", name: "Ada Lovelace")
        planner.offer(try Self.date(1990, 3, 13), personID: "grace", name: "Grace Hopper")
        let next = try #require(planner.announcement())
        #expect(next.day == (try Self.day("2026-03-16")))
        #expect(next.people.map(\.id) == ["alan", "ada"], "Friday's birthday was before the first day: next year's")
    }

    /// A Sunday birthday whose Friday has passed is next year's, not today's.
    @Test func aWeekendWhoseFridayPassedWaitsForNextYear() throws {
        var planner = AnnouncePlanner(room: Self.room, firstDay: try Self.day("2026-03-14"), leapDay: .feb28)
        planner.offer(try Self.date(1990, 3, 15), personID: "grace", name: "Grace Hopper")
        let next = try #require(planner.announcement())
        // 2027-03-15 is a Monday.
        #expect(next.day == (try Self.day("2027-03-15")))
        #expect(next.people.first?.age == 37)
    }

    @Test func nothingIsPlannedWithoutBirthdays() {
        let planner = AnnouncePlanner(room: Self.room, firstDay: LocalDate(dayNumber: 20_000), leapDay: .feb28)
        #expect(planner.announcement() == nil)
    }

    // MARK: - The words

    @Test func agesOnlyWhenTheRoomAsksAndTheYearIsKnown() throws {
        let people = [
            Announcement.Person(id: "ada", name: "Ada Lovelace", birthday: try Self.day("2026-03-13"), age: 36),
            Announcement.Person(id: "alan", name: "Alan Turing", birthday: try Self.day("2026-03-13"), age: nil),
        ]
        let plain = Announcement(room: Self.room, day: try Self.day("2026-03-13"), people: people)
        #expect(plain.message(in: .english) == "🎂 Happy birthday, Ada Lovelace and Alan Turing!")
        #expect(!plain.message(in: .english).contains("36"))
        var room = Self.room
        room.ages = true
        let aged = Announcement(room: room, day: try Self.day("2026-03-13"), people: people)
        #expect(aged.message(in: .english) == "🎂 Happy birthday, Ada Lovelace (36) and Alan Turing!")
    }

    /// A name carries no line break or control character into the room.
    @Test func aNameIsOneLine() throws {
        let person = Announcement.Person(id: "x", name: "Ada\nLovelace\u{1B}[31m", birthday: try Self.day("2026-03-13"), age: nil)
        let text = Announcement(room: Self.room, day: try Self.day("2026-03-13"), people: [person]).message(in: .english)
        #expect(!text.contains("\n") && !text.contains("\u{1B}"), "\(text)")
    }

    static let joined: [(String, [String])] = [
        ("en", ["🎂 Happy birthday, A!", "🎂 Happy birthday, A and B!", "🎂 Happy birthday, A, B, and C!", "🎂 Happy birthday, A, B, C, and D!"]),
        (
            "de",
            [
                "🎂 Alles Gute zum Geburtstag, A!", "🎂 Alles Gute zum Geburtstag, A und B!", "🎂 Alles Gute zum Geburtstag, A, B und C!",
                "🎂 Alles Gute zum Geburtstag, A, B, C und D!",
            ]
        ),
        ("es", ["🎂 ¡Feliz cumpleaños, A!", "🎂 ¡Feliz cumpleaños, A y B!", "🎂 ¡Feliz cumpleaños, A, B y C!", "🎂 ¡Feliz cumpleaños, A, B, C y D!"]),
        (
            "fr",
            [
                "🎂 Joyeux anniversaire, A !", "🎂 Joyeux anniversaire, A et B !", "🎂 Joyeux anniversaire, A, B et C !",
                "🎂 Joyeux anniversaire, A, B, C et D !",
            ]
        ),
        ("it", ["🎂 Buon compleanno, A!", "🎂 Buon compleanno, A e B!", "🎂 Buon compleanno, A, B e C!", "🎂 Buon compleanno, A, B, C e D!"]),
        ("ja", ["🎂 A、お誕生日おめでとうございます！", "🎂 A、B、お誕生日おめでとうございます！", "🎂 A、B、C、お誕生日おめでとうございます！", "🎂 A、B、C、D、お誕生日おめでとうございます！"]),
        (
            "nl",
            [
                "🎂 Hartelijk gefeliciteerd met je verjaardag, A!", "🎂 Hartelijk gefeliciteerd met je verjaardag, A en B!",
                "🎂 Hartelijk gefeliciteerd met je verjaardag, A, B en C!", "🎂 Hartelijk gefeliciteerd met je verjaardag, A, B, C en D!",
            ]
        ),
        (
            "pl",
            [
                "🎂 Wszystkiego najlepszego z okazji urodzin, A!", "🎂 Wszystkiego najlepszego z okazji urodzin, A i B!",
                "🎂 Wszystkiego najlepszego z okazji urodzin, A, B i C!", "🎂 Wszystkiego najlepszego z okazji urodzin, A, B, C i D!",
            ]
        ),
        ("pt", ["🎂 Feliz aniversário, A!", "🎂 Feliz aniversário, A e B!", "🎂 Feliz aniversário, A, B e C!", "🎂 Feliz aniversário, A, B, C e D!"]),
        ("zh-Hans", ["🎂 祝A生日快乐！", "🎂 祝A和B生日快乐！", "🎂 祝A、B和C生日快乐！", "🎂 祝A、B、C和D生日快乐！"]),
    ]

    @Test func everyLanguageIsCovered() {
        #expect(Set(Self.joined.map(\.0)) == Set(StringCatalog.embedded.languages))
    }

    /// One to four names, joined as the language joins a list.
    @Test(arguments: joined)
    func theMessageJoinsTheNamesAsTheLanguageDoes(language: String, expected: [String]) throws {
        let localizer = Localizer(language: language)
        let names = ["A", "B", "C", "D"]
        for count in 1...4 {
            let people = try names.prefix(count).map { Announcement.Person(id: $0, name: $0, birthday: try Self.day("2026-03-13"), age: 30) }
            let text = Announcement(room: Self.room, day: try Self.day("2026-03-13"), people: people).message(in: localizer)
            #expect(text == expected[count - 1])
        }
    }

    @Test func theRequestIsTheRoomsOnItsDayAndCarriesNoAge() throws {
        let person = Announcement.Person(id: "ada", name: "Ada Lovelace", birthday: try Self.day("2026-03-14"), age: 36)
        let announcement = Announcement(room: Self.room, day: try Self.day("2026-03-13"), people: [person])
        let request = announcement.request(fireAt: Date(timeIntervalSince1970: 1_773_388_800), in: .english)
        #expect(request.id == "announce:team")
        #expect(request.announceRoom == "team")
        #expect(request.occurrenceDate == (try Self.day("2026-03-13")))
        #expect(request.body == "🎂 Happy birthday, Ada Lovelace!")
        #expect(request.personID.isEmpty)
    }

    // MARK: - URLs and names

    @Test(arguments: [
        ("slack://T1/B2/C3", AnnounceRoom.Kind.apprise),
        ("mmosts://chat.example.org/token", .apprise),
        ("https://hooks.example.org/services/abc", .webhook),
        ("HTTP://127.0.0.1:8080/hook", .webhook),
    ])
    func aURLIsAnAppriseURLOrAWebhook(url: String, kind: AnnounceRoom.Kind) {
        #expect((try? AnnounceRoom.kind(of: url).get()) == kind)
    }

    @Test(arguments: ["", "slack", "://x", "https://", "slack://a b", "sl ack://x"])
    func anythingElseIsRefused(url: String) {
        #expect((try? AnnounceRoom.kind(of: url).get()) == nil)
    }

    @Test func aRoomNameIsLikeAChannelName() {
        #expect(AnnounceRoom.problem(withName: "team-1") == nil)
        #expect(AnnounceRoom.problem(withName: "Team") != nil)
        #expect(AnnounceRoom.problem(withName: "1team") != nil)
        #expect(AnnounceRoom.maskedURL("slack://T1/B2/C3") == "slack://…")
    }
}
