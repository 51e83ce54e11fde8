#!/usr/bin/python3
"""Change one card of a Radicale book on disk: its NOTE line gets a new value,
and its name (FN) a new " bench N" suffix, so the person it brings is updated.

    change_card.py FILE

The incremental-sync benchmark runs this before each sync, so every sync
finds exactly one changed card among all of them.
"""
import re
import sys
import time

path = sys.argv[1]
with open(path, "rb") as handle:
    card = handle.read()
card = re.sub(rb"NOTE:bench [^\r\n]*\r?\n", b"", card)
stamp = ("NOTE:bench %d\r\n" % time.time_ns()).encode()
card = card.replace(b"END:VCARD", stamp + b"END:VCARD", 1)
suffix = (" bench %d" % time.time_ns()).encode()
card = re.sub(rb"^(FN:[^\r\n]*?)(?: bench \d+)?(\r?\n)", lambda m: m.group(1) + suffix + m.group(2), card, count=1, flags=re.M)
with open(path, "wb") as handle:
    handle.write(card)
