import BirthdayCore
import Foundation

/// `birthdays import --json`.
struct ImportOutput: Encodable {
    struct Problem: Encodable {
        var file: String
        var line: Int
        var message: String
    }

    /// A file found in a folder and not read: `{"file": "contacts/notes.txt", "reason": "not a vCard or CSV file"}`.
    struct Skipped: Encodable {
        var file: String
        var reason: String
    }

    var added: Int
    var updated: Int
    var unchanged: Int
    var invalid: Int
    /// Contacts without any date, kept (also counted in added, updated or unchanged).
    var without_dates: Int
    /// Contacts with neither a name nor a date: not stored.
    var empty_skipped: Int
    var removed: Int
    var problems: [Problem]
    var skipped: [Skipped]
    /// Choices a card linked by this import had made differently from the person it joined.
    var conflicts: [ConflictOutput]

    init(_ report: ImportReport) {
        added = report.added
        updated = report.updated
        unchanged = report.unchanged
        invalid = report.invalid
        without_dates = report.withoutDates
        empty_skipped = report.emptySkipped
        removed = report.removed
        problems = report.problems.map { Problem(file: $0.file, line: $0.line, message: $0.message) }
        skipped = report.skipped.map { Skipped(file: $0.file, reason: $0.reason) }
        conflicts = report.conflicts.map(ConflictOutput.init)
    }

    /// What goes to standard error before the summary: one line per file
    /// skipped (`skipped contacts/notes.txt: not a vCard or CSV file`), then
    /// one per problem (`file:line: message`).
    static func messages(_ report: ImportReport) -> [String] {
        report.skipped.map(\.description) + report.problems.map(\.description)
    }

    /// One line of what happened, then one per choice a link made in conflict (``LinkWords/conflict(_:)``). Problems go to standard error, one per line, before it.
    static func summary(_ report: ImportReport, dryRun: Bool) -> String {
        let verb = dryRun ? "would import" : "imported"
        return "\(verb) \(Wording.count(report.files, "file")): \(report.added) added, \(report.updated) updated, "
            + "\(report.unchanged) unchanged, \(report.invalid) with invalid dates"
            + (report.removed > 0 ? ", \(report.removed) removed (their name and dates were deleted)" : "")
            + (report.withoutDates > 0 ? "; " + Wording.count(report.withoutDates, "contact", "contacts") + " without dates kept" : "")
            + (report.emptySkipped > 0 ? "; " + Wording.count(report.emptySkipped, "contact", "contacts") + " without a name or a date skipped" : "")
            + (report.skipped.isEmpty ? "" : "; " + Wording.count(report.skipped.count, "other file") + " skipped")
            + (report.problems.isEmpty ? "" : "; " + Wording.count(report.problems.count, "problem"))
            + report.conflicts.map { "\n" + LinkWords.conflict($0) }.joined()
    }
}

/// A choice a linked card had made differently from the person it joined
/// (`import --json`, `sources sync --json`): which, the person kept and the
/// card; the two values, but never a note's words.
struct ConflictOutput: Encodable {
    var choice: String
    var person: String
    var card: String
    var kept: String?
    var other: String?

    init(_ conflict: ChoiceConflict) {
        choice = conflict.choice.rawValue
        person = conflict.shownAs
        card = conflict.card
        kept = conflict.choice == .note ? nil : conflict.kept
        other = conflict.choice == .note ? nil : conflict.other
    }
}

/// Progress on standard error for long imports on a terminal.
enum ImportProgress {
    static let report: @Sendable (Int64, Int64) -> Void = { done, total in
        guard total > 8_000_000 else { return }
        let percent = total > 0 ? Int(done * 100 / total) : 100
        let megabytes = (total + 500_000) / 1_000_000
        var line = "\rreading \(megabytes) MB of contacts… \(percent)%"
        line.withUTF8 { _ = StandardOutput.write(UnsafeRawBufferPointer($0), to: 2) }
    }

    static func clear() {
        var clear = "\r\u{1B}[K"
        clear.withUTF8 { _ = StandardOutput.write(UnsafeRawBufferPointer($0), to: 2) }
    }
}
