import Foundation

/// One event of a calendar file, as the iCalendar reader hands it over
/// (`BirthdayCalendar` parses the file with libical; this is the value core
/// decides on).
public struct CalendarFileEvent: Sendable, Equatable {
    /// The 1-based line of its `BEGIN:VEVENT`.
    public var line: Int
    public var uid: String?
    public var summary: String
    /// `DTSTART` when it is a date (an all-day event); `nil` for an event at a time.
    public var start: LocalDate?
    /// A `FREQ=YEARLY` rule (without an interval other than 1 and without
    /// `RSCALE`) repeats it every year.
    public var yearly: Bool
    /// An event of another calendar (`RSCALE`, or our own feed's
    /// `X-BIRTHDAYS-CALENDAR`): not read.
    public var otherCalendar: Bool
    /// `CATEGORIES` (our feed writes `Birthday` or `Anniversary`).
    public var categories: [String]
    /// Our own feed's `X-BIRTHDAYS-YEAR`.
    public var knownYear: Int?
    /// Our own feed's `X-BIRTHDAYS-UNKNOWN-YEAR`.
    public var unknownYear: Bool
    /// Our own feed's `X-BIRTHDAYS-LABEL`: a labelled date (or a name day) under this label.
    public var label: String? = nil
    /// Our own feed's `X-BIRTHDAYS-DEATHDATE` (on a memorial): the person's death date as they have it.
    public var deathDate: String? = nil
    /// The rule is `BYMONTH=2;BYMONTHDAY=-1` (Feb 29 in leap years, Feb 28
    /// otherwise): the date is February 29 whatever `DTSTART`'s year.
    public var lastDayOfFebruary = false

    public init(
        line: Int,
        uid: String? = nil,
        summary: String,
        start: LocalDate?,
        yearly: Bool,
        otherCalendar: Bool = false,
        categories: [String] = [],
        knownYear: Int? = nil,
        unknownYear: Bool = false
    ) {
        self.line = line
        self.uid = uid
        self.summary = summary
        self.start = start
        self.yearly = yearly
        self.otherCalendar = otherCalendar
        self.categories = categories
        self.knownYear = knownYear
        self.unknownYear = unknownYear
    }
}

/// Turns the events of a birthday calendar (Google Calendar's birthdays,
/// the exports browser extensions make of Facebook's birthdays, Outlook's
/// and Thunderbird's yearly events, this program's own feed) into contacts
/// (pure: the reading of the file is `BirthdayCalendar`'s).
///
/// ## Rules
/// - A **yearly all-day** event whose title names a birthday or an
///   anniversary (``title(_:)``: the ten languages' usual forms) is that
///   date of the person the title names. With `asBirthday`, every yearly
///   all-day event is a birthday, its title the name.
/// - A **genitive `s` without an apostrophe** ("Annas Geburtstag",
///   "Jans verjaardag") is taken off only when the name without it is known
///   and the name with it is not (``KnownNames``: the people in the store,
///   the name-day lists' first names); "Andreas Geburtstag" stays Andreas's.
/// - **The year**: our feed's `X-BIRTHDAYS-YEAR` (none with
///   `X-BIRTHDAYS-UNKNOWN-YEAR`), else the year of `DTSTART` unless it is a
///   placeholder (``isPlaceholder(_:today:)``), else an age in the title of a
///   one-year event ("🎂 Ada (36)" on 10 December 2026: born 1990).
/// - A yearly all-day event that is neither a birthday nor an anniversary is
///   reported at its line, not imported; an event at a time, one in another
///   calendar, and a one-year event without an age are left out silently
///   (a birthday calendar holds nothing else worth a word).
/// - One person per name (our feed: per person id): the events of a person
///   are one contact, their birthday and anniversary together. Our feed's
///   UIDs (`ID-birthday@birthdays`) give back the person's id; other UIDs
///   name an event, not a person, so those people are matched by name.
/// - A **memorial** (our feed's "🕯️ Ada" and "In memory of Ada" in the ten
///   languages, under `deceased remember`) is the birthday of someone who
///   has died: the person is deceased, with our feed's
///   `X-BIRTHDAYS-DEATHDATE` as their death date, else
///   ``Person/unknownDeathDate``.
/// - Our feed's **labelled dates** (`X-BIRTHDAYS-LABEL`, "📅 Ada: Started
///   work") are labelled dates of the person, with their year; its **name
///   days** (`ID-nameday-lv@birthdays`) are left out silently: they come
///   from the name and the `name-days` setting, not from data.
public enum CalendarBirthdays {
    /// What a title says.
    public struct Title: Sendable, Equatable {
        public var name: String
        public var kind: EventKind
        /// The age in the title ("(36)", "（36歳）"), when there is one.
        public var age: Int?
        /// A memorial ("🕯️ Ada", "In memory of Ada"): the person has died.
        public var memorial: Bool

