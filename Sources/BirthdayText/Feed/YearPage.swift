import BirthdayCore
import Foundation

/// The page for the year that the feed's address without an extension
/// serves (`/calendar/<token>`): the next birthdays, the twelve months of the
/// year with a dot on each day that has one, and the ways to subscribe.
///
/// ## Rules
/// - Server-rendered HTML in the user's language (``Localizer``: the
///   catalog's texts, plural forms and ordinals, ICU's month and weekday
///   names); no script, nothing fetched from elsewhere: the stylesheet is
///   the server's own (``stylesheet``), the QR code an inline SVG.
/// - The page is ``HTML`` throughout; every name goes through ``HTML/name(_:)``: one line, no control
///   characters, escaped.
/// - The months are twelve (``firstDay(today:)``): those of `today`'s
///   year, January to December, until October; from November on the coming
///   twelve, from the first of `today`'s month, so that December is not a
///   year of past days. Each is a table whose weeks start on the first day of the week of the page's
///   language and region as ICU gives it (``firstWeekday(_:)``: Sunday for
///   `en` and `en-US`, Monday for `de` and `en-GB`); a day with events
///   carries the names, hidden on screen until the day is hovered or
///   focused, and printed in the day's cell with the symbol of its kind
///   (``marks(_:localizer:)``: birthday, anniversary, in memory, each label),
///   which a legend under the months names on paper.
/// - On the owner's page each of the next events has the person's own line
///   (``Person``): their other dates of the next 366 days, each named as
///   everywhere on the page (``OccurrenceWords``: a name day or a child's
///   birthday by its label), their time zone when
///   they have one, their groups, and, only with ``contactLinks``, links to
///   write to or call them (``ContactLink``'s `mailto:` and `tel:`, `sms:`
///   for a phone, and instant-messaging addresses of a known scheme; any
///   other scheme gets no link). A share's page has no such line: it is
///   given no ``people``.
/// - Printed, the year is one landscape page; with ``Layout/monthPerPage``
///   (`?print=month`) each month is a page of its own.
/// - Ages are shown only with ``showAges``.
public struct YearPage: Sendable {
    /// How the page prints.
    public enum Layout: Sendable, Equatable {
        /// The year on one landscape page.
        case year
        /// One month a page.
        case monthPerPage
    }

    /// The addresses the page offers for subscribing.
    public struct Links: Sendable, Equatable {
        /// The feed, relative to the page (`<token>.ics`).
        public var ics: String
        /// The JSON twin, relative to the page; `nil` when none is served.
        public var json: String?
        /// The feed as `webcal://` (absolute), when the host is known.
        public var webcal: String?
        /// The QR code of ``webcal`` as an `<svg>` element (``QRSVG``), when one could be drawn.
        public var qrSVG: HTML?
        /// The code's caption, when not the usual one: that a phone cannot
        /// reach an address of this machine only (`page.qr.loopback`).
        public var qrCaption: String?

        public init(ics: String, json: String?, webcal: String?, qrSVG: HTML?, qrCaption: String? = nil) {
            self.ics = ics
            self.json = json
            self.webcal = webcal
            self.qrSVG = qrSVG
            self.qrCaption = qrCaption
        }
    }

    /// Today in the user's zone.
    public var today: LocalDate
    /// The events of the page's twelve months (``firstDay(today:)``, ``days(from:)``).
    public var year: [Occurrence]
    /// The next events, soonest first (today's included).
    public var next: [Occurrence]
    public var showAges: Bool
    public var layout: Layout
    public var links: Links
    /// The address of the stylesheet.
    public var stylesheet: String
    /// What the person's own line shows, by person id: the owner's page
    /// only (empty on a share's, which shows names, dates and ages only).
    public var people: [String: Person]
    /// Whether a person's line links to ways to reach them (the `contact-links` setting).
    public var contactLinks: Bool

