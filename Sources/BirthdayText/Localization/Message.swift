import BirthdayCore

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
        case birthdayAheadTitle = "reminder.birthday.ahead.title"
        case birthdayAhead = "reminder.birthday.ahead"
        case birthdayAheadAge = "reminder.birthday.ahead.age"
        case anniversaryAheadTitle = "reminder.anniversary.ahead.title"
        case anniversaryAhead = "reminder.anniversary.ahead"
        case anniversaryAheadYears = "reminder.anniversary.ahead.years"
        case birthdayWeeksTitle = "reminder.birthday.weeks.title"
        case birthdayWeeks = "reminder.birthday.weeks"
        case birthdayWeeksAge = "reminder.birthday.weeks.age"
        case anniversaryWeeksTitle = "reminder.anniversary.weeks.title"
        case anniversaryWeeks = "reminder.anniversary.weeks"
        case anniversaryWeeksYears = "reminder.anniversary.weeks.years"
        case roundTitle = "reminder.round.title"
        case roundNote = "reminder.round.note"
        case zonedBirthday = "reminder.zoned.birthday"
        case zonedBirthdayAge = "reminder.zoned.birthday.age"
        case zonedAnniversary = "reminder.zoned.anniversary"
        case zonedBirthdayYesterday = "reminder.zoned.birthday.yesterday"
        case zonedBirthdayAgeYesterday = "reminder.zoned.birthday.age.yesterday"
        case zonedAnniversaryYesterday = "reminder.zoned.anniversary.yesterday"
        case memorialTitle = "reminder.memorial.title"
        case memorialToday = "reminder.memorial.today"
        case memorialTodayAge = "reminder.memorial.today.age"
        case someone = "person.someone"
        case ordinal = "number.ordinal"
        case actionOpen = "notification.action.open"
        case actionSnooze = "notification.action.snooze"
        case actionDismiss = "notification.action.dismiss"
        case actionSkipGreeting = "notification.action.skip-greeting"
        case actionWrite = "notification.action.write"
        case actionCall = "notification.action.call"
        // duplicates: why people are suggested as one (LinkReason)
        case linkReasonSameNameSameBirthday = "link.reason.same.name.same.birthday"
        case linkReasonSimilarNameSameBirthday = "link.reason.similar.name.same.birthday"
        case linkReasonSameNameSameDay = "link.reason.same.name.same.day"
        case linkReasonSimilarNameSameDay = "link.reason.similar.name.same.day"
        case greetingBirthdaySubject = "greeting.birthday.subject"
        case greetingBirthdayMessage = "greeting.birthday.message"
        case greetingAnniversarySubject = "greeting.anniversary.subject"
        case greetingTomorrow = "greeting.tomorrow"
        case showContactWrite = "show.contact.write"
        case showContactCall = "show.contact.call"
        case showContactMessage = "show.contact.message"

        // Other calendars: their names, and the texts of events in them.
        case calendarLunar = "calendar.lunar"
        case calendarHebrew = "calendar.hebrew"
        case calendarIslamic = "calendar.islamic"
        case calendarPersian = "calendar.persian"
        case calendarIndian = "calendar.indian"
        case calendarCoptic = "calendar.coptic"
        case calendarEthiopian = "calendar.ethiopian"
        case calendarBuddhist = "calendar.buddhist"
        case calendarJapanese = "calendar.japanese"
        case calendarMinguo = "calendar.minguo"
        case calendarBirthdayTitle = "reminder.calendar.birthday.title"
        case calendarBirthdayToday = "reminder.calendar.birthday.today"
        case calendarBirthdayTodayAge = "reminder.calendar.birthday.today.age"
        case calendarBirthdayTomorrowTitle = "reminder.calendar.birthday.tomorrow.title"
        case calendarBirthdayTomorrow = "reminder.calendar.birthday.tomorrow"
        case calendarBirthdayTomorrowAge = "reminder.calendar.birthday.tomorrow.age"
        case calendarAnniversaryTitle = "reminder.calendar.anniversary.title"
        case calendarAnniversaryToday = "reminder.calendar.anniversary.today"
        case calendarAnniversaryTodayYears = "reminder.calendar.anniversary.today.years"
        case calendarAnniversaryTomorrowTitle = "reminder.calendar.anniversary.tomorrow.title"
        case calendarAnniversaryTomorrow = "reminder.calendar.anniversary.tomorrow"
        case calendarAnniversaryTomorrowYears = "reminder.calendar.anniversary.tomorrow.years"
        case feedCalendarBirthdayTitle = "feed.calendar.birthday.title"
        case feedCalendarAnniversaryTitle = "feed.calendar.anniversary.title"
        case upcomingCalendarBirthday = "upcoming.calendar.birthday"
        case upcomingCalendarBirthdayAge = "upcoming.calendar.birthday.age"
        case upcomingCalendarAnniversary = "upcoming.calendar.anniversary"
        case upcomingCalendarAnniversaryYears = "upcoming.calendar.anniversary.years"
        case upcomingLabelledAge = "upcoming.labelled.age"
        case upcomingLabelledYears = "upcoming.labelled.years"
        case labelledTitle = "labelled.title"
        case labelledBody = "labelled.body"
        case labelExcluded = "label.excluded"
        case labelIncluded = "label.included"
        case nameDayLabel = "nameday.label"
        case showCalendarBirthday = "show.calendar.birthday"
        case showCalendarBirthdayAge = "show.calendar.birthday.age"
        case showCalendarAnniversary = "show.calendar.anniversary"
        case showCalendarAnniversaryYears = "show.calendar.anniversary.years"

        // The calendar feed.
        case feedBirthdayTitle = "feed.birthday.title"
        case feedAnniversaryTitle = "feed.anniversary.title"
        case feedMemorialTitle = "feed.memorial.title"
        case feedBorn = "feed.born"
        case feedSince = "feed.since"
        case feedAgeBirthday = "feed.age.birthday"
        case feedAgeAnniversary = "feed.age.anniversary"

        // Days and dates.
        case today = "day.today"
        case tomorrow = "day.tomorrow"
        case inDays = "day.in"
        case datePattern = "date.weekday-day-month"
        /// A date in another calendar in words (``CalendarDate/words(in:)``).
        case dateCalendarDayMonth = "date.calendar.day-month"
        case dateCalendarDayLeapMonth = "date.calendar.day-month.leap"
        case dateCalendarDayMonthYear = "date.calendar.day-month.year"

        // The digest
        case digestWeekTitle = "digest.title.week"
        case digestMonthTitle = "digest.title.month"
        case digestSpanTitle = "digest.title.span"
        case digestWeekTitleMixed = "digest.title.week.mixed"
        case digestMonthTitleMixed = "digest.title.month.mixed"
        case digestSpanTitleMixed = "digest.title.span.mixed"
        case digestMore = "digest.more"
        case digestLine = "digest.line"
        case digestLineMarked = "digest.line.marked"
        case digestNone = "digest.none"
        case digestOff = "digest.off"
        case digestNext = "digest.next"
        case listSeparator = "list.separator"
        case listAndPair = "list.and.pair"
        case listAndStart = "list.and.start"
        case listAndEnd = "list.and.end"

        // A team room's announcement (`birthdays announce`).
        case announce = "announce.message"
        case announceNameAge = "announce.name.age"
        case announceTest = "announce.test"

        // The web page for the year
        case pageTitle = "page.title"
        case pageNext = "page.next"
        case pageYear = "page.year"
        case pageRound = "page.round"
        case pageSubscribe = "page.subscribe"
        case pageSubscribeWebcal = "page.subscribe.webcal"
        case pageSubscribeFile = "page.subscribe.file"
        case pageSubscribeJSON = "page.subscribe.json"
        case pagePrintMonths = "page.print.months"
        case pageQR = "page.qr"
        case pageQRLoopback = "page.qr.loopback"

        // An invitation's form (`birthdays invite`), and the owner's message when it is answered
        case inviteTitle = "invite.title"
        case inviteIntro = "invite.intro"
        case inviteWhoDefault = "invite.who.default"
        case inviteName = "invite.name"
        case inviteBirthday = "invite.birthday"
        case inviteDay = "invite.day"
        case inviteMonth = "invite.month"
        case inviteYear = "invite.year"
        case inviteSend = "invite.send"
        case inviteProblemName = "invite.problem.name"
        case inviteProblemDate = "invite.problem.date"
        case inviteProblemYear = "invite.problem.year"
        case inviteProblemStale = "invite.problem.stale"
        case inviteProblemFuture = "invite.problem.future"
        case inviteProblemBusy = "invite.problem.busy"
        case inviteThanks = "invite.thanks"
        case inviteGone = "invite.gone"
        case inviteNoticeTitle = "invite.notice.title"
        case inviteArrived = "invite.arrived"
        case inviteArrivedAccepted = "invite.arrived.accepted"
        case inviteUsedUp = "invite.usedup"

        // upcoming
        case upcomingBirthday = "upcoming.birthday"
        case upcomingBirthdayAge = "upcoming.birthday.age"
        case upcomingAnniversary = "upcoming.anniversary"
        case upcomingAnniversaryYears = "upcoming.anniversary.years"
        case upcomingMemorial = "upcoming.memorial"
        case upcomingMemorialAge = "upcoming.memorial.age"
        case upcomingNoName = "upcoming.no-name"
        case upcomingNone = "upcoming.none"

        // pending
        case pendingID = "pending.header.id"
        case pendingFires = "pending.header.fires"
        case pendingWhen = "pending.header.when"
        case pendingTitle = "pending.header.title"
        case pendingBody = "pending.header.body"
        case pendingDayBefore = "pending.day-before"
        case pendingDayOf = "pending.day-of"
        case pendingSnoozed = "pending.snoozed"
        case pendingDaysBefore = "pending.days-before"
        case pendingDigestWeekly = "pending.digest.weekly"
        case pendingDigestMonthly = "pending.digest.monthly"
        case pendingNone = "pending.none"
        case pendingNoneDisabled = "pending.none.disabled"

        // show (and the details a click on a reminder shows)
        case showID = "show.id"
        case showBirthday = "show.birthday"
        case showBirthdayAge = "show.birthday.age"
        case showAnniversary = "show.anniversary"
        case showAnniversaryYears = "show.anniversary.years"
        case showLabelled = "show.labelled"
        case showLabelledAge = "show.labelled.age"
        case showLabelledYears = "show.labelled.years"
        case showExcluded = "show.excluded"
        case showNickname = "show.nickname"
        case showDeceased = "show.deceased"
        case showReminderDays = "show.reminder-days"
        case showChannels = "show.channels"
        case showWeekendFriday = "show.weekend.friday"
        case showUndated = "show.undated"
        case showNote = "show.note"
        case showGroups = "show.groups"
        case showExcludedGroup = "show.excluded.group"
        case showExcludedSource = "show.excluded.source"
        case showIncludedGroup = "show.included.group"
        case showIncludedSource = "show.included.source"
        case showReminderDaysShared = "show.reminder-days.shared"

        // exclude, include, remind
        case personExcluded = "person.excluded"
        case personIncluded = "person.included"
        case personExcludedAnnounce = "person.excluded.announce"
        case personIncludedAnnounce = "person.included.announce"
        case personNote = "person.note"
        case personNoteCleared = "person.note.cleared"
        case personRemind = "person.remind"
        case personRemindDefault = "person.remind.default"
        case personRemindChannels = "person.remind.channels"
        case personRemindWeekendFriday = "person.remind.weekend.friday"
        case personRemindWeekendOff = "person.remind.weekend.off"
        case personRemindDefaultDelivery = "person.remind.default.delivery"
        case personZoneChosen = "person.zone.chosen"
        case personZoneChosenOffset = "person.zone.chosen.offset"
        case personZoneLocal = "person.zone.local"
        case personZoneCard = "person.zone.card"
        case personZoneCardNone = "person.zone.card.none"
        case showZoneCard = "show.zone.card"
        case showZoneChoice = "show.zone.choice"
        case showZoneLocal = "show.zone.local"
        case showUnreadable = "show.unreadable"
        case showCard = "show.card"
        case showCardNamed = "show.card.named"
        case showDatesDisagree = "show.dates.disagree"
        case showDateOfCard = "show.date.of.card"
        case showDatesUsedDateFrom = "show.dates.used.date-from"
        case showDatesUsedYear = "show.dates.used.year"
        case showDatesUsedChanged = "show.dates.used.changed"
        case showDatesUsedOrder = "show.dates.used.order"

        // notifications test (and the onboarding's test notification)
        case testTitle = "test.title"
        case testBody = "test.body"
        case testOK = "test.ok"
        case testFailed = "test.failed"
        case testNoChannels = "test.no-channels"
        case testProvisional = "test.provisional"
        case testDisabled = "test.disabled"
        case testDisabledRooms = "test.disabled.rooms"
        case testNotAsked = "test.not-asked"

        // Why a channel could not deliver, in words (not the D-Bus error).
        case errorNoBus = "delivery.error.no-bus"
        case errorNoServer = "delivery.error.no-server"
        case errorRefused = "delivery.error.refused"
        case errorTimeout = "delivery.error.timeout"
        case errorDisconnected = "delivery.error.disconnected"
        case errorNoCommand = "delivery.error.no-command"
        case errorCommandNotStarted = "delivery.error.command-not-started"
        case errorCommandFailed = "delivery.error.command-failed"
        case errorCommandKilled = "delivery.error.command-killed"
        case errorCommandTimeout = "delivery.error.command-timeout"
        case errorCancelled = "delivery.error.cancelled"
        case errorLog = "delivery.error.log"
        case errorRemoteUnavailable = "delivery.error.remote-unavailable"
        case testErrorRemoteUnavailable = "test.error.remote-unavailable"
        case reminderLate = "reminder.late"
        case errorRemoteRefused = "delivery.error.remote-refused"

        // service install (and the onboarding's offer)
        case serviceTrial = "service.trial"
        case serviceManual = "service.manual"
        case serviceInstalled = "service.installed"
        case serviceStarted = "service.started"
        case serviceEnabled = "service.enabled"
        case serviceRemoved = "service.removed"

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
        case onboardingNotRunning = "onboarding.not-running"
        case onboardingAlreadyComplete = "onboarding.already-complete"
        case onboardingPaused = "onboarding.paused"
        case onboardingResumeContacts = "onboarding.resume.contacts"
        case onboardingResumeNotifications = "onboarding.resume.notifications"
        case onboardingResumeChannels = "onboarding.resume.channels"
        case onboardingResumeService = "onboarding.resume.service"
        case onboardingNextNone = "onboarding.next.none"
        case onboardingNextTitle = "onboarding.next.title"
        case onboardingNextMore = "onboarding.next.more"
        case onboardingChooseAgain = "onboarding.choose-again"
        case onboardingServiceTitle = "onboarding.service.title"
        case onboardingServiceReason = "onboarding.service.reason"
        case onboardingServiceInstall = "onboarding.service.install"
        case onboardingServiceSkip = "onboarding.service.skip"
        case onboardingServiceLater = "onboarding.service.later"
        case onboardingTestSending = "onboarding.test.sending"
        case onboardingOnProvisionalChannels = "onboarding.on.provisional.channels"
        case onboardingChannelsTitle = "onboarding.channels.title"
        case onboardingChannelsReason = "onboarding.channels.reason"
        case onboardingChannelsEmail = "onboarding.channels.email"
        case onboardingChannelsNtfy = "onboarding.channels.ntfy"
        case onboardingChannelsSkip = "onboarding.channels.skip"
        case onboardingChannelsEmailPrompt = "onboarding.channels.email.prompt"
        case onboardingChannelsNtfyPrompt = "onboarding.channels.ntfy.prompt"
        case onboardingChannelsNotAdded = "onboarding.channels.not-added"
        case onboardingChannelsTesting = "onboarding.channels.testing"
        case onboardingChannelsSent = "onboarding.channels.sent"
        case onboardingChannelsFailed = "onboarding.channels.failed"
        case onboardingGreetingsLater = "onboarding.greetings.later"
        case onboardingChooseAmong = "onboarding.choose-among"
        case onboardingStartReason = "onboarding.start.reason"
        case onboardingStartNow = "onboarding.start.now"
        case onboardingStartStarted = "onboarding.start.started"
        case onboardingStartSlow = "onboarding.start.slow"
        case onboardingStartFailed = "onboarding.start.failed"

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

        // name-days
        case nameDaysOff = "namedays.off"
        case nameDaysNone = "namedays.none"
        case nameDaysHeaderID = "namedays.header.id"
        case nameDaysHeaderName = "namedays.header.name"
        case nameDaysHeaderMatched = "namedays.header.matched"
        case nameDaysHeaderDay = "namedays.header.day"
        case nameDaysHeaderList = "namedays.header.list"
        case nameDaysRowOff = "namedays.row.off"
        case nameDaysRowSet = "namedays.row.set"
        case nameDaysRowAsked = "namedays.row.asked"
        case nameDaysPersonOff = "namedays.person.off"
        case nameDaysPersonDay = "namedays.person.day"
        case nameDaysPersonLists = "namedays.person.lists"
        case nameDaysPersonOffHint = "namedays.person.off-hint"
        case nameDaysImported = "namedays.import.done"
        case nameDaysImportProblems = "namedays.import.problems"
        case nameDaysImportEmpty = "namedays.import.empty"
        case nameDaysImportUnreadable = "namedays.import.unreadable"
        case nameDaysNotADay = "namedays.import.not-a-day"

        // publish
        case publishListingPropfind = "publish.listing.propfind"

        // write-back (a birthday accepted from an invitation, written to the person's card)
        case writeBackWritten = "writeback.written"
        case writeBackNoCard = "writeback.no-card"
        case writeBackFileSource = "writeback.file-source"
        case writeBackCardHasBirthday = "writeback.card-has-birthday"
        case writeBackFailed = "writeback.failed"

        /// The arguments, in order (placeholder `%1$…` is the first).
        public var signature: [MessageArgument.Kind] {
            switch self {
            case .birthdayTitle, .birthdayToday, .birthdayTomorrow, .anniversaryTitle, .anniversaryToday, .anniversaryTomorrow, .memorialTitle,
                .memorialToday, .actionWrite, .actionCall, .personExcluded, .personIncluded, .personRemindWeekendFriday, .personRemindWeekendOff,
                .personRemindDefaultDelivery, .personZoneLocal, .personZoneCardNone, .personNoteCleared:
                [.name]
            case .personNote: [.name, .text]
            case .birthdayTodayAge, .birthdayTomorrowAge, .memorialTodayAge: [.name, .number]
            case .anniversaryTodayYears, .anniversaryTomorrowYears: [.name, .ordinal, .number]
            case .birthdayAhead, .anniversaryAhead, .birthdayWeeks, .anniversaryWeeks: [.name, .number]
            case .birthdayAheadAge, .birthdayWeeksAge: [.name, .number, .number]
            case .anniversaryAheadYears, .anniversaryWeeksYears: [.name, .ordinal, .number, .number]
            case .dateCalendarDayMonth, .dateCalendarDayLeapMonth: [.ordinal, .ordinal, .number, .number]
            case .dateCalendarDayMonthYear: [.ordinal, .ordinal, .number, .number, .number]
            case .personRemind, .personRemindDefault, .personRemindChannels, .personZoneChosenOffset, .personZoneCard: [.name, .text]
            case .personZoneChosen: [.name, .text, .text]
            case .calendarLunar, .calendarHebrew, .calendarIslamic, .calendarPersian, .calendarIndian, .calendarCoptic, .calendarEthiopian,
                .calendarBuddhist, .calendarJapanese, .calendarMinguo, .showZoneLocal:
                []
            case .calendarBirthdayTitle, .calendarBirthdayToday, .calendarBirthdayTomorrow, .calendarAnniversaryTitle, .calendarAnniversaryToday,
                .calendarAnniversaryTomorrow:
                [.name, .text]
            case .calendarBirthdayTodayAge, .calendarBirthdayTomorrowAge: [.name, .number, .text]
            case .zonedBirthday, .zonedAnniversary, .zonedBirthdayYesterday, .zonedAnniversaryYesterday: [.name, .text, .text]
            case .zonedBirthdayAge, .zonedBirthdayAgeYesterday: [.name, .number, .text, .text]
            case .calendarAnniversaryTodayYears, .calendarAnniversaryTomorrowYears: [.name, .ordinal, .number, .text]
            case .calendarBirthdayTomorrowTitle, .calendarAnniversaryTomorrowTitle, .upcomingCalendarBirthday, .upcomingCalendarAnniversary: [.text]
            case .feedCalendarBirthdayTitle, .feedCalendarAnniversaryTitle, .showReminderDaysShared: [.text, .text]
            case .feedAgeBirthday, .feedAgeAnniversary: [.text, .number]
            case .upcomingCalendarBirthdayAge, .upcomingCalendarAnniversaryYears, .upcomingLabelledAge, .upcomingLabelledYears: [.number, .text]
            case .showCalendarBirthday, .showCalendarAnniversary: [.text, .text, .text, .text]
            case .showCalendarBirthdayAge, .showCalendarAnniversaryYears: [.text, .text, .text, .number, .text]
            case .feedBirthdayTitle, .feedAnniversaryTitle, .feedMemorialTitle: [.text]
            case .labelledTitle: [.name, .text]
            case .labelledBody: [.text, .text]
            case .labelExcluded, .labelIncluded: [.text, .number]
            case .nameDayLabel: []
            case .ordinal, .feedBorn, .feedSince, .inDays, .pageYear, .upcomingBirthdayAge, .upcomingAnniversaryYears, .upcomingMemorialAge,
                .upcomingNone,
                .onboardingNextMore, .birthdayAheadTitle, .anniversaryAheadTitle, .birthdayWeeksTitle, .anniversaryWeeksTitle, .pendingDaysBefore,
                .errorCommandFailed, .errorCommandKilled, .errorCommandTimeout:
                [.number]
            case .pendingNoneDisabled, .showID, .showNote, .showNickname, .showContactWrite, .showContactCall, .showContactMessage, .showDeceased,
                .showReminderDays, .showChannels, .onboardingContactsFailed,
                .showGroups, .showZoneCard, .showZoneChoice, .showExcludedGroup, .showExcludedSource, .showIncludedGroup, .showIncludedSource,
                .onboardingChannelNote,
                .onboardingAlreadyComplete, .testOK, .testDisabled, .testDisabledRooms, .testNotAsked, .errorCommandNotStarted, .serviceInstalled,
                .serviceRemoved,
                .errorRemoteUnavailable, .testErrorRemoteUnavailable, .errorRemoteRefused, .reminderLate:
                [.text]
            case .showBirthday, .showAnniversary: [.text, .text, .text]
            case .showBirthdayAge, .showAnniversaryYears: [.text, .text, .text, .number]
            case .showLabelled: [.text, .text, .text, .text]
            case .showLabelledAge, .showLabelledYears: [.text, .text, .text, .text, .number]
            case .showCard, .showCardNamed: [.text, .text]
            case .showDateOfCard: [.text, .text, .text]
            case .showDatesDisagree, .showDatesUsedDateFrom, .showDatesUsedYear, .showDatesUsedChanged, .showDatesUsedOrder: [.text]
            case .onboardingChooseAgain, .showUnreadable, .testFailed, .onboardingChannelsTesting, .onboardingChannelsFailed,
                .onboardingStartStarted, .onboardingStartSlow, .onboardingStartFailed:
                [.text, .text]
            case .onboardingChannelsNotAdded, .onboardingChannelsSent, .onboardingChooseAmong, .onboardingStartReason: [.text]
            case .sourcesSummaryAdded, .sourcesSummarySynced: [.text, .number, .number, .number, .number]
            case .sourcesProblems: [.number]
            case .sourcesRemoved: [.text, .number]
            case .sourcesRemovedKept: [.text]
            case .writeBackWritten, .writeBackFileSource, .writeBackCardHasBirthday: [.text]
            case .writeBackFailed: [.text, .text]
            case .writeBackNoCard: []
            case .nameDaysOff, .nameDaysImportEmpty, .nameDaysNotADay: [.text]
            case .nameDaysNone, .nameDaysRowAsked, .nameDaysImportProblems: [.number]
            case .nameDaysHeaderID, .nameDaysHeaderName, .nameDaysHeaderMatched, .nameDaysHeaderDay, .nameDaysHeaderList, .nameDaysRowOff,
                .nameDaysRowSet, .nameDaysPersonOffHint:
                []
            case .nameDaysPersonOff, .nameDaysPersonLists, .greetingBirthdayMessage: [.name]
            case .nameDaysPersonDay: [.name, .text]
            case .greetingTomorrow: [.name, .text, .text]
            case .nameDaysImported: [.text, .number, .text]
            case .nameDaysImportUnreadable: [.text, .text]
            case .digestWeekTitle, .digestWeekTitleMixed, .digestNext: [.text]
            case .digestMonthTitle, .digestMonthTitleMixed, .digestNone: [.text, .text]
            case .digestSpanTitle, .digestSpanTitleMixed, .digestLine: [.text, .text, .text]
            case .digestLineMarked: [.text, .text, .text, .text]
            case .digestMore: [.number]
            case .announce, .announceTest: [.text]
            case .personExcludedAnnounce, .personIncludedAnnounce: [.name, .text]
            case .announceNameAge: [.text, .number]
            case .inviteArrived, .inviteArrivedAccepted, .inviteUsedUp: [.text, .number]
            case .inviteTitle, .inviteIntro, .inviteWhoDefault, .inviteName, .inviteBirthday, .inviteDay, .inviteMonth, .inviteYear, .inviteSend,
                .inviteProblemName, .inviteProblemDate, .inviteProblemYear, .inviteProblemStale, .inviteProblemFuture, .inviteProblemBusy,
                .inviteThanks, .inviteGone, .inviteNoticeTitle:
                []
            case .listAndPair, .listAndStart, .listAndEnd: [.text, .text]
            case .digestOff, .listSeparator, .roundTitle, .roundNote, .greetingBirthdaySubject, .greetingAnniversarySubject: []
            case .linkReasonSameNameSameBirthday, .linkReasonSimilarNameSameBirthday, .linkReasonSameNameSameDay, .linkReasonSimilarNameSameDay: []
            case .someone, .actionOpen, .actionSnooze, .actionDismiss, .birthdayTomorrowTitle, .anniversaryTomorrowTitle, .today, .tomorrow,
                .datePattern, .upcomingBirthday, .upcomingMemorial,
                .upcomingAnniversary, .upcomingNoName, .pendingID, .pendingFires, .pendingWhen, .pendingTitle, .pendingBody,
                .pendingDayBefore, .pendingDayOf, .pendingSnoozed, .pendingDigestWeekly, .pendingDigestMonthly, .pendingNone, .showExcluded,
                .showWeekendFriday, .showUndated, .testTitle, .testBody,
                .testNoChannels,
                .testProvisional, .errorNoBus, .errorNoServer, .errorRefused, .errorTimeout, .errorDisconnected, .errorNoCommand,
                .errorCancelled, .errorLog, .serviceTrial, .serviceManual, .serviceStarted, .serviceEnabled, .onboardingWelcome,
                .onboardingWelcomeDetail,
                .onboardingContinue, .onboardingContactsSkipped, .onboardingContactsTitle, .onboardingContactsPrompt,
                .onboardingContactsSkipWord, .onboardingPrimerTitle, .onboardingPrimerReason, .onboardingPrimerEnable,
                .onboardingPrimerLater, .onboardingChannelProvisional, .onboardingPermissionQuestion, .onboardingPermissionAllow,
                .onboardingPermissionDeny, .onboardingOn, .onboardingOnProvisional, .onboardingOffDenied, .onboardingOffLater,
                .onboardingAlreadyDenied, .onboardingDone, .onboardingNotRunning, .onboardingPaused, .onboardingNextNone, .onboardingNextTitle,
                .onboardingResumeContacts, .onboardingResumeNotifications, .onboardingResumeChannels, .onboardingResumeService,
                .onboardingServiceTitle, .onboardingServiceReason, .onboardingServiceInstall, .onboardingServiceSkip,
                .onboardingServiceLater, .onboardingTestSending, .onboardingOnProvisionalChannels, .onboardingChannelsTitle,
                .onboardingChannelsReason, .onboardingChannelsEmail, .onboardingChannelsNtfy, .onboardingChannelsSkip,
                .onboardingChannelsEmailPrompt, .onboardingChannelsNtfyPrompt, .onboardingGreetingsLater, .onboardingStartNow, .actionSkipGreeting,
                .sourcesHeaderName, .sourcesHeaderKind, .sourcesHeaderPeople, .sourcesHeaderLastSync, .sourcesHeaderLocation,
                .sourcesNever, .sourcesNone, .pageTitle, .pageNext, .pageRound, .pageSubscribe, .pageSubscribeWebcal, .pageSubscribeFile,
                .pageSubscribeJSON, .pagePrintMonths, .pageQR, .pageQRLoopback, .publishListingPropfind:
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
    /// "It is Mei's birthday in Tokyo (since 16:00 here)!", or "Mei turns 36 today in Tokyo (since 16:00 here)!" with an age;
    /// "(since 23:00 yesterday here)" when their day began the evening before on your clock.
    public static func zonedBirthday(name: String, turning age: Int?, place: String, since time: String, yesterday: Bool = false) -> Message {
        guard let age else { return Message(yesterday ? .zonedBirthdayYesterday : .zonedBirthday, .name(name), .text(place), .text(time)) }
        return Message(yesterday ? .zonedBirthdayAgeYesterday : .zonedBirthdayAge, .name(name), .number(age), .text(place), .text(time))
    }
    /// "It is Ada's anniversary in Tokyo (since 16:00 here)!"
    public static func zonedAnniversary(name: String, place: String, since time: String, yesterday: Bool = false) -> Message {
        Message(yesterday ? .zonedAnniversaryYesterday : .zonedAnniversary, .name(name), .text(place), .text(time))
    }
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

    /// Some days before an event (2 or more): "Birthday in 3 days", "Birthday in a week".
    /// A whole number of weeks is said in weeks, anything else in days.
    public static func aheadTitle(_ kind: EventKind, daysBefore days: Int) -> Message {
        let weeks = days % 7 == 0
        let key: Key =
            switch kind {
            case .birthday: weeks ? .birthdayWeeksTitle : .birthdayAheadTitle
            case .anniversary, .labelled: weeks ? .anniversaryWeeksTitle : .anniversaryAheadTitle
            }
        return Message(key, .number(weeks ? days / 7 : days))
    }

    /// "Ada's birthday is in 3 days!", "Ada turns 36 in a week!", "Ada's 10th anniversary is in 2 weeks!"
    /// (`age`: the age turned, or years married; `nil` when the year is unknown).
    public static func ahead(_ kind: EventKind, name: String, daysBefore days: Int, age: Int?) -> Message {
        let weeks = days % 7 == 0
        let count = MessageArgument.number(weeks ? days / 7 : days)
        switch (kind, age) {
        case (.birthday, nil): return Message(weeks ? .birthdayWeeks : .birthdayAhead, .name(name), count)
        case (.birthday, let age?): return Message(weeks ? .birthdayWeeksAge : .birthdayAheadAge, .name(name), .number(age), count)
        case (.anniversary, nil), (.labelled, nil): return Message(weeks ? .anniversaryWeeks : .anniversaryAhead, .name(name), count)
        case (.anniversary, let years?), (.labelled, let years?):
            return Message(weeks ? .anniversaryWeeksYears : .anniversaryAheadYears, .name(name), .ordinal(years), .number(years), count)
        }
    }

    public static func memorialTitle(name: String) -> Message { Message(.memorialTitle, .name(name)) }
    /// "Ada would have turned 80 today.", or "Today would have been Ada's birthday." without an age.
    public static func memorialToday(name: String, turning age: Int?) -> Message {
        age.map { Message(.memorialTodayAge, .name(name), .number($0)) } ?? Message(.memorialToday, .name(name))
    }

    /// What `exclude --label` and `include --label` say: the label, and how many stored dates carry it.
    public static func labelExcluded(_ label: String, dates: Int) -> Message { Message(.labelExcluded, .text(label), .number(dates)) }
    public static func labelIncluded(_ label: String, dates: Int) -> Message { Message(.labelIncluded, .text(label), .number(dates)) }
    /// "Johnny Appleseed: Started work": a reminder's and a feed event's title for a labelled date.
    public static func labelledTitle(name: String, label: String) -> Message { Message(.labelledTitle, .name(name), .text(label)) }
    public static func feedBirthdayTitle(name: String) -> Message { Message(.feedBirthdayTitle, .text(name)) }
    public static func feedAnniversaryTitle(name: String) -> Message { Message(.feedAnniversaryTitle, .text(name)) }
    public static func feedBorn(year: Int) -> Message { Message(.feedBorn, .number(year)) }
    public static func feedSince(year: Int) -> Message { Message(.feedSince, .number(year)) }
    /// One year's feed title with the age ("🎂 Ada (36)", "Adaさんの誕生日（36歳）"): `title` is the title without it.
    public static func feedAge(_ kind: EventKind, title: String, age: Int) -> Message {
        Message(kind == .birthday ? .feedAgeBirthday : .feedAgeAnniversary, .text(title), .number(age))
    }

    /// "today", "tomorrow", "in 5 days".
    public static func days(_ days: Int) -> Message {
        switch days {
        case 0: Message(.today)
        case 1: Message(.tomorrow)
        default: Message(.inDays, .number(days))
        }
    }

    /// The digest's titles: the week ahead, a month ("December"), or any span of days; `names` are the first names.
    /// With `anniversaries`, the titles say "birthdays and anniversaries".
    public static func digestWeekTitle(_ names: String, anniversaries: Bool = false) -> Message {
        Message(anniversaries ? .digestWeekTitleMixed : .digestWeekTitle, .text(names))
    }
    public static func digestMonthTitle(_ month: String, _ names: String, anniversaries: Bool = false) -> Message {
        Message(anniversaries ? .digestMonthTitleMixed : .digestMonthTitle, .text(month), .text(names))
    }
    public static func digestSpanTitle(_ first: String, _ last: String, _ names: String, anniversaries: Bool = false) -> Message {
        Message(anniversaries ? .digestSpanTitleMixed : .digestSpanTitle, .text(first), .text(last), .text(names))
    }
    /// "+2 more": the people the digest's title does not name.
    public static func digestMore(_ count: Int) -> Message { Message(.digestMore, .number(count)) }
    /// A team room's message: "🎂 Happy birthday, Ada Lovelace and Alan Turing!" (`names`: the list, joined).
    public static func announce(names: String) -> Message { Message(.announce, .text(names)) }
    /// `announce test`'s message to a room: "🎂 A test from birthdays: …", naming the room's `group`.
    public static func announceTest(group: String) -> Message { Message(.announceTest, .text(group)) }
    /// `exclude PERSON --announce ROOM` (`excluded`) or `include PERSON --announce ROOM`.
    public static func personAnnounce(name: String, room: String, excluded: Bool) -> Message {
        Message(excluded ? .personExcludedAnnounce : .personIncludedAnnounce, .name(name), .text(room))
    }
    /// A name in a room's message with the age turned (`--ages`): "Ada Lovelace (36)".
    public static func announceNameAge(name: String, age: Int) -> Message { Message(.announceNameAge, .text(name), .number(age)) }
    /// Why `duplicates` suggests people as one: "same name, same birthday; no shared address".
    public static func linkReason(_ reason: LinkReason) -> Message {
        switch reason {
        case .sameNameSameBirthday: Message(.linkReasonSameNameSameBirthday)
        case .similarNameSameBirthday: Message(.linkReasonSimilarNameSameBirthday)
        case .sameNameSameDay: Message(.linkReasonSameNameSameDay)
        case .similarNameSameDay: Message(.linkReasonSimilarNameSameDay)
        }
    }
    /// Two items of a list: "Ada and Alan".
    public static func listAndPair(_ first: String, _ second: String) -> Message { Message(.listAndPair, .text(first), .text(second)) }
    /// An item before the rest of a list of three or more: "Ada, Alan, and Grace".
    public static func listAndStart(_ first: String, _ rest: String) -> Message { Message(.listAndStart, .text(first), .text(rest)) }
    /// The last two items of a list of three or more: "Alan, and Grace".
    public static func listAndEnd(_ first: String, _ last: String) -> Message { Message(.listAndEnd, .text(first), .text(last)) }
    /// `birthdays digest` for a period without events, from `first` to `last`.
    public static func digestNone(from first: String, to last: String) -> Message { Message(.digestNone, .text(first), .text(last)) }
    /// `birthdays digest`: when the next digest is sent.
    public static func digestNext(_ when: String) -> Message { Message(.digestNext, .text(when)) }

    public static func upcomingBirthday(turning age: Int) -> Message { Message(.upcomingBirthdayAge, .number(age)) }
    public static func upcomingAnniversary(years: Int) -> Message { Message(.upcomingAnniversaryYears, .number(years)) }
    public static func upcomingNone(days: Int) -> Message { Message(.upcomingNone, .number(days)) }
    public static func upcomingMemorial(turning age: Int) -> Message { Message(.upcomingMemorialAge, .number(age)) }

    /// The pending table's "when" column for a reminder `days` before (2 or more).
    public static func pendingDaysBefore(_ days: Int) -> Message { Message(.pendingDaysBefore, .number(days)) }

    /// The pending table's "when" column for `request`: snoozed; a digest
    /// as what it is ("weekly digest": it is sent on its first day, but is
    /// about no one day); else how long before the day ("day-of",
    /// "day-before", "7 days before").
    public static func pendingWhen(_ request: NotificationRequest, snoozed: Bool) -> Message {
        if snoozed { return Message(.pendingSnoozed) }
        switch request.deliveryKind {
        case .digest(.weekly): return Message(.pendingDigestWeekly)
        case .digest(.monthly): return Message(.pendingDigestMonthly)
        case .digest(.off), .reminder, .announcement, .invitationNotice, .greeting: break
        }
        switch request.timing.daysBefore {
        case 0: return Message(.pendingDayOf)
        case 1: return Message(.pendingDayBefore)
        case let days: return pendingDaysBefore(days)
        }
    }

    public static func pendingNoneDisabled(status: String) -> Message { Message(.pendingNoneDisabled, .text(status)) }

    public static func showID(_ id: String) -> Message { Message(.showID, .text(id)) }
    /// "Note: likes orchids" (``PersonNote``).
    public static func showNote(_ note: String) -> Message { Message(.showNote, .text(note)) }
    public static func showNickname(_ nickname: String) -> Message { Message(.showNickname, .text(nickname)) }
    /// A way to reach the person as `show` lists it: "Write: ada@example.org", "Call: …", "Message: xmpp:…".
    public static func showContact(_ point: ContactPoint) -> Message {
        let key: Key =
            switch point.kind {
            case .email: .showContactWrite
            case .phone: .showContactCall
            case .impp: .showContactMessage
            }
        return Message(key, .text(point.value))
    }
    /// The notification button that reaches the person: "Write to Ada" (e-mail, instant message) or "Call Ada".
    public static func reach(_ kind: ContactPoint.Kind, name: String) -> Message { Message(kind == .phone ? .actionCall : .actionWrite, .name(name)) }
    /// The subject of the e-mail the button starts: "Happy birthday!" or the
    /// anniversary's; none for a labelled date or a name day, whose day is not
    /// the person's birthday ("Started work", a child's birthday).
    public static func greetingSubject(_ kind: EventKind) -> Message? {
        switch kind {
        case .birthday: Message(.greetingBirthdaySubject)
        case .anniversary: Message(.greetingAnniversarySubject)
        case .labelled: nil
        }
    }
    /// The default greeting a friend gets (`birthdays greet`): "Happy birthday, Ana, and have a wonderful day!";
    /// `first` is the first name, already made harmless; no age.
    public static func greeting(first: String) -> Message { Message(.greetingBirthdayMessage, .name(first)) }

    /// The line the day-before reminder of a greeted friend ends with: "A greeting goes to Ana tomorrow at 09:00
    /// their time (skip: birthdays greet skip Ana)"; `time` on their clock, `skip` the person as `greet skip` takes them.
    public static func greetingTomorrow(name: String, time: String, skip: String) -> Message {
        Message(.greetingTomorrow, .name(name), .text(time), .text(skip))
    }
    public static func showDeceased(_ date: String) -> Message { Message(.showDeceased, .text(date)) }
    public static func showReminderDays(_ days: ReminderDays) -> Message { Message(.showReminderDays, .text(days.description)) }
    /// `channels`: the person's channel names, as a comma list.
    public static func showChannels(_ channels: [String]) -> Message { Message(.showChannels, .text(channels.joined(separator: ", "))) }
    /// `groups`: the person's group names, as a comma list.
    public static func showGroups(_ groups: [String]) -> Message { Message(.showGroups, .text(groups.joined(separator: ", "))) }
    /// Left out (or, `excluded` false, kept in against another rule) by the rule of `scope`.
    public static func showSharedExclusion(_ scope: RuleScope, excluded: Bool) -> Message {
        switch scope {
        case .group(let name): Message(excluded ? .showExcludedGroup : .showIncludedGroup, .text(name))
        case .source(let name): Message(excluded ? .showExcludedSource : .showIncludedSource, .text(name))
        }
    }
    /// The reminder days the groups and sources `from` (their names) give the person.
    public static func showReminderDaysShared(_ days: ReminderDays, from: [String]) -> Message {
        Message(.showReminderDaysShared, .text(days.description), .text(from.joined(separator: ", ")))
    }

    public static func personExcluded(name: String) -> Message { Message(.personExcluded, .name(name)) }
    public static func personIncluded(name: String) -> Message { Message(.personIncluded, .name(name)) }
    /// "Note for Ada: likes orchids", or that there is none any more (`note == nil`).
    public static func personNote(name: String, note: String?) -> Message {
        guard let note else { return Message(.personNoteCleared, .name(name)) }
        return Message(.personNote, .name(name), .text(note))
    }
    public static func personRemind(name: String, days: ReminderDays) -> Message { Message(.personRemind, .name(name), .text(days.description)) }
    public static func personRemindDefault(name: String, days: ReminderDays) -> Message {
        Message(.personRemindDefault, .name(name), .text(days.description))
    }
    public static func personRemindChannels(name: String, channels: [String]) -> Message {
        Message(.personRemindChannels, .name(name), .text(channels.joined(separator: ", ")))
    }
    public static func personRemindWeekend(name: String, rule: WeekendRule?) -> Message {
        Message(rule == .friday ? .personRemindWeekendFriday : .personRemindWeekendOff, .name(name))
    }
    public static func personRemindDefaultDelivery(name: String) -> Message { Message(.personRemindDefaultDelivery, .name(name)) }
    /// `birthdays zone`: what the person's reminders follow now, `choice`
    /// (`nil` after `--default`: then `cardZone`, the card's, or the user's own).
    public static func personZone(name: String, choice: ZoneChoice?, cardZone: PersonZone?) -> Message {
        switch choice {
        case .zone(let zone):
            guard let identifier = zone.name else { return Message(.personZoneChosenOffset, .name(name), .text(zone.displayName)) }
            return Message(.personZoneChosen, .name(name), .text(zone.displayName), .text(identifier))
        case .local:
            return Message(.personZoneLocal, .name(name))
        case nil:
            guard let cardZone else { return Message(.personZoneCardNone, .name(name)) }
            return Message(.personZoneCard, .name(name), .text(cardZone.displayName))
        }
    }
    /// `show`'s line about the person's zone: the user's choice, else the
    /// card's; `nil` when neither gives one. A zone is written `Tokyo (Asia/Tokyo)`, an offset `UTC+09:00`.
    public static func showZone(of person: Person) -> Message? {
        func label(_ zone: PersonZone) -> String { zone.name.map { zone.displayName + " (" + $0 + ")" } ?? zone.displayName }
        switch person.zoneChoice {
        case .zone(let zone): return Message(.showZoneChoice, .text(label(zone)))
        case .local: return Message(.showZoneLocal)
        case nil: return person.cardZone.map { Message(.showZoneCard, .text(label($0))) }
        }
    }
    /// `date`: as the contact has it; `next`: the next occurrence; `when`: "today", "in 5 days".
    public static func showBirthday(date: String, next: String, when: String, turning age: Int?) -> Message {
        age.map { Message(.showBirthdayAge, .text(date), .text(next), .text(when), .number($0)) }
            ?? Message(.showBirthday, .text(date), .text(next), .text(when))
    }
    public static func showAnniversary(date: String, next: String, when: String, years: Int?) -> Message {
        years.map { Message(.showAnniversaryYears, .text(date), .text(next), .text(when), .number($0)) }
            ?? Message(.showAnniversary, .text(date), .text(next), .text(when))
    }

    /// A line of `show` about a labelled date (``LabelledDate``): `label`
    /// (already one line), the date as the contact has it, the next
    /// occurrence, how far away, and the years then: an age when the label
    /// says birthday ("turns 11"), else a count ("8 years").
    public static func showLabelled(label: String, date: String, next: String, when: String, years: Int?, birthday: Bool) -> Message {
        guard let years else { return Message(.showLabelled, .text(label), .text(date), .text(next), .text(when)) }
        return Message(birthday ? .showLabelledAge : .showLabelledYears, .text(label), .text(date), .text(next), .text(when), .number(years))
    }

    /// `text`: the date as written, quoted; `source`: `file:line` of the contact's card.
    public static func showUnreadable(_ text: String, source: String) -> Message { Message(.showUnreadable, .text(text), .text(source)) }

    /// "From: icloud.vcf, card ada-icloud": one of a linked person's cards.
    public static func showCard(source: String, uid: String) -> Message { Message(.showCard, .text(source), .text(uid)) }

    /// "The cards disagree on the birthday: 1990-05-01 (icloud.vcf, card ada-icloud) and 1991-05-01 (nextcloud, card ada)";
    /// each date is a ``showDateOfCard(_:source:uid:)``.
    public static func showDatesDisagree(_ dates: String) -> Message { Message(.showDatesDisagree, .text(dates)) }

    /// "1990-05-01 (icloud.vcf, card ada-icloud)": one date of ``showDatesDisagree(_:)``'s list, with the card
    /// that gives it (source and uid), so that two cards of one source are told apart.
    public static func showDateOfCard(_ date: String, source: String, uid: String) -> Message {
        Message(.showDateOfCard, .text(date), .text(source), .text(uid))
    }

    /// "icloud.vcf (card ada-icloud)": the card ``showDatesUsed(from:because:)`` names, source and uid, so that two cards of one source are told apart.
    public static func showCardNamed(source: String, uid: String) -> Message { Message(.showCardNamed, .text(source), .text(uid)) }

    /// Whose date a person of cards that disagree has, and by which rule
    /// (``BirthdayChoice/Reason``); `card` is the card in words (``showCardNamed(source:uid:)``).
    public static func showDatesUsed(from card: String, because reason: BirthdayChoice.Reason) -> Message {
        let key: Key =
            switch reason {
            case .dateFrom: .showDatesUsedDateFrom
            case .year: .showDatesUsedYear
            case .changed: .showDatesUsedChanged
            case .order: .showDatesUsedOrder
            }
        return Message(key, .text(card))
    }

    public static func testOK(channel: String) -> Message { Message(.testOK, .text(channel)) }
    public static func testFailed(channel: String, reason: String) -> Message { Message(.testFailed, .text(channel), .text(reason)) }
    public static func testDisabled(status: String) -> Message { Message(.testDisabled, .text(status)) }
    /// `notifications test` when the user's reminders are off but team rooms still get their messages.
    public static func testDisabledRooms(status: String) -> Message { Message(.testDisabledRooms, .text(status)) }
    /// `notifications test` before the permission is asked for, when other channels than the desktop deliver.
    public static func testNotAsked(status: String) -> Message { Message(.testNotAsked, .text(status)) }

    /// What a late reminder adds to its text: the time it was due (HH:MM).
    public static func reminderLate(dueAt time: String) -> Message { Message(.reminderLate, .text(time)) }

    public static func serviceInstalled(_ path: String) -> Message { Message(.serviceInstalled, .text(path)) }
    public static func serviceRemoved(_ path: String) -> Message { Message(.serviceRemoved, .text(path)) }

    /// Why a channel could not deliver, in plain words: what the user can
    /// do about it, never the raw D-Bus error. For a ``DeliveryError/channelsFailed(_:)``, the first failure.
    public static func deliveryError(_ error: DeliveryError) -> Message {
        switch error {
        case .noSessionBus: Message(.errorNoBus)
        case .noNotificationServer: Message(.errorNoServer)
        case .notificationServer: Message(.errorRefused)
        case .notificationServerTimedOut: Message(.errorTimeout)
        case .busDisconnected: Message(.errorDisconnected)
        case .noCommand: Message(.errorNoCommand)
        case .commandNotStarted(let reason): Message(.errorCommandNotStarted, .text(reason))
        case .commandFailed(let status): Message(.errorCommandFailed, .number(Int(status)))
        case .commandKilled(let signal): Message(.errorCommandKilled, .number(Int(signal)))
        case .commandTimedOut(let after): Message(.errorCommandTimeout, .number(Int(after.components.seconds)))
        case .cancelled: Message(.errorCancelled)
        case .logWriteFailed: Message(.errorLog)
        case .channelsFailed(let failures): failures.first.map { deliveryError($0.error) } ?? Message(.errorCancelled)
        case .remoteUnavailable(_, let reason), .remoteThrottled(_, let reason, _): Message(.errorRemoteUnavailable, .text(reason))
        case .remoteRefused(_, let reason): Message(.errorRemoteRefused, .text(reason))
        }
    }

    /// Why a channel failed a test (`channels test`, `notifications test`,
    /// the onboarding's), in plain words: ``deliveryError(_:)``, except that
    /// a passing failure says only that it failed, since nothing tries a
    /// test again.
    public static func testError(_ error: DeliveryError) -> Message {
        switch error {
        case .remoteUnavailable(_, let reason), .remoteThrottled(_, let reason, _): Message(.testErrorRemoteUnavailable, .text(reason))
        case .channelsFailed(let failures): failures.first.map { testError($0.error) } ?? deliveryError(error)
        default: deliveryError(error)
        }
    }

    /// A line of `show` about a date in another calendar: `date` in words
    /// ("1st day of the 11th month", ``CalendarDate/words(in:)``), the next occurrence, how far away, the
    /// age (or years married) then, and the calendar's name.
    public static func showCalendarDate(kind: EventKind, date: String, next: String, when: String, age: Int?, calendar: String) -> Message {
        switch (kind, age) {
        case (.birthday, let age?): Message(.showCalendarBirthdayAge, .text(date), .text(next), .text(when), .number(age), .text(calendar))
        case (.birthday, nil): Message(.showCalendarBirthday, .text(date), .text(next), .text(when), .text(calendar))
        case (.anniversary, let years?), (.labelled, let years?):
            Message(.showCalendarAnniversaryYears, .text(date), .text(next), .text(when), .number(years), .text(calendar))
        case (.anniversary, nil), (.labelled, nil): Message(.showCalendarAnniversary, .text(date), .text(next), .text(when), .text(calendar))
        }
    }

    /// "Picking up where you left off: notifications.": the step an
    /// interrupted onboarding resumes at (``OnboardingMachine/resumedStep``).
    /// A date in another calendar in words: "15th day of the 8th month",
    /// "10th day of the leap 4th month", "14th day of the 6th month of 5784".
    public static func calendarDay(day: Int, month: Int, leapMonth: Bool, year: Int?) -> Message {
        if let year {
            return Message(.dateCalendarDayMonthYear, .ordinal(day), .ordinal(month), .number(day), .number(month), .number(year))
        }
        return Message(leapMonth ? .dateCalendarDayLeapMonth : .dateCalendarDayMonth, .ordinal(day), .ordinal(month), .number(day), .number(month))
    }

    public static func onboardingResuming(_ step: OnboardingMachine.Step) -> Message? {
        switch step {
        case .contactsImport: Message(.onboardingResumeContacts)
        case .notificationPrimer, .permissionRequest: Message(.onboardingResumeNotifications)
        case .channels: Message(.onboardingResumeChannels)
        case .service: Message(.onboardingResumeService)
        case .welcome, .complete: nil
        }
    }

    public static func onboardingContactsFailed(_ problem: String) -> Message { Message(.onboardingContactsFailed, .text(problem)) }
    public static func onboardingChannelNote(_ detail: String) -> Message { Message(.onboardingChannelNote, .text(detail)) }
    public static func onboardingAlreadyComplete(status: String) -> Message { Message(.onboardingAlreadyComplete, .text(status)) }
    public static func onboardingNextMore(pending: Int) -> Message { Message(.onboardingNextMore, .number(pending)) }
    public static func onboardingChooseAgain(_ first: String, _ second: String) -> Message {
        Message(.onboardingChooseAgain, .text(first), .text(second))
    }
    /// `letters`: the letters to type, as one text ("E, N, S").
    public static func onboardingChooseAmong(_ letters: String) -> Message { Message(.onboardingChooseAmong, .text(letters)) }
    /// `problem`: why the address or URL was not added (in English, as `channels add` says it).
    public static func onboardingChannelsNotAdded(_ problem: String) -> Message { Message(.onboardingChannelsNotAdded, .text(problem)) }
    /// `target`: where the channel sends, as `channels list` shows it (secrets masked).
    public static func onboardingChannelsTesting(name: String, target: String) -> Message {
        Message(.onboardingChannelsTesting, .text(name), .text(target))
    }
    public static func onboardingChannelsSent(name: String) -> Message { Message(.onboardingChannelsSent, .text(name)) }
    public static func onboardingChannelsFailed(name: String, reason: String) -> Message {
        Message(.onboardingChannelsFailed, .text(name), .text(reason))
    }
    public static func onboardingStartReason(log: String) -> Message { Message(.onboardingStartReason, .text(log)) }
    public static func onboardingStartStarted(pid: String, log: String) -> Message { Message(.onboardingStartStarted, .text(pid), .text(log)) }
    public static func onboardingStartSlow(pid: String, log: String) -> Message { Message(.onboardingStartSlow, .text(pid), .text(log)) }
    /// `reason`: why (in English).
    public static func onboardingStartFailed(reason: String, log: String) -> Message {
        Message(.onboardingStartFailed, .text(reason), .text(log))
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

    /// What became of writing a birthday back to the person's card (``WriteBackOutcome``).
    public static func writeBack(_ outcome: WriteBackOutcome) -> Message {
        switch outcome {
        case .written(let source): Message(.writeBackWritten, .text(source))
        case .noCard: Message(.writeBackNoCard)
        case .fileSourceOnly(let source): Message(.writeBackFileSource, .text(source))
        case .cardHasBirthday(let source): Message(.writeBackCardHasBirthday, .text(source))
        case .failed(let source, let error): Message(.writeBackFailed, .text(source), .text(error.description))
        }
    }

    /// `name-days` while the setting is empty: "Name days are off. Turn them on with: birthdays settings set name-days lv".
    public static func nameDaysOff(allLists: String) -> Message { Message(.nameDaysOff, .text(allLists)) }
    /// `name-days` when nobody matched; `lists` (how many are on) chooses "the list" or "the lists".
    public static func nameDaysNone(lists: Int) -> Message { Message(.nameDaysNone, .number(lists)) }
    /// A name a list gives `days` days: "asked: on 2 days; choose with name-days set".
    public static func nameDaysAsked(days: Int) -> Message { Message(.nameDaysRowAsked, .number(days)) }
    /// What `name-days off`, `set` or `reset` did: "Jānis: no name day.", "Jānis: name day on 07-01.",
    /// "Jānis: the name-day lists decide again." (`day` is MM-DD; nil `choice` is reset).
    public static func nameDayChoice(name: String, off: Bool, day: String?) -> Message {
        if let day { return Message(.nameDaysPersonDay, .name(name), .text(day)) }
        return Message(off ? .nameDaysPersonOff : .nameDaysPersonLists, .name(name))
    }
    /// `name-days import`: "cz: 2 names imported; name-days = lv,cz".
    public static func nameDaysImported(country: String, names: Int, setting: String) -> Message {
        Message(.nameDaysImported, .text(country), .number(names), .text(setting))
    }
    public static func nameDaysImportProblems(_ count: Int) -> Message { Message(.nameDaysImportProblems, .number(count)) }
    public static func nameDaysImportEmpty(file: String) -> Message { Message(.nameDaysImportEmpty, .text(file)) }
    public static func nameDaysImportUnreadable(file: String, reason: String) -> Message {
        Message(.nameDaysImportUnreadable, .text(file), .text(reason))
    }
    /// A line of a name-day list that does not start with a day: "'13-45' is not a day written MM-DD".
    public static func nameDaysNotADay(_ written: String) -> Message { Message(.nameDaysNotADay, .text(written)) }
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