        public init(name: String, kind: EventKind, age: Int? = nil, memorial: Bool = false) {
            self.name = name
            self.kind = kind
            self.age = age
            self.memorial = memorial
        }
    }

    /// A title's pattern: what comes before and after the name, lowercased.
    struct Pattern: Sendable {
        var prefix: String
        var suffix: String
        var kind: EventKind
        /// The suffix begins with a genitive `s` written without an
        /// apostrophe ("{}s geburtstag"): the name may end in that `s`
        /// itself ("Andreas Geburtstag"), so it is taken off only when
        /// ``KnownNames`` says so.
        var genitive: Bool
        /// In memory of someone: the person has died.
        var memorial: Bool

        init(_ template: String, _ kind: EventKind, memorial: Bool = false) {
            let parts = template.components(separatedBy: "{}")
            prefix = parts[0]
            suffix = parts.count > 1 ? parts[1] : ""
            self.kind = kind
            genitive = suffix.hasPrefix("s ")
            self.memorial = memorial
        }
    }

    /// What tells a name that ends in `s` from a genitive `s` written
    /// without an apostrophe ("Andreas Geburtstag", "Annas Geburtstag"):
    /// the people already in the store (their whole names) and lists of
    /// first names (the name-day lists: the shipped ones and the user's own,
    /// compared without case and accents, ``NameDays/fold(_:)``), against
    /// the word the `s` is on.
    ///
    /// A name that is itself known keeps its `s` ("Andreas", when Andreas is a
    /// contact or a known first name); else the `s` is taken off when what is
    /// left is known ("Anna"); else the name is kept whole, `s` and all
    /// ("Thomas", "Klaus"): a name is never cut on a guess.
    public struct KnownNames: Sendable {
        /// The whole names of the people in the store, as ``PersonID/normalize(_:)`` writes them.
        var contacts: Set<String>
        /// Lists of first names.
        var lists: [NameDayList]

        /// - Parameters:
        ///   - contacts: the names of the people already in the store.
        ///   - lists: lists whose names are first names; the shipped name-day lists by default.
        public init(contacts: [String] = [], lists: [NameDayList] = Array(NameDayList.builtIn.values)) {
            self.contacts = Set(contacts.map(PersonID.normalize))
            self.lists = lists
        }

        /// Whether `name` is known to be a name: a contact's whole name, or
        /// its last word (the one a genitive is on) a first name of a list.
        func knows(_ name: String) -> Bool {
            if contacts.contains(PersonID.normalize(name)) { return true }
            guard let word = name.split(separator: " ").last, word.count > 1 else { return false }
            return lists.contains { !$0.days(of: String(word)).isEmpty }
        }

        /// The name in a title whose genitive `s` has no apostrophe: `whole`
        /// (with the `s`) or `whole` without its last letter (see the type's rule).
        func name(genitive whole: String) -> String {
            let stripped = String(whole.dropLast()).trimmingWhitespace()
            guard !stripped.isEmpty, !knows(whole), knows(stripped) else { return whole }
            return stripped
        }
    }

