import Foundation

/// Which columns of a contacts CSV export hold names and dates.
///
/// Header names are compared case-insensitively, trimmed, with runs of
/// spaces collapsed and double-encoded UTF-8 repaired ("StraÃŸe" → "Straße").
/// When a name appears twice, the first column wins.
struct CSVHeaderMap: Hashable, Sendable {
    /// The program that wrote the file, as far as the header tells.
    enum Dialect: String, Hashable, Sendable {
        /// Google Contacts today: `First Name`, `Organization Name`, `Event 1 - Label`.
        case google
        /// Google Contacts before 2020: `Name`, `Given Name`, `Family Name`, `Event 1 - Type`.
        case googleLegacy
        /// Outlook in English: `E-mail Address`; dates are `M/D/YYYY`.
        case outlook
        /// Outlook in German: `Vorname`, `Weitere Vornamen`, `E-Mail-Adresse`; dates are `D.M.YYYY`.
        case outlookGerman
        /// Thunderbird: `Birth Year`, `Birth Month`, `Birth Day`.
        case thunderbird
        /// Anything else with recognisable columns.
        case generic
    }

    /// A column that holds a way to reach the contact.
    struct ContactColumn: Hashable, Sendable {
        var kind: ContactPoint.Kind
        var value: Int
        /// Google's `E-mail N - Label`: a label starting with `*` marks the preferred one.
        var label: Int?
        /// Whether the column itself says it is the preferred one (Outlook's `Primary Phone`).
        var preferred: Bool
    }

    /// The e-mail columns of the dialects, besides Google's numbered ones.
    static let emailColumns = [
        "e-mail address", "e-mail 2 address", "e-mail 3 address", "primary email", "secondary email", "e-mail-adresse", "e-mail 2: adresse",
        "e-mail 3: adresse", "email", "e-mail", "email address",
    ]
    /// The phone columns of the dialects (no fax or pager), besides Google's numbered ones.
    static let phoneColumns = [
        "primary phone", "mobile phone", "mobile number", "home phone", "home phone 2", "business phone", "business phone 2", "work phone",
        "company main phone", "other phone", "car phone", "mobiltelefon", "telefon privat", "telefon privat 2", "telefon geschäftlich",
        "telefon geschäftlich 2", "haupttelefon", "weiteres telefon", "phone", "telephone", "mobile", "telefon", "handy",
    ]

    /// A Google "Event N" pair: a label (`Anniversary`, or a custom one) and a date.
    struct Event: Hashable, Sendable {
        var label: Int
        var value: Int
    }

    var dialect: Dialect
    /// The header names as written (trimmed), for messages.
    var names: [String]
    var displayName: Int?
    var prefix: Int?
    var given: Int?
    var additional: Int?
    var family: Int?
    var suffix: Int?
    var nickname: Int?
    /// Google's `Labels` (`Group Membership` before 2020), Outlook's `Categories` (``ContactGroups/csv(_:)``).
    var groups: Int?
    /// Whether ``groups`` is Google's column (` ::: ` lists with system groups) rather than Outlook's (`;` lists).
    var googleGroups = false
    var organization: Int?
    var email: Int?
    var birthday: Int?
    var anniversary: Int?
    var birthYear: Int?
    var birthMonth: Int?
    var birthDay: Int?
    var events: [Event]
    /// The e-mail, phone and instant-messaging columns (``ContactColumn``), in header order per kind.
    var contactColumns: [ContactColumn]
    /// Whether at least one header name is one this map knows (a name
    /// matched only because it contains "mail" does not count). When none
    /// is, the first line is most likely a contact, not a header, and its
    /// cells must not be quoted in messages.
    var namesKnownColumn: Bool

    /// Whether the file can carry any date at all.
    var hasDateColumns: Bool {
        birthday != nil || anniversary != nil || (birthMonth != nil && birthDay != nil) || !events.isEmpty
    }

    /// Slash dates in this file are month first.
    var isMonthFirst: Bool { dialect == .outlook }

