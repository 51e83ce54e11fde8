import Foundation

@testable import BirthdayCore

/// A generated corpus of people spread over three sources, for measuring
/// ``PersonLinker``: a Google CSV, an iCloud vCard 3.0 export
/// (`X-APPLE-OMIT-YEAR`) and a Nextcloud vCard 4.0 vdir folder.
///
/// The people are the dated contacts of `gen-contacts.py` (their names,
/// addresses, numbers and birthdays), each name and day once. The rest is
/// built here, deterministically (one seeded generator): middle names and
/// nicknames; 40% of the people in two or three sources, each card with
/// its own variations (the name in other order, accents dropped, a middle
/// initial or none, the nickname on one card and as the name on another,
/// the year left out, e-mail addresses in other case, phone numbers in
/// other formats, a card without some of its addresses or numbers, a `UID` of its
/// own or, between iCloud and Nextcloud, the same one); and people who only
/// look alike: twins sharing a phone and a birthday, namesakes on other days,
/// a parent and child sharing a family e-mail address (half of them with
/// the same name), the same name and day thirty years apart (half of them
/// sharing an address).
struct LinkCorpus {
    enum Source: String, CaseIterable {
        case google
        case icloud
        case nextcloud
    }

    enum LookAlike: String, CaseIterable {
        case twins
        case namesakes
        case parentAndChild
        case decadesApart
    }

    struct Person {
        var given: String
        var middle: String?
        var family: String
        var nickname: String?
        var emails: [String]
        var phones: [String]
        var birthday: EventDate
        /// Every card writes the year (the same name and day decades apart: the year is all that tells them apart).
        var keepsYears = false
        /// Every card keeps every address and number (look-alikes that share one).
        var keepsPoints = false
    }

    /// One card of a person in one source, as it is written.
    struct Card {
        var person: Int
        var source: Source
        var uid: String?
        var given: String
        var middle: String
        var family: String
        var nickname: String
        /// The name written family first.
        var familyFirst = false
        var emails: [String]
        var phones: [String]
        var birthday: EventDate
    }

    var people: [Person] = []
    var cards: [Card] = []
    var lookAlikes: [(kind: LookAlike, a: Int, b: Int)] = []
    /// How many cards carry each variation, for the report.
    var variations: [String: Int] = [:]

    static let middles = ["Mary", "James", "Louise", "Paul", "Anne", "Rose", "Lee", "Elizabeth"]
    static let nicknames = [
        "Margaret": "Maggie", "Katherine": "Kate", "Donald": "Don", "Barbara": "Babs", "Frances": "Fran", "Dennis": "Denny",
        "Alan": "Al", "Edsger": "Ed", "John": "Johnny", "Grace": "Gracie", "Ken": "Kenny", "José": "Pepe",
    ]
    /// Given names for twins and parents (Latin, none a nickname of another).
    static let otherGiven = ["Mary", "Jane", "Peter", "Paul", "Clara", "Otto", "Irene", "Hugo", "Nina", "Felix", "Vera", "Emil"]

    /// The corpus made from `base` (contacts as read from gen-contacts.py's export): `count` of them, then the look-alikes, `pairs` of each kind.
    init(base: [ParsedContact], count: Int, pairs: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var used: Set<String> = []
        for contact in base {
            guard let birthday = contact.birthday, !contact.nameParts.given.isEmpty, !contact.nameParts.family.isEmpty else { continue }
            guard used.insert(Self.nameAndDay(contact.nameParts.given, contact.nameParts.family, birthday)).inserted else { continue }
            var person = Person(
                given: contact.nameParts.given,
                family: contact.nameParts.family,
                emails: contact.contactPoints.filter { $0.kind == .email }.map(\.value),
                phones: contact.contactPoints.filter { $0.kind == .phone }.map(\.value),
                birthday: birthday
            )
            if random.chance(0.25) { person.middle = random.pick(Self.middles) }
            if let nickname = Self.nicknames[person.given], random.chance(0.6) { person.nickname = nickname }
            people.append(person)
            if people.count == count { break }
        }
        addLookAlikes(pairs: pairs, used: &used, random: &random)
        for index in people.indices { addCards(of: index, random: &random) }
    }

    /// The name's words and the day: no two people of the base share them.
    static func nameAndDay(_ given: String, _ family: String, _ date: EventDate) -> String {
        LinkName(given + " " + family).words.joined(separator: " ") + "|\(date.month)-\(date.day)"
    }

