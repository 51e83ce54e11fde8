import Foundation

/// A team room (`birthdays announce add`): a chat room or webhook that gets
/// one message on each day someone of its group has a birthday.
///
/// The URL carries tokens, so it is never held here: it lives in a 0600 file
/// in the database's own secrets folder (the system layer's `ChannelSecrets`), and ``target``
/// keeps its scheme alone (`slack://…`, `https://…`).
public struct AnnounceRoom: Sendable, Hashable {
    /// How the room is reached.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// Any Apprise URL (Slack, Mattermost, Discord, Teams, Matrix, Rocket.Chat, …) through Debian's `apprise`.
        case apprise
        /// An `https` (or `http`) URL that gets one JSON `POST` per message (``AnnounceWebhookBody``).
        case webhook
    }

    /// The room's name: 1 to 32 of a-z, 0-9 and `-`, starting with a letter (as a channel's).
    public var name: String
    /// The group whose birthdays it announces (`personGroup`'s names, as `groups` lists them).
    public var group: String
    public var kind: Kind
    /// The URL with everything after the scheme masked: what lists and logs may show.
    public var target: String
    /// Whether the message says the age each person turns (`--ages`); never by default.
    public var ages: Bool
    /// Where a weekend birthday is announced.
    public var weekend: AnnounceWeekend
    /// The room's language (a catalog tag such as `de`); `nil` follows the `language` setting.
    public var language: String?

    public init(
        name: String,
        group: String,
        kind: Kind,
        target: String,
        ages: Bool = false,
        weekend: AnnounceWeekend = .friday,
        language: String? = nil
    ) {
        self.name = name
        self.group = group
        self.kind = kind
        self.target = target
        self.ages = ages
        self.weekend = weekend
        self.language = language
    }

    /// The pending request's id and the ledger's for this room: `announce:NAME`.
    /// With the day in the ledger's key, a room is announced to at most once a day.
    public var notificationID: String { Self.idPrefix + name }

    /// What every room's ``notificationID`` starts with.
    public static let idPrefix = "announce:"

    /// The name a room's outcomes are recorded under in the channels' state: `announce:NAME`
    /// (a channel's name has no `:`, so the two never meet).
    public var stateName: String { notificationID }

    /// Why `name` cannot name a room, or `nil` when it can.
    public static func problem(withName name: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        guard let first = name.first, first.isLetter, first.isASCII, name.count <= 32, name.allSatisfy({ allowed.contains($0) }) else {
            return "a room's name is 1 to 32 of a-z, 0-9 and '-', starting with a letter"
        }
        return nil
    }

    /// What `url` is, checked: an Apprise URL (`SCHEME://…`) or a webhook
    /// (`https://…` or `http://…`, which Apprise would read as a web page to fetch, not a service);
    /// `nil` with a sentence when it is neither.
    public static func kind(of url: String) -> Result<Kind, AnnounceURLProblem> {
        guard let range = url.range(of: "://"), !url[..<range.lowerBound].isEmpty, !url.contains(where: { $0.isWhitespace || $0.isNewline }),
            url[range.upperBound...].count > 0
        else {
            return .failure(AnnounceURLProblem())
        }
        let scheme = url[..<range.lowerBound].lowercased()
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }) else {
            return .failure(AnnounceURLProblem())
        }
        return .success(scheme == "https" || scheme == "http" ? .webhook : .apprise)
    }

    /// `url`'s scheme with the rest masked (`slack://…`).
    public static func maskedURL(_ url: String) -> String { RemoteChannel.maskedURL(url) }
}

/// Why a room's URL was not taken: one sentence, never the URL.
public struct AnnounceURLProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public init() {}
    public var description: String {
        "the room's URL must be an Apprise URL (slack://…, mmost://…, discord://…, msteams://…, matrixs://…, rocket://…) "
            + "or an https:// webhook, without spaces"
    }
}

/// Where a room announces a birthday that falls on a Saturday or a Sunday
/// (`--weekend`).
public enum AnnounceWeekend: String, Sendable, CaseIterable, Codable {
    /// On the Friday before (the default: a team room is read on work days).
    case friday
    /// On the Monday after.
    case monday
    /// On the day itself.
    case off

    /// The day a birthday on `day` is announced.
    public func announceDay(for day: LocalDate) -> LocalDate {
        switch (self, day.weekday) {
        case (.friday, .saturday): day.adding(days: -1)
        case (.friday, .sunday): day.adding(days: -2)
        case (.monday, .saturday): day.adding(days: 2)
        case (.monday, .sunday): day.adding(days: 1)
        default: day
        }
    }
}

/// One room's message on one day: the people whose birthdays it names, in
/// order of their birthdays, then their names.
public struct Announcement: Sendable, Hashable {
    /// One person the message names.
    public struct Person: Sendable, Hashable {
        public var id: String
        public var name: String
        /// The birthday announced (a Saturday's on the Friday before, under `--weekend friday`).
        public var birthday: LocalDate
        /// The age turned that day; `nil` when the year is unknown.
        public var age: Int?

