#!/usr/bin/python3
"""Split a multi-contact vCard file into a vdir: one .vcf per contact, named by its UID.

    split_vcards.py contacts.vcf DIR

khard (the peer of `birthdays upcoming`) reads an address book laid out this way.
"""
import os
import re
import sys


def main():
    source, target = sys.argv[1], sys.argv[2]
    os.makedirs(target, exist_ok=True)
    with open(source, "rb") as handle:
        data = handle.read()
    cards = re.findall(rb"BEGIN:VCARD\r?\n.*?END:VCARD\r?\n", data, re.S)
    for index, card in enumerate(cards):
        match = re.search(rb"^UID:([^\r\n]+)", card, re.M)
        name = match.group(1).decode("ascii", "replace") if match else "card-%d" % index
        name = re.sub(r"[^A-Za-z0-9._-]", "_", name)
        with open(os.path.join(target, name + ".vcf"), "wb") as out:
            out.write(card)
    print(len(cards))


if __name__ == "__main__":
    main()