    /// What one person's line on the owner's page shows besides their dates.
    public struct Person: Sendable, Equatable {
        /// Their events of the next 366 days, soonest first (the one the line
        /// sits under among them: the line leaves it out).
        public var dates: [Occurrence]
        /// Their zone (``Person/zone``); `nil` when they have none of their own.
        public var zone: PersonZone?
        /// Their groups, sorted.
        public var groups: [String]
        /// Their ways to reach them, in their order.
        public var points: [ContactPoint]

        public init(dates: [Occurrence] = [], zone: PersonZone? = nil, groups: [String] = [], points: [ContactPoint] = []) {
            self.dates = dates
            self.zone = zone
            self.groups = groups
            self.points = points
        }
    }

    public init(
        today: LocalDate,
        year: [Occurrence],
        next: [Occurrence],
        showAges: Bool = true,
        layout: Layout = .year,
        links: Links,
        stylesheet: String = "/page.css",
        people: [String: Person] = [:],
        contactLinks: Bool = false
    ) {
        self.today = today
        self.year = year
        self.next = next
        self.showAges = showAges
        self.layout = layout
        self.links = links
        self.stylesheet = stylesheet
        self.people = people
        self.contactLinks = contactLinks
    }

    /// The schemes a person's line links to; a card's instant-messaging
    /// address of any other scheme (`javascript:`, `data:`) gets no link.
    static let linkedSchemes: Set<String> = ["mailto", "tel", "sms", "xmpp", "sip", "sips", "matrix", "im"]

    /// How many of the next events the page lists: at least this many, and
    /// every event of the next ``nextDays`` days.
    public static let nextCount = 8
    public static let nextDays = 30

    /// The events the "next" list shows, from the next year's.
    public static func nextEvents(_ events: [Occurrence]) -> [Occurrence] {
        var shown: [Occurrence] = []
        for event in events where shown.count < nextCount || event.daysUntil <= nextDays {
            shown.append(event)
        }
        return shown
    }

    /// The first day of the page's twelve months: January 1 of `today`'s
    /// year until October; from November on the first of `today`'s month.
    public static func firstDay(today: LocalDate) -> LocalDate {
        LocalDate(year: today.year, month: today.month >= 11 ? today.month : 1, day: 1) ?? today
    }

    /// The days of the twelve months from `first` (365 or 366).
    public static func days(from first: LocalDate) -> Int {
        first.days(to: LocalDate(year: first.year + 1, month: first.month, day: 1) ?? first.adding(days: 365))
    }

    /// The page's markup, in `localizer`'s language (``document(_:)``).
    public func html(_ localizer: Localizer) -> String { document(localizer).markup }