    /// Maps a header record.
    ///
    /// Columns, first matching name wins:
    /// - display name: `Display Name`, `Full Name`, `Name` (but `Name` is the
    ///   family name in a German header with `Vorname` and no `Nachname`);
    /// - name parts: `Name Prefix`/`Title`/`Anrede`, `First Name`/`Given Name`/`Vorname`,
    ///   `Middle Name`/`Additional Name`/`Weitere Vornamen`, `Last Name`/`Family Name`/`Nachname`,
    ///   `Name Suffix`/`Suffix` (`Title` is a prefix only in a known dialect);
    /// - the nickname: `Nickname` (Google, Outlook, Thunderbird), `Nick Name`, `Spitzname`;
    /// - the groups: `Labels`, `Group Membership` (Google), `Categories`, `Kategorien` (Outlook);
    /// - `Organization Name`/`Company`/`Firma`, and the first e-mail column;
    /// - dates: `Birthday`, `Birth Date`, `Date of Birth`, `DOB`, `Geburtstag`,
    ///   `Geburtsdatum`; `Anniversary`, `Jahrestag`; Thunderbird's `Birth Year`/`Month`/`Day`;
    ///   Google's `Event N - Label` (or `- Type`) with `Event N - Value`.
    init(header: [String]) {
        names = header.map { $0.trimmingWhitespace() }
        let keys = header.map(CSVHeaderMap.key)
        var firstIndex: [String: Int] = [:]
        for (index, key) in keys.enumerated() where !key.isEmpty && firstIndex[key] == nil {
            firstIndex[key] = index
        }
        func column(_ candidates: String...) -> Int? {
            for candidate in candidates {
                if let index = firstIndex[candidate] { return index }
            }
            return nil
        }
        func has(_ key: String) -> Bool { firstIndex[key] != nil }

        let germanNameIsFamily = has("vorname") && !has("nachname") && has("name")
        displayName =
            germanNameIsFamily
            ? column("display name", "full name", "anzeigename") : column("display name", "full name", "name", "anzeigename")
        given = column("first name", "given name", "vorname", "first", "firstname", "given")
        additional = column("middle name", "additional name", "weitere vornamen", "middle")
        family = germanNameIsFamily ? column("name") : column("last name", "family name", "nachname", "last", "lastname", "surname", "family")
        suffix = column("name suffix", "suffix", "namenszusatz")
        nickname = column("nickname", "nick name", "spitzname")
        groups = column("labels", "group membership")
        googleGroups = groups != nil
        if groups == nil { groups = column("categories", "kategorien") }
        organization = column("organization name", "organization 1 - name", "company", "organization", "organisation", "firma", "unternehmen")
        let namedEmail = column(
            "e-mail 1 - value",
            "e-mail address",
            "primary email",
            "e-mail-adresse",
            "email",
            "e-mail",
            "email address",
            "mail"
        )
        email =
            namedEmail
            ?? keys.firstIndex { key in
                (key.contains("mail")) && !["type", "typ", "label", "display", "angezeigt", "anzeige"].contains(where: key.contains)
            }
        birthday = column("birthday", "birth date", "birthdate", "date of birth", "dob", "geburtstag", "geburtsdatum", "bday")
        anniversary = column("anniversary", "wedding anniversary", "jahrestag", "hochzeitstag")
        birthYear = column("birth year")
        birthMonth = column("birth month")
        birthDay = column("birth day")

        var events: [Event] = []
        for (index, key) in keys.enumerated() {
            guard let number = CSVHeaderMap.eventNumber(key, suffix: "value") else { continue }
            let label = firstIndex["event \(number) - label"] ?? firstIndex["event \(number) - type"]
            if let label { events.append(Event(label: label, value: index)) }
        }
        self.events = events

        var contacts: [ContactColumn] = []
        for (index, key) in keys.enumerated() where firstIndex[key] == index {
            if let number = CSVHeaderMap.numbered(key, prefix: "e-mail ", suffix: "value") {
                let label = firstIndex["e-mail \(number) - label"] ?? firstIndex["e-mail \(number) - type"]
                contacts.append(ContactColumn(kind: .email, value: index, label: label, preferred: false))
            } else if let number = CSVHeaderMap.numbered(key, prefix: "phone ", suffix: "value") {
                let label = firstIndex["phone \(number) - label"] ?? firstIndex["phone \(number) - type"]
                contacts.append(ContactColumn(kind: .phone, value: index, label: label, preferred: false))
            } else if CSVHeaderMap.emailColumns.contains(key) {
                contacts.append(ContactColumn(kind: .email, value: index, label: nil, preferred: key == "primary email"))
            } else if CSVHeaderMap.phoneColumns.contains(key) {
                contacts.append(ContactColumn(kind: .phone, value: index, label: nil, preferred: key == "primary phone"))
            }
        }
        contactColumns = contacts
        namesKnownColumn =
            [
                displayName, given, additional, family, suffix, nickname, organization, namedEmail, birthday, anniversary, birthYear, birthMonth,
                birthDay,
            ]
            .contains { $0 != nil } || !events.isEmpty

        if birthMonth != nil && birthDay != nil {
            dialect = .thunderbird
        } else if has("e-mail-adresse") || has("weitere vornamen") {
            dialect = .outlookGerman
        } else if has("e-mail address") && has("first name") && !has("display name") {
            dialect = .outlook
        } else if has("given name") && has("family name") {
            dialect = .googleLegacy
        } else if has("first name") && (has("organization name") || has("e-mail 1 - value") || has("event 1 - label")) {
            dialect = .google
        } else {
            dialect = .generic
        }
        // "Title" is the name prefix in the exports that have one; elsewhere it may be a job title.
        prefix = column("name prefix", "prefix", "anrede") ?? (dialect == .generic ? nil : column("title", "titel"))
    }

    /// The first few header names, for the "no date column" message; only
    /// for a header that ``namesKnownColumn``.
    var summary: String {
        let shown = names.filter { !$0.isEmpty }.map { $0.count > 40 ? $0.prefix(40) + "…" : $0 }
        let head = shown.prefix(5).joined(separator: ", ")
        return shown.count > 5 ? head + ", …" : head
    }

    /// Whether a Google event label means a wedding anniversary
    /// (`Anniversary`, also `* Anniversary` as the legacy export marks the preferred one).
    static func isAnniversaryLabel(_ label: String) -> Bool {
        var text = label.trimmingWhitespace().lowercased()
        if text.hasPrefix("*") { text = text.dropFirst().trimmingWhitespace() }
        return ["anniversary", "jahrestag", "hochzeitstag"].contains(text)
    }

    /// The comparison form of a header name.
    static func key(_ name: String) -> String {
        let repaired = Windows1252.repairingMojibake(name.replacingOccurrences(of: "\u{FEFF}", with: ""))
        return repaired.trimmingWhitespace().lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// `N` for a key `event N - <suffix>`.
    private static func eventNumber(_ key: String, suffix: String) -> Int? {
        numbered(key, prefix: "event ", suffix: suffix)
    }

    /// `N` for a key `<prefix>N - <suffix>`.
    private static func numbered(_ key: String, prefix: String, suffix: String) -> Int? {
        guard key.hasPrefix(prefix), key.hasSuffix(" - " + suffix) else { return nil }
        let middle = key.dropFirst(prefix.count).dropLast((" - " + suffix).count)
        return Int(middle)
    }
}
