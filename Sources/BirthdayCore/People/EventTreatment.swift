/// What the store knows about the person behind a date that the rules
/// need: read for every dated row, so it is small.
public struct PersonTraits: Hashable, Sendable {
    /// Left out by the card, the user, or a group's or source's rule (``RulePrecedence``).
    public var excluded: Bool
    /// The card gives a death date (``Person/deathDate``).
    public var deceased: Bool
    /// The reminder days that apply (the person's own, else their groups'
    /// and sources': ``RulePrecedence``); `nil` follows the setting.
    public var reminderDays: ReminderDays?
    /// The person's weekend rule (``Person/weekend``); `nil` moves nothing.
    public var weekend: WeekendRule?
    /// The person's zone (``Person/zone``); `nil` is the user's own.
    public var zone: PersonZone?

    public init(
        excluded: Bool = false,
        deceased: Bool = false,
        reminderDays: ReminderDays? = nil,
        weekend: WeekendRule? = nil,
        zone: PersonZone? = nil
    ) {
        self.excluded = excluded
        self.deceased = deceased
        self.reminderDays = reminderDays
        self.weekend = weekend
        self.zone = zone
    }

    public init(_ person: Person) {
        self.init(
            exclusion: person.exclusion,
            reminderDays: person.reminderDays,
            shared: person.sharedRules,
            deceased: person.isDeceased,
            weekend: person.weekend,
            zone: person.zone
        )
    }
}

/// How one of a person's dates is kept: on which days before it reminders
/// come, and whether it is kept in memory of someone who has died. The same
/// answer drives the reminders, the feed (its events and alarms) and
/// `upcoming`, so they never disagree.
public struct EventTreatment: Hashable, Sendable {
    /// The days before the event that get a reminder (and a feed alarm).
    public var reminderDays: ReminderDays
    /// A deceased person's birthday under `deceased remember`: "Ada would have
    /// turned 80 today", on the day only.
    public var memorial: Bool
    /// Whether reminders due on a weekend move to the Friday before
    /// (``ReminderPlanner``); never for a memorial, which belongs to its day.
    /// The feed's alarms do not move.
    public var weekend: WeekendRule?
    /// The person's zone, which moves the day-of reminder to the first
    /// moment of their day in your window (``ZonedDayOf``); `nil` for your
    /// own zone and for a memorial. The feed's events and alarms stay on their date.
    public var zone: PersonZone?

    public init(reminderDays: ReminderDays, memorial: Bool = false, weekend: WeekendRule? = nil, zone: PersonZone? = nil) {
        self.reminderDays = reminderDays
        self.memorial = memorial
        self.weekend = weekend
        self.zone = zone
    }
}

/// The settings the treatment of a date depends on (``Settings/treatmentRules``).
public struct TreatmentRules: Hashable, Sendable {
    public var anniversaries: Bool
    public var deceased: DeceasedPolicy
    public var reminders: ReminderDays
    /// Which labelled dates count: the `labelled-dates` setting and the
    /// labels chosen with `exclude --label` and `include --label`.
    public var labels: LabelRules = LabelRules()

    public init(anniversaries: Bool = true, deceased: DeceasedPolicy = .skip, reminders: ReminderDays = .standard, labels: LabelRules = LabelRules())
    {
        self.anniversaries = anniversaries
        self.deceased = deceased
        self.reminders = reminders
        self.labels = labels
    }

    /// How a labelled date of a person with `traits` is kept; `nil` when it
    /// gets nothing. Rules 1 and 4 of ``treatment(of:for:)`` apply; in
    /// between, the label decides (``LabelRules/counts(_:)``), and a deceased
    /// person's labelled dates get nothing, as their anniversaries.
    public func treatment(of labelled: LabelledDate, for traits: PersonTraits) -> EventTreatment? {
        if traits.excluded || traits.deceased || !labels.counts(labelled) { return nil }
        return EventTreatment(reminderDays: traits.reminderDays ?? reminders, weekend: traits.weekend, zone: traits.zone)
    }

    /// How the `kind` date of a person with `traits` is kept; `nil` when it
    /// gets nothing at all: no reminder, no feed event, not in `upcoming`.
    ///
    /// The rules, in order:
    /// 1. An excluded person (``Exclusion``, or a group's or source's rule:
    ///    ``RulePrecedence``) gets nothing.
    /// 2. Anniversaries get nothing while ``anniversaries`` is off.
    /// 3. A deceased person gets nothing under ``DeceasedPolicy/skip``; under
    ///    ``DeceasedPolicy/remember`` their birthday gets one reminder, on the
    ///    day itself, in their memory, and their anniversaries nothing.
    /// 4. Anyone else gets the reminder days that apply to them
    ///    (``RulePrecedence``: their own, else their groups' and sources'),
    ///    else ``reminders``, their weekend rule (``Person/weekend``) and
    ///    their zone (``Person/zone``).
    public func treatment(of kind: EventKind, for traits: PersonTraits) -> EventTreatment? {
        if traits.excluded { return nil }
        if kind == .anniversary && !anniversaries { return nil }
        if kind == .labelled && !labels.on { return nil }
        if traits.deceased {
            guard deceased == .remember, kind == .birthday else { return nil }
            return EventTreatment(reminderDays: .dayOfOnly, memorial: true)
        }
        return EventTreatment(reminderDays: traits.reminderDays ?? reminders, weekend: traits.weekend, zone: traits.zone)
    }
}

extension Settings {
    /// The part of the settings that decides how each date is kept.
    public var treatmentRules: TreatmentRules {
        TreatmentRules(anniversaries: anniversaries, deceased: deceased, reminders: reminders, labels: labelRules)
    }

    /// How the `kind` date of a person with `traits` is kept (``TreatmentRules/treatment(of:for:)``).
    public func treatment(of kind: EventKind, for traits: PersonTraits) -> EventTreatment? {
        treatmentRules.treatment(of: kind, for: traits)
    }
}
