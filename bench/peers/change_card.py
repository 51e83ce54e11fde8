#!/usr/bin/python3
"""Change one card of a Radicale book on disk: its NOTE line gets a new value.

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
with open(path, "wb") as handle:
    handle.write(card)
