#!/usr/bin/python3
"""Write the body of a sync-collection REPORT (RFC 6578) from the sync-token a
birthdays database keeps, for curl to send as the limit beside our own request.

    sync_report.py DATABASE publish OUT   # the publish target's token, getetag
    sync_report.py DATABASE source OUT    # the CardDAV source's token, getetag and address-data

A DATABASE of "-", or an empty token, asks for every member (a first sync).
"""
import sqlite3
import sys
from xml.sax.saxutils import escape

database, kind, out = sys.argv[1], sys.argv[2], sys.argv[3]
table, prop = {"publish": ("publishTarget", ""), "source": ("source", "<c:address-data/>")}[kind]
token = ""
if database != "-":
    with sqlite3.connect("file:%s?mode=ro" % database, uri=True) as connection:
        row = connection.execute("SELECT syncToken FROM %s ORDER BY id LIMIT 1" % table).fetchone()
    token = row[0] if row and row[0] else ""
element = "<d:sync-token>%s</d:sync-token>" % escape(token) if token else "<d:sync-token/>"
body = ('<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:carddav">'
        + element + "<d:sync-level>1</d:sync-level><d:prop><d:getetag/>" + prop + "</d:prop></d:sync-collection>")
with open(out, "w", encoding="utf-8") as handle:
    handle.write(body)
