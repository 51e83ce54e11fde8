import BirthdayCore
import BirthdayText

/// What each event of the calendar says (the rules are on ``CalendarExporter``):
/// its title, description, markers and alarm texts, in the localizer's
/// language, decided once per event before it is written.
extension CalendarExporter {
    /// What one `VEVENT` says: decided once per event, then written as text
    /// (``appendEvent(_:values:lines:to:)``), the same bytes as libical
    /// writes for the same event built as its objects (the tests' builder).
    struct EventContent {
        let uid: String
        let start: LocalDate
        let recurrence: Recurrence
        let summary: String
        /// The year line and the note (joined by a line break), if any.
        let description: String?
        /// `CATEGORIES:Birthday`, else `Anniversary`.
        let countsAge: Bool
        let knownYear: Int?
        let calendar: CalendarSystem?
        /// The label of a labelled date, sanitized.
        let label: String?
        /// A memorial's death date as the person has it, sanitized: `X-BIRTHDAYS-DEATHDATE`.
        let deathDate: String?
        /// The day of first, then the days before, nearest first, then a round birthday's.
        let alarms: [(daysBefore: Int, text: String)]
    }

    func content(of entry: Entry, values: EventValues) -> EventContent {
        let texts = values.texts
        let knownYear = entry.knownYear
        let name = Self.sanitized(settings.names.pick(name: entry.person.name, nickname: entry.person.nickname))
        let isBirthday = entry.kind == .birthday
        // A labelled date counts an age when its label says birthday, else years since it.
        let countsAge = isBirthday || entry.labelled?.isBirthday == true

        let calendarName = entry.calendar.flatMap { texts.calendarNames[$0] }
        var summary =
            entry.labelled.map { labelledSummary(name: name, label: $0.label) }
            ?? summary(name: name, kind: entry.kind, memorial: entry.treatment.memorial, calendar: calendarName, texts: texts)
        if let age = entry.age {
            summary = (countsAge ? texts.ageBirthday : texts.ageAnniversary).render([.text(summary), .number(age)])
        }
        // The person's note only under `notes-on-channels`: the feed leaves the machine.
        let note = settings.notesOnChannels ? entry.person.note.map { SafeText.line($0) } : nil
        let born = knownYear.map { (countsAge ? texts.born : texts.since).render([.number($0)]) }
        let description = [born, note].compactMap { $0 }.joined(separator: "\n")

        var alarms: [(daysBefore: Int, text: String)] = []
        if includeAlarms {
            // The name as it is (an empty one stays empty): the texts of reminders without a year.
            // The day of first, then the days before, nearest first (the order of earlier feeds).
            for days in entry.treatment.reminderDays.days.reversed() {
                let text =
                    entry.labelled.map { labelled in
                        NotificationContent.make(
                            name: name,
                            kind: .labelled,
                            timing: NotificationRequest.Timing(daysBefore: days),
                            age: nil,
                            labelled: labelled,
                            in: localizer
                        ).body
                    } ?? texts.alarm(entry.kind, daysBefore: days, name: name, memorial: entry.treatment.memorial, calendar: calendarName)
                alarms.append((days, text))
            }
            // A round birthday's year gets one more alarm, as its reminders do (``ReminderPlanner``): none on a day a reminder day has.
            if isBirthday, let age = entry.age, Occurrence.isRound(age: age), let lead = settings.roundBirthdays,
                !entry.treatment.reminderDays.days.contains(lead)
            {
                let words = NotificationContent.make(
                    name: name,
                    kind: .birthday,
                    timing: NotificationRequest.Timing(daysBefore: lead, round: true),
                    age: age,
                    in: localizer
                )
                alarms.append((lead, words.body))
            }
        }
        return EventContent(
            uid: entry.uid,
            start: entry.start,
            recurrence: entry.recurrence,
            summary: summary,
            description: description.isEmpty ? nil : description,
            countsAge: countsAge,
            knownYear: knownYear,
            calendar: entry.calendar,
            label: entry.labelled.map { Self.sanitized($0.label) },
            deathDate: entry.treatment.memorial ? entry.person.deathDate.map(Self.sanitized) : nil,
            alarms: alarms
        )
    }

    /// "📅 Johnny Appleseed: Started work", or without emoji "Johnny Appleseed: Started work" (``Message/Key/labelledTitle``).
    private func labelledSummary(name: String, label: String) -> String {
        let label = Self.sanitized(label)
        return settings.emoji ? "📅 " + name + ": " + label : localizer(.labelledTitle(name: name, label: label))
    }

    /// "🎂 Ada", "Ada's birthday", "🕯️ Ada" in memory of someone; with a
    /// calendar's name, "🎂 Ada (lunar)", "Ada's lunar birthday".
    private func summary(name: String, kind: EventKind, memorial: Bool, calendar: String?, texts: Texts) -> String {
        if let calendar {
            switch (kind, settings.emoji) {
            case (.birthday, true): return "🎂 " + name + " (" + calendar + ")"
            case (.anniversary, true), (.labelled, true): return "💍 " + name + " (" + calendar + ")"
            case (.birthday, false): return texts.calendarBirthdayTitle.render([.text(name), .text(calendar)])
            case (.anniversary, false), (.labelled, false): return texts.calendarAnniversaryTitle.render([.text(name), .text(calendar)])
            }
        }
        switch (kind, settings.emoji) {
        case (.birthday, true) where memorial: return "🕯️ " + name
        case (.birthday, false) where memorial: return texts.memorialTitle.render([.text(name)])
        case (.birthday, true): return "🎂 " + name
        case (.anniversary, true), (.labelled, true): return "💍 " + name
        case (.birthday, false): return texts.birthdayTitle.render([.text(name)])
        case (.anniversary, false), (.labelled, false): return texts.anniversaryTitle.render([.text(name)])
        }
    }

