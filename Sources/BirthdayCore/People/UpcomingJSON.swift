/// One entry of `birthdays upcoming --json`. `month`, `day` and `year` are
/// the date as the contact writes it, in its `calendar` (`gregorian`, or
/// `chinese`, `hebrew`, …); `era` and `leap_month` complete a date in another
/// calendar (`null` and `false` for a Gregorian one).
public struct UpcomingJSON: Encodable, Sendable {
    public var id: String
    public var name: String
    public var kind: String
    public var calendar: String
    public var date: String
    public var month: Int
    public var day: Int
    public var year: Int?
    public var era: Int?
    public var leap_month: Bool
    public var age: Int?
    public var days_until: Int
    /// The birthday of someone who has died, under `deceased remember` (always present).
    public var deceased: Bool
    /// A round birthday (``Occurrence/isRound``): 18, a multiple of 10, or 100 and more.
    public var round: Bool
    /// The zone the person's day begins in (an IANA name such as `"Asia/Tokyo"`,
    /// or an offset such as `"+09:00"`); `null` is the user's own.
    public var zone: String?
    /// The label of a labelled date (kind `labelled`: "Started work"); `null` for the others.
    public var label: String?

    public init(_ event: Occurrence) {
        id = event.personID
        name = event.name
        kind = event.kind.rawValue
        date = event.date.description
        if let written = event.calendarDate {
            calendar = written.calendar.rawValue
            month = written.month
            day = written.day
            year = written.year
            era = written.era
            leap_month = written.isLeapMonth
        } else {
            calendar = "gregorian"
            month = event.eventDate?.month ?? 0
            day = event.eventDate?.day ?? 0
            year = event.eventDate?.year
            era = nil
            leap_month = false
        }
        age = event.age
        days_until = event.daysUntil
        deceased = event.memorial
        round = event.isRound
        zone = event.zone?.storedValue
        label = event.labelled?.label
    }
}
