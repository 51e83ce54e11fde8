import Foundation

/// A fresh directory under the system temp dir, removed by `cleanup()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("birthdays-tests-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    /// An existing directory, not removed by anyone but its owner.
    public init(path: String) {
        self.path = path
    }

    public func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, bytes: Array(text.utf8))
    }

    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) throws -> String {
        let target = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Writes `text` as the program `name` (mode 0700) and returns its path.
    ///
    /// Another process (`install`) writes it, never this one: a file this
    /// process holds open for writing can be inherited by a child that
    /// another test starts at that moment, and running the program then
    /// fails with ETXTBSY ("Text file busy").
    public func writeProgram(_ name: String, _ text: String) async throws -> String {
        let source = try write("." + name + ".text", text)
        let result = try await TestProcess.run(["/usr/bin/install", "-m", "700", source, file(name)], environment: ["PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw TestSupportError("install \(name): \(result.stderr)") }
        return file(name)
    }

    public var url: URL { URL(fileURLWithPath: path) }

    public func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// Where the repository is, and the `shared/` folder beside it (the public
/// corpus and the contact generator), which a fresh clone does not have.
public enum Repository {
    /// The package root, from this file's path (Tests/TestSupport/TemporaryDirectory.swift).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared`, when it holds the corpus; `nil` on a fresh clone.
    public static var shared: URL? {
        let shared = root.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: shared.appendingPathComponent("corpus/public/expected.tsv").path) ? shared : nil
    }

    /// `../shared/corpus/public`, or `nil`.
    public static var corpus: URL? { shared?.appendingPathComponent("corpus/public") }

    /// `../shared/tools/gen-contacts.py`, or `nil`.
    public static var generator: URL? {
        guard let tool = shared?.appendingPathComponent("tools/gen-contacts.py"), FileManager.default.fileExists(atPath: tool.path) else {
            return nil
        }
        return tool
    }

    /// Why a test that needs `../shared` skipped itself.
    public static let sharedMissing =
        "../shared (the public corpus and gen-contacts.py) is not beside the repository, as on a fresh clone; CI always has it"

    /// `samples/` of the repository.
    public static var samples: URL { root.appendingPathComponent("samples") }
}

/// A failure of the test support itself (a tool that did not start, a wait that timed out).
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` every 20 ms until it holds; throws after `seconds`,
/// with `what` in the message. For state another process or task reaches
/// on its own time; never a fixed sleep.
public func eventually(_ what: String, seconds: Int = 120, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestSupportError("timed out after \(seconds) s waiting for \(what)")
}
