#!/usr/bin/python3
"""Peer of `birthdays export`: build the same calendar with python3-icalendar.

    icalendar_build.py truth.tsv > calendar.ics

Reads the people from gen-contacts.py's --truth file (uid, name, kind, month,
day, year) and builds what our exporter builds with its default settings:
one all-day floating VEVENT per birthday and anniversary, a yearly RRULE
(Feb 29: last day of February), the same properties, and two DISPLAY
VALARMs, on the day at 09:00 (PT9H) and the day before (-PT15H). Events are
sorted by UID and DTSTAMP is fixed, as ours are. Writes the text to stdout.
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


def event(uid, name, kind, month, day, year):
    birthday = kind == "birthday"
    start = datetime.date(year or UNKNOWN_YEAR_BASE, month, day)
    component = Event()
    component.add("uid", uid)
    component.add("dtstamp", STAMP)
    component.add("dtstart", start)
    component.add("dtend", start + datetime.timedelta(days=1))
    if (month, day) == (2, 29):
        component.add("rrule", vRecur(freq="YEARLY", bymonthday=-1, bymonth=2))
    else:
        component.add("rrule", vRecur(freq="YEARLY"))
    component.add("summary", ("🎂 " if birthday else "💍 ") + name)
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
    return component


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
    for entry in read_entries(sys.argv[1]):
        calendar.add_component(event(*entry))
    sys.stdout.buffer.write(calendar.to_ical())


if __name__ == "__main__":
    main()
