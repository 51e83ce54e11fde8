import Foundation

/// The invitation form's rules: reading what a browser sent, cleaning the
/// name, checking the date, and the one-time nonce. Everything here is a
/// value; the server and the store only do the I/O around it.
///
/// ## What an answer may be
/// - The body is `application/x-www-form-urlencoded`, at most
///   ``maxBodyBytes`` (the server answers 413 above it, before reading more).
/// - The name is cleaned as names are everywhere (``SafeText/line(_:maxCharacters:)``:
///   no control characters, so no line break and no header; at most
///   ``maxNameCharacters`` characters and ``maxNameBytes`` bytes, so one
///   "character" of hundreds of combining marks is not a short name); it
///   must hold a letter (``hasLetter(_:)``): a name of zero-width or
///   no-break spaces, marks or punctuation only is an error.
/// - Day and month must make a date: 30 February is an error, 29 February
///   without a year is fine (checked against a leap year, as ``EventDate``
///   does). The year is optional; given, it must be four digits from 1900 to
///   the current year, and the date must exist in it and not be after today
///   (in the owner's zone: the store passes today).
/// - Whatever was typed is shown again, escaped, with the error.
public enum InviteForm {
    /// The largest body a POST may have.
    public static let maxBodyBytes = 4_096
    /// The longest name kept.
    public static let maxNameCharacters = 100
    /// The most UTF-8 bytes of a name kept: four for each of ``maxNameCharacters``.
    public static let maxNameBytes = 400
    /// The earliest year the form takes.
    public static let firstYear = 1900

    /// What the form's fields held, as typed (for showing them again).
    public struct Entry: Sendable, Hashable {
        public var name: String
        public var day: String
        public var month: String
        public var year: String
        public var nonce: String

        public init(name: String = "", day: String = "", month: String = "", year: String = "", nonce: String = "") {
            self.name = name
            self.day = day
            self.month = month
            self.year = year
            self.nonce = nonce
        }
    }

    /// Why an answer is not taken; each is shown on the form in the owner's language.
    public enum Problem: String, Sendable, Hashable {
        /// No name, or nothing left of it once cleaned.
        case name
        /// Day and month make no date (30 February).
        case date
        /// A year that is not four digits from 1900 to this year, or a date missing in that year.
        case year
        /// A date after today.
        case future
        /// Too many answers from the sender's address (429): the form again, what was typed kept.
        case busy
        /// The form was already sent (its nonce was used), or it is too old.
        case stale
    }

    /// A checked answer, ready to be stored.
    public struct Answer: Sendable, Hashable {
        public var name: String
        public var month: Int
        public var day: Int
        public var year: Int?
    }

    /// The fields of an `application/x-www-form-urlencoded` body (`+` is a
    /// space, `%XX` a byte; the bytes are read as UTF-8, invalid ones
    /// replaced). Unknown fields are ignored; a repeated field keeps its first value.
    public static func entry(body: some Collection<UInt8>) -> Entry {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let key = decode(parts[0])
            guard fields[key] == nil, ["name", "day", "month", "year", "nonce"].contains(key) else { continue }
            fields[key] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return Entry(
            name: fields["name"] ?? "",
            day: fields["day"] ?? "",
            month: fields["month"] ?? "",
            year: fields["year"] ?? "",
            nonce: fields["nonce"] ?? ""
        )
    }

    /// One percent-encoded field.
    static func decode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let high = iterator.next()
                let low = iterator.next()
                if let high, let low, let h = hexValue(high), let l = hexValue(low) {
                    out.append(h << 4 | l)
                } else {
                    out.append(UInt8(ascii: "%"))
                    if let high { out.append(high) }
                    if let low { out.append(low) }
                }
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The name as it is kept: one line, no control characters, at most
    /// ``maxNameCharacters`` characters and ``maxNameBytes`` bytes (whole
    /// characters are dropped from the end, and `…` marks the cut; a single
    /// character larger than the cap leaves nothing).
    public static func cleanName(_ name: String) -> String {
        let line = SafeText.line(name, maxCharacters: maxNameCharacters)
        guard line.utf8.count > maxNameBytes else { return line }
        var kept = ""
        var bytes = "…".utf8.count
        for character in line {
            bytes += character.utf8.count
            guard bytes <= maxNameBytes else { break }
            kept.append(character)
        }
        kept = kept.trimmingWhitespace()
        return kept.isEmpty ? "" : kept + "…"
    }

