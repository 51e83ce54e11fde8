/// What the vCard parser does with a property, decided from its name alone
/// (case-insensitive, group prefix removed).
///
/// Every other property is `.ignored`: its value is never copied or decoded,
/// so a 6 KB base64 `PHOTO` costs no more than finding its line ends.
enum VCardPropertyKind: Equatable, Sendable {
    case ignored
    case formattedName
    case name
    case organization
    case email
    /// `TEL`: a phone number (``ContactPoint``).
    case tel
    /// `IMPP`: an instant-messaging URI (``ContactPoint``).
    case impp
    /// `TZ`: the person's time zone (``PersonZone``).
    case timeZone
    case uid
    /// `X-ANDROID-UID`: the identifier when a card has no `UID`.
    case androidUID
    case birthday
    case anniversary(AnniversaryProperty)
    /// Apple's `X-ALTBDAY;CALSCALE=…`: the birthday in another calendar (``CalendarDateValue``).
    case alternateBirthday
    /// Apple's `itemN.X-ABDATE`: an anniversary when `itemN.X-ABLabel` says so.
    case labelledDate
    case label
    /// `X-ANDROID-CUSTOM:vnd.android.cursor.item/contact_event;DATE;TYPE;…`
    case androidCustom
    /// vCard 2.1 `AGENT` may embed a whole card on the following lines.
    case agent
    /// `PRODID`: which program wrote the card (khard's placeholder year depends on it).
    case productID
    /// `NICKNAME`: a comma list of nicknames; the first is kept.
    case nickname
    /// A death date: vCard 4 `DEATHDATE` ([RFC 6474](https://www.rfc-editor.org/rfc/rfc6474)),
    /// which Nextcloud also writes in 3.0 cards, and `X-DEATHDATE`, CardBook's
    /// field for 3.0 cards. The raw value is the name as written.
    case deathDate(String)
    /// Nextcloud's `X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR`: leave the contact
    /// out of birthday calendars.
    case excludeFromBirthdays
    /// `CATEGORIES`: the groups the contact is in (``ContactGroups``).
    case categories
    /// vCard 4 `KIND` and Apple's `X-ADDRESSBOOKSERVER-KIND`: `group` makes the card a group card.
    case kind
    /// vCard 4 `MEMBER` and Apple's `X-ADDRESSBOOKSERVER-MEMBER`: a group card's member (`urn:uuid:…`).
    case member

    /// The properties whose value is an anniversary; the raw value is the name used in problem messages.
    enum AnniversaryProperty: String, Sendable, CaseIterable {
        case anniversary = "ANNIVERSARY"
        case xAnniversary = "X-ANNIVERSARY"
        case evolution = "X-EVOLUTION-ANNIVERSARY"
        case microsoft = "X-MS-ANNIVERSARY"
        case kAddressBook = "X-KADDRESSBOOK-X-ANNIVERSARY"
        case outlook = "X-OUTLOOK-WEDDING-ANNIVERSARY"
        /// FullContact writes custom fields as `X-FCENCODED-<hex of the real name>`.
        case fullContact = "X-FC-OtherDates:Anniversary"
    }

