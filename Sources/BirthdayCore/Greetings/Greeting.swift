/// The owner's choice that a friend, or everyone of a group, gets a greeting
/// on their birthday (`birthdays greet add`): to whom, how, in which words
/// and language.
///
/// A greeting is opt-in, one choice at a time: nobody is greeted unless
/// named here, themselves or through a group. What a greeting never
/// carries, whoever it goes to: the owner's note, the person's other dates,
/// a link to the owner's page or feed.
public struct Greeting: Hashable, Sendable {
    /// Whom the choice greets.
    public enum Target: Hashable, Sendable {
        /// One person, by id.
        case person(String)
        /// Everyone in a group (``Person/groups``), each at their own birthday.
        case group(String)
    }

    /// How the greeting goes out.
    public enum Way: Hashable, Sendable {
        /// By e-mail through the owner's e-mail channel (its mail program and
        /// its `--from`), to `address` (`--to`), else to the first e-mail
        /// address of the friend's card.
        case email(address: String?)
        /// Through an Apprise URL (`--url`), kept in a 0600 secret file
        /// (`ChannelSecrets`), never in the database.
        case apprise
    }

    /// The stored row's id; `nil` before it is stored.
    public var id: Int64?
    public var target: Target
    public var way: Way
    /// The owner's words (`--message`); `nil` is the default text in ``language``.
    public var message: GreetingTemplate?
    /// The language of the default text (`--language`, a catalog language); `nil` is the owner's.
    public var language: String?

    public init(id: Int64? = nil, target: Target, way: Way = .email(address: nil), message: GreetingTemplate? = nil, language: String? = nil) {
        self.id = id
        self.target = target
        self.way = way
        self.message = message
        self.language = language
    }

    /// Every field as one text, each text with its length before it, so two
    /// greetings that differ never give the same (``GreetingPlan/Stamp``).
    var stampText: String {
        func text(_ value: String?) -> String { value.map { "\($0.utf8.count):\($0)" } ?? "-" }
        let target =
            switch self.target {
            case .person(let id): "p" + text(id)
            case .group(let name): "g" + text(name)
            }
        let way =
            switch self.way {
            case .email(let address): "e" + text(address)
            case .apprise: "a"
            }
        return [id.map { String($0) } ?? "-", target, way, text(message?.text), text(language)].joined(separator: "|")
    }
}

/// Who is greeted, and by which choice: the rule that every greeting
/// planned, listed or tested goes through.
///
/// The rules, in order:
/// 1. A person is opted in by a greeting of their own, else by one of a
///    group they are in (the first group by name); their own wins over a
///    group's (its address, its words). Nobody else is ever greeted.
/// 2. An excluded person is never greeted: excluded by the user
///    (`birthdays exclude`), their card, or a rule of their group or source
///    (``PersonTraits/excluded``), even in a greeted group, even with a
///    greeting of their own.
/// 3. A deceased person (``Person/isDeceased``) is never greeted, whatever
///    the `deceased` setting says about reminders.
/// 4. Someone without a birthday has nothing to be greeted on.
public struct GreetingRules: Hashable, Sendable {
    /// What the rules make of one person.
    public enum Decision: Hashable, Sendable {
        /// Greeted through this choice.
        case greeted(Greeting)
        /// Neither they nor a group of theirs is greeted.
        case notOptedIn
        /// Opted in, but left out (rule 2).
        case excluded
        /// Opted in, but deceased (rule 3).
        case deceased
        /// Opted in, but no birthday is known.
        case noBirthday

        /// The greeting when the person is greeted.
        public var greeting: Greeting? {
            if case .greeted(let greeting) = self { return greeting }
            return nil
        }
    }

    private let byPerson: [String: Greeting]
    private let byGroup: [String: Greeting]

    /// The rules of the stored greetings.
    public init(_ greetings: [Greeting]) {
        var byPerson: [String: Greeting] = [:]
        var byGroup: [String: Greeting] = [:]
        for greeting in greetings {
            switch greeting.target {
            case .person(let id): byPerson[id] = byPerson[id] ?? greeting
            case .group(let name): byGroup[name] = byGroup[name] ?? greeting
            }
        }
        self.byPerson = byPerson
        self.byGroup = byGroup
    }

    /// The choice that opts `person` in (rule 1), before rules 2 to 4.
    public func choice(for person: Person) -> Greeting? {
        if let own = byPerson[person.id] { return own }
        return person.groups.sorted().lazy.compactMap { byGroup[$0] }.first
    }

    /// What the rules make of `person` (their groups and their groups' and
    /// sources' rules read with them).
    public func decision(for person: Person) -> Decision {
        guard let greeting = choice(for: person) else { return .notOptedIn }
        if PersonTraits(person).excluded { return .excluded }
        if person.isDeceased { return .deceased }
        if person.birthday == nil { return .noBirthday }
        return .greeted(greeting)
    }

    /// The e-mail address a greeting by e-mail goes to: `--to`, else the
    /// first e-mail address of the card (``Person/contactPoints``, in the
    /// card's order of preference); `nil` when there is none.
    public static func emailAddress(of person: Person, way: Greeting.Way) -> String? {
        guard case .email(let given) = way else { return nil }
        return given ?? person.contactPoints.first { $0.kind == .email }?.value
    }
}
