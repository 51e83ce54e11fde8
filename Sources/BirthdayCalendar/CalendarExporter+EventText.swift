import BirthdayCore
import CLibical

/// How each event of the calendar is written (``CalendarExporter``): its
/// `VEVENT` as libical's text, the lines every event shares made by libical
/// once per export (``ICalLine``), and the libical values of its rules and
/// alarm triggers.
extension CalendarExporter {
    /// Appends one `VEVENT`'s text (with its `VALARM`s) to `bytes`, the same
    /// bytes libical writes for the event built as its objects: the
    /// properties whose text never changes come from `lines` (made by libical
    /// once per export), dates and plain text are written here, and a value
    /// that needs folding or a control character's escape goes through
    /// libical (``ICalLine``).
    func appendEvent(_ event: EventContent, values: EventValues, lines: inout EventLines, to bytes: inout [UInt8]) throws(ExportError) {
        bytes += "BEGIN:VEVENT\r\n".utf8
        try ICalLine.appendText("UID", event.uid, to: &bytes) { libical.pointee.icalproperty_new_uid($0) }
        bytes += lines.stamp
        let end = event.start.adding(days: 1)
        ICalLine.appendDate("DTSTART", event.start.year, event.start.month, event.start.day, to: &bytes)
        ICalLine.appendDate("DTEND", end.year, end.month, end.day, to: &bytes)
        switch event.recurrence {
        case .once:
            break
        case .rscale(let date):
            let (rule, rscale) = Rules.rscale(date, base: values.rules.plain)
            bytes += try ICalLine.property("RRULE") { Self.rscaleProperty(rule, rscale) }
        case .yearly:
            bytes += lines.yearly
        case .lastDayOfFebruary:
            bytes += lines.lastDayOfFebruary
        case .everyFourthYear:
            bytes += lines.everyFourthYear
        }
        try ICalLine.appendText("SUMMARY", event.summary, to: &bytes) { libical.pointee.icalproperty_new_summary($0) }
        if let description = event.description {
            try ICalLine.appendText("DESCRIPTION", description, to: &bytes) { libical.pointee.icalproperty_new_description($0) }
        }
        bytes += event.countsAge ? lines.birthdayCategory : lines.anniversaryCategory
        bytes += lines.classAndTransparency
        if let knownYear = event.knownYear {
            bytes += "X-BIRTHDAYS-YEAR:".utf8
            ICalLine.appendDigits(knownYear, count: 1, to: &bytes)
            bytes += "\r\n".utf8
        } else {
            bytes += "X-BIRTHDAYS-UNKNOWN-YEAR:1\r\n".utf8
        }
        if let calendar = event.calendar {
            try ICalLine.appendExtension("X-BIRTHDAYS-CALENDAR", calendar.rawValue, to: &bytes)
        }
        if let label = event.label {
            try ICalLine.appendExtension("X-BIRTHDAYS-LABEL", label, to: &bytes)
        }
        if let deathDate = event.deathDate {
            try ICalLine.appendExtension("X-BIRTHDAYS-DEATHDATE", deathDate, to: &bytes)
        }
        for alarm in event.alarms {
            bytes += "BEGIN:VALARM\r\n".utf8
            bytes += lines.action
            try ICalLine.appendText("DESCRIPTION", alarm.text, to: &bytes) { libical.pointee.icalproperty_new_description($0) }
            bytes += try lines.trigger(daysBefore: alarm.daysBefore, values.triggers)
            bytes += "END:VALARM\r\n".utf8
        }
        bytes += "END:VEVENT\r\n".utf8
    }

    /// The text of the properties every event of one export shares, made by
    /// libical once (and each alarm trigger once per thread).
    struct EventLines {
        let stamp: [UInt8]
        let yearly: [UInt8]
        let lastDayOfFebruary: [UInt8]
        let everyFourthYear: [UInt8]
        let birthdayCategory: [UInt8]
        let anniversaryCategory: [UInt8]
        /// `CLASS:PRIVATE` and `TRANSP:TRANSPARENT`.
        let classAndTransparency: [UInt8]
        let action: [UInt8]
        private var triggers: [Int: [UInt8]] = [:]