    /// The page, in `localizer`'s language.
    public func document(_ localizer: Localizer) -> HTML {
        var words = OccurrenceWords(localizer)
        let shortDate = localizer.shortDates()
        var out = HTML.pageStart(
            title: localizer(.pageTitle),
            language: localizer.language,
            stylesheet: stylesheet,
            bodyClass: layout == .monthPerPage ? "print-month" : "print-year"
        )

        // The next birthdays.
        out += "<section class=\"next\" aria-labelledby=\"next\">\n<h2 id=\"next\">\(localizer(.pageNext))</h2>\n"
        if next.isEmpty {
            out += "<p>\(localizer(Message(.upcomingNone, .number(365))))</p>\n"
        } else {
            out += "<ol>\n"
            for event in next {
                let classes = [event.daysUntil == 0 ? "today" : nil, showAges && event.isRound ? "round" : nil].compactMap { $0 }
                out += classes.isEmpty ? "<li>" : "<li class=\"\(classes.joined(separator: " "))\">"
                out += "<span class=\"when\">\(localizer(.days(event.daysUntil)))</span> "
                out += "<time datetime=\"\(event.date)\">\(shortDate(event.date))</time> "
                out += "<span class=\"name\">\(HTML.name(event.name.isEmpty ? localizer(.someone) : event.name))</span> "
                out += "<span class=\"what\">\(words.what(showAges ? event : event.withoutAge))</span>"
                if showAges && event.isRound { out += " <span class=\"mark\">\(localizer(.pageRound))</span>" }
                if let person = people[event.personID] {
                    out += personLine(event, person, localizer: localizer, words: &words)
                }
                out += "</li>\n"
            }
            out += "</ol>\n"
        }
        out += "</section>\n"

        // The twelve months.
        let first = Self.firstDay(today: today)
        let end = first.adding(days: Self.days(from: first))
        let heading: String
        if first.month == 1 {
            heading = localizer(Message(.pageYear, .number(first.year)))
        } else {
            let monthAndYear = Self.monthAndYear(localizer)
            heading = monthAndYear(first) + " – " + monthAndYear(end.adding(days: -1))
        }
        out += "<section class=\"year\" aria-labelledby=\"year\">\n"
        out += "<h2 id=\"year\">\(heading)</h2>\n<div class=\"months\">\n"
        var byDay: [LocalDate: [Occurrence]] = [:]
        for event in year where first <= event.date && event.date < end { byDay[event.date, default: []].append(event) }
        let marks = Self.marks(year.filter { first <= $0.date && $0.date < end }, localizer: localizer)
        let firstWeekday = Self.firstWeekday(localizer)
        let weekdays = Self.weekdayNames(localizer, from: firstWeekday)
        var start = first
        for _ in 1...12 {
            out += month(
                start,
                withYear: first.month != 1,
                byDay: byDay,
                marks: marks,
                weekdays: weekdays,
                firstWeekday: firstWeekday,
                localizer: localizer,
                words: &words
            )
            start = start.adding(days: LocalDate.daysIn(month: start.month, year: start.year))
        }
        out += "</div>\n"
        if !marks.legend.isEmpty {
            // On paper only, where the days' names carry no words: what each symbol means.
            let entries = marks.legend.map { (legend: (symbol: String, words: String)) -> HTML in
                "<li><span class=\"sym\">\(legend.symbol)</span> \(legend.words)</li>"
            }
            out += "<ul class=\"legend\" aria-hidden=\"true\">\(entries.joined())</ul>\n"
        }
        out += "</section>\n"

        // Subscribing.
        out += "<section class=\"subscribe\" aria-labelledby=\"subscribe\">\n"
        out += "<h2 id=\"subscribe\">\(localizer(.pageSubscribe))</h2>\n<ul>\n"
        if let webcal = links.webcal {
            out += "<li><a href=\"\(webcal)\">\(localizer(.pageSubscribeWebcal))</a></li>\n"
        }
        out += "<li><a href=\"\(links.ics)\">\(localizer(.pageSubscribeFile))</a></li>\n"
        if let json = links.json {
            out += "<li><a href=\"\(json)\">\(localizer(.pageSubscribeJSON))</a></li>\n"
        }
        out += "<li><a href=\"?print=month\">\(localizer(.pagePrintMonths))</a></li>\n"
        out += "</ul>\n"
        if let svg = links.qrSVG {
            out += "<figure>\(svg)<figcaption>\(links.qrCaption ?? localizer(.pageQR))</figcaption></figure>\n"
        }
        out += "</section>\n</main>\n</body>\n</html>\n"
        return out
    }

