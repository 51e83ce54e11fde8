import Foundation
import SwiftCSV

/// Reads birthdays and anniversaries from contacts CSV exports: Google
/// Contacts (current and legacy layouts), Outlook (English and German),
/// Thunderbird, and any file whose header has a recognisable name and date
/// column (``CSVHeaderMap``).
///
/// ## Text
/// The bytes are decoded as UTF-8 (with or without a byte order mark),
/// UTF-16 (with a mark, or recognised by its NUL bytes), or Windows-1252 when they are not valid UTF-8
/// (``CSVText/decode(_:)``). The delimiter (comma, semicolon or tab) is the
/// most frequent one in the header line outside quotes. SwiftCSV tokenizes:
/// quoted fields may hold the delimiter, doubled quotes and line breaks.
///
/// ## Records
/// The first non-blank record is the header. Every later non-blank record is a
/// data record: ``ContactSource/index`` counts them from 0 and
/// ``ContactSource/line`` is the physical line where the record starts, counting
/// the line breaks inside quoted fields of earlier records. Blank lines are not
/// records. Short rows read missing fields as empty; extra fields are ignored.
/// A record with neither a name (display name, name parts, organization or
/// e-mail) nor a date is skipped silently (it keeps its index). A record SwiftCSV cannot read (a stray quote) is reported and
/// skipped; reading resumes on the next physical line. A quote that is never
/// closed is reported on the record that swallowed the rest of the file.
///
/// ## Dates
/// See ``CSVDate/read(_:referenceYear:)``. Slash dates are read in one order for
/// the whole file: the order the user gives (`--date-order`), else the one the
/// file shows (``SlashDecision/decide(for:outlook:given:)``). Without a given
/// order, a date that is ambiguous or contradicts the file is reported (the
/// message names `--date-order`) and kept in ``ParsedContact/invalidDates``,
/// never guessed. Problem messages quote the
/// unreadable date (its first line, at most 40 characters) and never a person's name.
enum CSVContactParser {
    /// Parses a contacts CSV export (a whole file's bytes).
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the path as given, for ``ContactSource`` and ``ImportProblem``.
    ///   - referenceYear: the current year, for two-digit years ("01.01.99" → 1999; a
    ///     two-digit year is 20YY when that is not after `referenceYear`, else 19YY).
    ///   - dateOrder: how to read every slash date, when the user says so; `nil` lets the file decide.
    /// - Returns: the contacts, and problems as `file:line: message`. A file without any
    ///   birthday or anniversary column gives no contacts and one problem on the header's
    ///   line (line 1 unless blank lines precede it).
    static func parse(_ data: Data, file: String, referenceYear: Int, dateOrder: DateOrder? = nil) -> ParseResult {
        let text = CSVText.decode(data)
        // Pass 1: keep what each record needs (its name fields and date cells), so the
        // slash order can be decided for the whole file before any date is resolved.
        var header: CSVHeaderMap?
        var headerLine = 1
        var rows: [Row] = []
        let readerProblems = CSVRecordReader.read(text, delimiter: CSVText.delimiter(of: text)) { record in
            guard !record.isBlank else { return }
            guard let header else {
                header = CSVHeaderMap(header: record.fields)
                headerLine = record.line
                return
            }
            if header.hasDateColumns {
                rows.append(Row(record: record, index: rows.count, file: file, header: header, referenceYear: referenceYear))
            }
        }
        var problems = readerProblems.map { ImportProblem(file: file, line: $0.line, message: $0.message) }
        guard let header else {
            if problems.isEmpty { problems.append(ImportProblem(file: file, line: 1, message: "the file is empty (no header line)")) }
            return ParseResult(problems: problems)
        }
        guard header.hasDateColumns else {
            // Without one known column name the first line is probably a contact
            // (a file without a header row): its cells are never quoted.
            let message =
                header.namesKnownColumn
                ? "no birthday or anniversary column in the header (found: \(header.summary))"
                : "the first line names no known column (\(header.names.count) column\(header.names.count == 1 ? "" : "s")); "
                    + "a contacts CSV needs a header row such as Name,Birthday"
            return ParseResult(problems: [ImportProblem(file: file, line: headerLine, message: message)])
        }
        let slashDates = rows.flatMap { row in row.dates.compactMap { if case .slash(let date) = $0.value { date } else { nil } } }
        let decision = SlashDecision.decide(for: slashDates, outlook: header.isMonthFirst, given: dateOrder)

        // Pass 2: resolve the dates.
        var contacts: [ParsedContact] = []
        for row in rows {
            var contact = row.contact
            for cell in row.dates {
                switch resolve(cell, decision: decision) {
                case .date(let date) where cell.label != nil:
                    contact.labelledDates.append(LabelledDate(label: cell.label ?? "", date: date))
                case .date(let date):
                    if cell.kind == .birthday, contact.birthday == nil { contact.birthday = date }
                    if cell.kind == .anniversary, contact.anniversary == nil { contact.anniversary = date }
                case .problem(let message):
                    contact.invalidDates.append(cell.raw)
                    problems.append(ImportProblem(file: file, line: contact.source.line, message: message))
                case nil:
                    break
                }
            }
            if !contact.labelledDates.isEmpty { contact.labelledDates = LabelledDate.normalized(contact.labelledDates) }
            if contact.displayName.isEmpty && !contact.hasDates { continue }
            if !row.contactCandidates.isEmpty {
                // Only a contact that becomes a person has its values checked.
                var pointProblems: [ImportProblem] = []
                contact.contactPoints = ContactPoints.resolve(row.contactCandidates, file: file, problems: &pointProblems)
                if contact.hasDates { problems += pointProblems }
            }
            contacts.append(contact)
        }
        problems.sort { $0.line < $1.line }  // stable: same-line problems keep their order
        return ParseResult(contacts: contacts, problems: problems)
    }

