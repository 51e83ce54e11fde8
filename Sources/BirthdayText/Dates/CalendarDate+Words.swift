import BirthdayCore

extension CalendarDate {
    /// The date in words in the localizer's language, for people rather
    /// than programs (``written`` is for those): "15th day of the 8th month",
    /// "10th day of the leap 4th month", "15. Tag des 8. Monats", "8月15日".
    ///
    /// Months are numbered as ``month`` numbers them (Hebrew: 1 Tishri …
    /// 6 Adar I, 7 Adar or Adar II, … 13 Elul). The year is the calendar's
    /// own when it means something alone ("of 5784": Hebrew, Hijri,
    /// Persian, …); the 60-year cycles of `chinese` and `dangi` and the
    /// reigns of `japanese` are left out, as is an unknown year. The
    /// calendar's name is not part of it: whoever shows the date names the
    /// calendar beside it, as `upcoming` does (``CalendarSystem/nameKey``).
    public func words(in localizer: Localizer) -> String {
        let shownYear = calendar.eraOfEralessYear == nil ? nil : year
        return localizer(.calendarDay(day: day, month: month, leapMonth: isLeapMonth, year: shownYear))
    }
}

extension CalendarSystem {
    /// Which words name it in reminders and lists (``Message/Key/calendarLunar`` …).
    public var nameKey: Message.Key {
        switch self {
        case .chinese, .dangi: .calendarLunar
        case .hebrew: .calendarHebrew
        case .islamic, .islamicCivil, .islamicTabular, .islamicUmmAlQura: .calendarIslamic
        case .persian: .calendarPersian
        case .indian: .calendarIndian
        case .coptic: .calendarCoptic
        case .ethiopic: .calendarEthiopian
        case .buddhist: .calendarBuddhist
        case .japanese: .calendarJapanese
        case .republicOfChina: .calendarMinguo
        }
    }
}
