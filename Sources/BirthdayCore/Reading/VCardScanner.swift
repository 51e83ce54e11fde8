/// The byte-level state machine behind ``VCardParser``: reads physical lines,
/// unfolds them into properties and hands the interesting ones to a
/// ``VCardCardBuilder``.
///
/// ## Lines
/// A physical line ends at LF, CRLF or a lone CR. Line numbers are 1-based
/// physical lines. A logical line (one property) is its first physical line
/// plus:
/// - lines starting with a space or tab (folding, RFC 6350 §3.2), without that character;
/// - while a quoted-printable value ends with `=`, the next line as it is
///   (a soft line break; the `=` is removed), even when that line starts with `#`;
/// - lines that cannot start a property (their name part holds a space,
///   backslash, `=` or non-ASCII byte, or they have no `:` and do not name a
///   standard property): folds that lost their leading space.
///
/// Lines are joined as bytes and decoded once per kept value, so a fold that
/// splits a UTF-8 sequence is harmless. Values of ignored properties are never
/// copied. Blank lines and `#` comment lines inside a card are skipped.
///
/// ## Components
/// `BEGIN:VCARD` … `END:VCARD` is a card (any case, any group prefix,
/// trailing spaces allowed). Other components (`VLIST`, …) are skipped with
/// their content. A vCard 2.1 `AGENT` whose value is `BEGIN:VCARD` (on its
/// line or the next) embeds a card that ends at its own `END:VCARD` and is
/// not a contact. A `BEGIN:VCARD` inside a card, or the end of the file,
/// ends a card that has no `END:VCARD`; what was read is kept and reported.
///
/// An embedded card that is never closed must not swallow the contacts
/// after it: a `BEGIN:VCARD` inside it that does not start an agent's card
/// of its own (on an `AGENT` line, or right after an empty one) ends it
/// there, ends the card it was in, and starts a new card. Both are reported:
/// what the outer card held after the agent was read as part of the agent's
/// card and is lost. So an embedded card without its `END:VCARD` ends where
/// the outer card ends (that `END:VCARD` closes the embedded card; the next
/// `BEGIN:VCARD` then ends the outer one), and every contact after it is
/// read. (Cards inside a `VLIST` are its members, not contacts, and stay
/// skipped.) Any component still open at the end of the file is reported.
struct VCardScanner {
    private let bytes: UnsafePointer<UInt8>
    private let end: Int
    private let file: String
    /// Offset of the next physical line.
    private var position: Int
    /// Number of the physical line last read.
    private var lineNumber: Int
    private(set) var contacts: [ParsedContact] = []
    private(set) var problems: [ImportProblem] = []
    /// Index of the next card; the first is `firstIndex`.
    private var nextIndex: Int

    private var inCard = false
    /// Upper-cased name of the component being skipped (a VLIST, an AGENT's card), and its nesting depth.
    private var skipName: [UInt8] = []
    private var skipDepth = 0
    /// The line of the outermost skipped component's `BEGIN`.
    private var skipLine = 0
    /// While skipping an embedded card: the previous line was an `AGENT` with an empty value.
    private var skipAgentPending = false
    /// The previous property was an `AGENT` with an empty value: a `BEGIN:VCARD` next is embedded.
    private var agentPending = false
    private var card = VCardCardBuilder()
    private var property = OpenProperty()
    /// The raw value of the open property, when it is kept (or its head while that is incomplete).
    private var value: [UInt8] = []
    /// The group prefix of the open property, kept only for `X-ABDATE` and `X-ABLabel`.
    private var group: [UInt8] = []

    /// The property whose lines are being read.
    private struct OpenProperty {
        var active = false
        var kind = VCardPropertyKind.ignored
        var line = 0
        var params = VCardParams()
        /// The value so far ends with a quoted-printable soft line break.
        var softBreak = false
        /// Whether `value` holds the value (else the property is ignored and nothing is copied).
        var keep = false
        /// The name/parameters have no `:` yet: `value` holds the whole line so far.
        var headComplete = true
    }

    /// Where a property line's parts are.
    private struct Head {
        var groupStart: Int
        var nameStart: Int
        var nameEnd: Int
        /// The value separator, if the line has one.
        var colon: Int?
    }

    /// The component name `skipName` holds while an embedded card is skipped.
    private static let vcardName = Array("VCARD".utf8)

    /// Prepares to read `bytes[start..<end]`, whose first line is number
    /// `linesBefore + 1` and whose first card has index `firstIndex`.
    init(bytes: UnsafePointer<UInt8>, start: Int, end: Int, file: String, linesBefore: Int = 0, firstIndex: Int = 0) {
        self.bytes = bytes
        self.end = end
        self.file = file
        self.position = start
        self.lineNumber = linesBefore
        self.nextIndex = firstIndex
        value.reserveCapacity(256)
    }

