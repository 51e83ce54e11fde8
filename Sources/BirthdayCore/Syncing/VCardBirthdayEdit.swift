import Foundation

/// Adds a birthday to a person's card, as bytes in and bytes out: the pure
/// half of writing a date back to a vdir file or a CardDAV card
/// (``WriteBackOutcome``).
///
/// ## The rules
/// - **The card wins.** A card that already has a `BDAY` (with a group
///   prefix such as `item1.BDAY` too, a date in another calendar
///   `BDAY;CALSCALE=…`, or a value that is not a date) is left alone:
///   ``Edit/cardHasBirthday``. Only an empty `BDAY:` line is replaced.
/// - **The card's own version** ([RFC 6350 §4.3.1](https://www.rfc-editor.org/rfc/rfc6350#section-4.3.1),
///   [RFC 2426 §3.1.5](https://www.rfc-editor.org/rfc/rfc2426#section-3.1.5)):
///   vCard 4.0 `BDAY:19900517`, or `BDAY:--0517` without a year; vCard 3.0
///   and 2.1 (and a card without `VERSION`) `BDAY:1990-05-17`, or without a
///   year the form Apple's Contacts writes, `BDAY;X-APPLE-OMIT-YEAR=1604:1604-05-17`
///   (3.0 has no year-less date; 1604 is a leap year, so February 29 is kept).
///   The project's reader, python3-vobject and Apple's and Google's readers read these.
/// - **Every other byte is kept**: line endings (CRLF, LF or CR, as the card
///   has them), folding, order, unknown properties, photos, a byte order
///   mark, other cards of the file. The `BDAY` line goes right before the
///   card's `END:VCARD`.
/// - **Which card.** A file may hold more than one card: the one whose
///   person id (``PersonID``, as an import gives it: the `UID`, else the
///   derived id) is `personID` is edited; when no card of the file is that
///   person, ``VCardEditError/personNotOnCard`` (the file changed since the
///   last sync).
/// - **Read back.** The edited bytes are read again with the project's own
///   reader (``VCardParser``); unless the person then has exactly the date
///   given, nothing is returned but ``VCardEditError/readBack``.
public enum VCardBirthdayEdit {
    /// What the edit made of the card.
    public enum Edit: Sendable, Equatable {
        /// The card's new bytes, with the birthday.
        case edited([UInt8])
        /// The card has a birthday of its own, which wins: nothing to write.
        case cardHasBirthday
    }

    /// Adds `birthday` to the card of `personID` in `card` (a vdir file's or a CardDAV resource's bytes).
    ///
    /// - Throws: ``VCardEditError`` when the bytes are no card this edit can
    ///   keep intact, or the person is not on them.
    public static func edit(_ card: [UInt8], personID: String, birthday: EventDate) throws(VCardEditError) -> Edit {
        let bomLength: Int
        switch card.withUnsafeBufferPointer({ TextDecoding.detectEncoding($0) }) {
        case .utf16: throw .unsupportedEncoding
        case .bytes(let length): bomLength = length
        }
        guard let person = person(personID, in: card) else { throw .personNotOnCard }
        let lines = physicalLines(card, from: bomLength)
        guard person.source.line >= 1, person.source.line <= lines.count else { throw .personNotOnCard }
        let scan = try scanCard(card, lines: lines, beginIndex: person.source.line - 1)
        if scan.hasBirthday || person.birthday != nil || person.alternateDates.contains(where: { $0.kind == .birthday }) {
            return .cardHasBirthday
        }
        let line = Array(birthdayLine(birthday, version: scan.version).utf8) + scan.lineBreak
        var edited: [UInt8] = []
        edited.reserveCapacity(card.count + line.count)
        if let empty = scan.emptyBirthday {
            edited += card[..<empty.lowerBound]
            edited += line
            edited += card[empty.upperBound...]
        } else {
            edited += card[..<scan.endStart]
            edited += line
            edited += card[scan.endStart...]
        }
        guard let written = Self.person(personID, in: edited), written.birthday == birthday else { throw .readBack }
        return .edited(edited)
    }

    /// The `BDAY` line (without its line break) for `birthday` in a card of `version` (`4.0`, `3.0`, `2.1`, or `nil`).
    public static func birthdayLine(_ birthday: EventDate, version: String?) -> String {
        func two(_ number: Int) -> String { (number < 10 ? "0" : "") + String(number) }
        let year = birthday.year.map { String(repeating: "0", count: max(0, 4 - String($0).count)) + String($0) }
        if version == "4.0" {
            return "BDAY:" + (year ?? "--") + two(birthday.month) + two(birthday.day)
        }
        guard let year else { return "BDAY;X-APPLE-OMIT-YEAR=1604:1604-" + two(birthday.month) + "-" + two(birthday.day) }
        return "BDAY:" + year + "-" + two(birthday.month) + "-" + two(birthday.day)
    }

    // MARK: - Reading

    /// The person `personID` as an import of these bytes makes them (their first card), or `nil`.
    private static func person(_ personID: String, in bytes: [UInt8]) -> Person? {
        let parsed = VCardParser.parse(Data(bytes), file: "card")
        var report = ImportReport()
        return ContactMerge.people(from: parsed.contacts, report: &report).first { $0.id == personID }
    }

