import Foundation

/// Every user setting, with its default. Stored as text in the `setting`
/// table under the keys of ``SettingKey``; a key that is absent has its default.
public struct Settings: Hashable, Sendable {
    /// When reminders fire, in the user's time zone. Default 09:00.
    public var deliveryTime = TimeOfDay(hour: 9, minute: 0)!
    /// The end of the day's window for the day-of reminder of someone in
    /// another zone (``ZonedDayOf``): their birthday is announced at its first
    /// moment at or after ``deliveryTime`` and before this, on your clock.
    /// Default 21:00. At or before the delivery time, the window runs to midnight.
    public var quietAfter = TimeOfDay(hour: 21, minute: 0)!
    /// IANA time-zone name; `nil` means the system's (`TZ`, then /etc/localtime).
    public var timeZone: String?
    /// Where Feb 29 falls in common years. Default Feb 28.
    public var leapDay = LeapDayPolicy.feb28
    /// How many days before each event its reminders come. Default `1,0`:
    /// the day before and the day of. A person may have their own
    /// (``Person/reminderDays``).
    public var reminders = ReminderDays.standard
    /// What deceased people get: nothing (`skip`, the default) or a day-of
    /// reminder in their memory (`remember`).
    public var deceased = DeceasedPolicy.skip
    /// Which name reminders and feed titles use: the full name (default) or
    /// the nickname when there is one.
    public var names = NameStyle.full
    /// Whether anniversaries get reminders and calendar events. Default on.
    public var anniversaries = true
    /// The calendar's display name in exported feeds.
    public var calendarName = "Birthdays"
    /// Whether feed titles start with an emoji ("🎂 Ada") or are plain ("Ada's birthday").
    public var emoji = true
    /// The built-in channels that are on, in order (``ChannelConsent`` says
    /// which of them deliver under the permission). Default: desktop
    /// notifications. Empty (stored as `none`) turns every built-in one off.
    public var channels: [ChannelKind] = [.desktop]
    /// The command the `command` channel runs with `/bin/sh -c`; empty when unset.
    public var command = ""
    /// Whether `birthdays run` also serves the calendar feed, and where:
    /// `nil` is off; `on` means 127.0.0.1:8484.
    public var serve: FeedAddress?
    /// The reverse proxy in front of the feed server (``TrustedProxy``): its
    /// requests are counted by the client it names in `X-Forwarded-For` or
    /// `Forwarded`. `nil` (the default): every request by its own address.
    public var trustedProxy: TrustedProxy?
    /// How often `birthdays run` syncs CardDAV sources (local files and vdirs are
    /// watched instead). Default 15 minutes, as DAVx5 and Thunderbird do: an
    /// unchanged book costs one small request, and a birthday edited on the
    /// phone the evening before gives the new day's reminder. At least 10 seconds.
    public var syncInterval: Duration = .seconds(900)
    /// The language of reminders, the feed and the commands' words, as a BCP 47
    /// tag (`de`, `pt-BR`); `nil` means the system's (`LC_ALL`, `LC_MESSAGES`, `LANG`).
    public var language: String?
    /// How the feed writes dates in other calendars (a lunar birthday):
    /// one event per year, or one RFC 7529 rule. Default: one event per year.
    public var calendarRules = CalendarRules.expanded
    /// Whether a digest of the days ahead is sent, and how often: off (the
    /// default), weekly or monthly (see ``DigestPeriod`` for its days).
    public var digest = DigestFrequency.off
    /// The day a weekly digest is sent. Default Monday.
    public var digestDay = Weekday.monday
    /// How many days ahead a round birthday (``Occurrence/isRound(age:)``)
    /// gets one more reminder, on top of the reminder days; `nil` is off.
    /// Default 14: time to plan the party.
    public var roundBirthdays: Int? = 14
    /// Whether the feed titles this year's and the next two years' birthdays
    /// and anniversaries with the age ("🎂 Ada (36)"): one event per year for
    /// those three years, then the recurring event without an age. Default on;
    /// off gives one recurring event per date, as before.
    public var calendarAges = true
    /// Whether the added channels (ntfy, Gotify, e-mail, Apprise) carry a
    /// link to write to or call the person (``ContactPoint``). Default off:
    /// no address or phone number reaches a push server or a mailbox unless
    /// asked. Desktop notifications offer their button either way.
    public var contactLinks = false
    /// Whether the added channels (ntfy, Gotify, e-mail, Apprise) and the
    /// published calendar carry the person's note (``PersonNote``). Default
    /// off: a note stays on the machine unless asked. The desktop reminder,
    /// the digest, `show` and `upcoming` carry it either way.
    public var notesOnChannels = false
    /// Whether labelled dates (``LabelledDate``: "Child's birthday",
    /// "Started work") get reminders, calendar events and `upcoming`
    /// entries, and the choices per label (``LabelRules``). Default on.
    public var labelRules = LabelRules()
    /// The countries whose name-day lists give people their name days
    /// (``NameDayList/builtIn``: `lv`), in order; empty (`off`, the default) gives none.
    public var nameDays: [String] = []
    /// The codes of the lists of your own (`birthdays name-days import FILE --country CODE`), which
    /// ``nameDays`` may name too; the lists themselves and the choices per person are read only
    /// where name days are made (``NameDaySetup``).
    public var ownNameDayCodes: Set<String> = []
    /// When a friend's greeting goes out (`birthdays greet`), on the
    /// friend's own clock in their zone (``GreetingPlan``). Default 09:00.
    public var greetingTime = GreetingPlan.defaultTime