    /// The usual forms, most specific first: "Anniversaire de mariage de X"
    /// before "Anniversaire de X"; Spanish and Italian "aniversario" and
    /// "anniversario" are anniversaries, Portuguese "aniversário" and French
    /// "anniversaire" birthdays. Apostrophes are compared as `'`.
    static let patterns: [Pattern] = [
        // Anniversaries that name the wedding.
        Pattern("wedding anniversary of {}", .anniversary), Pattern("{}'s wedding anniversary", .anniversary),
        Pattern("hochzeitstag von {}", .anniversary), Pattern("hochzeitstag: {}", .anniversary), Pattern("{}'s hochzeitstag", .anniversary),
        Pattern("{}s hochzeitstag", .anniversary),
        Pattern("{}' hochzeitstag", .anniversary),
        Pattern("anniversaire de mariage de {}", .anniversary), Pattern("anniversaire de mariage d'{}", .anniversary),
        Pattern("anniversaire de mariage : {}", .anniversary), Pattern("anniversaire de mariage: {}", .anniversary),
        Pattern("aniversario de boda de {}", .anniversary), Pattern("anniversario di matrimonio di {}", .anniversary),
        Pattern("aniversário de casamento de {}", .anniversary), Pattern("trouwdag van {}", .anniversary),
        Pattern("rocznica ślubu: {}", .anniversary), Pattern("rocznica ślubu {}", .anniversary),
        Pattern("{}さんの結婚記念日", .anniversary), Pattern("{}の結婚記念日", .anniversary), Pattern("{}的结婚纪念日", .anniversary),
        Pattern("{}结婚纪念日", .anniversary),
        // In memory of someone: their birthday, and they have died (our feed under `deceased remember`).
        Pattern("in memory of {}", .birthday, memorial: true), Pattern("in erinnerung an {}", .birthday, memorial: true),
        Pattern("en souvenir de {}", .birthday, memorial: true), Pattern("en memoria de {}", .birthday, memorial: true),
        Pattern("in ricordo di {}", .birthday, memorial: true), Pattern("em memória de {}", .birthday, memorial: true),
        Pattern("ter herinnering aan {}", .birthday, memorial: true), Pattern("wspomnienie: {}", .birthday, memorial: true),
        Pattern("{}さんを偲んで", .birthday, memorial: true), Pattern("纪念{}", .birthday, memorial: true),
        // Birthdays.
        Pattern("{}'s birthday", .birthday), Pattern("{}' birthday", .birthday), Pattern("birthday: {}", .birthday),
        Pattern("birthday of {}", .birthday), Pattern("birthday - {}", .birthday), Pattern("{} - birthday", .birthday),
        Pattern("happy birthday, {}", .birthday), Pattern("happy birthday {}", .birthday), Pattern("{}'s bday", .birthday),
        Pattern("{} birthday", .birthday),
        Pattern("geburtstag von {}", .birthday), Pattern("geburtstag: {}", .birthday), Pattern("{}' geburtstag", .birthday),
        Pattern("{} hat geburtstag", .birthday), Pattern("{}'s geburtstag", .birthday), Pattern("{}s geburtstag", .birthday),
        Pattern("anniversaire de {}", .birthday), Pattern("anniversaire d'{}", .birthday), Pattern("anniversaire : {}", .birthday),
        Pattern("anniversaire: {}", .birthday), Pattern("joyeux anniversaire {}", .birthday),
        Pattern("cumpleaños de {}", .birthday), Pattern("cumpleaños: {}", .birthday), Pattern("cumple de {}", .birthday),
        Pattern("compleanno di {}", .birthday), Pattern("compleanno: {}", .birthday),
        Pattern("aniversário de {}", .birthday), Pattern("aniversário: {}", .birthday),
        Pattern("verjaardag van {}", .birthday), Pattern("verjaardag: {}", .birthday), Pattern("{}'s verjaardag", .birthday),
        Pattern("{}' verjaardag", .birthday), Pattern("{}s verjaardag", .birthday),
        Pattern("{} is jarig", .birthday), Pattern("{} jarig", .birthday),
        Pattern("urodziny: {}", .birthday), Pattern("urodziny {}", .birthday),
        Pattern("{}さんの誕生日", .birthday), Pattern("{}の誕生日", .birthday), Pattern("誕生日: {}", .birthday), Pattern("{} 誕生日", .birthday),
        Pattern("{}的生日", .birthday), Pattern("生日：{}", .birthday), Pattern("{}生日", .birthday),
        // Anniversaries without the wedding.
        Pattern("{}'s anniversary", .anniversary), Pattern("{}' anniversary", .anniversary), Pattern("anniversary: {}", .anniversary),
        Pattern("anniversary of {}", .anniversary), Pattern("{} anniversary", .anniversary),
        Pattern("jahrestag von {}", .anniversary), Pattern("aniversario de {}", .anniversary), Pattern("anniversario di {}", .anniversary),
        Pattern("rocznica: {}", .anniversary), Pattern("rocznica {}", .anniversary),
    ]

