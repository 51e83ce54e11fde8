#!/usr/bin/python3
"""Time two commands alternately, each against the same state of a server, and
write one hyperfine-style export per command (hf-NAME.json), so report.py
reads them as it reads hyperfine's.

    alternate.py OUT RUNS NAME_A NAME_B [--prepare SHELL] -- A ARGS... -- B ARGS...

Each round runs PREPARE (if given, untimed, with sh -c), then A, then B; the
order flips every round, so neither always runs on a warmer server. One round
before the timed ones is a warm-up. Output goes to /dev/null; a command that
fails is recorded with its exit code, as hyperfine's exports do.
hyperfine cannot do this: it runs all the runs of one command, then the other's.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def main():
    out, runs, name_a, name_b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    rest = sys.argv[5:]
    prepare = None
    if rest and rest[0] == "--prepare":
        prepare, rest = rest[1], rest[2:]
    if not rest or rest[0] != "--" or "--" not in rest[1:]:
        sys.exit("usage: alternate.py OUT RUNS NAME_A NAME_B [--prepare SHELL] -- A... -- B...")
    split = rest.index("--", 1)
    commands = {name_a: rest[1:split], name_b: rest[split + 1:]}
    times = {name_a: [], name_b: []}
    codes = {name_a: [], name_b: []}
    for round_number in range(runs + 1):
        order = [name_a, name_b] if round_number % 2 == 0 else [name_b, name_a]
        for name in order:
            if prepare:
                subprocess.run(["sh", "-c", prepare], check=True, stdout=subprocess.DEVNULL)
            start = time.perf_counter()
            code = subprocess.run(commands[name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            elapsed = time.perf_counter() - start
            if round_number > 0:
                times[name].append(elapsed)
                codes[name].append(code)
    for name in (name_a, name_b):
        result = {"command": name, "mean": statistics.mean(times[name]), "median": statistics.median(times[name]),
                  "min": min(times[name]), "max": max(times[name]), "times": times[name], "exit_codes": codes[name]}
        with open(os.path.join(out, "hf-%s.json" % name), "w", encoding="utf-8") as handle:
            json.dump({"results": [result]}, handle, indent=1)
        print("%s: median %.1f ms (%d runs, %d failed)" % (name, result["median"] * 1e3, len(times[name]),
                                                           sum(1 for code in codes[name] if code)), file=sys.stderr)


main()
