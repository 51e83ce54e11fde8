import BirthdayCore
import GRDB

extension PersonRecord {
    /// Calls `body` with the name day of everyone not excluded whose first
    /// name or nickname the `lists` give one day (``NameDays/events(of:in:label:)``),
    /// with what the treatment rules need of the person (as
    /// ``LabelledDateRecord/forEachDatedEvent(_:_:)``). People with or without
    /// other dates alike; nothing is read when `lists` is empty.
    static func forEachNameDay(
        _ db: Database,
        lists: [NameDayList],
        label: String,
        choices: [String: NameDayChoice] = [:],
        _ body: (_ date: LabelledDate, _ traits: PersonTraits, _ identity: () -> (id: String, name: String, nickname: String)) -> Void
    ) throws {
        guard !lists.isEmpty else { return }
        let rules = try SharedRuleRecord.rulesByPerson(db)
        let noSource = ContactSource(file: "", index: 0, line: 0)
        var memo: [String: [LabelledDate]] = [:]
        let statement = try db.makeStatement(
            sql: "SELECT id, name, givenName, nickname, \(TraitColumns.selection) FROM person WHERE excluded = 0"
        )
        var traitColumns = try TraitColumns(statement)
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            let id: String = row[0]
            let person = Person(id: id, name: row[1], nameParts: NameParts(given: row[2]), nickname: row[3], source: noSource)
            let events: [LabelledDate]
            if let choice = choices[id] {
                events = NameDays.events(of: person, in: lists, label: label, choice: choice)
            } else {
                // People who share a first name share its matching (folding names costs more than reading the row).
                let key =
                    person.nameParts.given + "\u{1F}" + (person.name.split(separator: " ").first.map(String.init) ?? "") + "\u{1F}" + person.nickname
                if let known = memo[key] {
                    events = known
                } else {
                    events = NameDays.events(of: person, in: lists, label: label)
                    memo[key] = events
                }
            }
            guard !events.isEmpty else { continue }
            let traits = traitColumns.traits(row, shared: rules[id] ?? [])
            for event in events { body(event, traits) { (id: id, name: person.name, nickname: person.nickname) } }
        }
    }
}
