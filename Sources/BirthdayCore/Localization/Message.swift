/// A value to put into a message.
public enum MessageArgument: Sendable, Hashable {
    /// Text as it is (`%@`).
    case text(String)
    /// A person's name (`%@`). An empty name becomes the language's word for
    /// "someone" (``Message/Key/someone``), capitalized when it starts the
    /// text: "Someone's Birthday!", "Today is someone's birthday!".
    case name(String)
    /// A whole number (`%lld`): it also chooses the plural form.
    case number(Int)
    /// A whole number as an ordinal in the language (`%@`): "10th", "10.",
    /// "10e", "10.º" (``Message/Key/ordinal``, chosen by ICU's ordinal
    /// rules); written only when the text uses it.
    case ordinal(Int)

    /// What a placeholder for this argument must be.
    public enum Kind: Sendable, Hashable {
        case text, name, number, ordinal

        /// `%lld` for numbers, `%@` for the others.
        public var isNumber: Bool { self == .number }
    }

    public var kind: Kind {
        switch self {
        case .text: .text
        case .name: .name
        case .number: .number
        case .ordinal: .ordinal
        }
    }
}

/// A text the program shows, with its arguments. Its ``Key`` names the
/// catalog entry (`Localizable.xcstrings`), and ``Key/signature`` is the one
/// place where the arguments of a key are declared: translations may
/// reorder or leave out arguments, never add or retype them.
public struct Message: Sendable, Hashable {
    public let key: Key
    public let arguments: [MessageArgument]

    init(_ key: Key, _ arguments: MessageArgument...) {
        self.key = key
        self.arguments = arguments
    }

    /// Every key of the catalog. Keys are stable identifiers, not English sentences.
    public enum Key: String, Sendable, Hashable, CaseIterable {
        // Reminders (notification title and body) and the feed's alarms.
        case birthdayTitle = "reminder.birthday.title"
        case birthdayToday = "reminder.birthday.today"
        case birthdayTodayAge = "reminder.birthday.today.age"
        case birthdayTomorrowTitle = "reminder.birthday.tomorrow.title"
        case birthdayTomorrow = "reminder.birthday.tomorrow"
        case birthdayTomorrowAge = "reminder.birthday.tomorrow.age"
        case anniversaryTitle = "reminder.anniversary.title"
        case anniversaryToday = "reminder.anniversary.today"
        case anniversaryTodayYears = "reminder.anniversary.today.years"
        case anniversaryTomorrowTitle = "reminder.anniversary.tomorrow.title"
        case anniversaryTomorrow = "reminder.anniversary.tomorrow"
        case anniversaryTomorrowYears = "reminder.anniversary.tomorrow.years"
        case someone = "person.someone"
        case ordinal = "number.ordinal"
        case actionOpen = "notification.action.open"
        case actionSnooze = "notification.action.snooze"
        case actionDismiss = "notification.action.dismiss"

        // The calendar feed.
        case feedBirthdayTitle = "feed.birthday.title"
        case feedAnniversaryTitle = "feed.anniversary.title"
        case feedBorn = "feed.born"
        case feedSince = "feed.since"

        // Days and dates.
        case today = "day.today"
        case tomorrow = "day.tomorrow"
        case inDays = "day.in"
        case datePattern = "date.weekday-day-month"

        // upcoming
        case upcomingBirthday = "upcoming.birthday"
        case upcomingBirthdayAge = "upcoming.birthday.age"
        case upcomingAnniversary = "upcoming.anniversary"
        case upcomingAnniversaryYears = "upcoming.anniversary.years"
        case upcomingNoName = "upcoming.no-name"
        case upcomingNoneToday = "upcoming.none.today"
        case upcomingNone = "upcoming.none"

        // pending
        case pendingFires = "pending.header.fires"
        case pendingWhen = "pending.header.when"
        case pendingTitle = "pending.header.title"
        case pendingBody = "pending.header.body"
        case pendingDayBefore = "pending.day-before"
        case pendingDayOf = "pending.day-of"
        case pendingNone = "pending.none"
        case pendingNoneDisabled = "pending.none.disabled"