        init(_ values: EventValues) throws(ExportError) {
            let (stamp, rules) = (values.stamp, values.rules)
            self.stamp = try ICalLine.property("DTSTAMP") { libical.pointee.icalproperty_new_dtstamp(stamp) }
            yearly = try ICalLine.property("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: .yearly)) }
            lastDayOfFebruary = try ICalLine.property("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: .lastDayOfFebruary)) }
            everyFourthYear = try ICalLine.property("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: .everyFourthYear)) }
            birthdayCategory = try ICalLine.property("CATEGORIES") { "Birthday".withCString { libical.pointee.icalproperty_new_categories($0) } }
            anniversaryCategory = try ICalLine.property("CATEGORIES") {
                "Anniversary".withCString { libical.pointee.icalproperty_new_categories($0) }
            }
            classAndTransparency =
                try ICalLine.property("CLASS") { libical.pointee.icalproperty_new_class(ICAL_CLASS_PRIVATE) }
                + ICalLine.property("TRANSP") { libical.pointee.icalproperty_new_transp(ICAL_TRANSP_TRANSPARENT) }
            action = try ICalLine.property("ACTION") { libical.pointee.icalproperty_new_action(ICAL_ACTION_DISPLAY) }
        }

        /// `TRIGGER;RELATED=START:…` `days` before, made once.
        mutating func trigger(daysBefore days: Int, _ triggers: Triggers) throws(ExportError) -> [UInt8] {
            if let line = self.triggers[days] { return line }
            let trigger = triggers.trigger(daysBefore: days)
            let line = try ICalLine.property("TRIGGER") {
                libical.pointee.icalproperty_new_trigger(trigger)
            } configure: { property throws(ExportError) in
                try ICalNode.addParameter(to: property, "RELATED=START") { libical.pointee.icalparameter_new_related(ICAL_RELATED_START) }
            }
            self.triggers[days] = line
            return line
        }
    }

    /// An `RSCALE` rule's property: libical copies the `RSCALE` text into it
    /// (icalvalue_set_recur strdups it).
    static func rscaleProperty(_ rule: icalrecurrencetype, _ rscale: String) -> OpaquePointer? {
        rscale.withCString { name in
            var rule = rule
            rule.rscale = UnsafeMutablePointer(mutating: name)
            return libical.pointee.icalproperty_new_rrule(rule)
        }
    }

    /// The yearly rules, made once per export.
    struct Rules {
        let plain: icalrecurrencetype
        let lastDayOfFebruary: icalrecurrencetype
        let everyFourthYear: icalrecurrencetype

        init() {
            var plain = icalrecurrencetype()
            libical.pointee.icalrecurrencetype_clear(&plain)
            plain.freq = ICAL_YEARLY_RECURRENCE
            self.plain = plain

            // icalrecurrencetype_clear fills every BY… array with the end marker,
            // so setting element 0 gives a one-element list.
            var february = plain
            february.by_month.0 = 2
            february.by_month_day.0 = -1
            lastDayOfFebruary = february

            var fourth = plain
            fourth.interval = 4
            everyFourthYear = fourth
        }

        func rule(for recurrence: Recurrence) -> icalrecurrencetype {
            switch recurrence {
            case .yearly, .once, .rscale: plain
            case .lastDayOfFebruary: lastDayOfFebruary
            case .everyFourthYear: everyFourthYear
            }
        }

        /// libical's flag on a `BYMONTH` value for a leap month (`5L`).
        static let leapMonthFlag: Int16 = 0x1000

        /// The RFC 7529 rule of `date` (without its `RSCALE` text, which the
        /// caller sets while the property is made) and that text.
        ///
        /// Months are RFC 7529's (CLDR's month codes): the same as
        /// Foundation's except for Hebrew, where Foundation counts 1 Tishri …
        /// 6 Adar I, 7 Adar … 13 Elul, and RFC 7529 has Adar I as the leap
        /// month `5L` and Adar as `6` … Elul as `12`.
        static func rscale(_ date: CalendarDate, base: icalrecurrencetype) -> (icalrecurrencetype, String) {
            var rule = base
            var month = Int16(date.month)
            var skip = ICAL_SKIP_BACKWARD
            if date.calendar == .hebrew {
                switch date.month {
                case 6:
                    month = 5 | leapMonthFlag
                    skip = ICAL_SKIP_FORWARD
                case 7...: month = Int16(date.month - 1)
                default: break
                }
            } else if date.isLeapMonth {
                month |= leapMonthFlag
            }
            rule.by_month.0 = month
            rule.by_month_day.0 = Int16(date.day)
            rule.skip = skip
            return (rule, date.calendar.rscale)
        }
    }

    /// Alarm triggers relative to the floating midnight that starts the day.
    struct Triggers {
        let minutes: Int

        init(deliveryTime: TimeOfDay) {
            minutes = deliveryTime.minutesSinceMidnight
        }

        /// The delivery time `days` days before the event's day: `PT9H` on
        /// the day, `-PT15H` the day before, `-P6DT15H` a week before (at 09:00).
        func trigger(daysBefore days: Int) -> icaltriggertype {
            var duration = libical.pointee.icaldurationtype_null_duration()
            guard days > 0 else {
                duration.hours = UInt32(minutes / 60)
                duration.minutes = UInt32(minutes % 60)
                return Self.trigger(duration)
            }
            duration.is_neg = 1
            if minutes == 0 {
                // Nominal days keep midnight midnight across a DST change; exact hours would not.
                duration.days = UInt32(days)
            } else {
                // Whole days back to the day before, then the hours before its midnight.
                duration.days = UInt32(days - 1)
                duration.hours = UInt32((24 * 60 - minutes) / 60)
                duration.minutes = UInt32((24 * 60 - minutes) % 60)
            }
            return Self.trigger(duration)
        }

        private static func trigger(_ duration: icaldurationtype) -> icaltriggertype {
            icaltriggertype(time: libical.pointee.icaltime_null_time(), duration: duration)
        }
    }
}