    public init() {}

    /// Whether the day before is among the reminder days (the old
    /// `day-before` setting, now an alias of ``reminders``).
    public var dayBefore: Bool {
        get { reminders.includesDayBefore }
        set { reminders = reminders.settingDayBefore(newValue) }
    }

    /// The zone to do date math in: the setting, else `systemZone`.
    public func resolvedTimeZone(system systemZone: TimeZone) -> TimeZone {
        timeZone.flatMap(TimeZone.init(identifier:)) ?? systemZone
    }
}

/// The name of a setting as typed on the command line and stored in the database.
public enum SettingKey: String, Sendable, CaseIterable, Codable {
    case deliveryTime = "delivery-time"
    case quietAfter = "quiet-after"
    case timeZone = "time-zone"
    case leapDay = "leap-day"
    case reminders = "reminders"
    /// The setting before `reminders`: `on` adds the day before to `reminders`,
    /// `off` removes it. Accepted by `set` and `reset`, never stored or shown.
    case dayBefore = "day-before"
    case deceased = "deceased"
    case names = "names"
    case anniversaries = "anniversaries"
    case calendarName = "calendar-name"
    case emoji = "emoji"
    case channels = "channels"
    case command = "command"
    case serve = "serve"
    case trustedProxy = "trusted-proxy"
    case syncInterval = "sync-interval"
    case language = "language"
    case calendarRules = "calendar-rules"
    case digest = "digest"
    case digestDay = "digest-day"
    case roundBirthdays = "round-birthdays"
    case calendarAges = "calendar-ages"
    case contactLinks = "contact-links"
    case notesOnChannels = "notes-on-channels"
    case labelledDates = "labelled-dates"
    case nameDays = "name-days"
    case greetingTime = "greeting-time"

    /// What the setting accepts, for error messages and `settings show`.
    public var allowedValues: String {
        switch self {
        case .deliveryTime: "HH:MM (24-hour), e.g. 09:00"
        case .quietAfter: "HH:MM (24-hour), e.g. 21:00: no day-of reminder for someone in another time zone after it"
        case .greetingTime: "HH:MM (24-hour), e.g. 09:00: when a greeting goes to a friend, on their clock (birthdays greet)"
        case .timeZone: "an IANA time zone such as Europe/Berlin, or 'system'"
        case .leapDay: LeapDayPolicy.allCases.map(\.rawValue).joined(separator: " | ")
        case .reminders: "a comma list of days before each event, 0 (the day itself) to \(ReminderDays.maximum), e.g. 7,1,0"
        case .dayBefore: "on | off (an alias of reminders: on adds 1 to its days, off removes it)"
        case .deceased: DeceasedPolicy.allCases.map(\.rawValue).joined(separator: " | ")
        case .names: NameStyle.allCases.map(\.rawValue).joined(separator: " | ")
        case .anniversaries, .emoji, .calendarAges, .contactLinks, .notesOnChannels, .labelledDates: "on | off"
        case .nameDays:
            "off, or a comma list of the countries whose name days to keep: " + NameDayList.builtInCodes.joined(separator: ", ")
                + ", or the code of a list of your own (birthdays name-days import FILE --country CODE)"
        case .calendarName: "any non-empty text"
        case .channels:
            "a comma list of the channels that are on: " + ChannelKind.allCases.map(\.rawValue).joined(separator: ", ")
                + " and the names of the channels you added (birthdays channels), e.g. desktop,email; or none"
        case .command: "a shell command, run with /bin/sh -c (empty to unset)"
        case .serve: "off | on (127.0.0.1:8484) | HOST:PORT"
        case .trustedProxy: "off, or the IP address of the reverse proxy in front of the server, e.g. 127.0.0.1"
        case .syncInterval: "a duration of at least 10s such as 15m, 1h or 1d"
        case .language:
            "system, or one of " + Language.available.joined(separator: ", ") + " (a region such as de-AT or pt-BR is kept for dates)"
        case .calendarRules: CalendarRules.allCases.map(\.rawValue).joined(separator: " | ")
        case .digest: DigestFrequency.allCases.map(\.rawValue).joined(separator: " | ")
        case .digestDay: "a day of the week: " + Weekday.allCases.map(\.rawValue).joined(separator: " | ")
        case .roundBirthdays:
            "off, or how many days ahead a round birthday (18, 20, 30, … 100 and more) gets one more reminder: 1 to \(ReminderDays.maximum)"
        }
    }