        // show (and the details a click on a reminder shows)
        case showID = "show.id"
        case showBirthday = "show.birthday"
        case showBirthdayAge = "show.birthday.age"
        case showAnniversary = "show.anniversary"
        case showAnniversaryYears = "show.anniversary.years"
        case showExcluded = "show.excluded"

        // onboard
        case onboardingWelcome = "onboarding.welcome"
        case onboardingWelcomeDetail = "onboarding.welcome.detail"
        case onboardingContinue = "onboarding.continue"
        case onboardingContactsSkipped = "onboarding.contacts.skipped"
        case onboardingContactsFailed = "onboarding.contacts.failed"
        case onboardingContactsTitle = "onboarding.contacts.title"
        case onboardingContactsPrompt = "onboarding.contacts.prompt"
        case onboardingContactsSkipWord = "onboarding.contacts.skip-word"
        case onboardingPrimerTitle = "onboarding.primer.title"
        case onboardingPrimerReason = "onboarding.primer.reason"
        case onboardingPrimerEnable = "onboarding.primer.enable"
        case onboardingPrimerLater = "onboarding.primer.later"
        case onboardingChannelNote = "onboarding.channel.note"
        case onboardingChannelProvisional = "onboarding.channel.provisional"
        case onboardingPermissionQuestion = "onboarding.permission.question"
        case onboardingPermissionAllow = "onboarding.permission.allow"
        case onboardingPermissionDeny = "onboarding.permission.deny"
        case onboardingOn = "onboarding.on"
        case onboardingOnProvisional = "onboarding.on.provisional"
        case onboardingOffDenied = "onboarding.off.denied"
        case onboardingOffLater = "onboarding.off.later"
        case onboardingAlreadyDenied = "onboarding.already-denied"
        case onboardingDone = "onboarding.done"
        case onboardingAlreadyComplete = "onboarding.already-complete"
        case onboardingPaused = "onboarding.paused"
        case onboardingNextNone = "onboarding.next.none"
        case onboardingNextTitle = "onboarding.next.title"
        case onboardingNextMore = "onboarding.next.more"
        case onboardingChooseAgain = "onboarding.choose-again"

        // sources
        case sourcesHeaderName = "sources.header.name"
        case sourcesHeaderKind = "sources.header.kind"
        case sourcesHeaderPeople = "sources.header.people"
        case sourcesHeaderLastSync = "sources.header.last-sync"
        case sourcesHeaderLocation = "sources.header.location"
        case sourcesNever = "sources.never"
        case sourcesNone = "sources.none"
        case sourcesSummaryAdded = "sources.summary.added"
        case sourcesSummarySynced = "sources.summary.synced"
        case sourcesProblems = "sources.problems"
        case sourcesRemoved = "sources.removed"
        case sourcesRemovedKept = "sources.removed.kept"

