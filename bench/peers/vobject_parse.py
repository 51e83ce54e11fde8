#!/usr/bin/python3
"""Peer of `birthdays import`: parse every contact of a vCard file with python3-vobject.

    vobject_parse.py contacts.vcf

Reads the whole file, parses each card (vobject unfolds lines and decodes
parameters), and reads the fields the importer needs (UID, FN, BDAY,
anniversaries), so the work compares with ours up to the database write.
Prints the number of cards.
"""
import sys

import vobject

FIELDS = ("uid", "fn", "bday", "x-anniversary", "anniversary")


def main():
    with open(sys.argv[1], encoding="utf-8", newline="") as handle:
        text = handle.read()
    count = 0
    for card in vobject.readComponents(text, ignoreUnreadable=True):
        for field in FIELDS:
            for line in card.contents.get(field, ()):
                line.value
        count += 1
    print(count)


if __name__ == "__main__":
    main()