    /// Whether `name` holds a letter (Unicode's `L` categories: any script's
    /// letters, ideographs, kana): what a name needs to be seen. Spaces of any
    /// kind, zero-width characters, marks, digits, punctuation and emoji are not letters.
    public static func hasLetter(_ name: String) -> Bool {
        name.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: true
            default: false
            }
        }
    }

    /// `entry` checked against `today` (the owner's day): the answer, or the
    /// first problem (name, then date, then year, then a date after today).
    public static func check(_ entry: Entry, today: LocalDate) -> Result<Answer, ProblemError> {
        let name = cleanName(entry.name)
        guard !name.isEmpty, hasLetter(name) else { return .failure(ProblemError(.name)) }
        let day = Int(entry.day.trimmingWhitespace())
        let month = Int(entry.month.trimmingWhitespace())
        guard let day, let month, (1...12).contains(month), EventDate(year: nil, month: month, day: day) != nil else {
            return .failure(ProblemError(.date))
        }
        let yearText = entry.year.trimmingWhitespace()
        guard !yearText.isEmpty else { return .success(Answer(name: name, month: month, day: day, year: nil)) }
        guard yearText.utf8.count == 4, yearText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let year = Int(yearText),
            year >= firstYear, EventDate(year: year, month: month, day: day)?.year == year
        else { return .failure(ProblemError(.year)) }
        guard let date = LocalDate(year: year, month: month, day: day), date <= today else { return .failure(ProblemError(.future)) }
        return .success(Answer(name: name, month: month, day: day, year: year))
    }

    /// A ``Problem`` as an error (for `Result`).
    public struct ProblemError: Error, Sendable, Hashable {
        public var problem: Problem
        public init(_ problem: Problem) { self.problem = problem }
    }
}

/// The form's one-time nonce: issued with each `GET` of the form, good for
/// one answer to that link within ``lifetime``.
///
/// It is `<expiry>.<random>.<mac>`: the expiry in Unix seconds, 128 random
/// bits, and an HMAC-SHA256 (``HMAC``) of the link's id, the expiry and the
/// random part under the database's own key. Nothing is stored when it is
/// issued (a stranger's `GET` writes nothing); the store keeps the SHA-256 of
/// each nonce that was used (``usedHash(_:)``), in the transaction that
/// stores its answer, and refuses one seen before: a replay stores nothing.
public enum InviteNonce {
    /// How long a form may be left open before it is sent.
    public static let lifetime: TimeInterval = 2 * 3_600

    /// A new nonce for link `invitationID`, under `key`, from `now` on.
    public static func issue(invitationID: Int64, key: [UInt8], now: Date) -> String {
        issue(invitationID: invitationID, key: key, now: now, random: FeedToken.generate())
    }

    static func issue(invitationID: Int64, key: [UInt8], now: Date, random: String) -> String {
        let expiry = String(Int64(now.timeIntervalSince1970 + lifetime))
        return expiry + "." + random + "." + mac(invitationID: invitationID, key: key, expiry: expiry, random: random)
    }

    /// Whether `nonce` was issued under `key` for link `invitationID` and has
    /// not expired at `now` (its use is the store's to check). The MAC is
    /// compared in constant time.
    public static func isValid(_ nonce: String, invitationID: Int64, key: [UInt8], now: Date) -> Bool {
        let parts = nonce.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count <= 12, let expiry = Int64(parts[0]), FeedToken.isWellFormed(String(parts[1])) else {
            return false
        }
        let expected = mac(invitationID: invitationID, key: key, expiry: String(parts[0]), random: String(parts[1]))
        let matches = FeedToken.constantTimeEquals(expected, String(parts[2]))
        return matches && Double(expiry) > now.timeIntervalSince1970 && Double(expiry) <= now.timeIntervalSince1970 + lifetime + 60
    }

    /// What the store keeps of a used nonce.
    public static func usedHash(_ nonce: String) -> String { SHA256.hex("invite-nonce:" + nonce) }

    private static func mac(invitationID: Int64, key: [UInt8], expiry: String, random: String) -> String {
        HMAC.hex(key: key, message: "birthdays-invite|\(invitationID)|\(expiry)|\(random)")
    }
}

/// HMAC-SHA256 ([RFC 2104](https://www.rfc-editor.org/rfc/rfc2104)) over ``SHA256``.
public enum HMAC {
    /// The MAC of `message` under `key`, as 64 lower-case hex digits.
    public static func hex(key: [UInt8], message: String) -> String {
        var block = key.count > 64 ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + Array(message.utf8))
        let outer = SHA256.hash(block.map { $0 ^ 0x5c } + inner)
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: outer.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The bytes of a hex key (as the database's keys are kept); `nil` when it is not hex.
    public static func key(hex: String) -> [UInt8]? {
        let bytes = Array(hex.utf8)
        guard bytes.count >= 32, bytes.count % 2 == 0 else { return nil }
        var key: [UInt8] = []
        for index in stride(from: 0, to: bytes.count, by: 2) {
            guard let high = Int(String(UnicodeScalar(bytes[index])), radix: 16), let low = Int(String(UnicodeScalar(bytes[index + 1])), radix: 16)
            else { return nil }
            key.append(UInt8(high << 4 | low))
        }
        return key
    }
}

/// The per-address limit on answers: at most ``limit`` in any ``window``
/// from one address; beyond it 429. A value with its clock injected; the
/// server keeps one behind a lock. It remembers at most ``maxAddresses``
/// addresses (the oldest are forgotten first), so a flood of addresses
/// cannot fill memory.
public struct InviteRateLimit: Sendable {
    public var limit: Int
    public var window: TimeInterval
    public static let maxAddresses = 4_096
    private var seen: [String: [Date]] = [:]

