import BirthdayCore
import Foundation

// Measures `PersonLinker.link(_:)`, which `duplicates` and every import
// will run, over many cards, in the configuration it is built with (run it
// with `swift run -c release link-bench`).
//
//   link-bench [--cards N] [--runs R] [--budget-ms MS]
//
// Generates N cards (deterministic: seeded) of people held by one to three
// sources (40% by more than one), with the variations of the corpus test
// (the name in other order, accents dropped, the year left out, addresses
// in other case, numbers in other formats, a card without them), runs R
// links and prints one JSON line. Exits 1 when the median exceeds the
// budget (default 1,000 ms: `duplicates` on 100,000 people answers in
// under a second).

var count = 100_000
var runs = 7
var budget = 1000.0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--cards": count = arguments.next().flatMap(Int.init) ?? count
    case "--runs": runs = max(1, arguments.next().flatMap(Int.init) ?? runs)
    case "--budget-ms": budget = arguments.next().flatMap(Double.init) ?? budget
    default:
        FileHandle.standardError.write(Data("usage: link-bench [--cards N] [--runs R] [--budget-ms MS]\n".utf8))
        exit(2)
    }
}

let given = [
    "Ada", "Grace", "Alan", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances", "Edsger", "Radia", "Tim", "Hedy", "Donald",
    "Katherine", "John", "José", "Zoë", "Renée", "Søren", "Łukasz", "Chloé", "François", "Mårten", "Ülkü", "Olga", "Dmitry", "Eleni",
    "Ahmad", "Priya", "Arjun", "Anne-Marie", "Jean-Luc", "Mary", "Peter", "Clara", "Otto", "Irene", "Hugo", "Nina", "Felix", "Vera",
]
let syllables = ["ber", "lo", "van", "mül", "kov", "ski", "son", "dri", "ga", "ran", "te", "ho", "per", "na", "lin", "dó", "quist", "ma"]

var random = SplitMix64(seed: 43)
var cards: [LinkCard] = []
cards.reserveCapacity(count + 2)
var people = 0
while cards.count < count {
    people += 1
    let first = given[random.below(given.count)]
    var family = ""
    for _ in 0..<(2 + random.below(2)) { family += syllables[random.below(syllables.count)] }
    family = family.prefix(1).uppercased() + family.dropFirst()
    let year: Int? = random.chance(0.12) ? nil : 1930 + random.below(90)
    let birthday = EventDate(year: year, month: 1 + random.below(12), day: 1 + random.below(28))
    let email = "\(first.lowercased()).\(people)@example.org"
    let phone = "+1 555 \(100 + random.below(900)) \(1000 + random.below(9000))"
    let sources = random.chance(0.6) ? 1 : (random.chance(0.7) ? 2 : 3)
    for source in 0..<sources {
        var name = random.chance(0.15) ? "\(family) \(first)" : "\(first) \(family)"
        if sources > 1 && random.chance(0.25) { name = name.folding(options: .diacriticInsensitive, locale: nil) }
        let date = source > 0 && random.chance(0.2) ? birthday.flatMap { EventDate(year: nil, month: $0.month, day: $0.day) } : birthday
        let emails = random.chance(0.15) ? [] : [random.chance(0.3) ? email.uppercased() : email]
        let phones = random.chance(0.15) ? [] : [random.chance(0.5) ? phone.replacingOccurrences(of: " ", with: "-") : phone]
        cards.append(
            LinkCard(
                key: LinkCard.Key(source: ["google", "icloud", "nextcloud"][source], id: "\(people)-\(source)"),
                uid: source == 0 ? nil : "uid-\(people)-\(source)",
                name: name,
                emails: emails,
                phones: phones,
                birthday: date
            )
        )
    }
}

let linker = PersonLinker()
var times: [Double] = []
var result = linker.link(cards)
for _ in 0..<runs {
    let start = ContinuousClock.now
    result = linker.link(cards)
    let elapsed = ContinuousClock.now - start
    times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
}
times.sort()
let median = times[times.count / 2]
print(
    "{\"cards\": \(cards.count), \"people\": \(people), \"groups\": \(result.groups.count), \"suggestions\": \(result.suggestions.count), "
        + "\"median_ms\": \(String(format: "%.1f", median)), \"min_ms\": \(String(format: "%.1f", times[0])), \"budget_ms\": \(budget)}"
)
exit(median > budget ? 1 : 0)
