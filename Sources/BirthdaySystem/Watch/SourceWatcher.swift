import BirthdayCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reports, without polling, when a local source (a file or a vdir folder)
/// may have changed: inotify on the folders, on a thread of its own.
///
/// Rules:
/// - A **file** source is watched through its folder, since editors and
///   sync tools replace a file by writing a temporary one and renaming it
///   over: any event naming the file counts.
/// - A **vdir** is watched with its sub-folders (as they are at the start):
///   any event naming a `.vcf` or `.vcard` file counts, hidden files
///   (`.#…`, `.swp`) and temporary files without that extension do not.
///   vdirsyncer writes a temporary file and then renames it over the card
///   (an update) or links it under the card's name (a new card), so every
///   change ends with an event on the card's own name.
/// - A folder that goes away, and lost events (queue overflow), are
///   reported for every source they may concern.
///
/// A burst of events for one source is reported as it comes; the daemon
/// waits for the burst to settle before it syncs. Idle, the thread sleeps in
/// `poll` and wakes for nothing but these events.
package final class SourceWatcher: Sendable {
    /// A source to watch.
    package struct Target: Sendable, Hashable {
        package var sourceID: Int64
        package var kind: SourceKind
        /// The file (file source) or the folder (vdir).
        package var path: String

        package init(sourceID: Int64, kind: SourceKind, path: String) {
            self.sourceID = sourceID
            self.kind = kind
            self.path = path
        }
    }

    /// Source ids, each time something that may concern the source happened.
    package let changes: AsyncStream<Int64>
    /// Folders that could not be watched, with why (the sources still sync at the daemon's other wakes).
    package let failures: [(path: String, reason: String)]

    private let thread: InotifyThread

    /// Starts watching `targets` (CardDAV targets are ignored).
    ///
    /// - Throws: ``WakeError`` when inotify or the thread's eventfd cannot be created.
    package init(_ targets: [Target]) throws(WakeError) {
        let thread = try InotifyThread()
        var rules: [Int32: [Rule]] = [:]
        var failures: [(String, String)] = []
        func watch(_ directory: String, _ rule: Rule) {
            let wd = thread.watch(directory)
            if wd < 0 {
                failures.append((directory, String(cString: strerror(-wd))))
            } else {
                rules[wd, default: []].append(rule)
            }
        }
        for target in targets {
            switch target.kind {
            case .file:
                let url = URL(fileURLWithPath: target.path)
                watch(url.deletingLastPathComponent().path, Rule(sourceID: target.sourceID, fileName: url.lastPathComponent))
            case .vdir:
                for directory in [target.path] + Self.subfolders(of: target.path) {
                    watch(directory, Rule(sourceID: target.sourceID, fileName: nil))
                }
            case .carddav:
                continue
            }
        }
        self.failures = failures
        let (stream, continuation) = AsyncStream.makeStream(of: Int64.self, bufferingPolicy: .bufferingNewest(1024))
        changes = stream
        let allRules = rules
        thread.start(name: "birthdays-watch") { events in
            var touched = Set<Int64>()
            for event in events {
                switch event.kind {
                case .overflow:
                    for list in allRules.values { for rule in list { touched.insert(rule.sourceID) } }
                case .gone:
                    for rule in allRules[event.watch] ?? [] { touched.insert(rule.sourceID) }
                case .entry:
                    for rule in allRules[event.watch] ?? [] where rule.matches(event.name) { touched.insert(rule.sourceID) }
                }
            }
            for id in touched.sorted() { continuation.yield(id) }
        } end: {
            continuation.finish()
        }
        self.thread = thread
    }

    deinit { stop() }

    /// Stops watching and ends ``changes``.
    package func stop() { thread.stop() }

    /// Which events of a watched folder concern a source.
    struct Rule: Sendable {
        var sourceID: Int64
        /// The one file that matters (file source), or `nil` for any card (vdir).
        var fileName: String?

        func matches(_ name: String) -> Bool {
            if let fileName { return name == fileName }
            guard !name.hasPrefix(".") else { return false }
            let lower = name.lowercased()
            return lower.hasSuffix(".vcf") || lower.hasSuffix(".vcard")
        }
    }

    /// Sub-folders below `folder` that `import` would read (hidden ones skipped).
    static func subfolders(of folder: String) -> [String] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: URL(fileURLWithPath: folder),
                includingPropertiesForKeys: [.isDirectoryKey],
                options: [.skipsHiddenFiles]
            )
        else { return [] }
        var found: [String] = []
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
            found.append(url.path)
        }
        return found
    }
}