        /// The arguments, in order (placeholder `%1$…` is the first).
        public var signature: [MessageArgument.Kind] {
            switch self {
            case .birthdayTitle, .birthdayToday, .birthdayTomorrow, .anniversaryTitle, .anniversaryToday, .anniversaryTomorrow: [.name]
            case .birthdayTodayAge, .birthdayTomorrowAge: [.name, .number]
            case .anniversaryTodayYears, .anniversaryTomorrowYears: [.name, .ordinal, .number]
            case .feedBirthdayTitle, .feedAnniversaryTitle: [.text]
            case .ordinal, .feedBorn, .feedSince, .inDays, .upcomingBirthdayAge, .upcomingAnniversaryYears, .upcomingNone, .onboardingNextMore:
                [.number]
            case .pendingNoneDisabled, .showID, .onboardingContactsFailed, .onboardingChannelNote, .onboardingAlreadyComplete: [.text]
            case .showBirthday, .showAnniversary: [.text, .text, .text]
            case .showBirthdayAge, .showAnniversaryYears: [.text, .text, .text, .number]
            case .onboardingChooseAgain: [.text, .text]
            case .sourcesSummaryAdded, .sourcesSummarySynced: [.text, .number, .number, .number, .number]
            case .sourcesProblems: [.number]
            case .sourcesRemoved: [.text, .number]
            case .sourcesRemovedKept: [.text]
            case .someone, .actionOpen, .actionSnooze, .actionDismiss, .birthdayTomorrowTitle, .anniversaryTomorrowTitle, .today, .tomorrow,
                .datePattern, .upcomingBirthday,
                .upcomingAnniversary, .upcomingNoName, .upcomingNoneToday, .pendingFires, .pendingWhen, .pendingTitle, .pendingBody,
                .pendingDayBefore, .pendingDayOf, .pendingNone, .showExcluded, .onboardingWelcome, .onboardingWelcomeDetail,
                .onboardingContinue, .onboardingContactsSkipped, .onboardingContactsTitle, .onboardingContactsPrompt,
                .onboardingContactsSkipWord, .onboardingPrimerTitle, .onboardingPrimerReason, .onboardingPrimerEnable,
                .onboardingPrimerLater, .onboardingChannelProvisional, .onboardingPermissionQuestion, .onboardingPermissionAllow,
                .onboardingPermissionDeny, .onboardingOn, .onboardingOnProvisional, .onboardingOffDenied, .onboardingOffLater,
                .onboardingAlreadyDenied, .onboardingDone, .onboardingPaused, .onboardingNextNone, .onboardingNextTitle,
                .sourcesHeaderName, .sourcesHeaderKind, .sourcesHeaderPeople, .sourcesHeaderLastSync, .sourcesHeaderLocation,
                .sourcesNever, .sourcesNone:
                []
            }
        }

        /// Which plural rules choose among the forms: the ordinal ones for
        /// ``ordinal`` (1st, 2nd, 3rd, 4th), the cardinal ones for the rest.
        public var pluralKind: PluralRules.Kind { self == .ordinal ? .ordinal : .cardinal }

        /// The placeholders a translation may use.
        public var allowedPlaceholders: Set<FormatString.Placeholder> {
            Set(signature.enumerated().map { FormatString.Placeholder(position: $0.offset + 1, isNumber: $0.element.isNumber) })
        }
    }
}

// MARK: - Messages with arguments

extension Message {
    /// A message without arguments.
    public static func plain(_ key: Key) -> Message { Message(key) }

    public static func birthdayTitle(name: String) -> Message { Message(.birthdayTitle, .name(name)) }
    public static func birthdayToday(name: String) -> Message { Message(.birthdayToday, .name(name)) }
    public static func birthdayToday(name: String, turning age: Int) -> Message { Message(.birthdayTodayAge, .name(name), .number(age)) }
    public static func birthdayTomorrow(name: String) -> Message { Message(.birthdayTomorrow, .name(name)) }
    public static func birthdayTomorrow(name: String, turning age: Int) -> Message { Message(.birthdayTomorrowAge, .name(name), .number(age)) }
    public static func anniversaryTitle(name: String) -> Message { Message(.anniversaryTitle, .name(name)) }
    public static func anniversaryToday(name: String) -> Message { Message(.anniversaryToday, .name(name)) }
    public static func anniversaryToday(name: String, years: Int) -> Message {
        Message(.anniversaryTodayYears, .name(name), .ordinal(years), .number(years))
    }
    public static func anniversaryTomorrow(name: String) -> Message { Message(.anniversaryTomorrow, .name(name)) }
    public static func anniversaryTomorrow(name: String, years: Int) -> Message {
        Message(.anniversaryTomorrowYears, .name(name), .ordinal(years), .number(years))
    }

