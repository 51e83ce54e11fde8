/// The name days of everyone, one person after another, for one walk over
/// the people (``NameDays/events(of:in:label:choice:)``, the user's choice
/// winning): people who share a first name and a nickname share its
/// matching, worked out once per walk (folding a name costs more than
/// reading its row). The days carry no label (``PersonEvent/Date/nameDay(_:list:)``).
package struct NameDayMatcher {
    package let setup: NameDaySetup
    private var memo: [String: [PersonEvent.Date]] = [:]

    package init(_ setup: NameDaySetup) {
        self.setup = setup
    }

    /// Whether any list is on (without one nobody has a name day).
    package var isOn: Bool { !setup.lists.isEmpty }

    /// The name days of the person `id` with these names; none without lists.
    package mutating func days(id: String, name: String, given: String, nickname: String) -> [PersonEvent.Date] {
        guard isOn else { return [] }
        let person = Person(id: id, name: name, nameParts: NameParts(given: given), nickname: nickname, source: Self.noSource)
        if let choice = setup.choices[id] { return Self.dates(NameDays.events(of: person, in: setup.lists, label: "", choice: choice)) }
        let key = given + "\u{1F}" + (name.split(separator: " ").first.map(String.init) ?? "") + "\u{1F}" + nickname
        if let known = memo[key] { return known }
        let days = Self.dates(NameDays.events(of: person, in: setup.lists, label: ""))
        memo[key] = days
        return days
    }

    private static let noSource = ContactSource(file: "", index: 0, line: 0)

    private static func dates(_ events: [LabelledDate]) -> [PersonEvent.Date] {
        events.map { .nameDay($0.date, list: $0.nameDayList ?? "") }
    }
}