    private mutating func addLookAlikes(pairs: Int, used: inout Set<String>, random: inout SplitMix64) {
        var partners = Array(people.indices)
        random.shuffle(&partners)
        var next = partners.makeIterator()
        var counter = 0
        for kind in LookAlike.allCases {
            var made = 0
            while made < pairs, let p = next.next() {
                counter += 1
                let a = people[p]
                var b = Person(given: a.given, middle: a.middle, family: a.family, emails: [], phones: [], birthday: a.birthday)
                switch kind {
                case .twins:
                    var names = Self.otherGiven
                    random.shuffle(&names)
                    guard let given = names.first(where: { !used.contains(Self.nameAndDay($0, a.family, a.birthday)) }) else { continue }
                    b.given = given
                    b.middle = nil
                    let landline = a.phones.first ?? "+1-555-7\(Self.digits(counter % 100, 2))-\(Self.digits(counter, 4))"
                    if a.phones.isEmpty { people[p].phones = [landline] }
                    b.phones = [landline]
                    b.emails = ["twin.\(counter)@example.org"]
                    people[p].keepsPoints = true
                    b.keepsPoints = true
                case .namesakes:
                    guard let date = otherDay(than: a.birthday, name: a, used: used, random: &random) else { continue }
                    b.birthday = date
                    b.phones = ["+1-555-8\(Self.digits(counter % 100, 2))-\(Self.digits(counter, 4))"]
                case .parentAndChild:
                    if random.chance(0.5) { b.given = random.pick(Self.otherGiven) }
                    guard let day = otherDay(than: a.birthday, name: b, used: used, random: &random),
                        let date = EventDate(year: (a.birthday.year ?? 1990) - 26 - random.below(10), month: day.month, day: day.day)
                    else { continue }
                    b.birthday = date
                    b.middle = nil
                    let family = "family.\(counter)@example.org"
                    people[p].emails.append(family)
                    b.emails = [family]
                    people[p].keepsPoints = true
                    b.keepsPoints = true
                case .decadesApart:
                    guard let year = a.birthday.year, year >= 1950,
                        let date = EventDate(year: year - 30, month: a.birthday.month, day: a.birthday.day)
                    else { continue }
                    b.birthday = date
                    people[p].keepsYears = true
                    b.keepsYears = true
                    if random.chance(0.5) {
                        let family = "home.\(counter)@example.org"
                        people[p].emails.append(family)
                        b.emails = [family]
                        people[p].keepsPoints = true
                        b.keepsPoints = true
                    }
                }
                used.insert(Self.nameAndDay(b.given, b.family, b.birthday))
                lookAlikes.append((kind, p, people.count))
                people.append(b)
                made += 1
            }
        }
    }

    /// A day other than `date`'s on which no one of `name`'s name is born yet, with a year (or none, one time in eight).
    private func otherDay(than date: EventDate, name: Person, used: Set<String>, random: inout SplitMix64) -> EventDate? {
        for _ in 0..<20 {
            let month = 1 + random.below(12)
            let day = 1 + random.below(28)
            let year: Int? = random.chance(0.125) ? nil : 1930 + random.below(80)
            guard month != date.month || day != date.day, let other = EventDate(year: year, month: month, day: day),
                !used.contains(Self.nameAndDay(name.given, name.family, other))
            else { continue }
            return other
        }
        return nil
    }