    /// Number of cards read so far.
    var cardCount: Int { contacts.count }

    /// The cards read, leaving none behind (so the caller holds the only reference to them).
    mutating func takeContacts() -> [ParsedContact] {
        let taken = contacts
        contacts = []
        return taken
    }

    /// Reads to the end of the input, or stops at offset `stop` if a line
    /// starts there while no card or skipped component is open.
    ///
    /// - Returns: whether it stopped at `stop` (else it read everything).
    mutating func run(stoppingAt stop: Int = Int.max) -> Bool {
        while position < end {
            if position == stop && !inCard && skipDepth == 0 { return true }
            let start = position
            let lineEnd = Self.lineBreak(bytes, from: start, to: end)
            position = lineEnd
            if position < end {
                position += bytes[position] == 0x0D && position + 1 < end && bytes[position + 1] == 0x0A ? 2 : 1
            }
            lineNumber += 1
            if skipDepth > 0 {
                skippedLine(start, lineEnd)
            } else if inCard {
                cardLine(start, lineEnd)
            } else {
                outsideLine(start, lineEnd)
            }
        }
        if inCard {
            finishCard(complete: false)
        } else if skipDepth > 0 {
            problems.append(ImportProblem(file: file, line: skipLine, message: unclosedSkipMessage(endedAt: lineNumber)))
            skipDepth = 0
        }
        return false
    }

    // MARK: - Lines

    private mutating func outsideLine(_ start: Int, _ end: Int) {
        let (s, e) = ASCII.trimmed(bytes, start, end)
        guard let head = Self.head(bytes, s, e), let colon = head.colon else { return }
        if isName(head, "BEGIN") { beginComponent(colon + 1, e, nested: false) }
    }

    private mutating func skippedLine(_ start: Int, _ end: Int) {
        let agentPending = skipAgentPending
        skipAgentPending = false
        let (s, e) = ASCII.trimmed(bytes, start, end)
        guard let head = Self.head(bytes, s, e), let colon = head.colon else { return }
        let (a, b) = ASCII.trimmed(bytes, colon + 1, e)
        let embeddedCard = skipName == Self.vcardName
        if embeddedCard, isName(head, "BEGIN"), ASCII.equalsUpperCased(bytes, a, b, "VCARD"), !agentPending {
            // Not an agent's card: what was skipped was never closed.
            abandonSkip(at: colon + 1, e)
        } else if isName(head, "BEGIN"), ASCII.equalsUpperCased(bytes, a, b, skipName) {
            skipDepth += 1
        } else if isName(head, "END"), ASCII.equalsUpperCased(bytes, a, b, skipName) {
            skipDepth -= 1
        } else if embeddedCard, isName(head, "AGENT") {
            if a == b {
                skipAgentPending = true
            } else if ASCII.equalsUpperCased(bytes, a, b, "BEGIN:VCARD") {
                skipDepth += 1
            }
        }
    }

    /// A `BEGIN:VCARD` came while skipping an embedded card that never
    /// ended: report it, end the card it was in, and start the new card.
    private mutating func abandonSkip(at valueStart: Int, _ end: Int) {
        let unclosed = ImportProblem(file: file, line: skipLine, message: unclosedSkipMessage(endedAt: lineNumber))
        skipDepth = 0
        if inCard { finishCard(complete: false) }
        problems.append(unclosed)
        beginComponent(valueStart, end, nested: false)
    }

    private func unclosedSkipMessage(endedAt line: Int) -> String {
        let name = String(decoding: skipName, as: UTF8.self)
        let what = skipName == Self.vcardName ? "embedded AGENT card" : name
        return "\(what) starting at line \(skipLine) has no END:\(name); it was ended at line \(line), "
            + "and what followed it up to there was read as part of it"
    }

    private mutating func cardLine(_ start: Int, _ end: Int) {
        if property.active {
            if property.softBreak && !isEndVCard(start, end) {
                // Quoted-printable soft line break: the next line continues the value as it is.
                if property.keep {
                    value.removeLast()
                    append(start, end)
                    property.softBreak = value.last == UInt8(ascii: "=")
                } else {
                    property.softBreak = end > start && bytes[end - 1] == UInt8(ascii: "=")
                }
                return
            }
            if end > start && (bytes[start] == 0x20 || bytes[start] == 0x09) {
                continuation(start + 1, end)
                return
            }
        }
        guard end > start, bytes[start] != UInt8(ascii: "#") else { return }
        var s = start
        if !property.active {
            (s, _) = ASCII.trimmed(bytes, start, end)
            guard s < end else { return }
        }
        guard let head = Self.head(bytes, s, end), head.colon != nil || isStandardName(head) else {
            // Not a property: a folded line that lost its leading space (or junk before any property).
            if property.active { continuation(s, end) }
            return
        }
        finishProperty()
        if let colon = head.colon, isName(head, "BEGIN") || isName(head, "END") {
            let (a, b) = ASCII.trimmed(bytes, colon + 1, end)
            if isName(head, "END") {
                if ASCII.equalsUpperCased(bytes, a, b, "VCARD") { finishCard(complete: true) }
                return
            }
            if agentPending && ASCII.equalsUpperCased(bytes, a, b, "VCARD") {
                agentPending = false
                startSkip(Self.vcardName)
                return
            }
            beginComponent(colon + 1, end, nested: true)
            return
        }
        agentPending = false
        startProperty(head, s, end)
    }

