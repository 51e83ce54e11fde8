#!/usr/bin/python3
"""Split `birthdays export` into a vdir of one calendar per event, UID.ics, with the
bytes `birthdays publish` writes for it (CalendarExporter.events): the feed's
VERSION, PRODID and CALSCALE lines around one VEVENT, its alarms included, as
libical serialized it.

    split_events.py EXPORT.ics FOLDER

Prints how many files it wrote. The publish benchmark gives this folder to
`vdirsyncer sync`, which uploads the same events birthdays publishes.
"""
import os
import re
import sys

source, folder = sys.argv[1], sys.argv[2]
data = open(source, "rb").read()
head_end = data.index(b"BEGIN:VEVENT")
head = [line for line in re.split(rb"(?<=\r\n)", data[:head_end]) if re.match(rb"BEGIN:VCALENDAR\r\n|(VERSION|PRODID|CALSCALE)[:;]", line)]
frame = b"".join(head)
os.makedirs(folder, exist_ok=True)
count = 0
for match in re.finditer(rb"BEGIN:VEVENT\r\n.*?END:VEVENT\r\n", data, re.S):
    event = match.group(0)
    uid = re.search(rb"\r\nUID:(.*?)\r\n(?! )", event, re.S).group(1).replace(b"\r\n ", b"").decode("utf-8")
    name = "".join(c if re.match(r"[A-Za-z0-9\-_.~@]", c) else "".join("%%%02X" % b for b in c.encode("utf-8")) for c in uid)
    with open(os.path.join(folder, name + ".ics"), "wb") as handle:
        handle.write(frame + event + b"END:VCALENDAR\r\n")
    count += 1
print(count)