    /// The key the value is stored under: ``reminders`` for its alias ``dayBefore``, else the key itself.
    public var storedKey: SettingKey { self == .dayBefore ? .reminders : self }

    /// The settings `settings show` lists: every key but the alias ``dayBefore``.
    public static var shown: [SettingKey] { allCases.filter { $0 != .dayBefore } }

    /// Whether changing it changes which reminders are due or when.
    public var affectsReminders: Bool {
        switch self {
        case .deliveryTime, .quietAfter, .timeZone, .leapDay, .reminders, .dayBefore, .deceased, .names, .anniversaries, .language, .digest,
            .digestDay,
            .roundBirthdays, .channels, .labelledDates, .nameDays, .greetingTime:
            true
        case .calendarName, .emoji, .command, .serve, .trustedProxy, .calendarRules, .syncInterval, .calendarAges, .contactLinks, .notesOnChannels:
            false
        }
    }
}

/// A setting value that was not accepted.
public struct SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var value: String
    public var description: String {
        guard let known = SettingKey(rawValue: key) else {
            // One line: the nearest names, and where the whole list is (`settings --help`), never the list itself.
            let near = SettingKey.suggestions(for: key).map { "'\($0.rawValue)'" }
            let guess = near.isEmpty ? "" : "; did you mean \(near.joined(separator: " or "))?"
            return "unknown setting '\(SafeText.line(key))'\(guess) (every setting and its values: birthdays settings --help)"
        }
        return "'\(value)' is not a valid \(key); allowed: \(known.allowedValues)"
    }
}

extension Settings {
    /// Builds settings from stored text values; unknown keys and unreadable
    /// values are ignored (the default applies), so a newer database never
    /// stops an older binary. A stored `day-before` (which the `v5` migration
    /// turns into `reminders`; an older binary may write it again) applies
    /// only when `reminders` is not stored.
    /// `ownNameDayCodes` are the codes of the lists of your own, which the `name-days` setting may name.
    public init(stored: [String: String], ownNameDayCodes: Set<String> = []) {
        self.init()
        self.ownNameDayCodes = ownNameDayCodes
        for (key, value) in stored {
            guard let key = SettingKey(rawValue: key), key != .dayBefore else { continue }
            try? set(key, to: value)
        }
        if stored[SettingKey.reminders.rawValue] == nil, let dayBefore = stored[SettingKey.dayBefore.rawValue] {
            try? set(.dayBefore, to: dayBefore)
        }
        if let rules = stored[LabelRules.storedKey] { labelRules = LabelRules(on: labelRules.on, stored: rules) }
    }

