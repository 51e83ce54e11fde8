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
    case uid
    /// `X-ANDROID-UID`: the identifier when a card has no `UID`.
    case androidUID
    case birthday
    /// An anniversary property; the payload is its canonical name, used in problem messages.
    case anniversary(String)
    /// Apple's `itemN.X-ABDATE`: an anniversary when `itemN.X-ABLabel` says so.
    case labelledDate
    case label
    /// `X-ANDROID-CUSTOM:vnd.android.cursor.item/contact_event;DATE;TYPE;…`
    case androidCustom
    /// vCard 2.1 `AGENT` may embed a whole card on the following lines.
    case agent

    /// Names the parser reads, upper-case.
    private static let table: [(name: [UInt8], kind: VCardPropertyKind)] = ([
        ("N", .name), ("FN", .formattedName), ("ORG", .organization), ("EMAIL", .email), ("UID", .uid),
        ("BDAY", .birthday), ("X-ABDATE", .labelledDate), ("X-ABLABEL", .label), ("AGENT", .agent),
        ("X-ANDROID-UID", .androidUID), ("X-ANDROID-CUSTOM", .androidCustom),
        ("ANNIVERSARY", .anniversary("ANNIVERSARY")), ("X-ANNIVERSARY", .anniversary("X-ANNIVERSARY")),
        ("X-EVOLUTION-ANNIVERSARY", .anniversary("X-EVOLUTION-ANNIVERSARY")),
        ("X-MS-ANNIVERSARY", .anniversary("X-MS-ANNIVERSARY")),
        ("X-KADDRESSBOOK-X-ANNIVERSARY", .anniversary("X-KADDRESSBOOK-X-ANNIVERSARY")),
        ("X-OUTLOOK-WEDDING-ANNIVERSARY", .anniversary("X-OUTLOOK-WEDDING-ANNIVERSARY")),
    ] as [(String, VCardPropertyKind)]).map { (Array($0.0.utf8), $0.1) }

    private static let fullContactPrefix = Array("X-FCENCODED-".utf8)
    private static let fullContactAnniversary = Array("X-FC-OTHERDATES:ANNIVERSARY".utf8)

    /// Classifies the name in `bytes[start..<end]` (no group prefix).
    static func classify(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> VCardPropertyKind {
        let count = end - start
        for entry in table where entry.name.count == count {
            if ASCII.equalsUpperCased(bytes, start, end, entry.name) { return entry.kind }
        }
        // FullContact writes custom fields as X-FCENCODED-<hex of the real name>.
        if count > fullContactPrefix.count, ASCII.equalsUpperCased(bytes, start, start + fullContactPrefix.count, fullContactPrefix) {
            var decoded: [UInt8] = []
            var i = start + fullContactPrefix.count
            while i + 1 < end, let hi = QuotedPrintable.hexValue(bytes[i]), let lo = QuotedPrintable.hexValue(bytes[i + 1]) {
                decoded.append(ASCII.upperCased(hi << 4 | lo))
                i += 2
            }
            if i == end && decoded == fullContactAnniversary { return .anniversary("X-FC-OtherDates:Anniversary") }
        }
        return .ignored
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
    /// vCard 4 `ALTID`: properties sharing it are alternative forms of one value.
    var altID: String?
    /// Apple's `X-APPLE-OMIT-YEAR=1604`: the written year means "no year".
    var omitYear: Int?

    init() {}

    private static let encodingKey = Array("ENCODING".utf8)
    private static let quotedPrintableValue = Array("QUOTED-PRINTABLE".utf8)
    private static let charsetKey = Array("CHARSET".utf8)
    private static let valueKey = Array("VALUE".utf8)
    private static let textValue = Array("TEXT".utf8)
    private static let altIDKey = Array("ALTID".utf8)
    private static let omitYearKey = Array("X-APPLE-OMIT-YEAR".utf8)

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
            if ASCII.equalsUpperCased(bytes, a, b, Self.quotedPrintableValue) { quotedPrintable = true }
            return
        }
        let (keyStart, keyEnd) = ASCII.trimmed(bytes, a, equals)
        (a, b) = ASCII.trimmed(bytes, equals + 1, b)
        if b - a >= 2 && bytes[a] == UInt8(ascii: "\"") && bytes[b - 1] == UInt8(ascii: "\"") {
            a += 1
            b -= 1
        }
        if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, Self.encodingKey) {
            if ASCII.equalsUpperCased(bytes, a, b, Self.quotedPrintableValue) { quotedPrintable = true }
            return
        }
        guard full else { return }
        if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, Self.charsetKey) {
            charset = TextCharset(name: String(decoding: UnsafeBufferPointer(start: bytes + a, count: b - a), as: UTF8.self))
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, Self.valueKey) {
            valueIsText = ASCII.equalsUpperCased(bytes, a, b, Self.textValue)
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, Self.altIDKey) {
            altID = String(decoding: UnsafeBufferPointer(start: bytes + a, count: b - a), as: UTF8.self)
        } else if ASCII.equalsUpperCased(bytes, keyStart, keyEnd, Self.omitYearKey) {
            omitYear = ASCII.integer(bytes, a, b)
        }
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
