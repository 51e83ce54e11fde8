import Foundation
import Testing

@testable import BirthdayCore
@testable import BirthdayText

/// The page for the year as a value (issue 35): SHA-256 of share tokens,
/// escaping, the QR code's SVG, the months and what a share shows.
@Suite struct YearPageTests {
    // MARK: SHA-256

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func sha256MatchesTheStandardsVectors(text: String, digest: String) {
        #expect(SHA256.hex(text) == digest)
    }

    // MARK: Escaping

    @Test func htmlTextEscapesEverythingThatEndsATextOrAnAttribute() {
        #expect(HTML(escaping: "<a href=\"x\">'&'</a>").markup == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(HTML.name("Ada\u{0}\nLovelace\u{1B}[31m").markup == "Ada Lovelace [31m", "one line, no control character")
        #expect(HTML.name(String(repeating: "x", count: 500)).markup.count <= 201)
    }

    @Test func theQRCodeIsOnePathOfRunsWithoutStyle() {
        let svg = QRSVG.svg(size: 3, label: "code") { x, y in y == 1 && x < 2 }.markup
        #expect(svg.contains("viewBox=\"0 0 11 11\""))
        #expect(svg.contains("d=\"M4 5h2v1h-2z\""))
        #expect(!svg.contains("style"))
    }

    // MARK: The page

    static let today = LocalDate(year: 2026, month: 3, day: 10)!

    static func event(_ id: String, _ name: String, _ month: Int, _ day: Int, age: Int?, kind: EventKind = .birthday) -> Occurrence {
        let date = LocalDate(year: 2026, month: month, day: day)!
        return Occurrence(
            personID: id,
            name: name,
            kind: kind,
            date: date,
            eventDate: EventDate(year: age.map { 2026 - $0 }, month: month, day: day),
            calendarDate: nil,
            age: age,
            daysUntil: today.days(to: date)
        )
    }

