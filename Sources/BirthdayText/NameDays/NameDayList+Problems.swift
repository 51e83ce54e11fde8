import BirthdayCore

extension NameDayList {
    /// Reads a list written `MM-DD,name,name…` (``NameDayList/read(_:country:)``);
    /// a line that is not a day is a problem naming `file` and its line, in
    /// `localizer`'s language, and the rest is still read.
    public static func parse(
        _ text: String,
        country: String,
        file: String,
        localizer: Localizer = .english
    ) -> (list: NameDayList, problems: [ImportProblem]) {
        let (list, notDays) = read(text, country: country)
        return (list, notDays.map { ImportProblem(file: file, line: $0.line, message: localizer(.nameDaysNotADay($0.text))) })
    }
}
