#!/usr/bin/python3
"""Time two or more commands alternately, each against the same state of the
machine (and of a server), and write one hyperfine-style export per command
(hf-NAME.json), so report.py reads them as it reads hyperfine's.

    alternate.py OUT RUNS NAME... [--warmup N] [-i] [--prepare SHELL]... -- A ARGS... -- B ARGS... [-- C ARGS...]

One NAME per command. Each round runs every command once, each after its
PREPARE (untimed, with sh -c): one --prepare serves every command, or give
one per command, in the commands' order. The order flips every round (A B C,
then C B A), so no command always runs on a warmer machine. N rounds before the
timed ones (--warmup, default 1) are a warm-up. Output goes to /dev/null.
Each run's CPU time (user and system, the process and what it waited for) is
recorded beside its wall time: on a busy machine it tells a slower program
from a longer wait for a core.

A run of the first command (ours) that fails makes the exit status 1 after
the exports are written, as hyperfine's would be (-i: only recorded); the
other commands' failures are recorded with their exit codes, for report.py
to read. hyperfine cannot do this: it runs all the runs of one command, then
the next's.
"""
import json
import os
import statistics
import subprocess
import sys
import time

USAGE = "usage: alternate.py OUT RUNS NAME... [--warmup N] [-i] [--prepare SHELL]... -- A... -- B... [-- C...]"


def parse(argv):
    out, runs = argv[0], int(argv[1])
    rest = argv[2:]
    names, prepares, warmup, ignore = [], [], 1, False
    while rest and rest[0] != "--" and not rest[0].startswith("-"):
        names.append(rest.pop(0))
    while rest and rest[0] != "--":
        option = rest.pop(0)
        if option == "--warmup" and rest:
            warmup = int(rest.pop(0))
        elif option == "--prepare" and rest:
            prepares.append(rest.pop(0))
        elif option == "-i":
            ignore = True
        else:
            sys.exit(USAGE)
    commands = []
    for word in rest:
        if word == "--":
            commands.append([])
        else:
            commands[-1].append(word)
    if len(names) < 2 or len(commands) != len(names) or not all(commands) or len(prepares) not in (0, 1, len(names)):
        sys.exit(USAGE)
    if len(prepares) == 1:
        prepares = prepares * len(names)
    return out, runs, names, commands, prepares or [None] * len(names), warmup, ignore


def main():
    out, runs, names, commands, prepares, warmup, ignore = parse(sys.argv[1:])
    times = {name: [] for name in names}
    codes = {name: [] for name in names}
    users = {name: [] for name in names}
    systems = {name: [] for name in names}
    order = list(range(len(names)))
    with open(os.devnull, "wb") as null:
        for round_number in range(warmup + runs):
            for index in order if round_number % 2 == 0 else order[::-1]:
                if prepares[index]:
                    subprocess.run(["sh", "-c", prepares[index]], check=True, stdout=null)
                start = time.perf_counter()
                process = subprocess.Popen(commands[index], stdout=null, stderr=null)
                _, status, usage = os.wait4(process.pid, 0)
                elapsed = time.perf_counter() - start
                process.returncode = os.waitstatus_to_exitcode(status)
                if round_number >= warmup:
                    times[names[index]].append(elapsed)
                    codes[names[index]].append(process.returncode)
                    users[names[index]].append(usage.ru_utime)
                    systems[names[index]].append(usage.ru_stime)
    for name in names:
        result = {"command": name, "mean": statistics.mean(times[name]), "median": statistics.median(times[name]),
                  "min": min(times[name]), "max": max(times[name]), "times": times[name], "exit_codes": codes[name],
                  "user": statistics.mean(users[name]), "system": statistics.mean(systems[name]),
                  "cpu_times": [user + system for user, system in zip(users[name], systems[name])]}
        with open(os.path.join(out, "hf-%s.json" % name), "w", encoding="utf-8") as handle:
            json.dump({"results": [result]}, handle, indent=1)
        print("%s: median %.1f ms (%d runs, %d failed)" % (name, result["median"] * 1e3, len(times[name]),
                                                           sum(1 for code in codes[name] if code)), file=sys.stderr)
    if not ignore and any(codes[names[0]]):
        sys.exit("alternate.py: %s failed in %d of %d runs" % (names[0], sum(1 for code in codes[names[0]] if code), runs))


main()