    /// A date's text as kept and quoted: its first line, at most 40 characters. A cell
    /// that swallowed other records (an unclosed quote) must not leak their names.
    static func excerpt(_ raw: String) -> String {
        let firstLine = raw.prefix { !$0.isNewline }
        if firstLine.count == raw.count && raw.count <= 40 { return raw }
        return firstLine.prefix(40).trimmingWhitespace() + "…"
    }

    private enum Outcome {
        case date(EventDate)
        case problem(String)
    }

    private static func resolve(_ cell: DateCell, decision: SlashDecision) -> Outcome? {
        let what = cell.what ?? (cell.kind == .birthday ? "Birthday" : "Anniversary")
        switch cell.value {
        case .none: return nil
        case .date(let date): return .date(date)
        case .invalid: return .problem("\(what) '\(cell.raw)' is not a date")
        case .slash(let slash):
            switch decision.resolve(slash) {
            case .date(let date): return .date(date)
            case .notADate: return .problem("\(what) '\(cell.raw)' is not a date")
            case .notInOrder(let order):
                return .problem("\(what) '\(cell.raw)' is not a date when read \(order.spelled) (--date-order \(order.rawValue))")
            case .ambiguous: return .problem("\(what) '\(cell.raw)' is ambiguous (day/month or month/day); pass --date-order mdy or dmy")
            case .conflicting:
                return .problem(
                    "\(what) '\(cell.raw)' contradicts other dates in this file (both day/month and month/day appear); pass --date-order mdy or dmy"
                )
            }
        }
    }

    /// One date cell of a record.
    private struct DateCell {
        var kind: EventKind
        /// The text as written (trimmed), for messages and ``ParsedContact/invalidDates``.
        var raw: String
        var value: CSVDate
        /// The label of a labelled date (``LabelledDate``); `nil` for a birthday or an anniversary.
        var label: String? = nil
        /// How problems name the cell when it is not "Birthday" or "Anniversary": `Event 2 - Value labelled 'Started work'`.
        var what: String? = nil
    }

    /// The first of the nicknames in a cell (Google separates several with
    /// ` ::: `), at most 100 characters; `nil` when the cell is empty.
    static func firstNickname(_ cell: String) -> String? {
        let first = cell.components(separatedBy: " ::: ")[0].trimmingWhitespace()
        guard !first.isEmpty else { return nil }
        return first.count > 100 ? String(first.prefix(100)) + "…" : first
    }

    /// A data record: the contact without its dates, and its date cells.
    private struct Row {
        var contact: ParsedContact
        var dates: [DateCell]
        /// The e-mail and phone cells, one per value (Google joins several with ` ::: `).
        var contactCandidates: [ContactPoints.Candidate] = []