    public init(limit: Int = 5, window: TimeInterval = 60) {
        self.limit = limit
        self.window = window
    }

    /// How many addresses it remembers (at most ``maxAddresses``).
    public var rememberedAddresses: Int { seen.count }

    /// Whether `address` may send one more answer at `now` (and counts it
    /// when it may). Addresses are counted by ``counted(_:)``: an IPv6
    /// address by its /64, which one subscriber holds whole.
    public mutating func admit(_ address: String, now: Date) -> Bool {
        let address = Self.counted(address)
        let since = now.addingTimeInterval(-window)
        var times = (seen[address] ?? []).filter { $0 > since }
        guard times.count < limit else {
            seen[address] = times
            return false
        }
        times.append(now)
        if seen[address] == nil, seen.count >= Self.maxAddresses {
            seen = seen.filter { $0.value.contains { $0 > since } }
            if seen.count >= Self.maxAddresses, let oldest = seen.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key {
                seen[oldest] = nil
            }
        }
        seen[address] = times
        return true
    }
}

extension InviteRateLimit {
    /// What the limit counts an address as: an IPv4 address as itself (also
    /// when written IPv4-mapped, `::ffff:192.0.2.1`); an IPv6 address by its
    /// first 64 bits, since a home or a phone is given a whole /64 and could
    /// otherwise take a fresh address for every answer; anything else as it is.
    public static func counted(_ address: String) -> String {
        var text = Substring(address)
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard text.contains(":") else { return String(text) }
        let lower = text.lowercased()
        if lower.hasPrefix("::ffff:"), lower.dropFirst(7).contains(".") { return String(lower.dropFirst(7)) }
        let halves = lower.components(separatedBy: "::")
        guard halves.count <= 2 else { return lower }
        let head = halves[0].isEmpty ? [] : halves[0].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let tail = halves.count == 2 && !halves[1].isEmpty ? halves[1].split(separator: ":", omittingEmptySubsequences: false).map(String.init) : []
        let missing = 8 - head.count - tail.count
        guard missing >= 0, halves.count == 2 || missing == 0 else { return lower }
        let groups = head + Array(repeating: "0", count: missing) + tail
        let prefix = groups.prefix(4).map { group -> String in
            guard let value = UInt16(group, radix: 16) else { return group }
            return String(value, radix: 16)
        }
        return prefix.joined(separator: ":") + "::/64"
    }
}

/// What a `POST` to an invitation's address comes to, as a value: the
/// server turns it into a status and a page (``status``).
public enum InviteOutcome: Sendable, Hashable {
    /// Stored as answer `id`; `accepted` when the link takes answers at once.
    case stored(id: Int64, accepted: Bool)
    /// No link has this token: 404, the same as any unknown address.
    case unknown
    /// The link is used up or expired: 410.
    case gone
    /// The body is over ``InviteForm/maxBodyBytes``: 413.
    case tooLarge
    /// The address sent too many answers: 429.
    case tooMany
    /// Another site's page sent it (``InviteOrigin``): 403, nothing stored.
    case foreign
    /// Its nonce was used by an answer already stored (the form sent twice):
    /// the thank-you page again, 200, nothing stored.
    case repeated
    /// The form again, with what was typed and the problem: 400 (409 for a used nonce).
    case form(InviteForm.Entry, InviteForm.Problem)

    /// The HTTP status.
    public var status: Int {
        switch self {
        case .stored, .repeated: 200
        case .unknown: 404
        case .gone: 410
        case .tooLarge: 413
        case .tooMany: 429
        case .foreign: 403
        case .form(_, let problem):
            switch problem {
            case .stale: 409
            case .busy: 429
            case .name, .date, .year, .future: 400
            }
        }
    }

    /// What a request that announces `contentLength` bytes (`nil`: chunked,
    /// unknown), sent by another site's page or not (`foreign`), from an
    /// address the limit does or does not `admit` comes to before anything
    /// is read: 413 over the cap, 403 from another site (which costs the
    /// address nothing: the limit is not asked), 429 beyond the limit, else
    /// `nil` (read the body and ask the store).
    public static func before(contentLength: Int?, foreign: Bool = false, admitted: () -> Bool) -> InviteOutcome? {
        if let contentLength, contentLength > InviteForm.maxBodyBytes { return .tooLarge }
        if foreign { return .foreign }
        return admitted() ? nil : .tooMany
    }
}