    /// The person's own line under one of the next events: their other dates
    /// (day and month, in the order of the year; the event the line is under is
    /// not repeated), their zone, their groups and, with ``contactLinks``, the
    /// ways to reach them. A person with none of these has no line.
    private func personLine(_ event: Occurrence, _ person: Person, localizer: Localizer, words: inout OccurrenceWords) -> HTML {
        var parts: [HTML] = []
        let dates = person.dates.filter { $0.date != event.date || $0.kind != event.kind || $0.calendarRank != event.calendarRank }
        if !dates.isEmpty {
            let dayAndMonth = Self.dayAndMonth(localizer)
            let shown = dates.map { date -> HTML in
                let what = words.what(date.withoutAge)
                return "<span>\(what) <time datetime=\"\(date.date)\">\(dayAndMonth(date.date))</time></span>"
            }
            parts.append("<span class=\"dates\">\(shown.joined(separator: "; "))</span>")
        }
        if let zone = person.zone {
            parts.append("<span class=\"zone\">\(zone.displayName)</span>")
        }
        if !person.groups.isEmpty {
            let groups = person.groups.map { SafeText.line($0) }
            parts.append("<span class=\"groups\">\(localizer(Message.showGroups(groups)))</span>")
        }
        if contactLinks {
            let links = Self.reachLinks(person.points, name: event.name, event: event.kind, localizer: localizer)
            if !links.isEmpty {
                let anchors = links.map { (link: ContactLink) -> HTML in "<a href=\"\(link.uri)\">\(HTML.name(link.label))</a>" }
                parts.append("<span class=\"reach\">\(anchors.joined(separator: " "))</span>")
            }
        }
        return parts.isEmpty ? .empty : "<span class=\"line\">\(parts.joined(separator: " "))</span>"
    }

    /// The links of a person's line: ``ContactLink/links(for:name:event:in:)``
    /// of the schemes in ``linkedSchemes``, and after a phone's `tel:` its
    /// `sms:` ("Write to Ada").
    static func reachLinks(_ points: [ContactPoint], name: String, event: EventKind, localizer: Localizer) -> [ContactLink] {
        var links: [ContactLink] = []
        let shown = SafeText.line(name, maxCharacters: NotificationContent.maxNameCharacters)
        for link in ContactLink.links(for: points, name: name, event: event, in: localizer) where linkedSchemes.contains(link.scheme) {
            links.append(link)
            if link.scheme == "tel" {
                let sms = "sms:" + link.uri.dropFirst(4)
                links.append(ContactLink(kind: .phone, scheme: "sms", uri: sms, label: localizer(Message.reach(.email, name: shown))))
            }
        }
        return links
    }

    /// "11 March", "March 11", "11. März": a day and month in the page's locale.
    static func dayAndMonth(_ localizer: Localizer) -> (LocalDate) -> String { dates(localizer, template: "dMMMM") }

    /// "December 2026", "Dezember 2026": a month and its year in the page's locale.
    static func monthAndYear(_ localizer: Localizer) -> (LocalDate) -> String { dates(localizer, template: "yMMMM") }

    /// A date in the page's locale as the date-format `template` asks (one formatter for every date it writes).
    private static func dates(_ localizer: Localizer, template: String) -> (LocalDate) -> String {
        let formatter = DateFormatter()
        formatter.locale = localizer.locale
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.setLocalizedDateFormatFromTemplate(template)
        return { date in
            formatter.string(from: Date(timeIntervalSince1970: (Double(date.dayNumber) + 0.5) * 86_400))
        }
    }

    /// The symbols that mark each name's kind in the printed grid, and their legend.
    struct Marks {
        /// The symbol of each kind, by ``key(_:)``.
        var symbols: [String: String] = [:]
        /// The symbols in use and what they mean, birthdays first, then labels as they first come.
        var legend: [(symbol: String, words: String)] = []

        /// The kind an event is marked as: birthday, anniversary, in memory, or its label.
        static func key(_ event: Occurrence) -> String {
            if let labelled = event.labelled { return "label:" + labelled.key }
            if event.memorial { return "memorial" }
            return event.kind == .anniversary ? "anniversary" : "birthday"
        }
    }