    /// Sets `key` from its text form, validating it.
    public mutating func set(_ key: SettingKey, to text: String) throws(SettingsError) {
        let value = text.trimmingWhitespace()
        let invalid = SettingsError(key: key.rawValue, value: text)
        switch key {
        case .deliveryTime:
            guard let time = TimeOfDay(value) else { throw invalid }
            deliveryTime = time
        case .quietAfter:
            guard let time = TimeOfDay(value) else { throw invalid }
            quietAfter = time
        case .greetingTime:
            guard let time = TimeOfDay(value) else { throw invalid }
            greetingTime = time
        case .timeZone:
            if value.lowercased() == "system" {
                timeZone = nil
            } else {
                guard value.contains("/") || value == "UTC", let zone = TimeZone(identifier: value) else { throw invalid }
                timeZone = zone.identifier == "GMT" && value != "GMT" ? value : zone.identifier
            }
        case .leapDay:
            guard let policy = LeapDayPolicy(rawValue: value.lowercased()) else { throw invalid }
            leapDay = policy
        case .reminders:
            guard let days = ReminderDays(value) else { throw invalid }
            reminders = days
        case .deceased:
            guard let policy = DeceasedPolicy(rawValue: value.lowercased()) else { throw invalid }
            deceased = policy
        case .names:
            guard let style = NameStyle(rawValue: value.lowercased()) else { throw invalid }
            names = style
        case .dayBefore, .anniversaries, .emoji, .calendarAges, .contactLinks, .notesOnChannels, .labelledDates:
            let flag: Bool
            switch value.lowercased() {
            case "on", "true", "yes", "1": flag = true
            case "off", "false", "no", "0": flag = false
            default: throw invalid
            }
            switch key {
            case .dayBefore: dayBefore = flag
            case .anniversaries: anniversaries = flag
            case .calendarAges: calendarAges = flag
            case .contactLinks: contactLinks = flag
            case .notesOnChannels: notesOnChannels = flag
            case .labelledDates: labelRules.on = flag
            default: emoji = flag
            }
        case .calendarName:
            guard !value.isEmpty, !value.contains(where: \.isNewline) else { throw invalid }
            calendarName = value
        case .channels:
            guard value.lowercased() == "none" || !value.isEmpty, let kinds = ChannelKind.parseList(value.lowercased() == "none" ? "" : value)
            else { throw invalid }
            channels = kinds
        case .command:
            guard !value.contains(where: { $0 == "\n" || $0 == "\r" }) else { throw invalid }
            command = value
        case .serve:
            switch value.lowercased() {
            case "off", "no", "false": serve = nil
            case "on", "yes", "true": serve = FeedAddress.default
            default:
                guard let address = FeedAddress(value) else { throw invalid }
                serve = address
            }
        case .trustedProxy:
            if ["off", "no", "false", "none", ""].contains(value.lowercased()) {
                trustedProxy = nil
            } else {
                guard let proxy = TrustedProxy(value) else { throw invalid }
                trustedProxy = proxy
            }
        case .syncInterval:
            guard let interval = Settings.parseInterval(value), interval >= .seconds(10) else { throw invalid }
            syncInterval = interval
        case .language:
            if value.lowercased() == "system" {
                language = nil
            } else {
                guard let tag = Language.tag(fromPOSIX: value), Language.match(tag, available: Language.available) != nil else {
                    throw invalid
                }
                language = tag
            }
        case .calendarRules:
            guard let rules = CalendarRules(rawValue: value.lowercased()) else { throw invalid }
            calendarRules = rules
        case .digest:
            guard let frequency = DigestFrequency(rawValue: value.lowercased()) else { throw invalid }
            digest = frequency
        case .digestDay:
            guard let day = Weekday(parsing: value) else { throw invalid }
            digestDay = day
        case .nameDays:
            if ["off", "no", "false", "none", ""].contains(value.lowercased()) {
                nameDays = []
            } else {
                let codes = value.lowercased().split(separator: ",").map { $0.trimmingWhitespace() }
                guard !codes.isEmpty, codes.allSatisfy({ NameDayList.builtInCodes.contains($0) || ownNameDayCodes.contains($0) }) else {
                    throw invalid
                }
                var seen: Set<String> = []
                nameDays = codes.filter { seen.insert($0).inserted }
            }
        case .roundBirthdays:
            if ["off", "no", "false"].contains(value.lowercased()) {
                roundBirthdays = nil
            } else {
                guard let days = Int(value), (1...ReminderDays.maximum).contains(days) else { throw invalid }
                roundBirthdays = days
            }
        }
    }