    private mutating func addCards(of index: Int, random: inout SplitMix64) {
        let person = people[index]
        var sources = Source.allCases
        random.shuffle(&sources)
        let copies = random.chance(0.6) ? 1 : (random.chance(0.7) ? 2 : 3)
        sources = Array(sources.prefix(copies))
        let sharedUID = sources.contains(.icloud) && sources.contains(.nextcloud) && random.chance(0.1) ? random.uuid() : nil
        if sharedUID != nil { self.count(.sameUID) }
        for (n, source) in sources.enumerated() {
            var card = Card(
                person: index,
                source: source,
                uid: source == .google ? nil : sharedUID ?? random.uuid(),
                given: person.given,
                middle: "",
                family: person.family,
                nickname: "",
                emails: person.emails,
                phones: person.phones,
                birthday: person.birthday
            )
            if let middle = person.middle, random.chance(0.5) {
                card.middle = String(middle.prefix(1)) + "."
                if copies > 1 { self.count(.middleInitial) }
            }
            if copies > 1 {
                if let nickname = person.nickname, n < 2 {
                    // The nickname on the first card, and as the name on the second.
                    if n == 0 { card.nickname = nickname } else { card.given = nickname }
                    if n == 1 { self.count(.nickname) }
                }
                if random.chance(0.15) {
                    card.familyFirst = true
                    self.count(.nameOrder)
                }
                if random.chance(0.25) {
                    let plain = (Self.plain(card.given), Self.plain(card.family))
                    if plain != (card.given, card.family) { self.count(.accentsDropped) }
                    (card.given, card.family) = plain
                }
                if n > 0, !person.keepsYears, card.birthday.year != nil, random.chance(0.2),
                    let yearless = EventDate(year: nil, month: card.birthday.month, day: card.birthday.day)
                {
                    card.birthday = yearless
                    self.count(.yearLeftOut)
                }
                if !person.keepsPoints {
                    // One source holds less than another: each address and number is left out one time in ten.
                    let kept = (card.emails.filter { _ in !random.chance(0.1) }, card.phones.filter { _ in !random.chance(0.1) })
                    if kept.0.count < card.emails.count { self.count(.addressLeftOut) }
                    if kept.1.count < card.phones.count { self.count(.numberLeftOut) }
                    (card.emails, card.phones) = kept
                }
                if random.chance(0.3) && !card.emails.isEmpty {
                    card.emails = card.emails.map { random.chance(0.5) ? $0.uppercased() : $0.prefix(1).uppercased() + $0.dropFirst() }
                    self.count(.emailCase)
                }
                if !card.phones.isEmpty && random.chance(0.6) {
                    card.phones = card.phones.map { Self.reformatted($0, random.below(4)) }
                    self.count(.phoneFormat)
                }
            }
            cards.append(card)
        }
    }

    enum Variation: String {
        case sameUID = "the same UID"
        case middleInitial = "a middle initial"
        case nickname = "a nickname on one card, the name on another"
        case nameOrder = "the family name first"
        case accentsDropped = "accents dropped"
        case yearLeftOut = "the year left out"
        case addressLeftOut = "an e-mail address left out"
        case numberLeftOut = "a phone number left out"
        case emailCase = "e-mail in other case"
        case phoneFormat = "phone in another format"
    }

    private mutating func count(_ variation: Variation) { variations[variation.rawValue, default: 0] += 1 }

    /// `value` in decimal, with zeros in front up to `width` digits.
    static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// `text` as typed without accents ("Søren Østergaard": "Soren Ostergaard", "Ægir": "Aegir").
    static func plain(_ text: String) -> String {
        let stripped = text.folding(options: .diacriticInsensitive, locale: nil)
        let letters: [Character: String] = [
            "ø": "o", "Ø": "O", "æ": "ae", "Æ": "Ae", "ł": "l", "Ł": "L", "þ": "th", "Þ": "Th", "đ": "d", "Đ": "D", "ð": "d", "ß": "ss", "ı": "i",
        ]
        return stripped.map { letters[$0] ?? String($0) }.joined()
    }

    /// gen-contacts.py's `+1-555-123-4567` in another format.
    static func reformatted(_ phone: String, _ format: Int) -> String {
        let digits = phone.filter(\.isNumber)
        guard digits.count == 11 else { return phone }
        let area = digits.dropFirst(1).prefix(3)
        let exchange = digits.dropFirst(4).prefix(3)
        let line = digits.suffix(4)
        switch format {
        case 0: return "+" + digits
        case 1: return "(\(area)) \(exchange)-\(line)"
        case 2: return "+1 \(area) \(exchange) \(line)"
        default: return "\(area).\(exchange).\(line)"
        }
    }

    // MARK: Writing

    /// The Google CSV: the cards of `google`, and which person each row is.
    func googleCSV() -> (text: String, people: [Int]) {
        var text =
            "First Name,Middle Name,Last Name,Nickname,Organization Name,Birthday,Labels,E-mail 1 - Label,E-mail 1 - Value,Phone 1 - Label,Phone 1 - Value\r\n"
        var rows: [Int] = []
        for card in cards where card.source == .google {
            let birthday = card.birthday.year == nil ? " " + card.birthday.description : card.birthday.description
            let first = card.familyFirst ? card.family : card.given
            let last = card.familyFirst ? card.given : card.family
            let fields = [
                first, card.middle, last, card.nickname, "", birthday, "* myContacts", card.emails.isEmpty ? "" : "* Home",
                card.emails.joined(separator: " ::: "), card.phones.isEmpty ? "" : "Mobile", card.phones.joined(separator: " ::: "),
            ]
            text += fields.map(Self.csvField).joined(separator: ",") + "\r\n"
            rows.append(card.person)
        }
        return (text, rows)
    }