    /// The texts of every event, parsed once per export (thousands of events
    /// fill the same few templates).
    struct Texts {
        let birthdayTitle: MessageTemplate
        let anniversaryTitle: MessageTemplate
        let memorialTitle: MessageTemplate
        let born: MessageTemplate
        let since: MessageTemplate
        let birthdayToday: MessageTemplate
        let birthdayTomorrow: MessageTemplate
        let birthdayAhead: MessageTemplate
        let birthdayWeeks: MessageTemplate
        let anniversaryToday: MessageTemplate
        let anniversaryTomorrow: MessageTemplate
        let anniversaryAhead: MessageTemplate
        let anniversaryWeeks: MessageTemplate
        let memorialToday: MessageTemplate
        /// The same for dates in other calendars, with the calendar's name.
        let calendarBirthdayTitle: MessageTemplate
        let calendarAnniversaryTitle: MessageTemplate
        let calendarBirthdayToday: MessageTemplate
        let calendarBirthdayTomorrow: MessageTemplate
        let calendarAnniversaryToday: MessageTemplate
        let calendarAnniversaryTomorrow: MessageTemplate
        let calendarNames: [CalendarSystem: String]
        /// "%@ (%lld)": a title and the age turned or the years married.
        let ageBirthday: MessageTemplate
        let ageAnniversary: MessageTemplate

        init(_ localizer: Localizer) {
            birthdayTitle = localizer.template(.feedBirthdayTitle)
            anniversaryTitle = localizer.template(.feedAnniversaryTitle)
            memorialTitle = localizer.template(.feedMemorialTitle)
            born = localizer.template(.feedBorn)
            since = localizer.template(.feedSince)
            birthdayToday = localizer.template(.birthdayToday)
            birthdayTomorrow = localizer.template(.birthdayTomorrow)
            birthdayAhead = localizer.template(.birthdayAhead)
            birthdayWeeks = localizer.template(.birthdayWeeks)
            anniversaryToday = localizer.template(.anniversaryToday)
            anniversaryTomorrow = localizer.template(.anniversaryTomorrow)
            anniversaryAhead = localizer.template(.anniversaryAhead)
            anniversaryWeeks = localizer.template(.anniversaryWeeks)
            memorialToday = localizer.template(.memorialToday)
            calendarBirthdayTitle = localizer.template(.feedCalendarBirthdayTitle)
            calendarAnniversaryTitle = localizer.template(.feedCalendarAnniversaryTitle)
            calendarBirthdayToday = localizer.template(.calendarBirthdayToday)
            calendarBirthdayTomorrow = localizer.template(.calendarBirthdayTomorrow)
            calendarAnniversaryToday = localizer.template(.calendarAnniversaryToday)
            calendarAnniversaryTomorrow = localizer.template(.calendarAnniversaryTomorrow)
            calendarNames = Dictionary(uniqueKeysWithValues: CalendarSystem.allCases.map { ($0, localizer($0.nameKey)) })
            ageBirthday = localizer.template(.feedAgeBirthday)
            ageAnniversary = localizer.template(.feedAgeAnniversary)
        }

        /// The alarm text `days` before a `kind` event of `name`, without an
        /// age (one alarm serves every year): "Ada's birthday is in a week!".
        /// A date in another calendar names it on the day and the day before
        /// ("Today is Ada's lunar birthday!"); further ahead its words are the
        /// ordinary ones, as in ``NotificationContent``.
        func alarm(_ kind: EventKind, daysBefore days: Int, name: String, memorial: Bool, calendar: String?) -> String {
            let who = MessageArgument.text(name)
            if let calendar, days <= 1 {
                let which = MessageArgument.text(calendar)
                switch (kind, days) {
                case (.birthday, 0): return calendarBirthdayToday.render([who, which])
                case (.birthday, _): return calendarBirthdayTomorrow.render([who, which])
                case (.anniversary, 0), (.labelled, 0): return calendarAnniversaryToday.render([who, which])
                case (.anniversary, _), (.labelled, _): return calendarAnniversaryTomorrow.render([who, which])
                }
            }
            switch (kind, days) {
            case (.birthday, 0): return (memorial ? memorialToday : birthdayToday).render([who])
            case (.birthday, 1): return birthdayTomorrow.render([who])
            case (.anniversary, 0), (.labelled, 0): return anniversaryToday.render([who])
            case (.anniversary, 1), (.labelled, 1): return anniversaryTomorrow.render([who])
            case (_, let days):
                let weeks = days % 7 == 0
                let template =
                    kind == .birthday ? (weeks ? birthdayWeeks : birthdayAhead) : (weeks ? anniversaryWeeks : anniversaryAhead)
                return template.render([who, .number(weeks ? days / 7 : days)])
            }
        }
    }

    /// Text without characters iCalendar TEXT cannot carry: NUL and other
    /// control characters are dropped, line breaks become spaces (titles are
    /// one line).
    static func sanitized(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x0D, 0x09: result.unicodeScalars.append(" ")
            case 0x00..<0x20, 0x7F: continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