        init(record: CSVRecord, index: Int, file: String, header: CSVHeaderMap, referenceYear: Int) {
            func optional(_ column: Int?) -> String? {
                let value = record.value(column)
                return value.isEmpty ? nil : value
            }
            let parts = NameParts(
                prefix: record.value(header.prefix),
                given: record.value(header.given),
                additional: record.value(header.additional),
                family: record.value(header.family),
                suffix: record.value(header.suffix)
            )
            contact = ParsedContact(
                source: ContactSource(file: file, index: index, line: record.line),
                formattedName: optional(header.displayName),
                nameParts: parts,
                organization: optional(header.organization),
                email: optional(header.email),
                nickname: CSVContactParser.firstNickname(record.value(header.nickname))
            )
            contact.groups = ContactGroups.csv(record.value(header.groups), google: header.googleGroups)

            var dates: [DateCell] = []
            func cell(_ kind: EventKind, _ raw: String) -> DateCell {
                DateCell(kind: kind, raw: CSVContactParser.excerpt(raw), value: CSVDate.read(raw, referenceYear: referenceYear))
            }
            let birthday = record.value(header.birthday)
            if !birthday.isEmpty {
                dates.append(cell(.birthday, birthday))
            } else if header.birthMonth != nil || header.birthDay != nil {
                let year = record.value(header.birthYear)
                let month = record.value(header.birthMonth)
                let day = record.value(header.birthDay)
                let value = CSVDate.parts(year: year, month: month, day: day, referenceYear: referenceYear)
                let raw = CSVContactParser.excerpt((year.isEmpty ? "-" : year) + "-" + month + "-" + day)
                dates.append(DateCell(kind: .birthday, raw: raw, value: value))
            }
            let anniversary = record.value(header.anniversary)
            if !anniversary.isEmpty { dates.append(cell(.anniversary, anniversary)) }
            // As many as a vCard keeps: a corrupt header cannot flood the store.
            for event in header.events.prefix(VCardCardBuilder.labelledLimit) {
                let value = record.value(event.value)
                guard !value.isEmpty else { continue }
                let written = record.value(event.label)
                if CSVHeaderMap.isAnniversaryLabel(written) {
                    dates.append(cell(.anniversary, value))
                    continue
                }
                // Google marks the preferred value with "* "; a date without a label is "Other".
                var label = written.hasPrefix("*") ? String(written.dropFirst()).trimmingWhitespace() : written
                label = VCardCardBuilder.quoted(label.isEmpty ? LabelledDate.otherLabel : label)
                var labelled = cell(.anniversary, value)
                labelled.label = label
                labelled.what = "\(header.names[event.value]) labelled '\(label)'"
                dates.append(labelled)
            }
            self.dates = dates
            for column in header.contactColumns {
                let cell = record.value(column.value)
                guard !cell.isEmpty else { continue }
                let label = record.value(column.label)
                let preferred = column.preferred || label.hasPrefix("*")
                let name = header.names[column.value]
                let values = cell.utf8.contains(UInt8(ascii: ":")) ? cell.components(separatedBy: " ::: ") : [cell]
                for value in values where !value.trimmingWhitespace().isEmpty {
                    guard contactCandidates.count < 4 * ContactPoints.limit else { break }
                    contactCandidates.append(
                        ContactPoints.Candidate(kind: column.kind, raw: value, preference: preferred ? 1 : nil, line: record.line, property: name)
                    )
                }
            }
        }
    }
}

/// One CSV record as SwiftCSV split it, and where it starts.
struct CSVRecord: Hashable, Sendable {
    var fields: [String]
    /// 1-based physical line of the record's first character.
    var line: Int

    /// A blank line (SwiftCSV reads it as one empty field).
    var isBlank: Bool { fields.allSatisfy { $0.trimmingWhitespace().isEmpty } && fields.count <= 1 }

    /// The trimmed field at `column`, or "" when the column is absent or the row is short.
    func value(_ column: Int?) -> String {
        guard let column, column < fields.count else { return "" }
        return fields[column].trimmingWhitespace()
    }
}

/// Splits decoded text into records with SwiftCSV and numbers their lines.
enum CSVRecordReader {
    /// After this many unreadable records the rest of the file is not read.
    static let malformedLimit = 20

    /// Reads every record of `text`, handing each to `onRecord` in order, and
    /// returns what could not be read as `(line, message)`.
    ///
    /// SwiftCSV stops at the first record it cannot read (a quote inside an
    /// unquoted field, text after a closing quote). That record is reported
    /// and reading starts again on the physical line after the one it starts on.
    static func read(
        _ text: String,
        delimiter: Character,
        onRecord: @escaping (CSVRecord) -> Void
    ) -> [(line: Int, message: String)] {
        let csvDelimiter: CSVDelimiter =
            switch delimiter {
            case ";": .semicolon
            case "\t": .tab
            default: .comma
            }
        var problems: [(line: Int, message: String)] = []
        var lastRecordLine: Int?
        var sawContent = false
        var rest = Substring(text)
        var line = 1
        var malformed = 0
        while !rest.isEmpty {
            let chunkLine = line
            do {
                // rowLimit 0: the initializer reads only the first row; rows are enumerated below.
                let csv = try EnumeratedCSV(string: String(rest), delimiter: csvDelimiter, loadColumns: false, rowLimit: 0)
                try csv.enumerateAsArray(startAt: 0, rowLimit: nil) { fields in
                    let record = CSVRecord(fields: fields, line: line)
                    lastRecordLine = line
                    if !record.isBlank { sawContent = true }
                    onRecord(record)
                    line += 1 + fields.reduce(0) { $0 + CSVText.lineBreaks(in: $1) }
                }
                // Well-formed CSV has an even number of quotes; SwiftCSV reads an unclosed one to the end.
                if rest.utf8.count(where: { $0 == UInt8(ascii: "\"") }) % 2 == 1, let last = lastRecordLine {
                    problems.append((last, "a quote opened in this record is never closed; the rest of the file was read as part of it"))
                }
                break
            } catch {
                malformed += 1
                if !sawContent {
                    problems.append((line, "the header line is not valid CSV (a quote in the wrong place)"))
                    break
                }
                if malformed > malformedLimit {
                    problems.append((line, "too many records that are not valid CSV; the rest of the file was not read"))
                    break
                }
                problems.append((line, "record is not valid CSV (a quote in the wrong place); skipped to the next line"))
                rest = rest[CSVText.index(afterLineBreaks: line - chunkLine + 1, in: rest)...]
                line += 1
            }
        }
        return problems
    }
}