    /// A line that continues the open property (without its folding whitespace).
    private mutating func continuation(_ start: Int, _ end: Int) {
        if property.keep {
            append(start, end)
            if !property.headComplete { completeHead() }
            property.softBreak = property.params.quotedPrintable && value.last == UInt8(ascii: "=")
        } else {
            property.softBreak = property.params.quotedPrintable && end > start && bytes[end - 1] == UInt8(ascii: "=")
        }
    }

    @inline(__always)
    private mutating func append(_ start: Int, _ end: Int) {
        guard end > start else { return }
        value.append(contentsOf: UnsafeBufferPointer(start: bytes + start, count: end - start))
    }

    // MARK: - Components

    /// Handles `BEGIN:<name>`; `valueStart..<end` holds the name.
    private mutating func beginComponent(_ valueStart: Int, _ end: Int, nested: Bool) {
        let (a, b) = ASCII.trimmed(bytes, valueStart, end)
        if ASCII.equalsUpperCased(bytes, a, b, "VCARD") {
            if nested { finishCard(complete: false) }
            inCard = true
            card.reset(index: nextIndex, line: lineNumber)
            nextIndex += 1
            return
        }
        startSkip((a..<b).map { ASCII.upperCased(bytes[$0]) })
    }

    private mutating func startSkip(_ name: [UInt8], line: Int? = nil) {
        skipName = name
        skipDepth = 1
        skipLine = line ?? lineNumber
        skipAgentPending = false
    }

    private mutating func finishCard(complete: Bool) {
        // The file ended inside a component of this card.
        let unclosed = skipDepth > 0 ? ImportProblem(file: file, line: skipLine, message: unclosedSkipMessage(endedAt: lineNumber)) : nil
        finishProperty()
        let (contact, cardProblems) = card.build(file: file)
        contacts.append(contact)
        problems.append(contentsOf: cardProblems)
        if !complete {
            problems.append(ImportProblem(file: file, line: card.line, message: "card starting at line \(card.line) has no END:VCARD"))
        }
        if let unclosed { problems.append(unclosed) }
        inCard = false
        agentPending = false
        skipDepth = 0
    }

    private func isEndVCard(_ start: Int, _ end: Int) -> Bool {
        let (s, e) = ASCII.trimmed(bytes, start, end)
        guard e - s == 9, let head = Self.head(bytes, s, e), let colon = head.colon, isName(head, "END") else { return false }
        return ASCII.equalsUpperCased(bytes, colon + 1, e, "VCARD")
    }

    // MARK: - Properties

    private mutating func startProperty(_ head: Head, _ start: Int, _ end: Int) {
        property = OpenProperty()
        property.active = true
        property.line = lineNumber
        guard let colon = head.colon else {
            // A standard name without ":" yet: the parameters or the ":" may follow on folded lines.
            property.headComplete = false
            property.keep = true
            value.removeAll(keepingCapacity: true)
            append(start, end)
            return
        }
        setUp(bytes, head, colon: colon)
        if property.keep {
            if !value.isEmpty { value.removeAll(keepingCapacity: true) }
            append(colon + 1, end)
            property.softBreak = property.params.quotedPrintable && value.last == UInt8(ascii: "=")
        } else {
            property.softBreak = property.params.quotedPrintable && end > colon + 1 && bytes[end - 1] == UInt8(ascii: "=")
        }
    }

    /// Sets kind, parameters and group of the open property from its head in `base`.
    private mutating func setUp(_ base: UnsafePointer<UInt8>, _ head: Head, colon: Int) {
        let kind = VCardPropertyKind.classify(base, head.nameStart, head.nameEnd)
        property.kind = kind
        property.keep = kind != .ignored
        if head.nameEnd < colon {
            property.params = VCardParams(base, head.nameEnd + 1, colon, full: property.keep)
        }
        if !group.isEmpty { group.removeAll(keepingCapacity: true) }
        if (kind == .labelledDate || kind == .label) && head.nameStart > head.groupStart {
            group.append(contentsOf: UnsafeBufferPointer(start: base + head.groupStart, count: head.nameStart - 1 - head.groupStart))
        }
    }