    /// Classifies the name in `bytes[start..<end]` (no group prefix, any case).
    static func classify(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> VCardPropertyKind {
        @inline(__always) func named(_ upper: StaticString) -> Bool { ASCII.equalsUpperCased(bytes, start, end, upper) }
        switch end - start {
        case 1: return named("N") ? .name : .ignored
        case 2: return named("FN") ? .formattedName : named("TZ") ? .timeZone : .ignored
        case 3: return named("ORG") ? .organization : named("UID") ? .uid : named("TEL") ? .tel : .ignored
        case 4: return named("BDAY") ? .birthday : named("IMPP") ? .impp : named("KIND") ? .kind : .ignored
        case 5: return named("EMAIL") ? .email : named("AGENT") ? .agent : .ignored
        case 6: return named("PRODID") ? .productID : named("MEMBER") ? .member : .ignored
        case 8: return named("X-ABDATE") ? .labelledDate : named("NICKNAME") ? .nickname : .ignored
        case 9:
            return named("X-ABLABEL") ? .label : named("X-ALTBDAY") ? .alternateBirthday : named("DEATHDATE") ? .deathDate("DEATHDATE") : .ignored
        case 10: return named("CATEGORIES") ? .categories : .ignored
        case 11: return named("ANNIVERSARY") ? .anniversary(.anniversary) : named("X-DEATHDATE") ? .deathDate("X-DEATHDATE") : .ignored
        case 13: return named("X-ANNIVERSARY") ? .anniversary(.xAnniversary) : named("X-ANDROID-UID") ? .androidUID : .ignored
        case 16: return named("X-MS-ANNIVERSARY") ? .anniversary(.microsoft) : named("X-ANDROID-CUSTOM") ? .androidCustom : .ignored
        case 24: return named("X-ADDRESSBOOKSERVER-KIND") ? .kind : .ignored
        case 26: return named("X-ADDRESSBOOKSERVER-MEMBER") ? .member : .ignored
        case 23: return named("X-EVOLUTION-ANNIVERSARY") ? .anniversary(.evolution) : .ignored
        case 28: return named("X-KADDRESSBOOK-X-ANNIVERSARY") ? .anniversary(.kAddressBook) : .ignored
        case 29: return named("X-OUTLOOK-WEDDING-ANNIVERSARY") ? .anniversary(.outlook) : .ignored
        case 35: return named("X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR") ? .excludeFromBirthdays : .ignored
        default: return isFullContactAnniversary(bytes, start, end) ? .anniversary(.fullContact) : .ignored
        }
    }

    /// `X-FCENCODED-` followed by the hex of `X-FC-OtherDates:Anniversary` (any case).
    private static func isFullContactAnniversary(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let prefix: StaticString = "X-FCENCODED-"
        let target: StaticString = "X-FC-OTHERDATES:ANNIVERSARY"
        let hexStart = start + prefix.utf8CodeUnitCount
        guard end - hexStart == 2 * target.utf8CodeUnitCount, ASCII.equalsUpperCased(bytes, start, hexStart, prefix) else { return false }
        for k in 0..<target.utf8CodeUnitCount {
            guard let hi = QuotedPrintable.hexValue(bytes[hexStart + 2 * k]), let lo = QuotedPrintable.hexValue(bytes[hexStart + 2 * k + 1]),
                ASCII.upperCased(hi << 4 | lo) == target.utf8Start[k]
            else { return false }
        }
        return true
    }

    /// RFC 6350, vCard 3 and 2.1 property names. A line without `:` inside a
    /// card starts a property only when its name is one of these; any other
    /// such line is a continuation whose folding lost its leading space.
    static let standardNames: Set<String> = [
        "BEGIN", "END", "SOURCE", "KIND", "XML", "FN", "N", "NICKNAME", "PHOTO", "BDAY", "ANNIVERSARY", "GENDER",
        "ADR", "TEL", "EMAIL", "IMPP", "LANG", "TZ", "GEO", "TITLE", "ROLE", "LOGO", "ORG", "MEMBER", "RELATED",
        "CATEGORIES", "NOTE", "PRODID", "REV", "SOUND", "UID", "CLIENTPIDMAP", "URL", "VERSION", "KEY", "FBURL",
        "CALADRURI", "CALURI", "LABEL", "MAILER", "AGENT", "CLASS", "NAME", "PROFILE", "SORT-STRING",
        "BIRTHPLACE", "DEATHPLACE", "DEATHDATE", "EXPERTISE", "HOBBY", "INTEREST", "ORG-DIRECTORY",
    ]
}

/// The property parameters the parser acts on
/// ([RFC 6350 §5](https://www.rfc-editor.org/rfc/rfc6350#section-5); vCard 2.1 bare parameters).
struct VCardParams: Sendable {
    /// `ENCODING=QUOTED-PRINTABLE`, or the bare 2.1 `QUOTED-PRINTABLE`.
    var quotedPrintable = false
    /// `CHARSET=…`; `nil` when absent (then UTF-8, else Windows-1252).
    var charset: TextCharset?
    /// `VALUE=text`: for a date property, free text rather than a date.
    var valueIsText = false
    /// `VALUE=uri`: a `TZ` that points somewhere rather than naming a zone.
    var valueIsURI = false
    /// vCard 4 `ALTID`: properties sharing it are alternative forms of one value.
    var altID: String?
    /// Apple's `X-APPLE-OMIT-YEAR=1604`: the written year means "no year".
    var omitYear: Int?
    /// `CALSCALE=…`: the calendar of a date (`gregorian` when absent).
    var calscale: String?
    /// How much the card prefers the value: vCard 4 `PREF=1` … `100`, and 1
    /// for `TYPE=pref` (vCard 3, also in a list: `TYPE=HOME,PREF`) and the
    /// bare vCard 2.1 `PREF`; `nil` when none says so. The smallest wins.
    var preference: Int?

    /// Whether `CALSCALE` names a calendar other than the Gregorian one.
    var isNonGregorian: Bool {
        guard let calscale else { return false }
        let name = calscale.trimmingWhitespace().lowercased()
        return !name.isEmpty && name != "gregorian"
    }

    init() {}

    /// Parses the parameters in `bytes[start..<end]` (after the name's `;`, up to the value's `:`).
    ///
    /// Parameters are split on `;` outside double quotes; quoted values keep
    /// their `,` `;` `:` (`TYPE="HOME,PREF"`). With `full == false` only the
    /// encoding is read: that is all an ignored property needs.
    init(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, full: Bool) {
        var segmentStart = start
        var inQuotes = false
        var i = start
        while i <= end {
            if i < end {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") { inQuotes.toggle() }
                if b != UInt8(ascii: ";") || inQuotes {
                    i += 1
                    continue
                }
            }
            read(bytes, segmentStart, i, full: full)
            i += 1
            segmentStart = i
        }
    }

