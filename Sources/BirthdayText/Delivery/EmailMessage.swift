import BirthdayCore
import Foundation

/// One e-mail address, with an optional display name: `ada@example.org`
/// or `Ada Lovelace <ada@example.org>`.
///
/// ``address`` is an RFC 5322 addr-spec (`local@domain`), in ASCII: an
/// internationalized address would need SMTPUTF8, which the e-mail channel
/// does not use (a domain can be given in its `xn--` form).
/// ``init(parsing:)`` checks it; the memberwise ``init(address:displayName:)``
/// does not, and ``EmailMessage`` drops from the address whatever could
/// break a header (controls, spaces, quotes, commas, angle brackets).
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The addr-spec, `local@domain`.
    public var address: String
    /// The name shown with the address; it may hold anything (a contact's
    /// name): ``EmailMessage`` puts it on one line and encodes it.
    public var displayName: String?

    public init(address: String, displayName: String? = nil) {
        self.address = address
        self.displayName = displayName
    }

    /// Reads `ada@example.org` or `Ada Lovelace <ada@example.org>`, as a
    /// user types it for `--to` or `--from`.
    ///
    /// Returns `nil` when `text` is not exactly one address: it holds a
    /// control character, a double quote or a comma (two addresses, or a
    /// quoted name this reader does not take apart); the address holds a
    /// space or a non-ASCII character, has no `@` or two, an empty local
    /// part or domain, an empty dot-separated part, or a domain without a
    /// dot (other than `localhost`); or the address is over 254 octets
    /// (RFC 5321's limit for a path).
    public init?(parsing text: String) {
        guard !text.unicodeScalars.contains(where: { SafeText.isUnsafe($0) || $0 == "\"" || $0 == "," }) else { return nil }
        let trimmed = text.trimmingWhitespace()
        let name: String?
        let address: String
        if let open = trimmed.firstIndex(of: "<") {
            guard trimmed.hasSuffix(">"), trimmed.filter({ $0 == "<" || $0 == ">" }).count == 2 else { return nil }
            let phrase = trimmed[..<open].trimmingWhitespace()
            name = phrase.isEmpty ? nil : phrase
            address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        } else {
            name = nil
            address = trimmed
        }
        guard Self.isAddrSpec(address) else { return nil }
        self.init(address: address, displayName: name)
    }

    /// `Ada Lovelace <ada@example.org>`, or the bare address without a name
    /// (the name on one line, as ``SafeText/line(_:maxCharacters:)`` makes it).
    public var description: String {
        guard let name = displayName.map({ SafeText.line($0) }), !name.isEmpty else { return address }
        return name + " <" + address + ">"
    }

    /// Whether `text` is an ASCII dot-atom addr-spec of at most 254 octets,
    /// with a domain of at least two labels or `localhost`.
    static func isAddrSpec(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= 254 else { return false }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }) else { return false }
        let halves = text.split(separator: "@", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return false }
        let local = halves[0].split(separator: ".", omittingEmptySubsequences: false)
        let domain = halves[1].split(separator: ".", omittingEmptySubsequences: false)
        guard !local.contains(where: \.isEmpty), !domain.contains(where: \.isEmpty) else { return false }
        return domain.count >= 2 || halves[1].lowercased() == "localhost"
    }

    /// Specials that an unquoted addr-spec cannot hold (`"(),:;<>[\]`).
    private static let forbidden = Set("\"(),:;<>[\\]".utf8)

    /// ``address`` with every byte that could break a header out of it:
    /// what is left is printable ASCII without spaces, quotes, commas or angle brackets.
    package var headerAddress: String {
        String(decoding: address.utf8.filter { $0 > 0x20 && $0 < 0x7F && !Self.forbidden.contains($0) }, as: UTF8.self)
    }
}

