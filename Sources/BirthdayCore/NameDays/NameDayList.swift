import Foundation

/// A country's list of name days: which names are celebrated on which day
/// (issue 34). A person gets their name day from their first name or
/// nickname (``NameDays/match(_:in:)``); it is a date without a year, so it
/// has no age.
///
/// The lists shipped are those whose licence allows it, each with its source
/// and licence beside its data: Latvia's (`lv`, CC0: ``latvianText``).
public struct NameDayList: Hashable, Sendable {
    /// The country code the `name-days` setting names (`lv`).
    public let country: String
    /// The days of each name, by its folded form (``NameDays/fold(_:)``), in day order.
    let days: [String: [EventDate]]

    /// A line of a list that is not a day: its number (from 1) and its first field, as written.
    public struct NotADay: Hashable, Sendable {
        public var line: Int
        public var text: String
    }

    /// Reads a list written `MM-DD,name,name…`, one day a line (blank lines
    /// and lines starting with `#` are skipped); a line that is not one is
    /// returned among `notDays` (BirthdayText's `parse(_:country:file:localizer:)`
    /// words it), and the rest is still read.
    public static func read(_ text: String, country: String) -> (list: NameDayList, notDays: [NotADay]) {
        var days: [String: [EventDate]] = [:]
        var notDays: [NotADay] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let parts = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
            let day = parts[0].split(separator: "-")
            guard day.count == 2, day[0].count == 2, day[1].count == 2, let month = Int(day[0]), let dayOfMonth = Int(day[1]),
                let date = EventDate(year: nil, month: month, day: dayOfMonth)
            else {
                notDays.append(NotADay(line: index + 1, text: String(parts[0])))
                continue
            }
            for name in parts.dropFirst() where !name.isEmpty && name.contains(where: \.isLetter) {
                let key = NameDays.fold(name)
                if !(days[key] ?? []).contains(date) { days[key, default: []].append(date) }
            }
        }
        return (NameDayList(country: country, days: days), notDays)
    }

    /// The days of `name` (folded), in the order the list gives them.
    public func days(of name: String) -> [EventDate] { days[NameDays.fold(name)] ?? [] }

    /// Every name on the list (folded): how many the list holds.
    public var count: Int { days.count }

    /// The list written back in its format (`MM-DD,name,name…`, one day a
    /// line, names folded), as a list of your own is stored.
    public var text: String {
        var byDay: [String: [String]] = [:]
        for (name, dates) in days {
            for date in dates { byDay[String(format: "%02d-%02d", date.month, date.day), default: []].append(name) }
        }
        return byDay.keys.sorted().map { ([$0] + byDay[$0, default: []].sorted()).joined(separator: ",") }.joined(separator: "\n")
    }

    /// Whether `code` can name a list of your own: 2 to 8 letters `a-z`.
    public static func isCode(_ code: String) -> Bool {
        (2...8).contains(code.count) && code.unicodeScalars.allSatisfy { ("a"..."z").contains($0) }
    }

    /// The most bytes a list of your own may hold (`name-days import`): 4 MB,
    /// hundreds of times the largest country's list.
    public static let maxFileBytes = 4 << 20

    /// The lists that ship with `birthdays`, by country code.
    public static let builtIn: [String: NameDayList] = builtInTexts.mapValues { read($0.text, country: $0.code).list }

    /// The country codes of ``builtIn``, sorted, known without reading the
    /// lists (the help of `settings` names them at every start of the program).
    public static let builtInCodes: [String] = builtInTexts.keys.sorted()

    private static let builtInTexts: [String: (code: String, text: String)] = ["lv": ("lv", latvianText)]
}

/// What a person's name matched in one list.
public struct NameDayMatch: Hashable, Sendable {
    /// The list's country (`lv`).
    public var country: String
    /// The name as the person has it ("Jānis", or the nickname).
    public var name: String
    /// The days the list gives it: one is the person's name day; more are asked about, not guessed.
    public var days: [EventDate]

    /// The name day, when the list gives the name one day only.
    public var day: EventDate? { days.count == 1 ? days[0] : nil }
}