    /// The emoji a title may start with, and what they say (our feed writes 🎂, 💍 and 🕯️).
    static let emoji: [(String, EventKind)] = [
        ("🎂", .birthday), ("🎉", .birthday), ("🎁", .birthday), ("🥳", .birthday), ("🎈", .birthday), ("🕯️", .birthday), ("🕯", .birthday),
        ("💍", .anniversary), ("💑", .anniversary), ("❤️", .anniversary),
    ]

    /// What `summary` says: the name, birthday or anniversary, and an age;
    /// `nil` when it is neither. "Ada Lovelace's birthday", "Birthday: Ada",
    /// "Geburtstag von Ada", "Anniversaire d'Ada", "Cumpleaños de Ada",
    /// "🎂 Ada (36)", "Adaさんの誕生日（36歳）"…; `categories` (our feed's
    /// `Birthday` or `Anniversary`) decide for a title that is only a name
    /// after an emoji.
    public static func title(_ summary: String, categories: [String] = [], known: KnownNames = KnownNames()) -> Title? {
        var text = summary.replacingOccurrences(of: "\u{2019}", with: "'").trimmingWhitespace()
        let age = takeAge(&text)
        var emojiKind: EventKind?
        // Our feed's memorial: "🕯️ Ada".
        var candle = false
        for (mark, kind) in emoji where text.hasPrefix(mark) {
            emojiKind = kind
            candle = mark.unicodeScalars.first == "\u{1F56F}"
            text = String(text.dropFirst(mark.count)).trimmingWhitespace()
            break
        }
        // Our feed's "🎂 Ada (lunar)" is a date in another calendar: not read.
        if text.hasSuffix(")"), emojiKind != nil { return nil }
        let lowered = text.lowercased()
        for pattern in patterns {
            let prefix = pattern.prefix
            let suffix = pattern.suffix
            guard lowered.count > prefix.count + suffix.count, lowered.hasPrefix(prefix), lowered.hasSuffix(suffix) else { continue }
            var name = String(text.dropFirst(prefix.count).dropLast(suffix.count)).trimmingWhitespace()
            guard !name.isEmpty else { continue }
            // "Andreas Geburtstag" is Andreas's unless Andrea is known and Andreas is not.
            if pattern.genitive { name = known.name(genitive: String(text.dropFirst(prefix.count).dropLast(suffix.count - 1)).trimmingWhitespace()) }
            return Title(name: name, kind: pattern.kind, age: age, memorial: candle || pattern.memorial)
        }
        let category = categories.lazy.map { $0.lowercased() }.compactMap { word -> EventKind? in
            word.hasPrefix("birthday") ? .birthday : word.hasPrefix("anniversar") ? .anniversary : nil
        }.first
        if let kind = emojiKind ?? category, !text.isEmpty { return Title(name: text, kind: kind, age: age, memorial: candle) }
        return nil
    }

