#ifndef BIRTHDAYS_CLIBICAL_H
#define BIRTHDAYS_CLIBICAL_H

#include <libical/ical.h>

/// The libical functions BirthdayKit calls, as pointers filled in by
/// `clibical_load` at the first export: libical, and the ICU libraries behind
/// it, are loaded only by the commands that build or read a calendar, never
/// by `birthdays run` without the feed server, nor by `import`, `upcoming`
/// and the others. ical.h declares the real functions but nothing links
/// them, so a call that bypasses this table fails to link.
#define CLIBICAL_FUNCTIONS(X) \
    X(icalcomponent_add_component) \
    X(icalcomponent_add_property) \
    X(icalcomponent_as_ical_string_r) \
    X(icalcomponent_count_errors) \
    X(icalcomponent_free) \
    X(icalcomponent_get_dtend) \
    X(icalcomponent_get_dtstart) \
    X(icalcomponent_get_first_component) \
    X(icalcomponent_get_first_property) \
    X(icalcomponent_get_next_component) \
    X(icalcomponent_get_next_property) \
    X(icalcomponent_kind_to_string) \
    X(icalcomponent_new) \
    X(icaldurationtype_null_duration) \
    X(icalmemory_free_buffer) \
    X(icalparameter_new_related) \
    X(icalparameter_new_value) \
    X(icalparser_parse_string) \
    X(icalproperty_add_parameter) \
    X(icalproperty_as_ical_string_r) \
    X(icalproperty_free) \
    X(icalproperty_get_description) \
    X(icalproperty_get_summary) \
    X(icalproperty_get_uid) \
    X(icalproperty_get_value_as_string_r) \
    X(icalproperty_get_x) \
    X(icalproperty_get_x_name) \
    X(icalproperty_get_xlicerror) \
    X(icalproperty_new_action) \
    X(icalproperty_new_calscale) \
    X(icalproperty_new_categories) \
    X(icalproperty_new_class) \
    X(icalproperty_new_description) \
    X(icalproperty_new_dtend) \
    X(icalproperty_new_dtstamp) \
    X(icalproperty_new_dtstart) \
    X(icalproperty_new_name) \
    X(icalproperty_new_prodid) \
    X(icalproperty_new_refreshinterval) \
    X(icalproperty_new_rrule) \
    X(icalproperty_new_summary) \
    X(icalproperty_new_transp) \
    X(icalproperty_new_trigger) \
    X(icalproperty_new_uid) \
    X(icalproperty_new_version) \
    X(icalproperty_new_x) \
    X(icalproperty_set_x_name) \
    X(icalrecur_iterator_free) \
    X(icalrecur_iterator_new) \
    X(icalrecur_iterator_next) \
    X(icalrecurrencetype_clear) \
    X(icalrecurrencetype_from_string) \
    X(icalrestriction_check) \
    X(icaltime_from_timet_with_zone) \
    X(icaltime_is_null_time) \
    X(icaltime_is_utc) \
    X(icaltime_null_date) \
    X(icaltime_null_time) \
    X(icaltimezone_get_utc_timezone)

struct clibical_functions {
#define CLIBICAL_FIELD(name) __typeof__(name) *_Nonnull name;
    CLIBICAL_FUNCTIONS(CLIBICAL_FIELD)
#undef CLIBICAL_FIELD
};

/// Loads libical (libical.so.3) once, thread-safely, and resolves every
/// function above. The table, or NULL with `*failure` saying what is missing.
const struct clibical_functions *_Nullable clibical_load(const char *_Nullable *_Nonnull failure);

#endif
