#!/usr/bin/python3
"""The share of a perf recording's samples whose call stack holds a function matching a pattern.

    perf_share.py PERF_DATA REGEX [--comm-exclude REGEX]

Reads `perf script` of a recording made with --call-graph dwarf (Swift's release frames unwind
only that way) and counts each sample once: in the total (unless its thread's name matches
--comm-exclude), and in the share when any frame of its stack is a function whose mangled name
matches REGEX. Prints JSON: {"samples": N, "matched": M, "share": M/N}.

What one binary's run spends in some of its functions, as a share of the same run, does not
move with the machine's speed between runs, as a ratio of two runs' times does.
"""
import json
import re
import subprocess
import sys


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    data, pattern = argv[0], re.compile(argv[1])
    exclude = re.compile(argv[3]) if len(argv) >= 4 and argv[2] == "--comm-exclude" else None
    script = subprocess.Popen(["perf", "script", "-i", data, "-F", "comm,ip,sym", "--no-demangle"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace")
    samples = matched = 0
    counted, hit, in_sample = False, False, False
    for line in script.stdout:
        if not line.strip():
            if in_sample and counted:
                samples += 1
                matched += hit
            in_sample, counted, hit = False, False, False
            continue
        if not in_sample:
            in_sample, hit = True, False
            counted = not (exclude and exclude.search(line.split()[0]))
            continue
        if not hit and pattern.search(line):
            hit = True
    if in_sample and counted:
        samples += 1
        matched += hit
    if script.wait() != 0:
        sys.exit("perf_share.py: perf script failed on %s" % data)
    print(json.dumps({"samples": samples, "matched": matched, "share": matched / samples if samples else None}))


main(sys.argv[1:])