    /// Takes a trailing age off `text`: " (36)", "（36歳）", "（10周年）".
    static func takeAge(_ text: inout String) -> Int? {
        guard let close = text.last, close == ")" || close == "）" else { return nil }
        guard let open = text.lastIndex(where: { $0 == "(" || $0 == "（" }) else { return nil }
        let inner = text[text.index(after: open)..<text.index(before: text.endIndex)]
        let digits = inner.prefix { $0.isASCII && $0.isNumber }
        let rest = inner.dropFirst(digits.count)
        guard !digits.isEmpty, digits.count <= 3, ["", "歳", "岁", "周年", "年"].contains(String(rest)), let age = Int(digits) else { return nil }
        text = String(text[..<open]).trimmingWhitespace()
        return age
    }

    /// Whether `data` is an iCalendar file: `BEGIN:VCALENDAR` first, after a
    /// byte order mark and blank lines.
    public static func isCalendar(_ data: Data) -> Bool {
        var bytes = data.prefix(64)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        return String(decoding: bytes.prefix(15), as: UTF8.self).uppercased() == "BEGIN:VCALENDAR"
    }

    /// Whether `year` in a yearly event's `DTSTART` is no birth year: Apple's
    /// 1604, Outlook's 1601 and 4501, or a series that begins this year or
    /// later (an export that knows no year starts the series at the next
    /// birthday). 1900 is a year, as in cards (docs/dates.md).
    public static func isPlaceholder(_ year: Int, today: LocalDate?) -> Bool {
        if [1601, 1604, 4501].contains(year) { return true }
        if let today, year >= today.year { return true }
        return !EventDate.yearRange.contains(year)
    }

