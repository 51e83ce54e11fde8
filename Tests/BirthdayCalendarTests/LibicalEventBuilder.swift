import BirthdayCore
import CLibical
import Foundation

@testable import BirthdayCalendar

/// The calendar's events built as libical objects, property by property,
/// as the feed was written before ``CalendarExporter/appendEvent(_:values:lines:to:)``
/// wrote their text: what the tests compare the feed's bytes with
/// (``CalendarExporter/libicalEventTexts(_:lastChange:)``).
extension CalendarExporter {
    /// The events of `people` as libical writes their objects (the way the
    /// feed was written before ``appendEvent(_:values:lines:to:)``): one
    /// `VEVENT` text per event, in UID order, for comparing the two.
    func libicalEventTexts(_ people: [Person], lastChange: Date) throws(ExportError) -> [[UInt8]] {
        try ICalComponent.loadLibical()
        let values = eventValues(lastChange: lastChange)
        return try entries(for: people, lastChange: lastChange).map { entry throws(ExportError) in
            var bytes: [UInt8] = []
            try makeEvent(content(of: entry, values: values), values: values).appendSerialized(to: &bytes)
            return bytes
        }
    }

    /// One `VEVENT` (with its `VALARM`s) as libical objects, to be serialized
    /// and freed before the next one is built.
    private func makeEvent(_ event: EventContent, values: EventValues) throws(ExportError) -> ICalComponent {
        let (stamp, rules, triggers) = (values.stamp, values.rules, values.triggers)
        let component = try ICalComponent(kind: ICAL_VEVENT_COMPONENT)
        let root = component.root
        try root.add("UID", text: event.uid) { libical.pointee.icalproperty_new_uid($0) }
        try root.add("DTSTAMP") { libical.pointee.icalproperty_new_dtstamp(stamp) }
        try root.add("DTSTART") { libical.pointee.icalproperty_new_dtstart(Self.icalDate(event.start)) }
        try root.add("DTEND") { libical.pointee.icalproperty_new_dtend(Self.icalDate(event.start.adding(days: 1))) }
        switch event.recurrence {
        case .once:
            break
        case .rscale(let date):
            let (rule, rscale) = Rules.rscale(date, base: rules.plain)
            try root.add("RRULE") { Self.rscaleProperty(rule, rscale) }
        default:
            try root.add("RRULE") { libical.pointee.icalproperty_new_rrule(rules.rule(for: event.recurrence)) }
        }
        try root.add("SUMMARY", text: event.summary) { libical.pointee.icalproperty_new_summary($0) }
        if let description = event.description {
            try root.add("DESCRIPTION", text: description) { libical.pointee.icalproperty_new_description($0) }
        }
        try root.add("CATEGORIES", text: event.countsAge ? "Birthday" : "Anniversary") { libical.pointee.icalproperty_new_categories($0) }
        try root.add("CLASS") { libical.pointee.icalproperty_new_class(ICAL_CLASS_PRIVATE) }
        try root.add("TRANSP") { libical.pointee.icalproperty_new_transp(ICAL_TRANSP_TRANSPARENT) }
        if let knownYear = event.knownYear {
            try root.addExtension("X-BIRTHDAYS-YEAR", value: String(knownYear))
        } else {
            try root.addExtension("X-BIRTHDAYS-UNKNOWN-YEAR", value: "1")
        }
        if let calendar = event.calendar {
            try root.addExtension("X-BIRTHDAYS-CALENDAR", value: calendar.rawValue)
        }
        if let label = event.label {
            try root.addExtension("X-BIRTHDAYS-LABEL", value: label)
        }
        if let deathDate = event.deathDate {
            try root.addExtension("X-BIRTHDAYS-DEATHDATE", value: deathDate)
        }
        for alarm in event.alarms {
            try addAlarm(to: root, trigger: triggers.trigger(daysBefore: alarm.daysBefore), text: alarm.text)
        }
        return component
    }

    private func addAlarm(to event: ICalNode, trigger: icaltriggertype, text: String) throws(ExportError) {
        let alarm = try event.addComponent(ICAL_VALARM_COMPONENT)
        try alarm.add("ACTION") { libical.pointee.icalproperty_new_action(ICAL_ACTION_DISPLAY) }
        try alarm.add("DESCRIPTION", text: text) { libical.pointee.icalproperty_new_description($0) }
        let property = try alarm.add("TRIGGER") { libical.pointee.icalproperty_new_trigger(trigger) }
        try ICalNode.addParameter(to: property, "RELATED=START") { libical.pointee.icalparameter_new_related(ICAL_RELATED_START) }
    }

    /// A floating DATE value (no time, no zone).
    static func icalDate(_ date: LocalDate) -> icaltimetype {
        // icaltime_null_date() sets the time fields to -1, which libical's
        // recurrence code normalizes to the day before; a date is midnight.
        var time = libical.pointee.icaltime_null_date()
        time.year = Int32(date.year)
        time.month = Int32(date.month)
        time.day = Int32(date.day)
        time.hour = 0
        time.minute = 0
        time.second = 0
        return time
    }
}

extension ICalNode {
    /// Creates a sub-component of `kind` and adds it to this node at once.
    func addComponent(_ kind: icalcomponent_kind) throws(ExportError) -> ICalNode {
        guard let child = libical.pointee.icalcomponent_new(kind) else {
            throw ExportError(.libical(what: "a sub-component"))
        }
        libical.pointee.icalcomponent_add_component(pointer, child)
        return ICalNode(pointer: child)
    }
}