    @Test func thePageHasTwelveMonthsOfTheYearWithEachDayOnceAndTheEventsNamed() {
        let events = [Self.event("a", "Ada", 3, 11, age: 36), Self.event("b", "Bob", 2, 28, age: nil), Self.event("c", "Cy", 12, 31, age: 30)]
        let page = YearPage(
            today: Self.today,
            year: events,
            next: YearPage.nextEvents(events.filter { $0.daysUntil >= 0 }),
            links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil)
        )
        let html = page.html(.english)
        #expect(html.components(separatedBy: "<section class=\"month\"").count - 1 == 12)
        #expect(html.components(separatedBy: "<span class=\"day\"").count - 1 == 365, "2026 is no leap year")
        #expect(html.contains("<h3 id=\"m3\">March</h3>"))
        #expect(html.contains("<td class=\"has round\" tabindex=\"0\"><span class=\"day\">31</span>"), "Cy turns 30")
        #expect(html.contains("<span class=\"when\">tomorrow</span>"))
        #expect(!html.contains("<script"))
        // 1 March 2026 is a Sunday, where an English (US) week starts: no empty cell before it.
        #expect(html.contains("<tbody>\n<tr><td><span class=\"day\">1</span>"))
    }

    /// The language, the region as the page's locale has it, the first weekday (1 Sunday, 2 Monday), the first column's full name.
    @Test(arguments: [
        ("en", "en", 1, "Sunday"), ("de", "de", 2, "Montag"), ("en-GB", "en", 2, "Monday"), ("fr", "fr", 2, "lundi"), ("ja", "ja", 1, "日曜日"),
    ])
    func weeksStartOnTheDayThePagesLanguageAndRegionStartThemOn(setting: String, language: String, first: Int, name: String) {
        let localizer = Localizer(setting: setting, systemLocale: nil)
        #expect(localizer.language == language)
        #expect(YearPage.firstWeekday(localizer) == first)
        let page = YearPage(today: Self.today, year: [], next: [], links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil))
        let html = page.html(localizer)
        #expect(html.contains("<thead><tr><th scope=\"col\" abbr=\"\(name)\">"))
        // 1 March 2026 is a Sunday: the first cell of a week from Sunday, the seventh of one from Monday.
        let lead = first == 1 ? 0 : 6
        #expect(
            html.contains("<h3 id=\"m3\">")
                && html.contains("<tbody>\n<tr>" + String(repeating: "<td></td>", count: lead) + "<td><span class=\"day\">1</span>")
        )
        // 1 January 2026 is a Thursday.
        #expect(YearPage.column(of: LocalDate(year: 2026, month: 1, day: 1)!, firstWeekday: first) == (first == 1 ? 4 : 3))
    }

    // MARK: The person's own line

    static func ownersPage(contactLinks: Bool, people: [String: YearPage.Person]? = nil) -> String {
        let events = [
            Self.event("a", "Ada", 3, 11, age: 36), Self.event("a", "Ada", 7, 26, age: nil, kind: .anniversary),
            Self.event("b", "Bob", 3, 12, age: nil),
        ]
        let lines =
            people ?? [
                "a": YearPage.Person(
                    dates: events.filter { $0.personID == "a" },
                    zone: PersonZone(name: "Asia/Tokyo"),
                    groups: ["Family", "Friends <3"],
                    points: [
                        ContactPoint(kind: .email, value: "ada@example.org"), ContactPoint(kind: .phone, value: "+44 20 7946 0000"),
                        ContactPoint(kind: .impp, value: "javascript:alert(1)"), ContactPoint(kind: .impp, value: "xmpp:ada@example.org"),
                    ]
                ),
                "b": YearPage.Person(dates: events.filter { $0.personID == "b" }),
            ]
        let page = YearPage(
            today: Self.today,
            year: events,
            next: events,
            links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil),
            people: lines,
            contactLinks: contactLinks
        )
        return page.html(.english)
    }

    /// The line under the `n`th item of the next list.
    static func line(_ html: String, item n: Int) -> String? {
        guard let list = html.range(of: "<ol>") else { return nil }
        let items = html[list.upperBound...].components(separatedBy: "<li").dropFirst()
        guard n < items.count else { return nil }
        let item = items[items.index(items.startIndex, offsetBy: n)]
        guard let start = item.range(of: "<span class=\"line\">"), let end = item.range(of: "</li>") else { return nil }
        return String(item[start.lowerBound..<end.lowerBound])
    }

    @Test func eachPersonOnTheOwnersPageHasALineWithDatesZoneGroupsAndLinks() throws {
        let html = Self.ownersPage(contactLinks: true)
        let ada = try #require(Self.line(html, item: 0))
        #expect(!ada.contains("2026-03-11"), "the birthday the line is under is not repeated: \(ada)")
        #expect(ada.contains("<time datetime=\"2026-07-26\">July 26</time>"), "her other date, the anniversary: \(ada)")
        #expect(ada.contains("<span class=\"zone\">Tokyo</span>"))
        #expect(ada.contains("<span class=\"groups\">Groups: Family, Friends &lt;3</span>"), "escaped")
        #expect(ada.contains("<a href=\"mailto:ada@example.org?subject=Happy%20birthday%21\">Write to Ada</a>"), "\(ada)")
        #expect(ada.contains("<a href=\"tel:+442079460000\">Call Ada</a>"))
        #expect(ada.contains("<a href=\"sms:+442079460000\">Write to Ada</a>"))
        #expect(ada.contains("<a href=\"xmpp:ada@example.org\">"))
        #expect(!html.contains("javascript:"), "a scheme that could run is never a link")
        // Ada's anniversary is an item of its own with the same line; its e-mail's subject is the anniversary's.
        let anniversary = try #require(Self.line(html, item: 1))
        #expect(anniversary.contains("?subject=Happy%20anniversary%21"))
        #expect(anniversary.contains("birthday <time datetime=\"2026-03-11\">March 11</time>"), "under the anniversary, the birthday")
        #expect(!anniversary.contains("2026-07-26"))
        // Bob has one date, the one shown, and no zone, groups or links: no line at all.
        #expect(Self.line(html, item: 2) == nil)
        #expect(!html.contains("<script"))
    }

    static func labelled(_ id: String, _ name: String, _ month: Int, _ day: Int, label: String, year: Int = 2026) -> Occurrence {
        let date = LocalDate(year: year, month: month, day: day)!
        var event = Occurrence(
            personID: id,
            name: name,
            kind: .labelled,
            date: date,
            eventDate: EventDate(year: nil, month: month, day: day),
            calendarDate: nil,
            age: nil,
            daysUntil: today.days(to: date)
        )
        event.labelled = event.eventDate.map { LabelledDate(label: label, date: $0) }
        return event
    }

    /// Issue 41: a name day and a child's birthday are named by their labels on
    /// the line, as in the list and the grid, with ages shown or not.
    @Test(arguments: [true, false])
    func eachDateOnTheLineIsNamedByItsLabel(showAges: Bool) throws {
        let events = [
            Self.event("a", "Ada", 3, 11, age: 36), Self.labelled("a", "Ada", 3, 20, label: "Child's birthday"),
            Self.labelled("a", "Ada", 7, 26, label: "Name day"), Self.event("a", "Ada", 9, 1, age: 3, kind: .anniversary),
        ]
        let page = YearPage(
            today: Self.today,
            year: events,
            next: events,
            showAges: showAges,
            links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil),
            people: ["a": YearPage.Person(dates: events)]
        )
        let html = page.html(.english)
        let line = try #require(Self.line(html, item: 0))
        #expect(line.contains("Child&#39;s birthday <time datetime=\"2026-03-20\">March 20</time>"), "\(line)")
        #expect(line.contains("Name day <time datetime=\"2026-07-26\">July 26</time>"), "\(line)")
        #expect(line.contains("anniversary <time datetime=\"2026-09-01\">"), "the one anniversary is one: \(line)")
        #expect(line.components(separatedBy: "anniversary").count - 1 == 1, "\(line)")
        // Under the name day, the name day is not repeated and the others keep their labels.
        let underNameDay = try #require(Self.line(html, item: 2))
        #expect(!underNameDay.contains("2026-07-26") && underNameDay.contains("Child&#39;s birthday"), "\(underNameDay)")
        // The grid names it by its label too, with ages or without.
        #expect(html.contains("<span><span class=\"sym\" aria-hidden=\"true\">▲ </span>Ada <small>Name day</small></span>"), "\(html)")
    }

    /// Issue 41: the line under an event early next year is built from the
    /// person's next 366 days, not from this year's January.
    @Test func theLineUnderAnEventEarlyNextYearDoesNotRepeatIt() throws {
        let december = LocalDate(year: 2026, month: 12, day: 6)!
        let january = Self.labelled("a", "Ada", 1, 5, label: "Name day", year: 2027)
        let birthday = Self.event("a", "Ada", 12, 20, age: 36)
        let page = YearPage(
            today: december,
            year: [birthday, january],
            next: [birthday, january],
            links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil),
            people: ["a": YearPage.Person(dates: [birthday, january])]
        )
        let html = page.html(.english)
        let underName = try #require(Self.line(html, item: 1))
        #expect(!underName.contains("January 5") && underName.contains("birthday <time datetime=\"2026-12-20\">"), "\(underName)")
    }

    // MARK: The twelve months

    /// Issue 41: until October the page is the calendar year; from November on
    /// the coming twelve months, with the years in the headings.
    @Test(arguments: [
        (LocalDate(year: 2026, month: 6, day: 15)!, "The year 2026", "m1", "January", "December"),
        (LocalDate(year: 2026, month: 12, day: 6)!, "December 2026 – November 2027", "m12", "December 2026", "November 2027"),
        (LocalDate(year: 2026, month: 11, day: 1)!, "November 2026 – October 2027", "m11", "November 2026", "October 2027"),
    ])
    func theMonthsAreTheCalendarYearUntilOctoberAndTheComingTwelveFromNovember(
        today: LocalDate,
        heading: String,
        firstID: String,
        firstMonth: String,
        lastMonth: String
    ) throws {
        let first = YearPage.firstDay(today: today)
        #expect(YearPage.days(from: first) == 365, "neither 2026 nor the months to 2027 hold a February 29")
        let early = Occurrence(
            personID: "a",
            name: "Ada",
            kind: .birthday,
            date: LocalDate(year: 2027, month: 1, day: 5)!,
            eventDate: EventDate(year: nil, month: 1, day: 5),
            calendarDate: nil,
            age: nil,
            daysUntil: today.days(to: LocalDate(year: 2027, month: 1, day: 5)!)
        )
        let page = YearPage(today: today, year: [early], next: [early], links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil))
        let html = page.html(.english)
        #expect(html.contains("<h2 id=\"year\">\(heading)</h2>"))
        let headings = html.components(separatedBy: "<h3 id=\"").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(headings.count == 12)
        #expect(headings.first == "\(firstID)\">\(firstMonth)", "\(headings)")
        #expect(headings.last?.hasSuffix("\">\(lastMonth)") == true, "\(headings)")
        let days = html.components(separatedBy: "<span class=\"day\"").count - 1
        #expect(days == YearPage.days(from: first))
        // Ada's January 5 of next year is in the grid only when next January is among the months.
        #expect(html.contains("<td class=\"has\" tabindex=\"0\">") == (first.month != 1))
    }

    // MARK: Printing

    /// Issue 41: on paper each name carries its kind's symbol, and a legend says what each means.
    @Test func printedNamesCarryTheirKindsSymbolAndTheLegendNamesThem() {
        var memorial = Self.event("d", "Dora", 4, 2, age: 90)
        memorial.memorial = true
        let events = [
            Self.event("a", "Ada", 3, 11, age: 36), Self.event("b", "Bob", 3, 12, age: 4, kind: .anniversary), memorial,
            Self.labelled("c", "Cy", 3, 13, label: "Name day"), Self.labelled("e", "Eve", 3, 14, label: "Started work"),
        ]
        let page = YearPage(today: Self.today, year: events, next: events, links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil))
        let html = page.html(.english)
        for (name, symbol) in [("Ada", "●"), ("Bob", "♥"), ("Dora", "†"), ("Cy", "◆"), ("Eve", "▲")] {
            #expect(html.contains("<span class=\"sym\" aria-hidden=\"true\">\(symbol) </span>\(name) <small>"), "\(name)")
        }
        let legend = html.components(separatedBy: "<ul class=\"legend\"").last ?? ""
        for entry in ["● birthday", "♥ anniversary", "† birthday (in memory)", "◆ Name day", "▲ Started work"] {
            let (symbol, words) = (String(entry.prefix(1)), String(entry.dropFirst(2)))
            #expect(legend.contains("<li><span class=\"sym\">\(symbol)</span> \(words)</li>"), "\(entry)")
        }
        // A crowded day prints three names and "+N" for the rest; the screen keeps them all.
        let crowd = (1...6).map { Self.event("p\($0)", "P\($0)", 5, 5, age: nil) }
        let crowded = YearPage(today: Self.today, year: crowd, next: crowd, links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil))
        let day = crowded.html(.english).components(separatedBy: "<span class=\"who\">").dropFirst().first ?? ""
        #expect(day.components(separatedBy: "<span class=\"extra\">").count - 1 == 3, "\(day)")
        #expect(day.contains("<span class=\"more\" aria-hidden=\"true\">+3</span>"), "\(day)")
        #expect(!html.contains("class=\"more\""), "no day of the first page is crowded")
        // A year without events has no legend.
        let empty = YearPage(today: Self.today, year: [], next: [], links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil))
        #expect(!empty.html(.english).contains("class=\"legend\""))
    }

    @Test func withoutContactLinksTheLineHasNoLinks() throws {
        let html = Self.ownersPage(contactLinks: false)
        let ada = try #require(Self.line(html, item: 0))
        #expect(ada.contains("Groups: Family"))
        for scheme in ["mailto:", "tel:", "sms:", "xmpp:"] { #expect(!html.contains(scheme), "\(scheme)") }
    }

    @Test func aPageWithoutPeopleHasNoLines() {
        let html = Self.ownersPage(contactLinks: true, people: [:])
        #expect(!html.contains("class=\"line\""))
        #expect(!html.contains("mailto:") && !html.contains("Groups"))
    }

    @Test func withoutAgesNoAgeIsWritten() {
        let events = [Self.event("a", "Ada", 3, 11, age: 36)]
        let page = YearPage(
            today: Self.today,
            year: events,
            next: events,
            showAges: false,
            links: .init(ics: "t.ics", json: nil, webcal: nil, qrSVG: nil)
        )
        #expect(!page.html(.english).contains("36"))
    }

    @Test func theNextListHoldsAMonthAndAtLeastEight() {
        let events = (1...20).map { Self.event("p\($0)", "P\($0)", 3 + $0 / 4, 1 + $0, age: nil) }.sorted { $0.daysUntil < $1.daysUntil }
        let next = YearPage.nextEvents(events)
        #expect(next.count >= YearPage.nextCount)
        #expect(next.dropFirst(YearPage.nextCount).allSatisfy { $0.daysUntil <= YearPage.nextDays })
    }

    // MARK: Shares

    @Test func aShareKeepsItsMembersAndDropsYearsAndAges() {
        let share = Share(id: 1, name: "Family", groups: ["Family"], showAges: true, showYears: false, createdAt: Date())
        let events = [Self.event("a", "Ada", 3, 11, age: 36), Self.event("b", "Bob", 4, 1, age: 40)]
        let ids = PublicID.generate().ids
        let labelled = Self.event("a", "Ada", 5, 2, age: 8, kind: .labelled)
        let shown = share.events(events + [labelled], members: ["a"], ids: ids)
        #expect(shown.map(\.name) == ["Ada"])
        #expect(shown.first?.age == nil)
        #expect(shown.first?.eventDate?.year == nil)
        #expect(shown.first?.personID == ids.person("a"), "the id is the keyed public id")
        #expect(shown.count == 1, "a labelled date is not shared")
        let people = share.people(
            [
                Person(
                    id: "a",
                    name: "Ada",
                    source: ContactSource(file: "", index: 0, line: 0),
                    birthday: EventDate(year: 1990, month: 3, day: 11),
                    contactPoints: [ContactPoint(kind: .email, value: "ada@example.org")]
                )
            ],
            members: ["a"],
            ids: ids
        )
        #expect(people.first?.birthday?.year == nil)
        // Years shown but ages refused: the JSON keeps the year, the feed does not (its series would start in it).
        let noAges = Share(id: 2, name: "Team", groups: ["Team"], showAges: false, showYears: true, createdAt: Date())
        let adaBorn1990 = Person(
            id: "a",
            name: "Ada",
            source: ContactSource(file: "", index: 0, line: 0),
            birthday: EventDate(year: 1990, month: 3, day: 11)
        )
        #expect(noAges.people([adaBorn1990], members: ["a"], ids: ids).first?.birthday == EventDate(year: nil, month: 3, day: 11))
        #expect(noAges.events([Self.event("a", "Ada", 3, 11, age: 36)], members: ["a"], ids: ids).first?.age == nil)
        #expect(people.first?.contactPoints.isEmpty == true)
        #expect(!share.settings(Settings()).calendarAges)
        #expect(Share.validName("Fam\nily") == nil)
        #expect(Share.validName("  Family ") == "Family")
    }
}