    /// Re-reads the head of a property whose first line had no `:`, now that more lines are joined.
    private mutating func completeHead() {
        let line = value
        line.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let head = Self.head(base, 0, buffer.count), let colon = head.colon else { return }
            property.headComplete = true
            setUp(base, head, colon: colon)
            value.removeAll(keepingCapacity: true)
            if property.keep { value.append(contentsOf: buffer[(colon + 1)...]) }
        }
    }

    private mutating func finishProperty() {
        guard property.active else { return }
        property.active = false
        guard property.keep, property.headComplete else { return }
        if property.kind == .agent {
            // vCard 2.1 embeds the agent's card on the following lines.
            let (a, b) = value.withUnsafeBufferPointer { ASCII.trimmed($0.baseAddress ?? bytes, 0, $0.count) }
            if a == b {
                agentPending = true
            } else if value.withUnsafeBufferPointer({ ASCII.equalsUpperCased($0.baseAddress ?? bytes, a, b, "BEGIN:VCARD") }) {
                startSkip(Self.vcardName, line: property.line)
            }
            return
        }
        if property.params.quotedPrintable { QuotedPrintable.decode(&value) }
        TextDecoding.convertToUTF8(&value, from: property.params.charset ?? .utf8)
        value.withUnsafeBufferPointer { text in
            group.withUnsafeBufferPointer { group in
                card.add(property.kind, value: text, params: property.params, line: property.line, group: group)
            }
        }
    }

    // MARK: - Parsing helpers

    @inline(__always)
    private func isName(_ head: Head, _ upper: StaticString) -> Bool {
        ASCII.equalsUpperCased(bytes, head.nameStart, head.nameEnd, upper)
    }

    private func isStandardName(_ head: Head) -> Bool {
        let name = String(decoding: UnsafeBufferPointer(start: bytes + head.nameStart, count: head.nameEnd - head.nameStart), as: UTF8.self)
        return VCardPropertyKind.standardNames.contains(name.uppercased())
    }

    /// Splits `[group.]name[;params][:value]` in `base[start..<end]`; `nil` when the
    /// line cannot start a property (empty name, or a byte no name contains).
    ///
    /// The value starts at the first `:` outside double-quoted parameter values
    /// (or the first `:` at all, if a quote is left open).
    private static func head(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Head? {
        var i = start
        var nameStart = start
        while i < end {
            let b = base[i]
            if b == UInt8(ascii: ":") || b == UInt8(ascii: ";") { break }
            if b == UInt8(ascii: ".") {
                nameStart = i + 1
            } else if !isNameByte(b) {
                return nil
            }
            i += 1
        }
        guard i > nameStart else { return nil }
        var head = Head(groupStart: start, nameStart: nameStart, nameEnd: i, colon: nil)
        guard i < end else { return head }
        if base[i] == UInt8(ascii: ":") {
            head.colon = i
            return head
        }
        var inQuotes = false
        var firstColon: Int?
        i += 1
        while i < end {
            let b = base[i]
            if b == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if b == UInt8(ascii: ":") {
                if !inQuotes {
                    head.colon = i
                    return head
                }
                if firstColon == nil { firstColon = i }
            }
            i += 1
        }
        head.colon = firstColon
        return head
    }

    /// Letters, digits and `- _ / , +`: what real exports put in property names
    /// (`X-messaging/aim-All`); anything else means the line is not a property.
    @inline(__always)
    private static func isNameByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: ","), UInt8(ascii: "+"):
            true
        default:
            false
        }
    }

    /// Offset of the first CR or LF in `base[from..<to]`, or `to`.
    ///
    /// Reads eight bytes at a time (SWAR: a byte equal to CR or LF makes its
    /// high bit survive `(x - 0x01…) & ~x`), so skipping a base64 photo costs
    /// about one comparison per eight bytes.
    @inline(__always)
    static func lineBreak(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i + 8 <= to {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let lf = word ^ (ones &* 0x0A)
            let cr = word ^ (ones &* 0x0D)
            let found = ((lf &- ones) & ~lf | (cr &- ones) & ~cr) & highs
            if found != 0 { return i + found.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < to {
            let b = base[i]
            if b == 0x0A || b == 0x0D { return i }
            i += 1
        }
        return to
    }

    /// Number of physical lines in `base[from..<to]` when `to` is the start of a line.
    static func countLines(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var lines = 0
        var i = from
        while i < to {
            i = lineBreak(base, from: i, to: to)
            guard i < to else { return lines + 1 }
            i += base[i] == 0x0D && i + 1 < to && base[i + 1] == 0x0A ? 2 : 1
            lines += 1
        }
        return lines
    }
}