    /// The contacts `events` give (see the type's rules), with a problem
    /// for each yearly all-day event that is neither a birthday nor an
    /// anniversary.
    ///
    /// - Parameter known: the names that tell a genitive `s` from a name's own (``KnownNames``).
    public static func contacts(
        from events: [CalendarFileEvent],
        file: String,
        asBirthday: Bool = false,
        today: LocalDate? = nil,
        known: KnownNames = KnownNames()
    ) -> ParseResult {
        struct Found {
            var contact: ParsedContact
            /// From yearly events: they win over one-year events.
            var years: [EventKind: Int] = [:]
            var days: [EventKind: MonthDay] = [:]
            /// From one-year events with an age in the title.
            var agedYears: [EventKind: Int] = [:]
            var agedDays: [EventKind: MonthDay] = [:]
            /// Our feed's labelled dates by their UID's date part (`date-1f2e3d4c`), in file order.
            var labelled: [String: LabelledDate] = [:]
            var labelledOrder: [String] = []
        }
        var found: [String: Found] = [:]
        var order: [String] = []
        var problems: [ImportProblem] = []
        for event in events {
            guard let start = event.start, !event.otherCalendar else { continue }
            let ours = event.uid.flatMap(ownPersonID)
            // Our feed's Feb 29 series under `leap-day mar1`: the date is the Feb 29 series'.
            if let uid = event.uid, ours != nil, uid.contains("-mar1-") { continue }
            if let label = event.label {
                // Our feed's name days are derived, not data; a labelled date is the person's.
                if let uid = event.uid, ownNameDay(uid) { continue }
                guard event.yearly, let said = labelledTitle(event.summary, label: label) else { continue }
                let own = event.uid.flatMap(ownLabelledID)
                let key = own.map { "id:" + $0.person } ?? "n:" + PersonID.normalize(said)
                if found[key] == nil {
                    let contact = ParsedContact(
                        source: ContactSource(file: file, index: order.count, line: event.line),
                        uid: own?.person,
                        formattedName: said
                    )
                    found[key] = Found(contact: contact)
                    order.append(key)
                }
                let day = event.lastDayOfFebruary ? MonthDay(month: 2, day: 29) : MonthDay(month: start.month, day: start.day)
                var year = event.knownYear.flatMap { EventDate.yearRange.contains($0) ? $0 : nil }
                if year == nil, !event.unknownYear, !isPlaceholder(start.year, today: today) { year = start.year }
                let date = EventDate(year: year, month: day.month, day: day.day) ?? EventDate(year: nil, month: day.month, day: day.day)
                let dateKey = own?.date ?? label + "\u{1F}" + String(day.month) + "-" + String(day.day)
                guard let date, found[key]?.labelled[dateKey] == nil else { continue }
                found[key]?.labelled[dateKey] = LabelledDate(label: label, date: date)
                found[key]?.labelledOrder.append(dateKey)
                continue
            }
            var said = title(event.summary, categories: event.categories, known: known)
            if said == nil, asBirthday, event.yearly {
                var name = event.summary.trimmingWhitespace()
                let age = takeAge(&name)
                for (mark, _) in emoji where name.hasPrefix(mark) { name = String(name.dropFirst(mark.count)).trimmingWhitespace() }
                if !name.isEmpty { said = Title(name: name, kind: .birthday, age: age) }
            }
            if asBirthday, var birthday = said {
                birthday.kind = .birthday
                said = birthday
            }
            guard let said else {
                if event.yearly {
                    problems.append(
                        ImportProblem(
                            file: file,
                            line: event.line,
                            message:
                                "a yearly event whose title names no birthday or anniversary; not imported (--as birthday takes it as a birthday)"
                        )
                    )
                }
                continue
            }
            // A one-year event counts only for the year its age gives.
            guard event.yearly || said.age != nil else { continue }
            let key = ours.map { "id:" + $0 } ?? "n:" + PersonID.normalize(said.name)
            if found[key] == nil {
                let contact = ParsedContact(
                    source: ContactSource(file: file, index: order.count, line: event.line),
                    uid: ours,
                    formattedName: said.name
                )
                found[key] = Found(contact: contact)
                order.append(key)
            }
            // A memorial: the person has died; our feed says when (as they have it), a title alone only that.
            if said.memorial || event.deathDate != nil, found[key]?.contact.deathDate == nil {
                found[key]?.contact.deathDate = event.deathDate.map(VCardCardBuilder.quoted) ?? Person.unknownDeathDate
            }
            let kind = said.kind
            let day = event.lastDayOfFebruary ? MonthDay(month: 2, day: 29) : MonthDay(month: start.month, day: start.day)
            if event.yearly {
                if let known = event.knownYear, EventDate.yearRange.contains(known) {
                    found[key]?.years[kind] = known
                } else if !event.unknownYear, !isPlaceholder(start.year, today: today), found[key]?.years[kind] == nil {
                    found[key]?.years[kind] = start.year
                }
                if found[key]?.days[kind] == nil { found[key]?.days[kind] = day }
            } else if let age = said.age, !event.unknownYear, found[key]?.agedYears[kind] == nil {
                found[key]?.agedYears[kind] = start.year - age
                found[key]?.agedDays[kind] = day
            }
        }
        var contacts: [ParsedContact] = []
        for key in order {
            guard var item = found[key] else { continue }
            for kind in [EventKind.birthday, .anniversary] {
                guard let day = item.days[kind] ?? item.agedDays[kind] else { continue }
                let year = item.years[kind] ?? item.agedYears[kind]
                let date = EventDate(year: year, month: day.month, day: day.day) ?? EventDate(year: nil, month: day.month, day: day.day)
                switch kind {
                case .birthday: item.contact.birthday = date
                case .anniversary: item.contact.anniversary = date
                case .labelled: break
                }
            }
            item.contact.labelledDates = LabelledDate.normalized(item.labelledOrder.compactMap { item.labelled[$0] })
            if item.contact.hasDates { contacts.append(item.contact) }
        }
        return ParseResult(contacts: contacts, problems: problems)
    }

