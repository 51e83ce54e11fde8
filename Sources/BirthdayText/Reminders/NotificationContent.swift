import BirthdayCore
import Foundation

/// The words of a reminder, in the user's language (``Localizer``).
///
/// In English:
///
/// | kind, timing | title | body (year unknown) | body (year known) |
/// |---|---|---|---|
/// | birthday, day of | Ada's Birthday! | Today is Ada's birthday! | Ada turns 36 today! |
/// | birthday, day before | Birthday Tomorrow | Ada's birthday is tomorrow! | Ada turns 36 tomorrow! |
/// | birthday, 3 days before | Birthday in 3 days | Ada's birthday is in 3 days! | Ada turns 36 in 3 days! |
/// | birthday, 7 days before | Birthday in a week | Ada's birthday is in a week! | Ada turns 36 in a week! |
/// | anniversary, day of | Ada's Anniversary! | Today is Ada's anniversary! | Today is Ada's 10th anniversary! |
/// | anniversary, day before | Anniversary Tomorrow | Ada's anniversary is tomorrow! | Ada's 10th anniversary is tomorrow! |
/// | anniversary, 14 days before | Anniversary in 2 weeks | Ada's anniversary is in 2 weeks! | Ada's 10th anniversary is in 2 weeks! |
/// | memorial birthday, day of | Remembering Ada | Today would have been Ada's birthday. | Ada would have turned 80 today. |
/// | labelled "Started work", day of | Johnny: Started work | Started work (today) | Started work, 8 years (today) |
/// | labelled "Child's birthday", 7 days before | Johnny: Child's birthday | Child's birthday (in 7 days) | Child's birthday, turns 11 (in 7 days) |
///
/// The early reminder of a round birthday (``NotificationRequest/Timing/round``)
/// is titled "A round birthday ahead" and says "Ada turns 50 in 2 weeks! A
/// round birthday: time to plan."
///
/// Two days or more before the event, a whole number of weeks is said in
/// weeks ("in a week", "in 2 weeks") and anything else in days ("in 10 days").
/// A memorial reminder (``EventTreatment/memorial``: the birthday of someone
/// who has died, under `deceased remember`) exists on the day only; asked for
/// another timing, the ordinary words are given.
///
/// Other languages place the name, the age and the ordinal where they go
/// ("Heute hat Ada den 10. Hochzeitstag!", "今日はAdaさんの結婚10周年です！") and
/// take the plural form the number needs ("Ada kończy dziś 22 lata!").
/// A person without a name is the language's "someone", capitalized at the
/// start of a text ("Someone's Birthday!", "Today is someone's birthday!").
/// The age comes from ``EventDate/age(in:)``: a placeholder year gives none.
///
/// A date in another calendar (``CalendarSystem``) says which: "Ada's lunar
/// birthday!", "Today is Ada's Hebrew birthday!", "Ada turns 41 today (lunar
/// birthday)!", "Tomorrow: Hijri birthday"; other languages name the
/// calendar in parentheses ("Ada hat Geburtstag (Mondkalender)!",
/// "Adaさんの誕生日（旧暦）！"). Its age counts that calendar's years
/// (``CalendarDate/age(inYear:)``).
///
/// The day-of reminder of someone in another time zone, sent while it is
/// already their day there (``ZonedDayOf/duringTheirDay``), says where and
/// since when on the user's clock: "It is Mei's birthday in Tokyo (since
/// 16:00 here)!", "Mei turns 36 today in Tokyo (since 16:00 here)!", and
/// "(since 23:00 yesterday here)" when their day began the evening before; its
/// title is the usual one. A date in another calendar keeps its own words.
///
/// The name is put on one line first (``SafeText/line(_:maxCharacters:)``):
/// line breaks, escape sequences and other control characters become spaces,
/// so a name can add no header to the user's ntfy or e-mail command and no
/// line to a terminal, and a name longer than ``maxNameCharacters`` is cut.
public enum NotificationContent {
    /// Where someone's day has begun (core's ``ReminderSubject/TheirDay``).
    public typealias TheirDay = ReminderSubject.TheirDay

    /// The longest name a title or body carries; longer ones end in `…`.
    public static let maxNameCharacters = 200