    /// The text form of `key`'s current value, as `settings show` prints it.
    public func text(for key: SettingKey) -> String {
        switch key {
        case .deliveryTime: deliveryTime.description
        case .quietAfter: quietAfter.description
        case .greetingTime: greetingTime.description
        case .timeZone: timeZone ?? "system"
        case .leapDay: leapDay.rawValue
        case .reminders: reminders.description
        case .dayBefore: dayBefore ? "on" : "off"
        case .deceased: deceased.rawValue
        case .names: names.rawValue
        case .anniversaries: anniversaries ? "on" : "off"
        case .calendarName: calendarName
        case .emoji: emoji ? "on" : "off"
        case .channels: channels.isEmpty ? "none" : channels.map(\.rawValue).joined(separator: ",")
        case .command: command
        case .serve: serve?.description ?? "off"
        case .trustedProxy: trustedProxy?.address ?? "off"
        case .syncInterval: Settings.intervalText(syncInterval)
        case .language: language ?? "system"
        case .calendarRules: calendarRules.rawValue
        case .digest: digest.rawValue
        case .digestDay: digestDay.rawValue
        case .roundBirthdays: roundBirthdays.map(String.init) ?? "off"
        case .calendarAges: calendarAges ? "on" : "off"
        case .contactLinks: contactLinks ? "on" : "off"
        case .notesOnChannels: notesOnChannels ? "on" : "off"
        case .labelledDates: labelRules.on ? "on" : "off"
        case .nameDays: nameDays.isEmpty ? "off" : nameDays.joined(separator: ",")
        }
    }

    /// Reads `90s`, `15m`, `1h` or `1d` (whole numbers).
    static func parseInterval(_ text: String) -> Duration? {
        let value = text.lowercased()
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let last = value.last, let unit = units[last], let number = Int64(value.dropLast()), number > 0, number <= 366 * 86_400 / unit else {
            return nil
        }
        return .seconds(number * unit)
    }

    /// The largest unit that divides `interval` exactly: `1h`, `90m`, `45s`.
    static func intervalText(_ interval: Duration) -> String {
        let seconds = interval.components.seconds
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)] where seconds % size == 0 {
            return String(seconds / size) + unit
        }
        return String(seconds) + "s"
    }
}

/// How the calendar feed writes a date in another calendar (the
/// `calendar-rules` setting).
public enum CalendarRules: String, Sendable, CaseIterable, Codable {
    /// One event per year, for the next ten years, each on the Gregorian day
    /// `birthdays` computed: every calendar app shows them (Google,
    /// Thunderbird and khal do not expand RSCALE rules). The default.
    case expanded
    /// One event with an RFC 7529 rule (`RRULE:RSCALE=CHINESE;FREQ=YEARLY;…`),
    /// which the calendar app expands: Apple Calendar and libical do. A reader
    /// that cannot may lose the whole feed, not just these events: khal
    /// imports none, recurring-ical-events raises, sabre/vobject's expansion
    /// of a leap month never ends (docs/feed.md, `RScaleReadersTests`).
    case rscale
}

/// A host and TCP port to serve the calendar feed on.
public struct FeedAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// Loopback, port 8484.
    public static let `default` = FeedAddress(host: "127.0.0.1", port: 8484)

    /// Whether `host` names this machine only: `localhost` (and names under
    /// it), an IPv4 address in 127.0.0.0/8, or the IPv6 loopback `::1` in any
    /// spelling (also as `::ffff:127.x.y.z`): an address no phone reaches.
    public static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare.hasSuffix(".localhost") { return true }
        func ipv4Loopback(_ text: Substring) -> Bool {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }) else {
                return false
            }
            return parts[0] == "127"
        }
        if ipv4Loopback(bare[...]) { return true }
        guard bare.contains(":"), bare.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        if bare.hasPrefix("::ffff:") { return ipv4Loopback(bare.dropFirst(7)) }
        // Expand "::" and compare the eight groups with 0:0:0:0:0:0:0:1.
        let halves = bare.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        let head = halves[0].split(separator: ":").compactMap { UInt16($0, radix: 16) }
        let tail = halves.count == 2 ? halves[1].split(separator: ":").compactMap { UInt16($0, radix: 16) } : []
        let missing = 8 - head.count - tail.count
        guard halves.count == 2 ? missing >= 1 : missing == 0 else { return false }
        return head + Array(repeating: 0, count: max(missing, 0)) + tail == [0, 0, 0, 0, 0, 0, 0, 1]
    }
    /// The TCP ports a feed can be served on (0 would pick a random one).
    public static let ports = 1...65_535

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (`[::1]:8484` for IPv6).
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), FeedAddress.ports.contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard Self.isHostName(host) else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether `host` can stand for a host in an address: not empty, no
    /// space and no `/` (a name, an IPv4 address, or an IPv6 one without brackets).
    public static func isHostName(_ host: String) -> Bool {
        !host.isEmpty && !host.contains(where: { $0.isWhitespace || $0 == "/" })
    }

    public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":" + String(port) }
}