    struct MonthDay {
        var month: Int
        var day: Int
    }

    /// The name in our feed's title of a labelled date: "📅 Ada: Started work
    /// (8)", "Ada: Started work", "Ada : Started work", "Ada：Started work";
    /// `nil` when it names no one.
    static func labelledTitle(_ summary: String, label: String) -> String? {
        var text = summary.trimmingWhitespace()
        _ = takeAge(&text)
        if text.hasPrefix("📅") { text = String(text.dropFirst()).trimmingWhitespace() }
        let label = label.trimmingWhitespace()
        guard !label.isEmpty, text.hasSuffix(label) else { return nil }
        var name = String(text.dropLast(label.count)).trimmingWhitespace()
        guard name.hasSuffix(":") || name.hasSuffix("：") else { return nil }
        name = String(name.dropLast()).trimmingWhitespace()
        return name.isEmpty ? nil : name
    }

    /// The stem of one of our own feed's UIDs, without `@birthdays` and an
    /// aged year's or a Feb 29 series' tail (`-y2026`, `-mar1-2`).
    static func ownStem(_ uid: String) -> Substring? {
        guard uid.hasSuffix("@birthdays") else { return nil }
        var stem = uid.dropLast("@birthdays".count)
        if let range = stem.range(of: "-mar1-", options: .backwards) { stem = stem[..<range.lowerBound] }
        if let range = stem.range(of: "-y", options: .backwards), !stem[range.upperBound...].isEmpty,
            stem[range.upperBound...].allSatisfy({ $0.isASCII && $0.isNumber })
        {
            stem = stem[..<range.lowerBound]
        }
        return stem
    }

    /// Whether `uid` is one of our own feed's name days (`ada-nameday-lv@birthdays`, `ada-nameday-set@birthdays`).
    static func ownNameDay(_ uid: String) -> Bool {
        guard let stem = ownStem(uid), let range = stem.range(of: "-nameday-", options: .backwards) else { return false }
        let rest = stem[range.upperBound...]
        return !rest.isEmpty && rest.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } && range.lowerBound != stem.startIndex
    }

    /// The person id and the date part (`date-1f2e3d4c`, `date-1f2e3d4c-2`)
    /// of our own feed's UID of a labelled date (`ada-date-1f2e3d4c@birthdays`).
    static func ownLabelledID(_ uid: String) -> (person: String, date: String)? {
        guard let stem = ownStem(uid), let range = stem.range(of: "-date-", options: .backwards) else { return nil }
        let rest = stem[range.upperBound...]
        let hash = rest.prefix(8)
        guard hash.count == 8, hash.allSatisfy(\.isHexDigit) else { return nil }
        let ordinal = rest.dropFirst(8)
        guard ordinal.isEmpty || (ordinal.hasPrefix("-") && ordinal.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }) else { return nil }
        let person = String(stem[..<range.lowerBound])
        return person.isEmpty ? nil : (person, "date-" + String(rest))
    }

    /// The person id in one of our own feed's UIDs (`ada-birthday@birthdays`,
    /// `ada-anniversary-y2026@birthdays`); `nil` for any other UID.
    static func ownPersonID(_ uid: String) -> String? {
        guard uid.hasSuffix("@birthdays") else { return nil }
        let stem = uid.dropLast("@birthdays".count)
        for kind in EventKind.allCases {
            let marker = "-" + kind.rawValue
            guard let range = stem.range(of: marker, options: .backwards) else { continue }
            let rest = stem[range.upperBound...]
            guard rest.isEmpty || rest.hasPrefix("-y") || rest.hasPrefix("-mar1-") else { continue }
            let id = String(stem[..<range.lowerBound])
            return id.isEmpty ? nil : id
        }
        return nil
    }
}