        public init(id: String, name: String, birthday: LocalDate, age: Int?) {
            self.id = id
            self.name = name
            self.birthday = birthday
            self.age = age
        }
    }

    public var room: AnnounceRoom
    /// The day it is sent, at the delivery time.
    public var day: LocalDate
    public var people: [Person]

    public init(room: AnnounceRoom, day: LocalDate, people: [Person]) {
        self.room = room
        self.day = day
        self.people = people.sorted { ($0.birthday, $0.name, $0.id) < ($1.birthday, $1.name, $1.id) }
    }
}

extension DeliveryKind {
    /// The room's name when this is a room's announcement (``Announcement``); `nil` for anything else.
    public var announceRoom: String? {
        switch self {
        case .announcement(let room): room
        case .reminder, .digest, .invitationNotice, .greeting: nil
        }
    }
}

extension NotificationRequest {
    /// The room's name when this is a room's announcement (``Announcement``); `nil` for anything else.
    public var announceRoom: String? { deliveryKind.announceRoom }
}

extension DeliveryEntry {
    /// The room's name when this row is a room's announcement; `nil` for a reminder or a digest.
    public var announceRoom: String? { deliveryKind.announceRoom }
}

/// Finds a room's next announcement: the first day, from `firstDay` on, on
/// which someone of its group has a birthday (after the room's weekend rule).
///
/// Rules:
/// - Birthdays only (not anniversaries, not dates in other calendars); a
///   person excluded from reminders, deceased, or excluded from this room
///   (`exclude PERSON --announce NAME`) is not offered.
/// - Feb 29 follows the `leap-day` setting, as reminders do.
/// - A birthday on a weekend is announced on the Friday before or the
///   Monday after (``AnnounceWeekend``): so from `firstDay` on, the
///   birthdays of the two days before it count too (a Monday's message
///   names Saturday's).
/// - Nothing is planned for a day without birthdays.
///
/// ## Late on the same day, missed after it
/// A room follows the rule of a reminder (``DeliveryEntry/decision(now:timeZone:deliveryTime:quietAfter:lateAfter:)``).
/// Its plan starts today even once today's delivery time has passed
/// (``firstDay(at:in:announcedToday:)``): a message planned after its time
/// (the machine was off until 10:00, the room was added at 10:00, or its
/// pending message was an earlier day's) is due at once, and the engine
/// sends it late the same day; one whose day has ended when the engine
/// sees it is recorded as `missed`, which `status` reports. Only a message
/// the ledger already holds for today (sent, failed, missed or dismissed)
/// moves the plan on to tomorrow, so a room is announced to at most once a day.
public struct AnnouncePlanner: Sendable {
    public let room: AnnounceRoom
    public let firstDay: LocalDate
    public let leapDay: LeapDayPolicy
    private var best: (day: LocalDate, people: [Announcement.Person])?

    public init(room: AnnounceRoom, firstDay: LocalDate, leapDay: LeapDayPolicy) {
        self.room = room
        self.firstDay = firstDay
        self.leapDay = leapDay
    }

    /// The first day a room's next message may fall on at `now` in
    /// `timeZone`: today, whatever the time (see "Late on the same day,
    /// missed after it"), unless the ledger holds the room's message for
    /// today (`announcedToday`); then tomorrow.
    public static func firstDay(at now: Date, in timeZone: TimeZone, announcedToday: Bool) -> LocalDate {
        let today = LocalDate.today(at: now, in: timeZone)
        return announcedToday ? today.adding(days: 1) : today
    }

    /// Offers one person's birthday.
    public mutating func offer(_ date: EventDate, personID: String, name: String) {
        var birthday = date.nextOccurrence(onOrAfter: firstDay.adding(days: -2), leapDay: leapDay)
        var day = room.weekend.announceDay(for: birthday)
        if day < firstDay {
            birthday = date.nextOccurrence(onOrAfter: birthday.adding(days: 1), leapDay: leapDay)
            day = room.weekend.announceDay(for: birthday)
        }
        let person = Announcement.Person(id: personID, name: name, birthday: birthday, age: date.age(in: birthday.year))
        switch best {
        case nil:
            best = (day, [person])
        case let current? where day < current.day:
            best = (day, [person])
        case var current? where day == current.day:
            current.people.append(person)
            best = current
        default:
            break
        }
    }

    /// The next announcement; `nil` when no one was offered.
    public func announcement() -> Announcement? {
        best.map { Announcement(room: room, day: $0.day, people: $0.people) }
    }
}

/// The JSON a webhook room gets: `text` is the message (what Slack,
/// Mattermost, Rocket.Chat and Teams' incoming webhooks show), `day` the
/// day it is about (YYYY-MM-DD) and `room` the room's name.
public struct AnnounceWebhookBody: Codable, Sendable, Hashable {
    public var text: String
    public var day: String
    public var room: String

    public init(text: String, day: String, room: String) {
        self.text = text
        self.day = day
        self.room = room
    }
}
