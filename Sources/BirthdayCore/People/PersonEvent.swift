/// One event of one person, as the store's one walk over everyone's dates
/// yields it: which date it is (a Gregorian birthday or anniversary, a date
/// in another calendar, a labelled date, a name day) and how it is kept
/// (``EventTreatment``, from ``TreatmentRules``). `upcoming`, the reminders,
/// the page and its JSON twin, and the digest are folds over these values;
/// the person's id, name and nickname come beside it, read only for the
/// events a fold keeps.
public struct PersonEvent: Hashable, Sendable {
    /// Which date of the person it is.
    public enum Date: Hashable, Sendable {
        /// The birthday or the anniversary the card gives.
        case gregorian(EventDate, EventKind)
        /// A date in another calendar (``AlternateDate``), an event of its own.
        case otherCalendar(AlternateDate)
        /// A date the card keeps under a label, with its ordinal among the
        /// person's dates of that label (``LabelledDate/withOrdinals(_:)``).
        case labelled(LabelledDate, ordinal: Int)
        /// A name day on `date`, from the list of `list`
        /// (``LabelledDate/nameDayList``). It carries no words: its label is
        /// rendered by whoever shows it (``labelled(nameDayLabel:)``).
        case nameDay(EventDate, list: String)

        /// The labelled date of a labelled date or a name day, a name day
        /// under `nameDayLabel` ("Name day" in the reader's language), with its
        /// ordinal (always 1 for a name day); `nil` for every other date.
        public func labelled(nameDayLabel: String) -> (date: LabelledDate, ordinal: Int)? {
            switch self {
            case .labelled(let labelled, let ordinal): return (labelled, ordinal)
            case .nameDay(let day, let list): return (LabelledDate(label: nameDayLabel, date: day, nameDayList: list), 1)
            case .gregorian, .otherCalendar: return nil
            }
        }
    }

    /// The id, name and nickname of the person, as the walk reads them for an event kept.
    public typealias Identity = (id: String, name: String, nickname: String)

    public var date: Date
    public var treatment: EventTreatment

    public init(date: Date, treatment: EventTreatment) {
        self.date = date
        self.treatment = treatment
    }

    /// ``Date/labelled(nameDayLabel:)`` of ``date``.
    public func labelled(nameDayLabel: String) -> (date: LabelledDate, ordinal: Int)? {
        date.labelled(nameDayLabel: nameDayLabel)
    }
}

extension TreatmentRules {
    /// How `date` of a person with `traits` is kept; `nil` when it gets
    /// nothing. A date in another calendar is never a memorial: under
    /// `deceased remember` only the Gregorian birthday is kept, so it gets
    /// nothing then. A name day follows the one choice every language's
    /// name-day label shares (``LabelRules/nameDayKey``).
    public func treatment(of date: PersonEvent.Date, for traits: PersonTraits) -> EventTreatment? {
        switch date {
        case .gregorian(_, let kind):
            return treatment(of: kind, for: traits)
        case .otherCalendar(let alternate):
            guard let treatment = treatment(of: alternate.kind, for: traits), !treatment.memorial else { return nil }
            return treatment
        case .labelled(let labelled, _):
            return treatment(of: labelled, for: traits)
        case .nameDay(let day, let list):
            return treatment(of: LabelledDate(label: "", date: day, nameDayList: list), for: traits)
        }
    }
}