    private mutating func read(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, full: Bool) {
        var (a, b) = ASCII.trimmed(bytes, start, end)
        guard a < b else { return }
        var equals = a
        while equals < b && bytes[equals] != UInt8(ascii: "=") { equals += 1 }
        guard equals < b else {
            // vCard 2.1 bare parameter: TEL;HOME;VOICE, N;QUOTED-PRINTABLE
            if ASCII.equalsUpperCased(bytes, a, b, "QUOTED-PRINTABLE") { quotedPrintable = true }
            if full && ASCII.equalsUpperCased(bytes, a, b, "PREF") { prefer(1) }
            return
        }
        let (keyStart, keyEnd) = ASCII.trimmed(bytes, a, equals)
        (a, b) = ASCII.trimmed(bytes, equals + 1, b)
        if b - a >= 2 && bytes[a] == UInt8(ascii: "\"") && bytes[b - 1] == UInt8(ascii: "\"") {
            a += 1
            b -= 1
        }
        if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, "ENCODING") {
            if ASCII.equalsUpperCased(bytes, a, b, "QUOTED-PRINTABLE") { quotedPrintable = true }
            return
        }
        guard full else { return }
        if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, "CHARSET") {
            charset = TextCharset(name: String(decoding: UnsafeBufferPointer(start: bytes + a, count: b - a), as: UTF8.self))
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, "VALUE") {
            valueIsText = ASCII.equalsUpperCased(bytes, a, b, "TEXT")
            valueIsURI = ASCII.equalsUpperCased(bytes, a, b, "URI")
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, "ALTID") {
            altID = String(decoding: UnsafeBufferPointer(start: bytes + a, count: b - a), as: UTF8.self)
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, "X-APPLE-OMIT-YEAR") {
            omitYear = ASCII.integer(bytes, a, b)
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, "CALSCALE") {
            calscale = String(decoding: UnsafeBufferPointer(start: bytes + a, count: b - a), as: UTF8.self)
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, "PREF") {
            if let rank = ASCII.integer(bytes, a, b), (1...100).contains(rank) { prefer(rank) }
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, "TYPE") {
            // A comma list, each item perhaps quoted on its own: TYPE=home,pref or TYPE="work","pref".
            var itemStart = a
            for i in a...b where i == b || bytes[i] == UInt8(ascii: ",") {
                var (x, y) = ASCII.trimmed(bytes, itemStart, i)
                if y - x >= 2 && bytes[x] == UInt8(ascii: "\"") && bytes[y - 1] == UInt8(ascii: "\"") {
                    x += 1
                    y -= 1
                }
                if ASCII.equalsUpperCased(bytes, x, y, "PREF") { prefer(1) }
                itemStart = i + 1
            }
        }
    }

    private mutating func prefer(_ rank: Int) {
        preference = min(preference ?? rank, rank)
    }
}

/// Small ASCII helpers over raw bytes.
enum ASCII {
    @inline(__always)
    static func upperCased(_ b: UInt8) -> UInt8 {
        b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z") ? b - 32 : b
    }

    /// Whether `bytes[start..<end]`, upper-cased, equals `upper`.
    @inline(__always)
    static func equalsUpperCased(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ upper: StaticString) -> Bool {
        let count = upper.utf8CodeUnitCount
        guard end - start == count else { return false }
        let expected = upper.utf8Start
        var k = 0
        while k < count {
            if upperCased(bytes[start + k]) != expected[k] { return false }
            k += 1
        }
        return true
    }

    /// Whether `bytes[start..<end]`, upper-cased, equals `upper`.
    @inline(__always)
    static func equalsUpperCased(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ upper: [UInt8]) -> Bool {
        guard end - start == upper.count else { return false }
        var k = 0
        while k < upper.count {
            if upperCased(bytes[start + k]) != upper[k] { return false }
            k += 1
        }
        return true
    }

    /// The range without leading and trailing spaces and tabs.
    @inline(__always)
    static func trimmed(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int) {
        var a = start
        var b = end
        while a < b && (bytes[a] == 0x20 || bytes[a] == 0x09) { a += 1 }
        while b > a && (bytes[b - 1] == 0x20 || bytes[b - 1] == 0x09) { b -= 1 }
        return (a, b)
    }

    /// A non-negative decimal number of at most 9 digits, else `nil`.
    static func integer(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        guard start < end, end - start <= 9 else { return nil }
        var n = 0
        for i in start..<end {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            n = n * 10 + Int(d)
        }
        return n
    }
}