/// Name days: matching people against the lists the `name-days` setting names.
public enum NameDays {
    /// The form names are compared in: without case and with diacritics folded ("Jānis", "JANIS", "janis").
    public static func fold(_ text: String) -> String {
        text.trimmingWhitespace().folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// The names tried, in order: the first given name (the first word of
    /// `N`'s given part, else of the name shown), then the nickname.
    static func candidates(of person: Person) -> [String] {
        let given = person.nameParts.given.split(whereSeparator: { $0 == " " || $0 == "-" }).first.map(String.init)
        let shown = person.name.split(separator: " ").first.map(String.init)
        return [given ?? shown, person.nickname.isEmpty ? nil : person.nickname].compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// What `person`'s first name or nickname matches in each of `lists`, in
    /// their order: the first candidate (``candidates(of:)``) the list has.
    public static func match(_ person: Person, in lists: [NameDayList]) -> [NameDayMatch] {
        let names = candidates(of: person)
        return lists.compactMap { list in
            for name in names {
                let days = list.days(of: name)
                if !days.isEmpty { return NameDayMatch(country: list.country, name: name, days: days) }
            }
            return nil
        }
    }

    /// The name days of `person` as events: one labelled date per list that
    /// gives their name exactly one day (``LabelledDate/nameDayList``), under
    /// `label` ("Name day" in the user's language). The user's `choice` for
    /// the person wins (``NameDayChoice``): none at all, or the one day they
    /// set (`nameday-set` in its ids), whatever the lists say. Nothing
    /// without lists: name days are off.
    public static func events(of person: Person, in lists: [NameDayList], label: String, choice: NameDayChoice? = nil) -> [LabelledDate] {
        guard !lists.isEmpty else { return [] }
        switch choice {
        case .off: return []
        case .day(let day): return [LabelledDate(label: label, date: day, nameDayList: NameDayChoice.setList)]
        case nil:
            return match(person, in: lists).compactMap { match in
                match.day.map { LabelledDate(label: label, date: $0, nameDayList: match.country) }
            }
        }
    }
}

/// What name days are made of: the lists the `name-days` setting names, in
/// its order, and the user's choices by person id (``NameDayChoice``). The
/// store reads it only where name days are made, not with every settings read.
public struct NameDaySetup: Hashable, Sendable {
    /// The lists, in the order of the `name-days` setting; empty: name days are off.
    public var lists: [NameDayList]
    /// The user's corrections, by person id.
    public var choices: [String: NameDayChoice]

    public init(lists: [NameDayList] = [], choices: [String: NameDayChoice] = [:]) {
        self.lists = lists
        self.choices = choices
    }

    /// The lists `codes` names, in order (a list of your own, in `own` by
    /// code, wins over a shipped one; a code neither has is skipped), with `choices`.
    public init(codes: [String], own: [String: NameDayList], choices: [String: NameDayChoice]) {
        self.init(lists: codes.compactMap { own[$0] ?? NameDayList.builtIn[$0] }, choices: choices)
    }

    /// The name days of `person` under `label` (``NameDays/events(of:in:label:choice:)``), their choice winning.
    public func events(of person: Person, label: String) -> [LabelledDate] {
        NameDays.events(of: person, in: lists, label: label, choice: choices[person.id])
    }
}

/// The user's correction of one person's name day (`birthdays name-days off
/// PERSON`, `name-days set PERSON MM-DD`), kept across imports and syncs.
public enum NameDayChoice: Hashable, Sendable {
    /// No name day for them.
    case off
    /// This day, whatever the lists say (a name on two days, a name on none).
    case day(EventDate)

    /// What ``LabelledDate/nameDayList`` says of a day the user set.
    public static let setList = "set"

    /// Reads what a user types: `off`, or a day `MM-DD` (`06-24`, `--06-24`).
    public init?(text: String) {
        let value = text.trimmingWhitespace().lowercased()
        if value == "off" {
            self = .off
            return
        }
        let parts = (value.hasPrefix("--") ? String(value.dropFirst(2)) : value).split(separator: "-")
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let month = Int(parts[0]), let day = Int(parts[1]),
            let date = EventDate(year: nil, month: month, day: day)
        else { return nil }
        self = .day(date)
    }
}