/// An e-mail as the e-mail channel hands it to sendmail: a plain-text
/// message in UTF-8 under RFC 5322 and MIME (RFC 2045–2047).
///
/// What ``bytes`` holds, in this order: `From` (when there is a sender of
/// our own; without one the mail program adds its own, msmtp from the
/// `from` of `~/.msmtprc`), `To`, `Subject`, `Date`,
/// `Message-ID`, `MIME-Version: 1.0`, `Content-Type: text/plain;
/// charset=UTF-8`, `Content-Transfer-Encoding: quoted-printable`, a blank
/// line and the body. Rules:
///
/// - **CRLF everywhere**, and no line over 998 octets (RFC 5322 §2.1.1);
///   the headers are folded to keep their lines within 78 where they can.
/// - **No name adds a header.** The subject and the display names are put
///   on one line first (``SafeText/line(_:maxCharacters:)``: line breaks and
///   control characters become spaces), so a name holding
///   `"\r\nBcc: x@y"` stays text inside its own header.
/// - **Non-ASCII in headers is RFC 2047.** A subject or display name with
///   a non-ASCII character (or `=?`, or too long a word to fold) becomes
///   `=?UTF-8?B?…?=` encoded words: each at most 75 characters, never
///   splitting a UTF-8 sequence, one per line, the continuation lines
///   starting with a space. An ASCII display name is written as it is
///   when it holds only atoms, else as an RFC 5322 quoted string.
/// - **The body is always quoted-printable** (RFC 2045 §6.7): whatever it
///   holds (long lines, any byte) arrives as written, in lines of at most
///   76 characters. Its line breaks (LF, CR or CRLF) become CRLF; a dot at
///   the start of a line is encoded, so no SMTP server reads it as the end.
/// - **`Date`** is RFC 5322's, in `timeZone` with its numeric offset:
///   `Tue, 10 Mar 2026 09:00:00 +0100`.
public struct EmailMessage: Sendable {
    /// The sender; `nil` writes no `From`, for the mail program to add its own.
    public var from: EmailAddress?
    public var to: EmailAddress
    public var subject: String
    public var body: String
    public var date: Date
    public var timeZone: TimeZone
    /// `<left@right>`; written with its angle brackets whether given with them or not.
    public var messageID: String

    public init(from: EmailAddress?, to: EmailAddress, subject: String, body: String, date: Date, timeZone: TimeZone, messageID: String) {
        self.from = from
        self.to = to
        self.subject = subject
        self.body = body
        self.date = date
        self.timeZone = timeZone
        self.messageID = messageID
    }

    /// The message as sendmail takes it: RFC 5322, CRLF line ends, no line over 998 octets.
    public var bytes: [UInt8] {
        var head = from.map { MailHeader.mailbox("From", $0) } ?? ""
        head += MailHeader.mailbox("To", to)
        head += MailHeader.unstructured("Subject", subject)
        head += "Date: " + MailHeader.date(date, in: timeZone) + "\r\n"
        head += "Message-ID: " + MailHeader.messageID(messageID) + "\r\n"
        head += "MIME-Version: 1.0\r\n"
        head += "Content-Type: text/plain; charset=UTF-8\r\n"
        head += "Content-Transfer-Encoding: quoted-printable\r\n"
        head += "\r\n"
        return Array(head.utf8) + QuotedPrintable.encode(body)
    }

    /// The e-mail for a reminder.
    ///
    /// - Subject: the reminder's body on one line; it names the person
    ///   ("Zoë Ñúñez turns 37 today").
    /// - Body: the reminder's title on one line, then that text, with
    ///   `notes-on-channels` on the person's note (``Reminder/sharedNoteLine``),
    ///   with `contact-links` on the person's first contact link
    ///   (``Reminder/sharedContactLink``: "Write to Ada: mailto:…"), a blank
    ///   line and "— birthdays".
    /// - Message-ID: `<TOKEN@birthdays.HOST>`, `TOKEN` being `token` in
    ///   hexadecimal (16 random bytes by default), such as
    ///   `<3f9a…c1@birthdays.laptop>`: every message its own, as RFC 5322
    ///   §3.6.4 asks, so a trial, a `channels test` and the real reminder
    ///   are never taken for one message a provider has already seen
    ///   (sending a reminder once is the delivery ledger's job). Characters
    ///   a Message-ID cannot hold are dropped from `host`.
    /// - From: `from`, or none for the mail program to add (see ``bytes``).
    /// - Date: `now`, in the reminder's zone.
    ///
    /// A digest (``Reminder/digest``) has its title as the subject ("Birthdays
    /// in the week ahead: Ada, Bob") and its lines as the body.
    public static func reminder(
        _ reminder: Reminder,
        from: EmailAddress?,
        to: EmailAddress,
        host: String,
        now: Date,
        token: [UInt8] = randomToken()
    ) -> EmailMessage {
        let subject = reminder.digest == nil ? SafeText.line(reminder.body) : SafeText.line(reminder.title)
        let body =
            reminder.digest == nil
            ? SafeText.line(reminder.title) + "\n" + subject + "\n" + (reminder.sharedNoteLine.map { $0 + "\n" } ?? "")
                + (reminder.contactLine.map { $0 + "\n" } ?? "") + "\n— birthdays\n"
            : reminder.sharedBody + "\n\n— birthdays\n"
        return EmailMessage(
            from: from,
            to: to,
            subject: subject,
            body: body,
            date: now,
            timeZone: reminder.timeZone,
            messageID: messageID(host: host, token: token)
        )
    }