    /// Title and body for a reminder about `kind` of `name`, turning `age` (or married `age` years).
    public static func make(
        name raw: String,
        kind: EventKind,
        timing: NotificationRequest.Timing,
        age: Int?,
        calendar: CalendarSystem? = nil,
        memorial: Bool = false,
        theirDay: TheirDay? = nil,
        labelled: LabelledDate? = nil,
        in localizer: Localizer = .english
    ) -> (title: String, body: String) {
        if let labelled {
            // Under its label, in words no language has to inflect: "Johnny Appleseed: Started work",
            // "Started work, 8 years (tomorrow)".
            let name = SafeText.line(raw, maxCharacters: maxNameCharacters)
            let label = SafeText.line(labelled.label, maxCharacters: 60)
            let what =
                age.map {
                    localizer.template(labelled.isBirthday ? .upcomingLabelledAge : .upcomingLabelledYears).render([.number($0), .text(label)])
                }
                ?? label
            let title = Message(.labelledTitle, .name(name), .text(label))
            let body = Message(.labelledBody, .text(what), .text(localizer(.days(timing.daysBefore))))
            return (localizer(title), localizer(body))
        }
        if let theirDay, timing == .dayOf, calendar == nil, !memorial {
            let usual = make(name: raw, kind: kind, timing: timing, age: age, in: localizer)
            let name = SafeText.line(raw, maxCharacters: maxNameCharacters)
            let body: Message =
                switch kind {
                case .birthday:
                    .zonedBirthday(name: name, turning: age, place: theirDay.place, since: theirDay.since, yesterday: theirDay.yesterday)
                case .anniversary, .labelled:
                    .zonedAnniversary(name: name, place: theirDay.place, since: theirDay.since, yesterday: theirDay.yesterday)
                }
            return (usual.title, localizer(body))
        }
        if timing.round {
            // A round birthday's early reminder: its own title, the words of that many days ahead, and why.
            let ahead = make(name: raw, kind: kind, timing: .init(daysBefore: timing.daysBefore), age: age, calendar: calendar, in: localizer)
            return (localizer(.roundTitle), ahead.body + " " + localizer(.roundNote))
        }
        let name = SafeText.line(raw, maxCharacters: maxNameCharacters)
        // The texts of another calendar exist for the day and the day before.
        if let calendar, !memorial, timing == .dayOf || timing == .dayBefore {
            return calendarContent(name: name, kind: kind, dayOf: timing == .dayOf, age: age, calendar: localizer(calendar.nameKey), in: localizer)
        }
        let title: Message
        let body: Message
        switch (kind, timing.daysBefore) {
        case (.birthday, 0) where memorial:
            title = .memorialTitle(name: name)
            body = .memorialToday(name: name, turning: age)
        case (.birthday, 0):
            title = .birthdayTitle(name: name)
            body = age.map { .birthdayToday(name: name, turning: $0) } ?? .birthdayToday(name: name)
        case (.birthday, 1):
            title = .plain(.birthdayTomorrowTitle)
            body = age.map { .birthdayTomorrow(name: name, turning: $0) } ?? .birthdayTomorrow(name: name)
        case (.anniversary, 0):
            title = .anniversaryTitle(name: name)
            body = age.map { .anniversaryToday(name: name, years: $0) } ?? .anniversaryToday(name: name)
        case (.anniversary, 1):
            title = .plain(.anniversaryTomorrowTitle)
            body = age.map { .anniversaryTomorrow(name: name, years: $0) } ?? .anniversaryTomorrow(name: name)
        case (_, let days):
            title = .aheadTitle(kind, daysBefore: days)
            body = .ahead(kind, name: name, daysBefore: days, age: age)
        }
        return (localizer(title), localizer(body))
    }

    private static func calendarContent(
        name: String,
        kind: EventKind,
        dayOf: Bool,
        age: Int?,
        calendar: String,
        in localizer: Localizer
    ) -> (title: String, body: String) {
        let who = MessageArgument.name(name)
        let which = MessageArgument.text(calendar)
        let title: Message
        let body: Message
        switch (kind, dayOf) {
        case (.birthday, true):
            title = Message(.calendarBirthdayTitle, who, which)
            body = age.map { Message(.calendarBirthdayTodayAge, who, .number($0), which) } ?? Message(.calendarBirthdayToday, who, which)
        case (.birthday, false):
            title = Message(.calendarBirthdayTomorrowTitle, which)
            body = age.map { Message(.calendarBirthdayTomorrowAge, who, .number($0), which) } ?? Message(.calendarBirthdayTomorrow, who, which)
        case (.anniversary, true), (.labelled, true):
            title = Message(.calendarAnniversaryTitle, who, which)
            body =
                age.map { Message(.calendarAnniversaryTodayYears, who, .ordinal($0), .number($0), which) }
                ?? Message(.calendarAnniversaryToday, who, which)
        case (.anniversary, false), (.labelled, false):
            title = Message(.calendarAnniversaryTomorrowTitle, which)
            body =
                age.map { Message(.calendarAnniversaryTomorrowYears, who, .ordinal($0), .number($0), which) }
                ?? Message(.calendarAnniversaryTomorrow, who, which)
        }
        return (localizer(title), localizer(body))
    }
}

extension NotificationContent {
    /// The reminder the channels get for ledger row `entry` as it goes out
    /// now, in `timeZone`, in the user's language:
    /// - a reminder of one person's occasion delivered `late` says so at its
    ///   end, with the time it was due ("… (due at 09:00)"); it carries the
    ///   ways to reach them (``ContactLink``, under their name as the `names`
    ///   setting picks it) and their note's line, from `reach`, read as it goes
    ///   out so they follow the card; the added channels share them only under
    ///   `contact-links` and `notes-on-channels`;
    /// - a late digest says so on its first line, where a channel that cuts
    ///   a long message keeps it;
    /// - a team room's message and an invitation's notice are the same
    ///   whenever they arrive on their day.
    public static func delivered(
        _ entry: DeliveryEntry,
        late: Bool,
        reach: PersonReach?,
        timeZone: TimeZone,
        settings: Settings,
        in localizer: Localizer,
        publicIDs: PublicID
    ) -> Reminder {
        var reminder = entry.reminder(timeZone: timeZone, late: late, publicIDs: publicIDs)
        let lateNote = {
            let due = String(ISOInstant.format(entry.fireAt, in: timeZone).dropFirst(11).prefix(5))
            return localizer(.reminderLate(dueAt: due))
        }
        switch entry.deliveryKind {
        case .reminder:
            if late { reminder.body += " " + lateNote() }
            if let reach {
                reminder.contactLinks = ContactLink.links(
                    for: reach.points,
                    name: settings.names.pick(name: reach.name, nickname: reach.nickname),
                    event: reminder.kind,
                    in: localizer
                )
                reminder.sharesContactLinks = settings.contactLinks
                // The note is read now, like the ways to reach them; it is never logged.
                reminder.noteLine = reach.note.map { localizer(.showNote(SafeText.line($0))) }
            }
        case .digest:
            if late { reminder.body = lateNote() + "\n" + reminder.body }
        case .announcement, .invitationNotice, .greeting:
            break
        }
        reminder.sharesNote = settings.notesOnChannels
        return reminder
    }
}
