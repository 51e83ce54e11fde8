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
    }

    let index: Int
    let line: Int
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

    init(index: Int, line: Int) {
        self.index = index
        self.line = line
    }

    /// Labels Apple and Google put on an `X-ABDATE` that is an anniversary (compared lower-cased).
    private static let anniversaryLabels: Set<String> = ["_$!<anniversary>!$_", "anniversary"]
    private static let androidEvent = "vnd.android.cursor.item/contact_event"

    /// Records one property; `text` is decoded (quoted-printable, charset) but still escaped.
    /// `group` is the upper-cased group prefix, or empty.
    mutating func add(_ kind: VCardPropertyKind, text: String, params: VCardParams, line: Int, group: String) {
        switch kind {
        case .ignored, .agent:
            return
        case .formattedName:
            if formattedName?.trimmingWhitespace().isEmpty ?? true { formattedName = VCardText.unescape(text[...]) }
        case .name:
            if nameParts?.isEmpty ?? true { nameParts = VCardText.nameParts(text) }
        case .organization:
            if organization?.trimmingWhitespace().isEmpty ?? true {
                organization = VCardText.split(text[...], on: UInt8(ascii: ";")).first.map { VCardText.unescape($0) }
            }
        case .email:
            if email?.isEmpty ?? true { email = VCardText.unescape(text[...]).trimmingWhitespace() }
        case .uid:
            if uid?.isEmpty ?? true { uid = text.trimmingWhitespace() }
        case .androidUID:
            if androidUID?.isEmpty ?? true { androidUID = text.trimmingWhitespace() }
        case .birthday:
            birthdays.append(Self.candidate(text, params: params, line: line, property: "BDAY"))
        case .anniversary(let property):
            anniversaries.append(Self.candidate(text, params: params, line: line, property: property))
        case .labelledDate:
            guard !group.isEmpty else { return }
            labelledDates.append((group, Self.candidate(text, params: params, line: line, property: "X-ABDATE")))
        case .label:
            guard !group.isEmpty, Self.anniversaryLabels.contains(VCardText.unescape(text[...]).trimmingWhitespace().lowercased()) else { return }
            anniversaryGroups.append(group)
        case .androidCustom:
            // vnd.android.cursor.item/contact_event;DATE;TYPE;LABEL;… where TYPE 1 is an anniversary
            // (0 custom, 2 other, 3 birthday: Android also writes that one as BDAY).
            let parts = VCardText.split(text[...], on: UInt8(ascii: ";"))
            guard parts.count >= 3, parts[0].trimmingWhitespace().lowercased() == Self.androidEvent,
                parts[2].trimmingWhitespace() == "1"
            else { return }
            anniversaries.append(Self.candidate(String(parts[1]), params: params, line: line, property: "X-ANDROID-CUSTOM"))
        }
    }

    private static func candidate(_ text: String, params: VCardParams, line: Int, property: String) -> DateCandidate {
        let value: DateValue
        let unescaped = VCardText.unescape(text[...])
        if params.valueIsText {
            let trimmed = unescaped.trimmingWhitespace()
            value = trimmed.isEmpty ? .none : .invalid(trimmed)
        } else {
            value = DateValue.vCard(unescaped, omitYear: params.omitYear)
        }
        return DateCandidate(line: line, property: property, value: value, altID: params.altID)
    }

    /// The finished contact, and the card's problems in line order.
    func build(file: String) -> (ParsedContact, [ImportProblem]) {
        var problems: [ImportProblem] = []
        var invalid: [String] = []
        let birthday = Self.resolve(birthdays, noun: "BDAY", file: file, problems: &problems, invalid: &invalid)
        var allAnniversaries = anniversaries
        for (group, date) in labelledDates where anniversaryGroups.contains(group) {
            allAnniversaries.append(date)
        }
        allAnniversaries.sort { $0.line < $1.line }
        let anniversary = Self.resolve(allAnniversaries, noun: "anniversary", file: file, problems: &problems, invalid: &invalid)
        problems.sort { $0.line < $1.line }
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

    /// Picks the first valid date among `candidates` (in line order) and reports the rest.
    private static func resolve(
        _ candidates: [DateCandidate], noun: String, file: String, problems: inout [ImportProblem], invalid: inout [String]
    ) -> EventDate? {
        guard !candidates.isEmpty else { return nil }
        for chosen in candidates {
            guard case .date(let date) = chosen.value else { continue }
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
            problems.append(ImportProblem(file: file, line: candidate.line, message: "\(candidate.property) '\(shown)' is not a date"))
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
