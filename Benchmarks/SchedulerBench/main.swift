import BirthdayCore
import BirthdayStore
import Foundation
import Logging

// Measures `NotificationScheduler.reschedule()` over many people, reading
// them from a real SQLite file, in the configuration it is built with
// (run it with `swift run -c release scheduler-bench`).
//
//   scheduler-bench [--people N] [--runs R] [--database PATH] [--budget-ms MS]
//
// Generates N people (deterministic: seeded dates, 25% without a year,
// 1 in 100 on Feb 29, 20% with an anniversary) into PATH unless it already
// holds them (written as a vCard 4.0 file and imported with the real
// importer), authorizes notifications, runs R reschedules and prints one
// JSON line. Exits 1 when the median exceeds the budget (default 100 ms).

var people = 100_000
var runs = 7
var databasePath: String?
var budget = 100.0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--people": people = arguments.next().flatMap(Int.init) ?? people
    case "--runs": runs = max(1, arguments.next().flatMap(Int.init) ?? runs)
    case "--database": databasePath = arguments.next()
    case "--budget-ms": budget = arguments.next().flatMap(Double.init) ?? budget
    default:
        FileHandle.standardError.write(Data("usage: scheduler-bench [--people N] [--runs R] [--database PATH] [--budget-ms MS]\n".utf8))
        exit(2)
    }
}

func randomDate(_ generator: inout SplitMix64, yearless: Bool) -> EventDate? {
    let year: Int? = yearless ? nil : Int.random(in: 1930...2020, using: &generator)
    if Int.random(in: 0..<100, using: &generator) == 0 { return EventDate(year: year.map { $0 - $0 % 4 }, month: 2, day: 29) }
    let month = Int.random(in: 1...12, using: &generator)
    let day = Int.random(in: 1...28, using: &generator)
    return EventDate(year: year, month: month, day: day)
}

/// A date in vCard 4 form: `19900311`, or `--0311` without a year.
func vCardDate(_ date: EventDate) -> String {
    let md = (date.month < 10 ? "0" : "") + String(date.month) + (date.day < 10 ? "0" : "") + String(date.day)
    return date.year.map { String($0) + md } ?? "--" + md
}

let path = databasePath ?? FileManager.default.temporaryDirectory.appendingPathComponent("scheduler-bench-\(people).sqlite").path
do {
    let database = try AppDatabase.openFile(at: path)
    let importedAt = Date(timeIntervalSince1970: 1_790_000_000)
    if try await database.peopleCount() != people {
        let start = ContinuousClock.now
        var generator = SplitMix64(seed: 20_261_121)
        var cards = ""
        for i in 0..<people {
            let hex = String(UInt64(i) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
            let birthday = randomDate(&generator, yearless: Int.random(in: 0..<4, using: &generator) == 0)
            let anniversary = Int.random(in: 0..<5, using: &generator) == 0 ? randomDate(&generator, yearless: false) : nil
            cards += "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:c-" + String(repeating: "0", count: 16 - hex.count) + hex + "\r\nFN:Person \(i)\r\n"
            if let birthday { cards += "BDAY:" + vCardDate(birthday) + "\r\n" }
            if let anniversary { cards += "ANNIVERSARY:" + vCardDate(anniversary) + "\r\n" }
            cards += "END:VCARD\r\n"
        }
        let file = path + ".vcf"
        try Data(cards.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try await ContactImporter(database: database, now: importedAt, referenceYear: 2026).importPaths([file])
        FileHandle.standardError.write(Data("generated \(people) people into \(path) in \(start.duration(to: .now))\n".utf8))
    }
    try await database.setAuthorizationStatus(.authorized)
    let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21T14:13:20Z
    let zone = TimeZone(identifier: "Europe/Berlin") ?? TimeZone(secondsFromGMT: 3600) ?? .current
    let scheduler = NotificationScheduler(
        database: database,
        now: { now },
        systemTimeZone: { zone },
        logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    )
    var times: [Double] = []
    var scheduled = 0
    for _ in 0..<runs {
        let start = ContinuousClock.now
        scheduled = try await scheduler.reschedule().scheduled
        let elapsed = start.duration(to: .now)
        times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    let sorted = times.sorted()
    let median = sorted[sorted.count / 2]
    let format = { (value: Double) in String(format: "%.1f", value) }
    print(
        "{\"benchmark\":\"reschedule\",\"people\":\(people),\"scheduled\":\(scheduled),\"runs\":\(runs),"
            + "\"best_ms\":\(format(sorted[0])),\"median_ms\":\(format(median)),\"worst_ms\":\(format(sorted[sorted.count - 1])),\"budget_ms\":\(format(budget))}"
    )
    if median > budget { exit(1) }
} catch {
    FileHandle.standardError.write(Data("scheduler-bench: \(error)\n".utf8))
    exit(1)
}