    /// The symbols of the kinds `events` hold: ● birthday, ♥ anniversary,
    /// † in memory, and for the labels, in order of their first date,
    /// ◆ ▲ ■ ★ ♣ ♠, then ◇ for every further label.
    static func marks(_ events: [Occurrence], localizer: Localizer) -> Marks {
        var marks = Marks()
        let labelSymbols = ["◆", "▲", "■", "★", "♣", "♠"]
        var labels = 0
        let fixed: [(key: String, symbol: String, words: String)] = [
            ("birthday", "●", localizer(.upcomingBirthday)), ("anniversary", "♥", localizer(.upcomingAnniversary)),
            ("memorial", "†", localizer(.upcomingMemorial)),
        ]
        let keys = Set(events.map(Marks.key))
        for kind in fixed where keys.contains(kind.key) {
            marks.symbols[kind.key] = kind.symbol
            marks.legend.append((kind.symbol, kind.words))
        }
        for event in events.sorted(by: { $0.date < $1.date }) {
            guard let labelled = event.labelled, marks.symbols[Marks.key(event)] == nil else { continue }
            let symbol = labels < labelSymbols.count ? labelSymbols[labels] : "◇"
            labels += 1
            marks.symbols[Marks.key(event)] = symbol
            marks.legend.append((symbol, SafeText.line(labelled.label, maxCharacters: 60)))
        }
        return marks
    }

    /// How many names a day's cell prints on the year's page: with more, the
    /// first three and "+N" for the rest (the screen shows them all).
    static let printedNames = 4