    /// The e-mail of a greeting to a friend (`birthdays greet`): From the
    /// owner's e-mail channel's sender, To the friend (or, for `greet test`,
    /// the owner), `subject` on one line, and `body`, the greeting's words
    /// as they are: nothing else, no signature, no note, no other date, no
    /// link. Message-ID and Date as a reminder's.
    public static func greeting(
        subject: String,
        body: String,
        from: EmailAddress?,
        to: EmailAddress,
        host: String,
        now: Date,
        timeZone: TimeZone,
        token: [UInt8] = randomToken()
    ) -> EmailMessage {
        EmailMessage(
            from: from,
            to: to,
            subject: SafeText.line(subject),
            body: body.hasSuffix("\n") ? body : body + "\n",
            date: now,
            timeZone: timeZone,
            messageID: messageID(host: host, token: token)
        )
    }

    /// `<TOKEN@birthdays.HOST>`: `token` in hexadecimal, `host` without the characters a Message-ID cannot hold.
    static func messageID(host: String, token: [UInt8]) -> String {
        let hex = token.map { byte in String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16) }.joined()
        let domain = MailHeader.atoms(host.lowercased(), keeping: "-.")
        return "<\(hex.isEmpty ? "0" : hex)@birthdays.\(domain.isEmpty ? "localhost" : domain)>"
    }
}

extension EmailMessage {
    /// 16 bytes from the system's random source: a Message-ID's unique part.
    public static func randomToken() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// Writes header fields: folded lines ending in CRLF, ASCII only.
enum MailHeader {
    /// The line length the writer keeps to when it can (RFC 5322's "should").
    static let preferredLine = 78
    /// The most characters a line holding encoded words has (RFC 2047 §2).
    static let encodedLine = 76
    /// The most characters of one encoded word (RFC 2047 §2).
    static let encodedWord = 75

    /// `Name: text`, with `text` on one line: plain ASCII folded at its
    /// spaces when it is printable ASCII without `=?` and every folded line
    /// fits in 78 characters, else encoded words.
    static func unstructured(_ name: String, _ text: String) -> String {
        let line = SafeText.line(text)
        let prefix = name + ": "
        if isPlain(line), let folded = foldAtSpaces(prefix, line) { return folded }
        return join(prefix, encodedWords(line, firstLineUsed: prefix.utf8.count))
    }

    /// `Name: address` or `Name: phrase <address>`, the phrase being the
    /// display name on one line: atoms as they are, a quoted string when it
    /// holds specials, encoded words when it is not ASCII or too long for
    /// one line of 78.
    static func mailbox(_ name: String, _ mailbox: EmailAddress) -> String {
        let prefix = name + ": "
        let angle = "<" + mailbox.headerAddress + ">"
        guard let display = mailbox.displayName.map({ SafeText.line($0) }), !display.isEmpty else {
            return prefix + mailbox.headerAddress + "\r\n"
        }
        if isPlain(display) {
            let line = prefix + phrase(display) + " " + angle
            if line.utf8.count <= preferredLine { return line + "\r\n" }
        }
        let words = encodedWords(display, firstLineUsed: prefix.utf8.count)
        var lines = [prefix + words[0]] + words.dropFirst()
        if lines[lines.count - 1].utf8.count + 1 + angle.utf8.count <= preferredLine {
            lines[lines.count - 1] += " " + angle
        } else {
            lines.append(angle)
        }
        return lines.joined(separator: "\r\n ") + "\r\n"
    }

    /// Whether `text` can go into a header as it is: printable ASCII, and no
    /// `=?` that a reader would take for the start of an encoded word.
    static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && !text.contains("=?")
    }

