import Foundation
@testable import BirthdayKit

/// A fresh directory under the system temp dir, removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-tests-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    @discardableResult
    func write(_ name: String, bytes: [UInt8]) throws -> String {
        let target = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    var url: URL { URL(fileURLWithPath: path) }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }

    func remove() { cleanup() }
}

/// The repository's sibling `shared/` folder (corpus, tools), or `nil` on a
/// fresh clone that does not have it.
enum SharedTestData {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var url: URL? {
        let shared = root.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: shared.appendingPathComponent("corpus/public/expected.tsv").path) ? shared : nil
    }

    static let missingReason = "../shared (corpus and gen-contacts.py) is not beside the repository; CI always has it"
}

func date(_ y: Int, _ m: Int, _ d: Int) -> LocalDate { LocalDate(year: y, month: m, day: d)! }
func event(_ y: Int?, _ m: Int, _ d: Int) -> EventDate { EventDate(year: y, month: m, day: d)! }