    /// The iCloud export: one vCard 3.0 file, and which person each card is.
    func iCloudVCards() -> (text: String, people: [Int]) {
        var text = ""
        var order: [Int] = []
        for card in cards where card.source == .icloud {
            var lines = [
                "BEGIN:VCARD", "VERSION:3.0", "PRODID:-//Apple Inc.//iPhone OS 17.5//EN",
                "N:\(Self.escaped(card.family));\(Self.escaped(card.given));\(Self.escaped(card.middle));;", "FN:\(Self.escaped(Self.shown(card)))",
            ]
            if !card.nickname.isEmpty { lines.append("NICKNAME:\(Self.escaped(card.nickname))") }
            for (n, phone) in card.phones.enumerated() {
                lines.append(n == 0 ? "item1.TEL;type=pref:\(phone)" : "TEL;type=CELL;type=VOICE:\(phone)")
                if n == 0 { lines.append("item1.X-ABLabel:_$!<Mobile>!$_") }
            }
            for email in card.emails { lines.append("EMAIL;type=INTERNET;type=HOME:\(email)") }
            let date = card.birthday
            lines.append(
                date.year == nil
                    ? "BDAY;X-APPLE-OMIT-YEAR=1604:1604" + date.description.dropFirst()
                    : "BDAY;VALUE=date:\(date.description)"
            )
            lines += ["UID:\(card.uid ?? "")", "END:VCARD"]
            text += lines.map { $0 + "\r\n" }.joined()
            order.append(card.person)
        }
        return (text, order)
    }

    /// The Nextcloud vdir: one vCard 4.0 file per card, named by its UID, and whose it is.
    func nextcloudFolder() -> [(name: String, text: String, person: Int)] {
        cards.filter { $0.source == .nextcloud }.map { card in
            let uid = card.uid ?? ""
            var lines = [
                "BEGIN:VCARD", "VERSION:4.0", "PRODID:-//Sabre//Sabre VObject 4.5.4//EN", "UID:\(uid)", "FN:\(Self.escaped(Self.shown(card)))",
                "N:\(Self.escaped(card.family));\(Self.escaped(card.given));\(Self.escaped(card.middle));;",
            ]
            if !card.nickname.isEmpty { lines.append("NICKNAME:\(Self.escaped(card.nickname))") }
            for phone in card.phones {
                lines.append(
                    phone.hasPrefix("+") ? "TEL;TYPE=cell;VALUE=uri:tel:\(phone.replacingOccurrences(of: " ", with: "-"))" : "TEL;TYPE=HOME:\(phone)"
                )
            }
            for email in card.emails { lines.append("EMAIL;TYPE=HOME:\(email)") }
            let date = card.birthday
            let compact = date.description.replacingOccurrences(of: "-", with: "")
            lines.append("BDAY:" + (date.year == nil ? "--" : "") + compact)
            lines.append("END:VCARD")
            return ("\(uid).vcf", lines.map { $0 + "\r\n" }.joined(), card.person)
        }
    }

    /// The name as `FN` shows it.
    static func shown(_ card: Card) -> String {
        let parts = card.familyFirst ? [card.family, card.given, card.middle] : [card.given, card.middle, card.family]
        return parts.filter { !$0.isEmpty }.joined(separator: " ")
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ",", with: "\\,").replacingOccurrences(of: ";", with: "\\;")
    }

    static func csvField(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
}

extension SplitMix64 {
    /// Shuffles `items` in place with this generator's numbers (Fisher–Yates), the same way on every machine.
    mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for i in stride(from: items.count - 1, to: 0, by: -1) { items.swapAt(i, below(i + 1)) }
    }

    /// A UUID-shaped text made of the next numbers.
    mutating func uuid() -> String {
        let hex = String(next(), radix: 16) + String(next(), radix: 16) + String(repeating: "0", count: 32)
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-4" + String(h[12..<15]) + "-8" + String(h[15..<18]) + "-" + String(h[18..<30])
    }
}
