import BirthdayCore
import BirthdayStore

extension Context {
    /// The one person `query` names (``AppDatabase/findPerson(_:)``: an id,
    /// a public id, a reminder's short id, a name or part of one), or a
    /// ``CLIError`` that says whom it could mean: each candidate's id with
    /// a date on a tie, the closest names on a miss. For every command that
    /// takes a PERSON: `show`, `people`, `exclude`, `include`, `remind`.
    func person(matching query: String) async throws -> Person {
        switch try await database.findPerson(query) {
        case .found(let person): return person
        case .ambiguous(let people): throw CLIError(PersonChoice.ambiguous(query, people))
        case .notFound(let suggestions): throw CLIError(PersonChoice.notFound(query, suggestions))
        }
    }
}

/// The sentences for a PERSON that names nobody or several people. They are
/// errors, so English, and they go to a terminal, never a log: names are allowed.
enum PersonChoice {
    /// At most this many candidates are listed on a tie.
    static let listed = 20

    /// "2 people match 'ada'; use an id:" and a line per person: id, name, a
    /// date; past ``listed`` of them, where to see them all.
    static func ambiguous(_ query: String, _ people: [Person]) -> String {
        let rows = people.prefix(listed).map { person in [person.id, display(person), date(person)] }
        let table = Table.render(Array(rows), shrinkable: [1], width: Table.fitWidth.map { $0 - 2 })
        let more = people.count > listed ? " (the first \(listed); 'birthdays people' with the same text lists them all)" : ""
        return "\(people.count) people match '\(SafeText.line(query))'; use an id\(more):\n"
            + table.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }

    /// "nobody is called 'Adda'; did you mean Ada Lovelace (ada)?", or a pointer to `birthdays people`.
    static func notFound(_ query: String, _ suggestions: [Person]) -> String {
        let head = "no person's id or name contains '\(SafeText.line(query))'"
        guard !suggestions.isEmpty else { return head + "; see: birthdays people" }
        return head + "; did you mean " + suggestions.map { "\(SafeText.line(display($0))) (\($0.id))" }.joined(separator: " or ") + "?"
    }

    /// The name, or "(no name)"; a table cell (``Table`` puts it on one line).
    static func display(_ person: Person) -> String {
        person.name.isEmpty ? "(no name)" : person.name
    }

    /// "birthday 1990-03-10", else "anniversary 2010-06-01", else "no date".
    static func date(_ person: Person) -> String {
        if let birthday = person.birthday { return "birthday " + Wording.date(birthday) }
        if let anniversary = person.anniversary { return "anniversary " + Wording.date(anniversary) }
        return person.invalidDates.isEmpty ? "no date" : "unreadable date"
    }
}
