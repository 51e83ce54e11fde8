import Foundation

/// A calendar other than the Gregorian one in which a contact can give a
/// birthday or an anniversary: Apple's `X-ALTBDAY;CALSCALE=…` and vCard 4's
/// `BDAY;CALSCALE=…` / `ANNIVERSARY;CALSCALE=…`.
///
/// The raw values are the identifiers Apple writes in `CALSCALE` (CLDR's
/// calendar names, also RFC 7529's `RSCALE` values in upper case). Each is
/// computed by Foundation's `Calendar` (ICU) on every platform.
///
/// ## Which calendars
/// Every calendar Foundation on Linux (Swift 6.3, ICU 76) converts both ways:
/// a day read in it and converted back is the same day, for every day of 60
/// years (`CalendarSupportTests`). Some identifiers Foundation knows are not
/// offered, and a contact naming them is reported (``unsupportedReason(_:)``):
/// - `ethiopic-amete-alem` and `vietnamese` return Gregorian fields on Linux;
/// - `bangla`, `gujarati`, `kannada`, `malayalam`, `marathi`, `odia`, `tamil`,
///   `telugu` and `vikram` never convert back to the day they were read from.
///
/// `buddhist`, `japanese` and `roc` number years differently but share the
/// Gregorian months and days; a date in them falls on the same month and day
/// as a Gregorian one.
public enum CalendarSystem: String, CaseIterable, Sendable, Codable, Comparable {
    case buddhist
    /// The Chinese lunisolar calendar (農曆): era = 60-year cycle, leap months.
    case chinese
    case coptic
    /// The Korean lunisolar calendar (단기): the Chinese rules at Seoul's meridian.
    case dangi
    /// Ethiopian, Amete Mihret years (`ethiopic` in CLDR).
    case ethiopic
    /// Months numbered as Foundation and Apple do: 1 Tishri … 5 Shevat,
    /// 6 Adar I (leap years only), 7 Adar (Adar II in leap years), 8 Nisan … 13 Elul.
    case hebrew
    /// The Indian national (Saka) calendar.
    case indian
    /// Hijri, astronomical.
    case islamic
    /// Hijri, arithmetical with a Friday epoch (what convertdate's `islamic` computes).
    case islamicCivil = "islamic-civil"
    /// Hijri, arithmetical with a Thursday epoch.
    case islamicTabular = "islamic-tbla"
    /// Hijri, Umm al-Qura (Saudi Arabia).
    case islamicUmmAlQura = "islamic-umalqura"
    case japanese
    /// Solar Hijri (Iran, Afghanistan).
    case persian
    /// Minguo (Taiwan).
    case republicOfChina = "roc"

    /// The calendar a `CALSCALE` value names, in any case; `nil` for
    /// `gregorian` and for anything this program does not read
    /// (``unsupportedReason(_:)`` says why).
    public init?(calscale: String) {
        self.init(rawValue: calscale.trimmingWhitespace().lowercased())
    }

    /// Why a `CALSCALE` value that is not a ``CalendarSystem`` is not read,
    /// as the end of a sentence ("… is not read: <reason>").
    public static func unsupportedReason(_ calscale: String) -> String {
        switch calscale.trimmingWhitespace().lowercased() {
        case "gregorian", "iso8601": "it is the Gregorian calendar, which BDAY and ANNIVERSARY carry"
        case "ethiopic-amete-alem", "ethioaa", "vietnamese": "Foundation on Linux computes it as the Gregorian calendar"
        case "bangla", "gujarati", "kannada", "malayalam", "marathi", "odia", "tamil", "telugu", "vikram":
            "Foundation on Linux does not convert its dates back to the days they came from"
        default: "it is not a calendar this program knows"
        }
    }

    public static func < (lhs: CalendarSystem, rhs: CalendarSystem) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Foundation's identifier.
    var identifier: Calendar.Identifier {
        switch self {
        case .buddhist: .buddhist
        case .chinese: .chinese
        case .coptic: .coptic
        case .dangi: .dangi
        case .ethiopic: .ethiopicAmeteMihret
        case .hebrew: .hebrew
        case .indian: .indian
        case .islamic: .islamic
        case .islamicCivil: .islamicCivil
        case .islamicTabular: .islamicTabular
        case .islamicUmmAlQura: .islamicUmmAlQura
        case .japanese: .japanese
        case .persian: .persian
        case .republicOfChina: .republicOfChina
        }
    }

    /// Whether months can be leap months (`isLeapMonth`): the Chinese and Korean calendars.
    public var hasLeapMonths: Bool { self == .chinese || self == .dangi }

    /// Whether months and days are the Gregorian ones (only the years differ).
    var sharesGregorianDays: Bool { self == .buddhist || self == .japanese || self == .republicOfChina }

    /// The era of a year written without one (vCard 4's `YYYYMMDD`): the
    /// calendar's current era. `nil` where a year means nothing without its
    /// era: the 60-year cycles of `chinese` and `dangi`, the reigns of `japanese`.
    package var eraOfEralessYear: Int? {
        switch self {
        case .chinese, .dangi, .japanese: nil
        case .coptic, .ethiopic, .republicOfChina: 1
        case .buddhist, .hebrew, .indian, .islamic, .islamicCivil, .islamicTabular, .islamicUmmAlQura, .persian: 0
        }
    }

    /// RFC 7529's `RSCALE` value: the CLDR name in upper case.
    public var rscale: String { rawValue.uppercased() }

    /// The calendar in UTC, for civil days at noon (made once per calendar, on first use).
    var utc: Calendar {
        switch self {
        case .buddhist: UTCCalendars.buddhist
        case .chinese: UTCCalendars.chinese
        case .coptic: UTCCalendars.coptic
        case .dangi: UTCCalendars.dangi
        case .ethiopic: UTCCalendars.ethiopic
        case .hebrew: UTCCalendars.hebrew
        case .indian: UTCCalendars.indian
        case .islamic: UTCCalendars.islamic
        case .islamicCivil: UTCCalendars.islamicCivil
        case .islamicTabular: UTCCalendars.islamicTabular
        case .islamicUmmAlQura: UTCCalendars.islamicUmmAlQura
        case .japanese: UTCCalendars.japanese
        case .persian: UTCCalendars.persian
        case .republicOfChina: UTCCalendars.republicOfChina
        }
    }
}

/// One `Calendar` per system, each made the first time it is needed (a
/// static `let` is initialized lazily and once): a process that never meets
/// a Hebrew date never sets up ICU's Hebrew calendar.
private enum UTCCalendars {
    static func make(_ identifier: Calendar.Identifier) -> Calendar {
        var calendar = Calendar(identifier: identifier)
        calendar.timeZone = .gmt
        return calendar
    }

    static let buddhist = make(.buddhist)
    static let chinese = make(.chinese)
    static let coptic = make(.coptic)
    static let dangi = make(.dangi)
    static let ethiopic = make(.ethiopicAmeteMihret)
    static let hebrew = make(.hebrew)
    static let indian = make(.indian)
    static let islamic = make(.islamic)
    static let islamicCivil = make(.islamicCivil)
    static let islamicTabular = make(.islamicTabular)
    static let islamicUmmAlQura = make(.islamicUmmAlQura)
    static let japanese = make(.japanese)
    static let persian = make(.persian)
    static let republicOfChina = make(.republicOfChina)
}
