#!/usr/bin/python3
"""Peer of `birthdays export`: build the same calendar with python3-icalendar.

    icalendar_build.py truth.tsv > calendar.ics
    icalendar_build.py --ages YEAR truth.tsv > calendar.ics

Reads the people from gen-contacts.py's --truth file (uid, name, kind, month,
day, year) and builds what our exporter builds under `calendar-ages off`:
one all-day floating VEVENT per birthday and anniversary, a yearly RRULE
(Feb 29: last day of February), the same properties, and two DISPLAY
VALARMs, on the day at 09:00 (PT9H) and the day before (-PT15H). Events are
sorted by UID and DTSTAMP is fixed, as ours are. Writes the text to stdout.

With --ages YEAR, what our exporter builds with its default settings
(`calendar-ages on`) when this year is YEAR: a date with a known year gets
one event per year for YEAR, YEAR+1 and YEAR+2 (none before the date's own
year), titled with the age ("🎂 Ada (36)"; the year of birth without one),
UID <id>-<kind>-y<year>@birthdays, no RRULE, and a round birthday's third
alarm 14 days before (-P13DT15H); then the recurring event, starting on the
first occurrence after those years.
"""
import datetime
import sys

from icalendar import Alarm, Calendar, Event, vDuration, vRecur

UNKNOWN_YEAR_BASE = 1972
STAMP = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
DAY_OF = datetime.timedelta(hours=9)
DAY_BEFORE = -datetime.timedelta(hours=15)


def read_entries(path):
    entries = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            uid, name, kind, month, day, year = line.rstrip("\n").split("\t")
            entries.append(("%s-%s@birthdays" % (uid, kind), name, kind, int(month), int(day), int(year) if year else None))
    entries.sort(key=lambda entry: entry[0].encode("utf-8"))
    return entries


def alarm(trigger, text):
    component = Alarm()
    component.add("action", "DISPLAY")
    component.add("description", text)
    component.add("trigger", trigger, parameters={"RELATED": "START"})
    return component


ROUND_LEAD = -datetime.timedelta(days=13, hours=15)


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def occurrence(year, month, day):
    """The day in YEAR, Feb 29 on Feb 28 in common years (leap-day feb28)."""
    if (month, day) == (2, 29) and not is_leap(year):
        return datetime.date(year, 2, 28)
    return datetime.date(year, month, day)


def is_round(age):
    return age > 0 and (age == 18 or age % 10 == 0 or age >= 100)


def event(uid, name, kind, month, day, year, start=None, age=None, once=False):
    birthday = kind == "birthday"
    start = start or datetime.date(year or UNKNOWN_YEAR_BASE, month, day)
    component = Event()
    component.add("uid", uid)
    component.add("dtstamp", STAMP)
    component.add("dtstart", start)
    component.add("dtend", start + datetime.timedelta(days=1))
    if once:
        pass
    elif (month, day) == (2, 29):
        component.add("rrule", vRecur(freq="YEARLY", bymonthday=-1, bymonth=2))
    else:
        component.add("rrule", vRecur(freq="YEARLY"))
    title = ("🎂 " if birthday else "💍 ") + name
    component.add("summary", title + (" (%d)" % age if age else ""))
    if year:
        component.add("description", ("born " if birthday else "since ") + str(year))
    component.add("categories", ["Birthday" if birthday else "Anniversary"])
    component.add("class", "PRIVATE")
    component.add("transp", "TRANSPARENT")
    if year:
        component.add("x-birthdays-year", str(year))
    else:
        component.add("x-birthdays-unknown-year", "1")
    what = "birthday" if birthday else "anniversary"
    component.add_component(alarm(DAY_OF, "Today is %s's %s!" % (name, what)))
    component.add_component(alarm(DAY_BEFORE, "%s's %s is tomorrow!" % (name, what)))
    if birthday and age and is_round(age):
        component.add_component(alarm(ROUND_LEAD, "%s turns %d in 2 weeks! A round birthday: time to plan." % (name, age)))
    return component


def aged_events(this_year, uid, name, kind, month, day, year):
    """The events of one date under calendar-ages on (see the module's text)."""
    if not year:
        return [(uid, event(uid, name, kind, month, day, year))]
    stem = uid[: -len("@birthdays")]
    events = []
    for event_year in range(max(this_year, year), this_year + 3):
        aged = "%s-y%d@birthdays" % (stem, event_year)
        events.append((aged, event(aged, name, kind, month, day, year, occurrence(event_year, month, day), event_year - year, True)))
    first = max(year, this_year + 3)
    events.append((uid, event(uid, name, kind, month, day, year, occurrence(first, month, day))))
    return events


def main():
    calendar = Calendar()
    calendar.add("version", "2.0")
    calendar.add("prodid", "-//birthdays//birthdays 1.0//EN")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("name", "Birthdays")
    calendar.add("x-wr-calname", "Birthdays")
    refresh = vDuration(datetime.timedelta(days=1))
    refresh.params["VALUE"] = "DURATION"
    calendar.add("refresh-interval", refresh)
    calendar.add("x-published-ttl", "P1D")
    arguments = sys.argv[1:]
    if arguments[0] == "--ages":
        this_year = int(arguments[1])
        events = [pair for entry in read_entries(arguments[2]) for pair in aged_events(this_year, *entry)]
        events.sort(key=lambda pair: pair[0].encode("utf-8"))
        for _, component in events:
            calendar.add_component(component)
    else:
        for entry in read_entries(arguments[0]):
            calendar.add_component(event(*entry))
    sys.stdout.buffer.write(calendar.to_ical())


if __name__ == "__main__":
    main()