    public static func feedBirthdayTitle(name: String) -> Message { Message(.feedBirthdayTitle, .text(name)) }
    public static func feedAnniversaryTitle(name: String) -> Message { Message(.feedAnniversaryTitle, .text(name)) }
    public static func feedBorn(year: Int) -> Message { Message(.feedBorn, .number(year)) }
    public static func feedSince(year: Int) -> Message { Message(.feedSince, .number(year)) }

    /// "today", "tomorrow", "in 5 days".
    public static func days(_ days: Int) -> Message {
        switch days {
        case 0: Message(.today)
        case 1: Message(.tomorrow)
        default: Message(.inDays, .number(days))
        }
    }

    public static func upcomingBirthday(turning age: Int) -> Message { Message(.upcomingBirthdayAge, .number(age)) }
    public static func upcomingAnniversary(years: Int) -> Message { Message(.upcomingAnniversaryYears, .number(years)) }
    public static func upcomingNone(days: Int) -> Message { Message(.upcomingNone, .number(days)) }

    public static func pendingNoneDisabled(status: String) -> Message { Message(.pendingNoneDisabled, .text(status)) }

    public static func showID(_ id: String) -> Message { Message(.showID, .text(id)) }
    /// `date`: as the contact has it; `next`: the next occurrence; `when`: "today", "in 5 days".
    public static func showBirthday(date: String, next: String, when: String, turning age: Int?) -> Message {
        age.map { Message(.showBirthdayAge, .text(date), .text(next), .text(when), .number($0)) }
            ?? Message(.showBirthday, .text(date), .text(next), .text(when))
    }
    public static func showAnniversary(date: String, next: String, when: String, years: Int?) -> Message {
        years.map { Message(.showAnniversaryYears, .text(date), .text(next), .text(when), .number($0)) }
            ?? Message(.showAnniversary, .text(date), .text(next), .text(when))
    }

    public static func onboardingContactsFailed(_ problem: String) -> Message { Message(.onboardingContactsFailed, .text(problem)) }
    public static func onboardingChannelNote(_ detail: String) -> Message { Message(.onboardingChannelNote, .text(detail)) }
    public static func onboardingAlreadyComplete(status: String) -> Message { Message(.onboardingAlreadyComplete, .text(status)) }
    public static func onboardingNextMore(pending: Int) -> Message { Message(.onboardingNextMore, .number(pending)) }
    public static func onboardingChooseAgain(_ first: String, _ second: String) -> Message {
        Message(.onboardingChooseAgain, .text(first), .text(second))
    }

    /// One source's line after `sources add` (`added`) or `sources sync`.
    public static func sourcesSummary(source: String, added: Bool, counts: (added: Int, updated: Int, removed: Int, unchanged: Int)) -> Message {
        Message(
            added ? .sourcesSummaryAdded : .sourcesSummarySynced,
            .text(source),
            .number(counts.added),
            .number(counts.updated),
            .number(counts.removed),
            .number(counts.unchanged)
        )
    }
    public static func sourcesProblems(_ count: Int) -> Message { Message(.sourcesProblems, .number(count)) }
    public static func sourcesRemoved(source: String, peopleLeft: Int) -> Message { Message(.sourcesRemoved, .text(source), .number(peopleLeft)) }
    public static func sourcesRemovedKept(source: String) -> Message { Message(.sourcesRemovedKept, .text(source)) }
}

// MARK: - Samples

extension Message {
    /// Sample arguments for every key, as its signature says: what tests
    /// render in every language.
    public static func sample(_ key: Key, number: Int = 36, name: String = "Ada") -> Message {
        let arguments: [MessageArgument] = key.signature.map { kind in
            switch kind {
            case .text: .text("Text")
            case .name: .name(name)
            case .number: .number(number)
            case .ordinal: .ordinal(number)
            }
        }
        return Message(key: key, arguments: arguments)
    }

    init(key: Key, arguments: [MessageArgument]) {
        self.key = key
        self.arguments = arguments
    }
}
