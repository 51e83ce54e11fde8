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
/// - `NICKNAME`: the first nickname of the first non-empty one (a comma
///   list: `Jim,Jimmie` is Jim; `Johny\,JayJay` is one nickname).
/// - `DEATHDATE` or `X-DEATHDATE`: the first non-empty value marks the
///   person as deceased, kept as `YYYY-MM-DD` (`--MM-DD`) when it is a date,
///   else as written (`circa 1990`); it is not a reminder date, so an
///   unreadable one is not reported.
/// - `X-NC-EXCLUDE-FROM-BIRTHDAY-CALENDAR` (Nextcloud writes
///   `;TYPE=boolean:true`) excludes the contact, as Nextcloud's birthday
///   calendar does whenever the property is there, unless its value is
///   `false`, `0` or `no`.
/// - `TZ`: the first value that is a zone (``PersonZone/init(cardValue:)``):
///   an offset (`-05:00`, `-0500`, `VALUE=utc-offset`) or an IANA name
///   (`VALUE=text:America/New_York`); of RFC 2426's text form
///   (`-05:00; EST; Raleigh/North America`) the first `;`-part. `VALUE=uri`
///   is ignored. When no value is a zone, the first is reported and the
///   person is kept without one.
/// - `EMAIL`, `TEL`, `IMPP`: every one, as ``ContactPoints/resolve(_:file:problems:)``
///   orders and checks them (a value that is not valid is reported, the card kept).
/// - Anniversaries are read from every property vendors use for them (see
///   ``VCardPropertyKind``) and resolved the same way, in line order: the same
///   date written twice is one anniversary.
/// - When no value of a kind is a valid date, each unreadable text goes to
///   ``ParsedContact/invalidDates`` with a problem quoting it; a `VALUE=text`
///   date is never read as a date.
/// - Dates in other calendars (`X-ALTBDAY;CALSCALE=…`, and `BDAY` or an
///   anniversary with a `CALSCALE` other than `gregorian`) are read by
///   ``CalendarDateValue``, apart from the Gregorian ones: per kind and
///   calendar the first valid one is kept and a different later one is
///   reported; each unreadable one is reported and kept as text
///   (`<calendar>:<value>`).
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
    private var nickname: String?
    private var deathDate: String?
    private var excludedInCard = false
    private var categories: [String] = []
    private var isGroup = false
    private var members: [String] = []
    private var birthdays: [DateCandidate] = []
    private var anniversaries: [DateCandidate] = []
    /// `X-ABDATE`s with their group (empty when they have none), and Android's dated events with their label.
    private var labelledDates: [(group: String, date: DateCandidate)] = []
    private var androidDates: [(label: String, date: DateCandidate)] = []
    /// The `X-ABLabel`s by group, as written (unescaped); the first per group.
    private var labels: [String: String] = [:]
    private var calendarDates: [CalendarCandidate] = []
    private var contactCandidates: [ContactPoints.Candidate] = []
    /// The `TZ` values as read (unescaped), with their lines.
    private var zoneCandidates: [(line: Int, text: String)] = []

    /// One date-valued property in another calendar, as read.
    struct CalendarCandidate {
        var line: Int
        /// The property and its calendar as problems name them: `X-ALTBDAY;CALSCALE=chinese`.
        var property: String
        var kind: EventKind
        /// The value as written (trimmed).
        var text: String
        /// What ``ParsedContact/invalidDates`` keeps when it cannot be read: `chinese:0078-13`.
        var kept: String
        var value: CalendarDateValue
    }
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
        nickname = nil
        deathDate = nil
        excludedInCard = false
        categories.removeAll(keepingCapacity: true)
        isGroup = false
        members.removeAll(keepingCapacity: true)
        birthdays.removeAll(keepingCapacity: true)
        anniversaries.removeAll(keepingCapacity: true)
        labelledDates.removeAll(keepingCapacity: true)
        androidDates.removeAll(keepingCapacity: true)
        labels.removeAll(keepingCapacity: true)
        calendarDates.removeAll(keepingCapacity: true)
        contactCandidates.removeAll(keepingCapacity: true)
        zoneCandidates.removeAll(keepingCapacity: true)
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
            writtenByKhard = Self.mentionsKhard(value)
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
            contactCandidate(.email, "EMAIL", value, params: params, line: line)
        case .tel:
            contactCandidate(.phone, "TEL", value, params: params, line: line)
        case .impp:
            contactCandidate(.impp, "IMPP", value, params: params, line: line)
        case .timeZone:
            // A URI points at a zone rather than naming it: nothing to read, nothing to report.
            guard !params.valueIsURI, zoneCandidates.count < 4 else { return }
            let text = VCardText.unescaped(value, 0, count).trimmingWhitespace()
            if !text.isEmpty { zoneCandidates.append((line, text)) }
        case .uid:
            if uid == nil, let (a, b) = Self.trimmed(value, 0, count) {
                uid = String(decoding: UnsafeBufferPointer(rebasing: value[a..<b]), as: UTF8.self)
            }
        case .androidUID:
            if androidUID == nil, let (a, b) = Self.trimmed(value, 0, count) {
                androidUID = String(decoding: UnsafeBufferPointer(rebasing: value[a..<b]), as: UTF8.self)
            }
        case .birthday where params.isNonGregorian:
            calendarDates.append(Self.calendarCandidate(value, params: params, line: line, property: "BDAY", kind: .birthday))
        case .nickname:
            guard nickname == nil else { return }
            let first = VCardText.components(value, 0, count, separator: UInt8(ascii: ","), limit: 2)[0]
            let text = VCardText.unescaped(value, first.lowerBound, first.upperBound).trimmingWhitespace()
            if !text.isEmpty { nickname = Self.quoted(text) }
        case .deathDate:
            guard deathDate == nil else { return }
            let text = VCardText.unescaped(value, 0, count).trimmingWhitespace()
            guard !text.isEmpty else { return }
            if !params.valueIsText, case .date(let date) = DateValue.vCard(text, omitYear: params.omitYear) {
                deathDate = date.description
            } else {
                deathDate = Self.quoted(text)
            }
        case .excludeFromBirthdays:
            excludedInCard =
                !(VCardText.trimmedEquals(value, 0, count, "FALSE") || VCardText.trimmedEquals(value, 0, count, "0")
                || VCardText.trimmedEquals(value, 0, count, "NO"))
        case .categories:
            for part in VCardText.components(value, 0, count, separator: UInt8(ascii: ",")) where categories.count < ContactGroups.maxCount {
                categories.append(VCardText.unescaped(value, part.lowerBound, part.upperBound))
            }
        case .kind:
            isGroup = isGroup || VCardText.trimmedEquals(value, 0, count, "GROUP")
        case .member:
            if members.count < 100_000, let (a, b) = Self.trimmed(value, 0, count),
                let id = PersonID.fromUID(String(decoding: UnsafeBufferPointer(rebasing: value[a..<b]), as: UTF8.self))
            {
                members.append(id)
            }
        case .birthday:
            birthdays.append(Self.candidate(value, 0..<count, params: params, line: line, property: "BDAY"))
        case .anniversary(let property) where params.isNonGregorian:
            calendarDates.append(Self.calendarCandidate(value, params: params, line: line, property: property.rawValue, kind: .anniversary))
        case .anniversary(let property):
            anniversaries.append(Self.candidate(value, 0..<count, params: params, line: line, property: property.rawValue))
        case .alternateBirthday:
            calendarDates.append(Self.calendarCandidate(value, params: params, line: line, property: "X-ALTBDAY", kind: .birthday))
        case .labelledDate:
            guard labelledDates.count < Self.labelledLimit else { return }
            labelledDates.append((Self.groupName(group), Self.candidate(value, 0..<count, params: params, line: line, property: "X-ABDATE")))
        case .label:
            guard !group.isEmpty else { return }
            let name = Self.groupName(group)
            if labels[name] == nil, labels.count < Self.labelledLimit { labels[name] = Self.quoted(VCardText.unescaped(value, 0, count)) }
            guard VCardText.trimmedEquals(value, 0, count, "_$!<ANNIVERSARY>!$_") || VCardText.trimmedEquals(value, 0, count, "ANNIVERSARY")
            else { return }
            anniversaryGroups.append(name)
        case .androidCustom:
            // vnd.android.cursor.item/contact_event;DATE;TYPE;LABEL;… where TYPE 1 is an anniversary,
            // 0 a date with the custom LABEL, 2 "other" (3, the birthday, Android also writes as BDAY).
            let parts = VCardText.components(value, 0, count, separator: UInt8(ascii: ";"), limit: 5)
            guard parts.count >= 3, VCardText.trimmedEquals(value, parts[0].lowerBound, parts[0].upperBound, "VND.ANDROID.CURSOR.ITEM/CONTACT_EVENT")
            else { return }
            let type = parts[2]
            if VCardText.trimmedEquals(value, type.lowerBound, type.upperBound, "1") {
                anniversaries.append(Self.candidate(value, parts[1], params: params, line: line, property: "X-ANDROID-CUSTOM"))
            } else if VCardText.trimmedEquals(value, type.lowerBound, type.upperBound, "3") {
                return
            } else if androidDates.count < Self.labelledLimit {
                let custom = VCardText.trimmedEquals(value, type.lowerBound, type.upperBound, "0") && parts.count >= 4
                let label = custom ? VCardText.unescaped(value, parts[3].lowerBound, parts[3].upperBound).trimmingWhitespace() : ""
                androidDates.append(
                    (
                        Self.quoted(label.isEmpty ? LabelledDate.otherLabel : label),
                        Self.candidate(value, parts[1], params: params, line: line, property: "X-ANDROID-CUSTOM")
                    )
                )
            }
        }
    }

    private mutating func contactCandidate(
        _ kind: ContactPoint.Kind,
        _ property: String,
        _ value: UnsafeBufferPointer<UInt8>,
        params: VCardParams,
        line: Int
    ) {
        guard contactCandidates.count < 4 * ContactPoints.limit else { return }
        let text = VCardText.unescaped(value, 0, value.count)
        contactCandidates.append(ContactPoints.Candidate(kind: kind, raw: text, preference: params.preference, line: line, property: property))
    }

    /// Whether the `PRODID` value says `khard` in any case. Every card of
    /// most exports has a `PRODID`, so ASCII values are searched as bytes;
    /// others as lowercased text (the Kelvin sign lowercases to `k`).
    static func mentionsKhard(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard value.allSatisfy({ $0 < 0x80 }) else { return String(decoding: value, as: UTF8.self).lowercased().contains("khard") }
        let word: [UInt8] = Array("khard".utf8)
        guard value.count >= word.count else { return false }
        for start in 0...(value.count - word.count) {
            var k = 0
            while k < word.count && value[start + k] | 0x20 == word[k] { k += 1 }
            if k == word.count { return true }
        }
        return false
    }

    /// The range without surrounding spaces and tabs; `nil` when nothing is left.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int)? {
        guard let base = bytes.baseAddress else { return nil }
        let (a, b) = ASCII.trimmed(base, start, end)
        return a < b ? (a, b) : nil
    }

    /// The most labelled dates (and labels) read from one card: a corrupt card cannot flood the store.
    static let labelledLimit = 64

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

    private static func calendarCandidate(
        _ value: UnsafeBufferPointer<UInt8>,
        params: VCardParams,
        line: Int,
        property: String,
        kind: EventKind
    ) -> CalendarCandidate {
        let text = VCardText.unescaped(value, 0, value.count).trimmingWhitespace()
        let calscale = params.calscale.map { quoted($0.trimmingWhitespace()) }
        return CalendarCandidate(
            line: line,
            property: property + (calscale.map { ";CALSCALE=" + $0 } ?? ""),
            kind: kind,
            text: text,
            kept: (calscale.map { $0.lowercased() } ?? property) + ":" + text,
            value: CalendarDateValue.read(text, calscale: params.calscale)
        )
    }

    /// The first valid date per kind and calendar, in line order; later
    /// different ones and every unreadable one are reported.
    private static func resolve(
        _ candidates: [CalendarCandidate],
        file: String,
        problems: inout [ImportProblem],
        invalid: inout [String]
    ) -> [AlternateDate] {
        var chosen: [(date: AlternateDate, line: Int)] = []
        for candidate in candidates {
            switch candidate.value {
            case .none:
                continue
            case .unreadable(let reason):
                let kept = quoted(candidate.kept)
                if !invalid.contains(kept) { invalid.append(kept) }
                problems.append(
                    ImportProblem(file: file, line: candidate.line, message: "\(candidate.property) '\(quoted(candidate.text))' \(reason)")
                )
            case .date(let date):
                let read = AlternateDate(kind: candidate.kind, date: date)
                guard let first = chosen.first(where: { $0.date.kind == read.kind && $0.date.date.calendar == date.calendar }) else {
                    chosen.append((read, candidate.line))
                    continue
                }
                if first.date != read {
                    problems.append(
                        ImportProblem(
                            file: file,
                            line: candidate.line,
                            message:
                                "several \(candidate.kind.rawValue) values in the \(date.calendar.rawValue) calendar; using the first (line \(first.line))"
                        )
                    )
                }
            }
        }
        return chosen.map(\.date).sorted()
    }

    /// The finished contact, and the card's problems in line order.
    func build(file: String) -> (ParsedContact, [ImportProblem]) {
        var problems: [ImportProblem] = []
        var invalid: [String] = []
        var birthday = Self.resolve(birthdays, noun: "BDAY", file: file, problems: &problems, invalid: &invalid)
        var allAnniversaries = anniversaries
        if !anniversaryGroups.isEmpty {
            for (group, date) in labelledDates where !group.isEmpty && anniversaryGroups.contains(group) {
                allAnniversaries.append(date)
            }
            allAnniversaries.sort { $0.line < $1.line }
        }
        let labelled = labelledDates.isEmpty && androidDates.isEmpty ? [] : resolveLabelled(file: file, problems: &problems, invalid: &invalid)
        var anniversary = Self.resolve(allAnniversaries, noun: "anniversary", file: file, problems: &problems, invalid: &invalid)
        let alternateDates = calendarDates.isEmpty ? [] : Self.resolve(calendarDates, file: file, problems: &problems, invalid: &invalid)
        if writtenByKhard {
            // khard asks for 1900 when the year is unknown and shows such dates without one.
            birthday = birthday.map(Self.khardPlaceholderRemoved)
            anniversary = anniversary.map(Self.khardPlaceholderRemoved)
        }
        var contactPoints: [ContactPoint] = []
        if !contactCandidates.isEmpty {
            // Only a card that becomes a person has its values checked: a card without dates is not kept.
            var pointProblems: [ImportProblem] = []
            contactPoints = ContactPoints.resolve(contactCandidates, file: file, problems: &pointProblems)
            if birthday != nil || anniversary != nil || !alternateDates.isEmpty || !labelled.isEmpty || !invalid.isEmpty { problems += pointProblems }
        }
        var zone: PersonZone?
        if !zoneCandidates.isEmpty {
            zone = zoneCandidates.lazy.compactMap { Self.zone($0.text) }.first
            // Like a contact point: only a card that becomes a person has its zone checked.
            if zone == nil, birthday != nil || anniversary != nil || !alternateDates.isEmpty || !labelled.isEmpty || !invalid.isEmpty {
                let first = zoneCandidates[0]
                problems.append(
                    ImportProblem(
                        file: file,
                        line: first.line,
                        message:
                            "TZ '\(Self.quoted(first.text))' is not a time zone (an IANA name such as Asia/Tokyo or an offset such as +09:00); the person is kept without one"
                    )
                )
            }
        }
        if problems.count > 1 { problems.sort { $0.line < $1.line } }
        var contact = ParsedContact(
            source: ContactSource(file: file, index: index, line: line),
            uid: uid.flatMap { $0.isEmpty ? nil : $0 } ?? androidUID.flatMap { $0.isEmpty ? nil : $0 },
            formattedName: formattedName,
            nameParts: nameParts ?? NameParts(),
            organization: organization,
            email: email.flatMap { $0.isEmpty ? nil : $0 },
            birthday: birthday,
            anniversary: anniversary,
            alternateDates: alternateDates,
            invalidDates: invalid,
            nickname: nickname,
            deathDate: deathDate,
            excludedInCard: excludedInCard
        )
        contact.contactPoints = contactPoints
        contact.labelledDates = labelled
        contact.zone = zone
        contact.groups = categories.isEmpty ? [] : ContactGroups.normalized(categories)
        if isGroup {
            let name = contact.formattedName?.trimmingWhitespace() ?? ""
            contact.groupCard = GroupCard(
                name: ContactGroups.normalized([name.isEmpty ? contact.nameParts.composed : name]).first ?? "",
                members: members
            )
        }
        return (contact, problems)
    }

    /// The labelled dates (``LabelledDate``) of the card: each `X-ABDATE`
    /// whose group's `X-ABLabel` is not an anniversary, under that label
    /// (unwrapped: `_$!<Other>!$_` is "Other"), and Android's dated events.
    /// An `X-ABDATE` without a label is kept as "Other" and said so; an
    /// unreadable value is reported with its property and label and kept as
    /// an invalid date. A written year of khard's placeholder 1900 is no year.
    private func resolveLabelled(file: String, problems: inout [ImportProblem], invalid: inout [String]) -> [LabelledDate] {
        var found: [LabelledDate] = []
        var candidates: [(label: String, date: DateCandidate)] = androidDates
        for (group, date) in labelledDates where group.isEmpty || !anniversaryGroups.contains(group) {
            if let label = group.isEmpty ? nil : labels[group] {
                let unwrapped = LabelledDate.label(fromCard: label)
                candidates.append((unwrapped.isEmpty ? LabelledDate.otherLabel : unwrapped, date))
            } else if case .date = date.value {
                problems.append(
                    ImportProblem(
                        file: file,
                        line: date.line,
                        message: "X-ABDATE has no X-ABLabel\(group.isEmpty ? "" : " (group \(group))"); kept as a date labelled 'Other'"
                    )
                )
                candidates.append((LabelledDate.otherLabel, date))
            } else {
                candidates.append((LabelledDate.otherLabel, date))
            }
        }
        candidates.sort { $0.date.line < $1.date.line }
        for (label, candidate) in candidates {
            switch candidate.value {
            case .none:
                continue
            case .date(var date):
                if let note = candidate.note { problems.append(ImportProblem(file: file, line: candidate.line, message: note)) }
                if writtenByKhard { date = Self.khardPlaceholderRemoved(date) }
                found.append(LabelledDate(label: label, date: date))
            case .invalid(let text):
                let shown = Self.quoted(text)
                if !invalid.contains(shown) { invalid.append(shown) }
                problems.append(
                    ImportProblem(
                        file: file,
                        line: candidate.line,
                        message: DateValue.problem(property: "\(candidate.property) labelled '\(label)'", shown: shown, raw: text)
                    )
                )
            }
        }
        return LabelledDate.normalized(found)
    }

    /// The zone a `TZ` value names: the whole value, else its first `;`-part
    /// (RFC 2426's `-05:00; EST; Raleigh/North America`).
    static func zone(_ text: String) -> PersonZone? {
        if let zone = PersonZone(cardValue: text) { return zone }
        guard let semicolon = text.firstIndex(of: ";") else { return nil }
        return PersonZone(cardValue: String(text[..<semicolon]))
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