    /// Whether `byte` is an ASCII letter or digit.
    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        let lower: UInt8 = byte | 0x20
        return (byte >= 0x30 && byte <= 0x39) || (lower >= 0x61 && lower <= 0x7A)
    }

    /// RFC 5322's atext, besides letters and digits.
    private static let atextSymbols = Set("!#$%&'*+-/=?^_`{|}~".utf8)

    /// `text` (printable ASCII) as an RFC 5322 phrase: as it is when it is
    /// atoms separated by spaces, else a quoted string.
    static func phrase(_ text: String) -> String {
        let isAtoms = text.utf8.allSatisfy { byte in
            byte == 0x20 || atextSymbols.contains(byte) || isLetterOrDigit(byte)
        }
        if isAtoms { return text }
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted += "\\" }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// `prefix` and `text` folded before spaces into lines of at most 78
    /// characters, ending in CRLF; `nil` when a word is too long for that.
    static func foldAtSpaces(_ prefix: String, _ text: String) -> String? {
        var lines: [String] = []
        var current = prefix
        var first = true
        for word in text.split(separator: " ") {
            if first {
                current += word
                first = false
            } else if current.utf8.count + 1 + word.utf8.count <= preferredLine {
                current += " " + word
            } else {
                lines.append(current)
                current = " " + word
            }
        }
        lines.append(current)
        guard lines.allSatisfy({ $0.utf8.count <= preferredLine }) else { return nil }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// `prefix` followed by `words`, one per line.
    private static func join(_ prefix: String, _ words: [String]) -> String {
        prefix + words.joined(separator: "\r\n ") + "\r\n"
    }

    /// `text` as `=?UTF-8?B?…?=` words, each cut between Unicode scalars so
    /// that no UTF-8 sequence is split, and short enough for its line: the
    /// first shares its line with `firstLineUsed` characters, the others
    /// follow one space on a continuation line. One empty word for empty text.
    static func encodedWords(_ text: String, firstLineUsed: Int) -> [String] {
        /// The most bytes a word fits in `room` characters of line: 12 for
        /// `=?UTF-8?B?` and `?=`, and 4 base64 characters for every 3 bytes.
        func capacity(_ room: Int) -> Int { max(6, (min(encodedWord, room) - 12) / 4 * 3) }
        func word(_ bytes: [UInt8]) -> String { "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?=" }
        var words: [String] = []
        var chunk: [UInt8] = []
        var limit = capacity(encodedLine - firstLineUsed)
        for scalar in text.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            if chunk.count + encoded.count > limit, !chunk.isEmpty {
                words.append(word(chunk))
                chunk = []
                limit = capacity(encodedLine - 1)
            }
            chunk += encoded
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// RFC 5322 §3.3's date-time: `Tue, 10 Mar 2026 09:00:00 +0100`, the
    /// wall-clock time and the offset of `zone` at `date`.
    static func date(_ date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return (value < 10 ? "0" : "") + String(value)
        }
        let offset = zone.secondsFromGMT(for: date) / 60
        let sign = offset < 0 ? "-" : "+"
        let weekday = weekdays[((parts.weekday ?? 1) - 1) % 7]
        let month = months[((parts.month ?? 1) - 1) % 12]
        return "\(weekday), \(two(parts.day)) \(month) \(parts.year ?? 1970) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) "
            + sign + two(abs(offset) / 60) + two(abs(offset) % 60)
    }

    /// `id` between angle brackets, with only the characters of a dot-atom and `@` kept.
    static func messageID(_ id: String) -> String {
        "<" + atoms(id, keeping: "@.-_") + ">"
    }

    /// `text` with only ASCII letters, digits and the characters of `keeping`.
    static func atoms(_ text: String, keeping: String) -> String {
        let kept = Set(keeping.utf8)
        return String(
            decoding: text.utf8.filter { kept.contains($0) || isLetterOrDigit($0) },
            as: UTF8.self
        )
    }
}

/// Quoted-printable encoding for an e-mail body (the decoder, for vCard 2.1, is in `Reading/`).
extension QuotedPrintable {
    /// The longest encoded line, soft break included.
    static let maxLine = 76

    /// `text`'s UTF-8 in quoted-printable: its line breaks (LF, CR, CRLF)
    /// become CRLF and the text ends with one; `=`, controls and bytes over
    /// 126 are `=XX`, as are a space or tab before a line end and a dot
    /// that starts a line; longer lines are broken with a soft break (`=`).
    static func encode(_ text: String) -> [UInt8] {
        var lines: [ArraySlice<UInt8>] = []
        let bytes = Array(text.utf8)
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                lines.append(bytes[start..<index])
                index += byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
                start = index
            } else {
                index += 1
            }
        }
        if start < bytes.count || lines.isEmpty { lines.append(bytes[start...]) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for line in lines { encodeLine(line, into: &out) }
        return out
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func encodeLine(_ line: ArraySlice<UInt8>, into out: inout [UInt8]) {
        var length = 0
        for index in line.indices {
            let byte = line[index]
            let isLast = index == line.index(before: line.endIndex)
            func isLiteral() -> Bool {
                switch byte {
                case 0x20, 0x09: !isLast
                case 0x2E: length > 0
                case 0x3D: false
                default: byte > 0x20 && byte < 0x7F
                }
            }
            // Room for the soft break's `=` unless this is the line's last token.
            if length + (isLiteral() ? 1 : 3) > (isLast ? maxLine : maxLine - 1) {
                out += [UInt8(ascii: "="), 0x0D, 0x0A]
                length = 0
            }
            if isLiteral() {
                out.append(byte)
                length += 1
            } else {
                out += [UInt8(ascii: "="), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
                length += 3
            }
        }
        out += [0x0D, 0x0A]
    }
}
