import BirthdayCore
import CLibical
import Foundation

@testable import BirthdayCalendar

/// What an exported event says, read back with libical. Used by tests and
/// diagnostics to check a feed without exposing libical types.
struct ICalEventReading: Sendable, Equatable {
    struct Alarm: Sendable, Equatable {
        var action: String
        /// The trigger as written, e.g. `-PT15H`.
        var trigger: String
        var description: String
    }

    var uid: String
    var summary: String
    var description: String?
    var start: LocalDate
    var startIsDate: Bool
    var startIsFloating: Bool
    var end: LocalDate?
    /// The `RRULE` as libical writes it, e.g. `FREQ=YEARLY;BYYEARDAY=60`.
    var rule: String?
    var stamp: String
    /// Extension properties by name (`X-BIRTHDAYS-YEAR` → `1990`).
    var extensions: [String: String]
    var alarms: [Alarm]

    /// The first `count` dates of the series on or after `from`, expanded by
    /// libical's `icalrecur_iterator` from `DTSTART` and `RRULE`.
    func occurrences(onOrAfter from: LocalDate, count: Int) -> [LocalDate] {
        guard let rule else { return start >= from ? [start] : [] }
        let recurrence = rule.withCString { libical.pointee.icalrecurrencetype_from_string($0) }
        // libical's parser allocates the RSCALE text; the iterator reads it until it is freed (the later defer runs first).
        defer { free(recurrence.rscale) }
        guard let iterator = libical.pointee.icalrecur_iterator_new(recurrence, CalendarExporter.icalDate(start)) else { return [] }
        defer { libical.pointee.icalrecur_iterator_free(iterator) }
        var result: [LocalDate] = []
        var next = libical.pointee.icalrecur_iterator_next(iterator)
        while libical.pointee.icaltime_is_null_time(next) == 0, result.count < count {
            let date = LocalDate(unchecked: Int(next.year), Int(next.month), Int(next.day))
            if date >= from { result.append(date) }
            next = libical.pointee.icalrecur_iterator_next(iterator)
        }
        return result
    }
}

extension ICalComponent {
    /// Every `VEVENT` directly inside this component, in document order.
    var events: [ICalEventReading] {
        var result: [ICalEventReading] = []
        var child = libical.pointee.icalcomponent_get_first_component(pointer, ICAL_VEVENT_COMPONENT)
        while let event = child {
            result.append(Self.reading(event))
            child = libical.pointee.icalcomponent_get_next_component(pointer, ICAL_VEVENT_COMPONENT)
        }
        return result
    }

    /// The value of the first property of `kind` on the root, as libical writes it.
    func propertyValue(_ kind: icalproperty_kind) -> String? {
        Self.value(of: libical.pointee.icalcomponent_get_first_property(pointer, kind))
    }

    /// The value of the first extension property called `name` on the root.
    func extensionValue(_ name: String) -> String? {
        Self.extensions(of: pointer)[name]
    }

    private static func reading(_ event: OpaquePointer) -> ICalEventReading {
        let start = libical.pointee.icalcomponent_get_dtstart(event)
        let end = libical.pointee.icalcomponent_get_dtend(event)
        var alarms: [ICalEventReading.Alarm] = []
        var child = libical.pointee.icalcomponent_get_first_component(event, ICAL_VALARM_COMPONENT)
        while let alarm = child {
            alarms.append(
                .init(
                    action: value(of: libical.pointee.icalcomponent_get_first_property(alarm, ICAL_ACTION_PROPERTY)) ?? "",
                    trigger: value(of: libical.pointee.icalcomponent_get_first_property(alarm, ICAL_TRIGGER_PROPERTY)) ?? "",
                    description: text(
                        libical.pointee.icalcomponent_get_first_property(alarm, ICAL_DESCRIPTION_PROPERTY),
                        libical.pointee.icalproperty_get_description
                    ) ?? ""
                )
            )
            child = libical.pointee.icalcomponent_get_next_component(event, ICAL_VALARM_COMPONENT)
        }
        return ICalEventReading(
            uid: text(libical.pointee.icalcomponent_get_first_property(event, ICAL_UID_PROPERTY), libical.pointee.icalproperty_get_uid) ?? "",
            summary: text(libical.pointee.icalcomponent_get_first_property(event, ICAL_SUMMARY_PROPERTY), libical.pointee.icalproperty_get_summary)
                ?? "",
            description: text(
                libical.pointee.icalcomponent_get_first_property(event, ICAL_DESCRIPTION_PROPERTY),
                libical.pointee.icalproperty_get_description
            ),
            start: LocalDate(unchecked: Int(start.year), Int(start.month), Int(start.day)),
            startIsDate: start.is_date != 0,
            startIsFloating: libical.pointee.icaltime_is_utc(start) == 0 && start.zone == nil,
            end: libical.pointee.icaltime_is_null_time(end) != 0 ? nil : LocalDate(unchecked: Int(end.year), Int(end.month), Int(end.day)),
            rule: value(of: libical.pointee.icalcomponent_get_first_property(event, ICAL_RRULE_PROPERTY)),
            stamp: value(of: libical.pointee.icalcomponent_get_first_property(event, ICAL_DTSTAMP_PROPERTY)) ?? "",
            extensions: extensions(of: event),
            alarms: alarms
        )
    }

    private static func extensions(of component: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        var property = libical.pointee.icalcomponent_get_first_property(component, ICAL_X_PROPERTY)
        while let current = property {
            if let name = libical.pointee.icalproperty_get_x_name(current), let value = libical.pointee.icalproperty_get_x(current) {
                result[String(cString: name)] = String(cString: value)
            }
            property = libical.pointee.icalcomponent_get_next_property(component, ICAL_X_PROPERTY)
        }
        return result
    }

    /// A TEXT value unescaped by libical.
    private static func text(_ property: OpaquePointer?, _ get: (OpaquePointer?) -> UnsafePointer<CChar>?) -> String? {
        guard let property, let text = get(property) else { return nil }
        return String(cString: text)
    }

    /// A value as libical serializes it (`icalproperty_get_value_as_string_r`).
    private static func value(of property: OpaquePointer?) -> String? {
        guard let property, let text = libical.pointee.icalproperty_get_value_as_string_r(property) else { return nil }
        defer { libical.pointee.icalmemory_free_buffer(text) }
        return String(cString: text)
    }
}
