/// Collects the properties of one vCard that matter for reminders and turns
/// them into a ``ParsedContact`` plus the problems found in the card.
///
/// ## Which value wins
/// - `FN`, `N`, `ORG` (first component), `EMAIL`, `UID`: the first non-empty one.
/// - `BDAY`: the first valid date. Other `BDAY` lines with a different value
///   are reported ("several BDAY values; using the first (line N)"); lines
///   sharing an `ALTID` with the chosen one are the same birthday written
///   another way ([RFC 6350 §5.4](https://www.rfc-editor.org/rfc/rfc6350#section-5.4))
///   and are not reported.
/// - Anniversaries are read from every property vendors use for them (see
///   ``VCardPropertyKind``) and resolved the same way, in line order: the same
///   date written twice is one anniversary.
/// - When no value of a kind is a valid date, each unreadable text goes to
///   ``ParsedContact/invalidDates`` with a problem quoting it; a `VALUE=text`
///   date is never read as a date.
struct VCardCardBuilder {
    /// One date-valued property as read.
    struct DateCandidate {
        var line: Int
        /// The property name used in problem messages.
        var property: String
        var value: DateValue
        var altID: String?
        /// Said about a value that was read, such as a date written as text.
        var note: String?
    }

    private(set) var index = 0
    private(set) var line = 0
    private var uid: String?
    private var androidUID: String?
    private var formattedName: String?
    private var nameParts: NameParts?
    private var organization: String?
    private var email: String?
    private var birthdays: [DateCandidate] = []
    private var anniversaries: [DateCandidate] = []
    private var labelledDates: [(group: String, date: DateCandidate)] = []
    private var anniversaryGroups: [String] = []
    /// The card says khard wrote it (`PRODID:-//…//khard…`).
    private var writtenByKhard = false

    init() {}

    /// Starts a new card, keeping the storage of the previous one.
    mutating func reset(index: Int, line: Int) {
        self.index = index
        self.line = line
        uid = nil
        androidUID = nil
        formattedName = nil
        nameParts = nil
        organization = nil
        email = nil
        birthdays.removeAll(keepingCapacity: true)
        anniversaries.removeAll(keepingCapacity: true)
        labelledDates.removeAll(keepingCapacity: true)
        anniversaryGroups.removeAll(keepingCapacity: true)
        writtenByKhard = false
    }

    /// Records one property.
    ///
    /// - Parameters:
    ///   - value: the value as UTF-8 (quoted-printable and charset already decoded), still escaped.
    ///   - group: the group prefix (`item1`), empty when there is none.
    mutating func add(_ kind: VCardPropertyKind, value: UnsafeBufferPointer<UInt8>, params: VCardParams, line: Int, group: UnsafeBufferPointer<UInt8>)
    {
        let count = value.count
        switch kind {
        case .ignored, .agent:
            return
        case .productID:
            writtenByKhard = String(decoding: value, as: UTF8.self).lowercased().contains("khard")
        case .formattedName:
            if formattedName?.trimmingWhitespace().isEmpty ?? true { formattedName = VCardText.unescaped(value, 0, count) }
        case .name:
            if nameParts?.isEmpty ?? true { nameParts = VCardText.nameParts(value, 0, count) }
        case .organization:
            if organization?.trimmingWhitespace().isEmpty ?? true {
                let first = VCardText.components(value, 0, count, separator: UInt8(ascii: ";"), limit: 2)[0]
                organization = VCardText.unescaped(value, first.lowerBound, first.upperBound)
            }
        case .email:
            if email == nil, let (a, b) = Self.trimmed(value, 0, count) { email = VCardText.unescaped(value, a, b) }
        case .uid:
            if uid == nil, let (a, b) = Self.trimmed(value, 0, count) {
                uid = String(decoding: UnsafeBufferPointer(rebasing: value[a..<b]), as: UTF8.self)
            }
        case .androidUID:
            if androidUID == nil, let (a, b) = Self.trimmed(value, 0, count) {
                androidUID = String(decoding: UnsafeBufferPointer(rebasing: value[a..<b]), as: UTF8.self)
            }
        case .birthday:
            birthdays.append(Self.candidate(value, 0..<count, params: params, line: line, property: "BDAY"))
        case .anniversary(let property):
            anniversaries.append(Self.candidate(value, 0..<count, params: params, line: line, property: property.rawValue))
        case .labelledDate:
            guard !group.isEmpty else { return }
            labelledDates.append((Self.groupName(group), Self.candidate(value, 0..<count, params: params, line: line, property: "X-ABDATE")))
        case .label:
            guard !group.isEmpty,
                VCardText.trimmedEquals(value, 0, count, "_$!<ANNIVERSARY>!$_") || VCardText.trimmedEquals(value, 0, count, "ANNIVERSARY")
            else { return }
            anniversaryGroups.append(Self.groupName(group))
        case .androidCustom:
            // vnd.android.cursor.item/contact_event;DATE;TYPE;LABEL;… where TYPE 1 is an anniversary
            // (0 custom, 2 other, 3 birthday: Android also writes that one as BDAY).
            let parts = VCardText.components(value, 0, count, separator: UInt8(ascii: ";"), limit: 4)
            guard parts.count >= 3, VCardText.trimmedEquals(value, parts[0].lowerBound, parts[0].upperBound, "VND.ANDROID.CURSOR.ITEM/CONTACT_EVENT"),
                VCardText.trimmedEquals(value, parts[2].lowerBound, parts[2].upperBound, "1")
            else { return }
            anniversaries.append(Self.candidate(value, parts[1], params: params, line: line, property: "X-ANDROID-CUSTOM"))
        }
    }

