import ArgumentParser
import BirthdayCore
import BirthdayStore
import BirthdayText
import Dispatch
import Foundation
import Synchronization

/// What the shell completions offer besides commands and flags. The shell
/// runs `birthdays` itself to complete a person or a source
/// (`CompletionKind.custom`), which reads the database the command line
/// names (`--database`, else `$BIRTHDAYS_DATABASE`, else the default path);
/// it offers nothing when there is none yet.
enum Completions {
    /// The names of the people in the database, for `show`, `exclude`,
    /// `include`, `remind`, `zone` and `people` (one line each, as `people` shows them).
    static let people = CompletionKind.custom { words, _, _ in
        names(words) { database in try await database.people().map { SafeText.line($0.name) }.filter { !$0.isEmpty } }
    }

    /// The channel names `remind PERSON --channels` takes: the built-in ones
    /// and those added with `channels add`.
    static let channelNames = CompletionKind.custom { words, _, _ in
        ChannelKind.allCases.map(\.rawValue)
            + names(words) { database in try await database.remoteChannels().map(\.name) }
    }

    /// The names of the publish targets, for `publish sync` and `publish remove`.
    static let publishTargets = CompletionKind.custom { words, _, _ in
        names(words) { database in try await database.publishTargets().map { SafeText.line($0.name) } }
    }

    /// The names of the groups (and groups with a rule), for `--group`.
    static let groups = CompletionKind.custom { words, _, _ in
        names(words) { database in try await database.groups().map { SafeText.line($0.name) } }
    }

    /// The names of the sources, for `sources sync` and `sources remove`.
    static let sources = CompletionKind.custom { words, _, _ in
        names(words) { database in try await database.sources(counting: false).map { SafeText.line($0.name) } }
    }

    /// The values `settings set KEY <Tab>` offers for the key on the command
    /// line: every value of a setting with a few, typical ones of the others
    /// (a zone, a time, a duration, reminder days); none for free text.
    static let settingValues = CompletionKind.custom { words, _, _ in
        guard let index = words.firstIndex(of: "set"), index + 1 < words.count, let key = SettingKey(rawValue: words[index + 1]) else { return [] }
        return values(for: key)
    }

    static func values(for key: SettingKey) -> [String] {
        switch key {
        case .deliveryTime: ["07:00", "08:00", "09:00", "10:00", "12:00", "18:00"]
        case .quietAfter: ["20:00", "21:00", "22:00", "23:00"]
        case .greetingTime: ["08:00", "09:00", "10:00", "12:00"]
        case .timeZone: ["system"] + TimeZone.knownTimeZoneIdentifiers.sorted()
        case .leapDay: LeapDayPolicy.allCases.map(\.rawValue)
        case .reminders: ["0", "1,0", "7,1,0", "14,7,1,0"]
        case .dayBefore, .anniversaries, .emoji, .calendarAges, .contactLinks, .notesOnChannels, .labelledDates: ["on", "off"]
        case .deceased: DeceasedPolicy.allCases.map(\.rawValue)
        case .names: NameStyle.allCases.map(\.rawValue)
        case .channels: ChannelKind.allCases.map(\.rawValue) + ["desktop,log", "desktop,command"]
        case .serve: ["off", "on", "127.0.0.1:8484", "0.0.0.0:8484"]
        case .trustedProxy: ["off", "127.0.0.1", "::1"]
        case .syncInterval: ["5m", "15m", "1h", "1d"]
        case .language: ["system"] + StringCatalog.embedded.languages
        case .calendarRules: CalendarRules.allCases.map(\.rawValue)
        case .digest: DigestFrequency.allCases.map(\.rawValue)
        case .digestDay: Weekday.allCases.map(\.rawValue)
        case .roundBirthdays: ["off", "7", "14", "30"]
        case .nameDays: ["off"] + NameDayList.builtInCodes
        case .calendarName, .command: []
        }
    }

    /// What `read` finds in the database `words` name, sorted and without
    /// repeats; nothing when the database is missing or cannot be read.
    private static func names(_ words: [String], _ read: @escaping @Sendable (AppDatabase) async throws -> [String]) -> [String] {
        guard let path = databasePath(in: words, environment: ProcessInfo.processInfo.environment),
            FileManager.default.fileExists(atPath: path)
        else { return [] }
        // The closure is synchronous; the database is read on the store's threads meanwhile.
        let found = Found()
        let done = DispatchSemaphore(value: 0)
        Task {
            if let database = try? AppDatabase.openFile(at: path, create: false, readOnlyIfNotWritable: true, readsOnly: true),
                let names = try? await read(database)
            {
                found.names.withLock { $0 = names }
            }
            done.signal()
        }
        done.wait()
        return Array(Set(found.names.withLock { $0 })).sorted()
    }

    /// What the reading task hands back to the waiting closure.
    private final class Found: Sendable {
        let names = Mutex<[String]>([])
    }

    /// The database the command line names (`--database PATH`,
    /// `--database=PATH`, `--user NAME`, `--user=NAME`), else the one every
    /// command would use (``Context/databasePath(_:environment:)``); `nil`
    /// when they choose none the command would open (a user who does not
    /// exist, a bad name, two choices): then nothing is offered, never
    /// another database's names.
    static func databasePath(in words: [String], environment: [String: String]) -> String? {
        // The options as words, parsed as a command parses them: ArgumentParser's
        // values exist only in what it parsed (a `GlobalOptions()` built by hand
        // traps when read).
        var given: [String: String] = [:]
        for (index, word) in words.enumerated() {
            for name in GlobalOptions.names {
                let value: String? =
                    word == name && index + 1 < words.count
                    ? unquoted(words[index + 1]) : word.hasPrefix(name + "=") ? unquoted(String(word.dropFirst(name.count + 1))) : nil
                if let value { given[name] = value }
            }
        }
        guard let options = try? GlobalOptions.parse(given.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }) else { return nil }
        return try? Context.databasePath(options, environment: environment)
    }

    /// A shell word without the quotes around it (completions get words as typed).
    private static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, first == word.last, first == "'" || first == "\"" else { return word }
        return String(word.dropFirst().dropLast())
    }
}

extension Completions {
    /// `settings set <Tab>` and `settings reset <Tab>`: the settings
    /// `settings show` lists; never the alias `day-before`, which is kept
    /// for scripts written before `reminders`.
    static var settingKeys: CompletionKind { .list(SettingKey.shown.map(\.rawValue)) }
}
