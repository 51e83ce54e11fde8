#!/usr/bin/python3
"""Helpers of the many-users rows of bench/run.sh (BENCH_ONLY=users).

    users.py slices contacts.vcf DIR PER COUNT   # DIR/0000.vcf ...: COUNT files of PER contacts each, in order
    users.py stamp OUT                           # each line of standard input to OUT as "EPOCH<TAB>line", as it arrives
    users.py due ROOT EPOCH                      # reminders every user's database holds due at EPOCH (Unix seconds)
    users.py lateness STAMPED START PATTERN      # STAMPED's lines holding PATTERN: "count first last", seconds after START
    users.py started STAMPED START COUNT         # seconds after START until COUNT users' daemons said they started
    users.py copy DATABASE COPY                  # SQLite's online backup of DATABASE (its write-ahead log included)

The timestamps are taken by this reader when a line arrives: the log channel writes each
reminder's line with one write(2), unbuffered.
"""
import glob
import os
import re
import sqlite3
import sys
import time


def slices(source, target, per, count):
    os.makedirs(target, exist_ok=True)
    with open(source, "rb") as handle:
        data = handle.read()
    cards = re.findall(rb"BEGIN:VCARD\r?\n.*?END:VCARD\r?\n", data, re.S)
    if len(cards) < per * count:
        sys.exit("users.py: %s holds %d contacts, fewer than %d x %d" % (source, len(cards), per, count))
    for index in range(count):
        with open(os.path.join(target, "%04d.vcf" % index), "wb") as out:
            out.write(b"".join(cards[index * per:(index + 1) * per]))


def stamp(target):
    with open(target, "w", encoding="utf-8", buffering=1) as out:
        for line in sys.stdin:
            out.write("%.3f\t%s" % (time.time(), line))


def due(root, epoch):
    total = 0
    for database in sorted(glob.glob(os.path.join(root, "*", "birthdays.sqlite"))):
        connection = sqlite3.connect("file:%s?mode=ro" % database, uri=True)
        try:
            total += connection.execute("SELECT count(*) FROM pendingNotification WHERE fireAt = ?", (epoch,)).fetchone()[0]
        finally:
            connection.close()
    print(total)


def lines(stamped, pattern):
    with open(stamped, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            moment, _, text = line.partition("\t")
            if pattern in text:
                yield float(moment), text


def lateness(stamped, start, pattern):
    moments = [moment - start for moment, _ in lines(stamped, pattern)]
    print("%d %.3f %.3f" % (len(moments), min(moments, default=0), max(moments, default=0)))


def started(stamped, start, count):
    moments = sorted(moment - start for moment, _ in lines(stamped, "birthdays run started"))
    print("%.3f" % moments[count - 1] if len(moments) >= count else "none")


def copy(source, target):
    origin = sqlite3.connect("file:%s?mode=ro" % source, uri=True)
    destination = sqlite3.connect(target)
    try:
        origin.backup(destination)
    finally:
        destination.close()
        origin.close()


def main():
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "slices":
        slices(arguments[0], arguments[1], int(arguments[2]), int(arguments[3]))
    elif command == "stamp":
        stamp(arguments[0])
    elif command == "due":
        due(arguments[0], float(arguments[1]))
    elif command == "lateness":
        lateness(arguments[0], float(arguments[1]), arguments[2])
    elif command == "copy":
        copy(arguments[0], arguments[1])
    elif command == "started":
        started(arguments[0], float(arguments[1]), int(arguments[2]))
    else:
        sys.exit("users.py: unknown command %s" % command)


if __name__ == "__main__":
    main()