    /// The range without surrounding spaces and tabs; `nil` when nothing is left.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int)? {
        guard let base = bytes.baseAddress else { return nil }
        let (a, b) = ASCII.trimmed(base, start, end)
        return a < b ? (a, b) : nil
    }

    /// Groups compare without case: `ITEM1.X-ABDATE` goes with `item1.X-ABLabel`.
    private static func groupName(_ group: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: group.map(ASCII.upperCased), as: UTF8.self)
    }

    private static func candidate(
        _ value: UnsafeBufferPointer<UInt8>,
        _ range: Range<Int>,
        params: VCardParams,
        line: Int,
        property: String
    ) -> DateCandidate {
        let text = VCardText.unescaped(value, range.lowerBound, range.upperBound)
        var date = DateValue.vCard(text, omitYear: params.omitYear)
        var note: String?
        if params.valueIsText {
            // A date written as text is read when it is a date, and said so;
            // other text (`circa 1800`) is kept as written.
            switch date {
            case .date:
                note = "\(property) '\(quoted(text.trimmingWhitespace()))' is written as text (VALUE=text); read as a date"
            case .invalid, .none:
                let trimmed = text.trimmingWhitespace()
                date = trimmed.isEmpty ? .none : .invalid(trimmed)
            }
        }
        return DateCandidate(line: line, property: property, value: date, altID: params.altID, note: note)
    }

    /// The finished contact, and the card's problems in line order.
    func build(file: String) -> (ParsedContact, [ImportProblem]) {
        var problems: [ImportProblem] = []
        var invalid: [String] = []
        var birthday = Self.resolve(birthdays, noun: "BDAY", file: file, problems: &problems, invalid: &invalid)
        var allAnniversaries = anniversaries
        if !anniversaryGroups.isEmpty {
            for (group, date) in labelledDates where anniversaryGroups.contains(group) {
                allAnniversaries.append(date)
            }
            allAnniversaries.sort { $0.line < $1.line }
        }
        var anniversary = Self.resolve(allAnniversaries, noun: "anniversary", file: file, problems: &problems, invalid: &invalid)
        if writtenByKhard {
            // khard asks for 1900 when the year is unknown and shows such dates without one.
            birthday = birthday.map(Self.khardPlaceholderRemoved)
            anniversary = anniversary.map(Self.khardPlaceholderRemoved)
        }
        if problems.count > 1 { problems.sort { $0.line < $1.line } }
        let contact = ParsedContact(
            source: ContactSource(file: file, index: index, line: line),
            uid: uid.flatMap { $0.isEmpty ? nil : $0 } ?? androidUID.flatMap { $0.isEmpty ? nil : $0 },
            formattedName: formattedName,
            nameParts: nameParts ?? NameParts(),
            organization: organization,
            email: email.flatMap { $0.isEmpty ? nil : $0 },
            birthday: birthday,
            anniversary: anniversary,
            invalidDates: invalid
        )
        return (contact, problems)
    }

    /// The year 1900 of a card khard wrote means "no year".
    static func khardPlaceholderRemoved(_ date: EventDate) -> EventDate {
        guard date.year == khardPlaceholderYear else { return date }
        return EventDate(year: nil, month: date.month, day: date.day) ?? date
    }

    /// The year khard writes for a date without one (vCard 3.0 has no `--MMDD`).
    static let khardPlaceholderYear = 1900

    /// Picks the first valid date among `candidates` (in line order) and reports the rest.
    private static func resolve(
        _ candidates: [DateCandidate],
        noun: String,
        file: String,
        problems: inout [ImportProblem],
        invalid: inout [String]
    ) -> EventDate? {
        guard !candidates.isEmpty else { return nil }
        for chosen in candidates {
            guard case .date(let date) = chosen.value else { continue }
            if let note = chosen.note { problems.append(ImportProblem(file: file, line: chosen.line, message: note)) }
            for other in candidates where other.line != chosen.line {
                if case .none = other.value { continue }
                if case .date(let d) = other.value, d == date { continue }
                if let alt = other.altID, alt == chosen.altID { continue }
                problems.append(ImportProblem(file: file, line: other.line, message: "several \(noun) values; using the first (line \(chosen.line))"))
            }
            return date
        }
        var altIDs: Set<String> = []
        for candidate in candidates {
            guard case .invalid(let text) = candidate.value else { continue }
            if let alt = candidate.altID, !altIDs.insert(alt).inserted { continue }
            let shown = quoted(text)
            if !invalid.contains(shown) { invalid.append(shown) }
            problems.append(
                ImportProblem(file: file, line: candidate.line, message: DateValue.problem(property: candidate.property, shown: shown, raw: text))
            )
        }
        return nil
    }

    /// Date text as kept and quoted: at most 100 characters, so a corrupt
    /// multi-megabyte value cannot flood the store or the log.
    static func quoted(_ text: String) -> String {
        guard text.utf8.count > 100 else { return text }
        return String(text.prefix(100)) + "…"
    }
}