    /// A physical line: where it starts, where its content ends and where its line break ends.
    struct Line {
        var start: Int
        var contentEnd: Int
        var end: Int
    }

    /// The physical lines from `start`, numbered as ``VCardScanner`` numbers
    /// them (a line ends at LF, CRLF or a lone CR).
    static func physicalLines(_ bytes: [UInt8], from start: Int) -> [Line] {
        var lines: [Line] = []
        var position = start
        while position < bytes.count {
            var contentEnd = position
            while contentEnd < bytes.count && bytes[contentEnd] != 0x0A && bytes[contentEnd] != 0x0D { contentEnd += 1 }
            var end = contentEnd
            if end < bytes.count {
                end += bytes[end] == 0x0D && end + 1 < bytes.count && bytes[end + 1] == 0x0A ? 2 : 1
            }
            lines.append(Line(start: position, contentEnd: contentEnd, end: end))
            position = end
        }
        return lines
    }

    /// What the edit needs to know of one card.
    struct CardScan {
        var version: String?
        var hasBirthday = false
        /// The bytes of an empty `BDAY:` line (its line break included).
        var emptyBirthday: Range<Int>?
        /// Where the card's `END:VCARD` line starts.
        var endStart = 0
        /// The card's line break (its first one; CRLF when it has none).
        var lineBreak: [UInt8] = [0x0D, 0x0A]
    }

    /// Reads the card whose `BEGIN:VCARD` is `lines[beginIndex]`, up to its
    /// own `END:VCARD` (components inside it, such as a vCard 2.1 agent's
    /// card, are stepped over).
    static func scanCard(_ bytes: [UInt8], lines: [Line], beginIndex: Int) throws(VCardEditError) -> CardScan {
        var scan = CardScan()
        if let first = lines[beginIndex...].first(where: { $0.end > $0.contentEnd }) {
            scan.lineBreak = Array(bytes[first.contentEnd..<first.end])
        }
        var depth = 0
        var index = beginIndex
        while index < lines.count {
            let line = lines[index]
            index += 1
            // Folded continuation lines belong to the property before them.
            if line.contentEnd > line.start && (bytes[line.start] == 0x20 || bytes[line.start] == 0x09) { continue }
            guard let head = head(bytes, line) else { continue }
            let value = String(decoding: bytes[head.valueStart..<line.contentEnd], as: UTF8.self).trimmingWhitespace().uppercased()
            if head.name == "BEGIN" {
                depth += 1
                continue
            }
            if head.name == "END" {
                depth -= 1
                if depth == 0 {
                    guard value == "VCARD" else { throw .notClosed }
                    scan.endStart = line.start
                    return scan
                }
                continue
            }
            guard depth == 1 else { continue }
            // A vCard 2.1 agent's card on the AGENT line itself.
            if head.name == "AGENT", value.hasPrefix("BEGIN:VCARD") {
                depth += 1
                continue
            }
            if head.name == "VERSION", scan.version == nil { scan.version = value }
            if head.name == "BDAY" {
                // The value may go on in folded lines.
                var last = line
                while index < lines.count, lines[index].contentEnd > lines[index].start,
                    bytes[lines[index].start] == 0x20 || bytes[lines[index].start] == 0x09
                {
                    last = lines[index]
                    index += 1
                }
                if value.isEmpty && last.start == line.start && scan.emptyBirthday == nil {
                    scan.emptyBirthday = line.start..<last.end
                } else {
                    scan.hasBirthday = true
                }
            }
        }
        throw .notClosed
    }

    /// A property line's upper-cased name (without its group) and where its value starts; `nil` for no property.
    private static func head(_ bytes: [UInt8], _ line: Line) -> (name: String, valueStart: Int)? {
        var nameStart = line.start
        var i = line.start
        while i < line.contentEnd && bytes[i] != UInt8(ascii: ":") && bytes[i] != UInt8(ascii: ";") {
            if bytes[i] == UInt8(ascii: ".") { nameStart = i + 1 }
            i += 1
        }
        guard i < line.contentEnd, i > nameStart else { return nil }
        let name = String(decoding: bytes[nameStart..<i], as: UTF8.self).uppercased()
        var inQuotes = false
        while i < line.contentEnd {
            if bytes[i] == UInt8(ascii: "\"") { inQuotes.toggle() }
            if bytes[i] == UInt8(ascii: ":") && !inQuotes { return (name, i + 1) }
            i += 1
        }
        return (name, line.contentEnd)
    }
}

/// Why a card could not be given a birthday. Each case reads as one
/// sentence and names no person.
public enum VCardEditError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// UTF-16 cards are read, but rewriting one would change every byte.
    case unsupportedEncoding
    /// No card in the bytes is the person's (the card changed since the last sync).
    case personNotOnCard
    /// The person's card has no `END:VCARD`.
    case notClosed
    /// The edited card did not read back to the date given.
    case readBack

    public var description: String {
        switch self {
        case .unsupportedEncoding: "the card is written in UTF-16, which birthdays reads but does not write back to"
        case .personNotOnCard: "the card no longer holds this person (it changed since the last sync)"
        case .notClosed: "the card has no END:VCARD"
        case .readBack: "the card with the birthday added did not read back to the same date, so it was not written"
        }
    }
}