    /// One month's table, from its first day; its heading has the year `withYear`.
    private func month(
        _ first: LocalDate,
        withYear: Bool,
        byDay: [LocalDate: [Occurrence]],
        marks: Marks,
        weekdays: [(short: String, full: String)],
        firstWeekday: Int,
        localizer: Localizer,
        words: inout OccurrenceWords
    ) -> HTML {
        let month = first.month
        let name = withYear ? Self.monthAndYear(localizer)(first) : localizer.monthName(first)
        var out: HTML = "<section class=\"month\" aria-labelledby=\"m\(month)\">\n<h3 id=\"m\(month)\">\(name)</h3>\n<table>\n<thead><tr>"
        for weekday in weekdays {
            out += "<th scope=\"col\" abbr=\"\(weekday.full)\">\(weekday.short)</th>"
        }
        out += "</tr></thead>\n<tbody>\n<tr>"
        let lead = Self.column(of: first, firstWeekday: firstWeekday)
        out += HTML.repeating("<td></td>", count: lead)
        var column = lead
        for day in 1...LocalDate.daysIn(month: month, year: first.year) {
            if column == 7 {
                out += "</tr>\n<tr>"
                column = 0
            }
            let date = first.adding(days: day - 1)
            let events = byDay[date] ?? []
            let isToday = date == today
            var classes: [String] = []
            if isToday { classes.append("today") }
            if !events.isEmpty { classes.append("has") }
            if events.contains(where: { showAges && $0.isRound }) { classes.append("round") }
            out += classes.isEmpty ? "<td>" : "<td class=\"\(classes.joined(separator: " "))\"\(events.isEmpty ? .empty : " tabindex=\"0\"" as HTML)>"
            out += isToday ? "<span class=\"day\" aria-current=\"date\">\(day)</span>" : "<span class=\"day\">\(day)</span>"
            if !events.isEmpty {
                out += "<span class=\"who\">"
                // Printed, a day's cell holds four lines: beyond that, three names and "+N".
                let crowded = events.count > Self.printedNames
                for (index, event) in events.enumerated() {
                    let name = HTML.name(event.name.isEmpty ? localizer(.someone) : event.name)
                    let symbol =
                        marks.symbols[Marks.key(event)].map { (sym: String) -> HTML in "<span class=\"sym\" aria-hidden=\"true\">\(sym) </span>" }
                        ?? .empty
                    out += crowded && index >= Self.printedNames - 1 ? "<span class=\"extra\">" : "<span>"
                    out += "\(symbol)\(name) <small>\(words.what(showAges ? event : event.withoutAge))</small></span>"
                }
                if crowded { out += "<span class=\"more\" aria-hidden=\"true\">+\(events.count - Self.printedNames + 1)</span>" }
                out += "</span>"
            }
            out += "</td>"
            column += 1
        }
        out += HTML.repeating("<td></td>", count: 7 - column)
        out += "</tr>\n</tbody>\n</table>\n</section>\n"
        return out
    }

    /// The first day of the week in the page's language and region, as ICU
    /// gives it: 1 for Sunday, 2 for Monday, … 7 for Saturday.
    static func firstWeekday(_ localizer: Localizer) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = localizer.locale
        let first = calendar.firstWeekday
        return (1...7).contains(first) ? first : 2
    }

    /// The column of `date` in a week that starts on `firstWeekday` (1 Sunday … 7 Saturday); 0 is the first.
    static func column(of date: LocalDate, firstWeekday: Int) -> Int {
        // 1970-01-01 (day 0) was a Thursday, weekday 5.
        let weekday = ((date.dayNumber + 4) % 7 + 7) % 7 + 1
        return ((weekday - firstWeekday) % 7 + 7) % 7
    }

    /// The week's days from `firstWeekday` (1 Sunday … 7 Saturday): the
    /// narrow name for the column, the full one for screen readers.
    static func weekdayNames(_ localizer: Localizer, from firstWeekday: Int) -> [(short: String, full: String)] {
        let formatter = DateFormatter()
        formatter.locale = localizer.locale
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        // 1970-01-04 was a Sunday (weekday 1).
        return (0..<7).map { offset in
            let instant = Date(timeIntervalSince1970: (Double(2 + firstWeekday + offset) + 0.5) * 86_400)
            formatter.dateFormat = "EEEEE"
            let short = formatter.string(from: instant)
            formatter.dateFormat = "EEEE"
            return (short, formatter.string(from: instant))
        }
    }

    /// The page's icon: a dot in the page's colour.
    public static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#a3154b"/></svg>

        """

    /// The page's stylesheet, served by the server at its own address: the
    /// only style a strict Content-Security-Policy (`style-src 'self'`) lets in.
    public static let stylesheet = """
        :root { color-scheme: light dark; --fg: #1a1a1a; --bg: #ffffff; --muted: #555555; --accent: #a3154b; --on-accent: #ffffff;
          --line: #d0d0d0; --today: #fff2b3; }
        @media (prefers-color-scheme: dark) {
          :root { --fg: #ececec; --bg: #141414; --muted: #b5b5b5; --accent: #ff8fb8; --on-accent: #141414; --line: #3a3a3a; --today: #4a3d00; }
        }
        * { box-sizing: border-box; }
        body { margin: 0 auto; max-width: 72rem; padding: 1rem; font: 16px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
        h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
        h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; }
        h3 { font-size: 1rem; margin: 0 0 .25rem; }
        a { color: var(--accent); }
        .next ol { list-style: none; padding: 0; margin: 0; }
        .next li { padding: .35rem .5rem; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: .25rem .75rem; }
        .next li.today { background: var(--today); font-weight: 600; }
        .next .when { min-width: 6.5rem; color: var(--muted); }
        .next li.today .when { color: var(--fg); }
        .next .what { color: var(--muted); }
        .next .line { flex-basis: 100%; font-size: .9rem; color: var(--muted); display: flex; flex-wrap: wrap; gap: .15rem .75rem; }
        .next .line a { white-space: nowrap; }
        .mark { color: var(--accent); font-weight: 600; }
        .months { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; }
        table { border-collapse: collapse; width: 100%; table-layout: fixed; }
        th { font-size: .75rem; font-weight: 600; color: var(--muted); }
        td { position: relative; text-align: center; padding: 1px; height: 2rem; vertical-align: middle; }
        td .day { display: inline-block; min-width: 1.7rem; line-height: 1.7rem; border-radius: 50%; }
        td.has .day { background: var(--accent); color: var(--on-accent); font-weight: 700; }
        td.today .day { outline: 2px solid var(--fg); outline-offset: 1px; }
        td.round .day { text-decoration: underline; }
        td .who { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
        td.has:hover .who, td.has:focus .who, td.has:focus-within .who {
          width: auto; height: auto; clip-path: none; z-index: 2; left: 50%; top: 100%; transform: translateX(-50%);
          background: var(--bg); color: var(--fg); border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; white-space: normal;
          min-width: 10rem; box-shadow: 0 2px 6px rgba(0, 0, 0, .3); }
        td .who > span { display: block; }
        td .who > span.more { display: none; }
        td.has:nth-child(-n+3) .who { left: 0; transform: none; }
        td.has:nth-child(n+5) .who { left: auto; right: 0; transform: none; }
        td .sym, .legend { display: none; }
        td:focus { outline: 2px solid var(--accent); }
        .subscribe ul { padding-left: 1.2rem; }
        .subscribe figure { margin: 1rem 0; }
        .subscribe svg.qr { width: 12rem; height: 12rem; }
        .subscribe figcaption { color: var(--muted); font-size: .9rem; }
        @media (max-width: 40rem) { body { padding: .5rem; } .next .when { min-width: 0; } }
        body.invite { max-width: 32rem; }
        .invite label { display: block; font-weight: 600; margin-bottom: .2rem; }
        .invite input, .invite select, .invite button { font: inherit; padding: .4rem .5rem; border: 1px solid var(--line); border-radius: .3rem; }
        .invite input[type=text] { width: 100%; }
        .invite fieldset { border: 1px solid var(--line); border-radius: .3rem; }
        .invite button { background: var(--accent); color: var(--on-accent); border-color: var(--accent); font-weight: 600; }
        .invite .who { color: var(--muted); }
        .invite .problem { border-left: 4px solid var(--accent); padding-left: .5rem; font-weight: 600; }
        @media print {
          :root { --fg: #000; --bg: #fff; --muted: #333; --accent: #000; --on-accent: #fff; --line: #999; --today: #fff; }
          body { max-width: none; padding: 0; font-size: 8pt; }
          header, .next, .subscribe { display: none; }
          h2 { margin: 0 0 2mm; font-size: 12pt; }
          h3 { font-size: 9pt; }
          td { height: auto; vertical-align: top; text-align: left; border: .5pt solid var(--line); padding: .3mm; }
          td .day { min-width: 0; line-height: 1; border-radius: 0; background: none; color: var(--fg); }
          td.has .day { background: none; color: var(--fg); }
          td .who { position: static; width: auto; height: auto; clip-path: none; white-space: normal; font-size: 4.5pt; line-height: 1.15; }
          td .who small { display: none; }
          td .sym { display: inline; }
          .legend { display: flex; flex-wrap: wrap; gap: 0 4mm; list-style: none; margin: 1mm 0 0; padding: 0; font-size: 7pt; }
          th { font-size: 6pt; }
        }
        @media print { body.print-year .months { grid-template-columns: repeat(4, 1fr); gap: 2mm 3mm; }
          body.print-year td { height: 8.2mm; }
          body.print-year td .day { float: left; margin-right: .6mm; }
          body.print-year td .who { display: block; max-height: 7.4mm; overflow: hidden; }
          body.print-year td .who > span { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
          body.print-year td .who > span.extra { display: none; }
          body.print-year td .who > span.more { display: block; }
          body.print-year .month { break-inside: avoid; } }
        @media print { body.print-month .months { display: block; }
          body.print-month .year > h2 { display: none; }
          body.print-month .month { break-after: page; }
          body.print-month h3 { font-size: 20pt; margin-bottom: 3mm; }
          body.print-month th { font-size: 10pt; }
          body.print-month td { height: 28mm; font-size: 10pt; }
          body.print-month td .who { font-size: 8pt; }
          body.print-month td .who small { display: inline; }
          body.print-month td .sym, body.print-month .legend { display: none; } }
        @page { size: A4 landscape; margin: 7mm; }

        """
}
