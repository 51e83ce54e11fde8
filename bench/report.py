#!/usr/bin/python3
"""Collect the results of bench/run.sh into one table, print it and write it as JSON.

    report.py RUN_DIR RESULTS_JSON

    report.py --publish RUN_DIR RESULTS_JSON   # also records this run's commit in bench/baseline.json

RUN_DIR holds hyperfine exports (hf-ID.json), wrk reports (ID.wrk, or ID.N.wrk for
several rounds), /usr/bin/time -v output, facts.txt (key=value lines) and ID.na files
naming measurements that could not run. Also writes RUN_DIR/table.md, the same table
in Markdown for the README.

The ratio column always reads "how many times better than the peer": peer time /
our time for durations, our rate / peer rate for throughputs. Below 1 we are slower.
Each row is judged against its target there.

The fence: every row that times our own binary was also timed with a reference build
in the same run, on the same data, alternately (ref-ID.json, ID-ref.N.wrk; ref-ID.na
says why not). The row shows the reference's figure and ours ÷ reference (our time
over the reference's; for a rate, the reference's rate over ours), and FAILs its fence
when that is above 1.2: this build is more than a fifth slower than the reference on
this machine, now. A reference that lacks the command, or failed, gives "n/a", never a
FAIL. --publish (BENCH_PUBLISH=1 ./bench/run.sh) records this run's commit in
bench/baseline.json as the reference of the runs after it (the default of BENCH_AGAINST).
"""
import glob
import datetime
import json
import os
import platform
import re
import statistics
import sys

PUBLISH = "--publish" in sys.argv[1:]
RUN, RESULTS = [arg for arg in sys.argv[1:] if arg != "--publish"][:2]
BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline.json")
# Ours taking more than this many times the reference's time (in the same run) is a regression.
FENCE = 1.2


def facts():
    values = {}
    path = os.path.join(RUN, "facts.txt")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            key, _, value = line.rstrip("\n").partition("=")
            values[key] = value
    return values


FACTS = facts()


def fact_int(key):
    try:
        return int(FACTS.get(key, ""))
    except ValueError:
        return None


def not_available(measurement):
    path = os.path.join(RUN, measurement + ".na")
    return open(path, encoding="utf-8").read().strip() if os.path.exists(path) else None


def hyperfine(name):
    """Median wall time in seconds and the number of runs, or None."""
    path = os.path.join(RUN, "hf-" + name + ".json")
    if not os.path.exists(path):
        return None
    try:
        result = json.load(open(path))["results"][0]
    except (ValueError, KeyError, IndexError):
        return None  # an interrupted run leaves an empty export
    return {"median_s": result["median"], "runs": len(result["times"]),
            "min_s": result["min"], "max_s": result["max"], "times": result["times"], "cpu_times": result.get("cpu_times"),
            "cpu_median_s": statistics.median(result["cpu_times"]) if result.get("cpu_times") else None,
            "failed_runs": sum(1 for code in result.get("exit_codes", []) if code)}


def wrk(name):
    """Requests per second (the median of the rounds, NAME.N.wrk, or of NAME.wrk alone),
    non-2xx/3xx count (summed) and socket errors, or None."""
    paths = sorted(glob.glob(os.path.join(RUN, glob.escape(name) + ".[0-9]*.wrk")))
    if os.path.exists(os.path.join(RUN, name + ".wrk")):
        paths.append(os.path.join(RUN, name + ".wrk"))
    if not paths:
        return None
    rates, bad, sockets = [], 0, []
    for path in paths:
        text = open(path, encoding="utf-8").read()
        rate = re.search(r"Requests/sec:\s*([\d.]+)", text)
        errors = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", text)
        socket = re.search(r"Socket errors:.*", text)
        if rate:
            rates.append(float(rate.group(1)))
        bad += int(errors.group(1)) if errors else 0
        if socket:
            sockets.append(socket.group(0))
    return {"rate": statistics.median(rates) if rates else None, "best_rate": max(rates) if rates else None, "rates": rates,
            "bad_responses": bad, "socket_errors": "; ".join(sockets) or None}


def max_rss_kb(name):
    path = os.path.join(RUN, name)
    if not os.path.exists(path):
        return None
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(path).read())
    return int(match.group(1)) if match else None


def mb(size):
    return size / 1e6


# MARK: Formatting

def seconds(value):
    if value is None:
        return None
    return "%.1f ms" % (value * 1e3) if value < 1 else "%.2f s" % value


def number(value, unit):
    return None if value is None else "%s %s" % (format(value, ",.0f") if value >= 100 else format(value, ",.1f"), unit)


def times(value):
    if value is None:
        return None
    return format(value, ",.0f") + "×" if value >= 100 else "%.3g×" % value


# MARK: Rows

rows = []


def row(ident, what, ours=None, peer=None, peer_name="", ratio=None, target="—", passed=None, note="",
        ours_value=None, peer_value=None, unit=""):
    # A figure from a database that does not hold the data (the parser is a stub) passes nothing.
    if "meaningless" in note:
        passed = None
    # The ratio as a number, "times better than the peer": the peer's time over ours, or our rate over the peer's.
    ratio_value = None
    if ours_value and peer_value:
        ratio_value = ours_value / peer_value if unit.endswith("/s") else peer_value / ours_value
    rows.append({"id": ident, "what": what, "ours": ours, "peer": peer, "peer_name": peer_name,
                 "ratio": ratio, "target": target, "pass": passed, "note": note,
                 "ours_value": ours_value, "peer_value": peer_value, "unit": unit, "ratio_value": ratio_value,
                 "reference": None, "reference_value": None, "reference_slower": None, "reference_slower_median": None,
                 "fastest": None, "cpu_median": None, "reference_pass": None})


def import_rows():
    size = fact_int("c100k_bytes")
    label = "import 100k vCard 3.0, 10%% photos (%.0f MB), new DB" % mb(size) if size else "import 100k vCard 3.0, 10% photos"
    na = not_available("import")
    ours, floor = hyperfine("import"), hyperfine("cat")
    note = ""
    stub = fact_int("import_added") == 0
    if stub:
        note = "imported 0 contacts (exit %s): parser not built yet, figure meaningless" % FACTS.get("import_exit", "?")
    if na and not ours:
        row("import", label, ours=na, target="< 2 s", note=note)
    else:
        o = ours and ours["median_s"]
        f = floor and floor["median_s"]
        row("import", label, seconds(o), seconds(f), "cat FILE (floor, warm cache)",
            times(f / o) if o and f else None, "< 2 s", None if stub or o is None else o < 2, note,
            o, f, "s")
    rss = max_rss_kb("import-time.txt")
    if rss is not None:
        row("import-rss", "import 100k: peak RSS (/usr/bin/time -v)", "%.0f MB" % (rss / 1024), note="see import" if stub else "",
            ours_value=rss / 1024, unit="MB")

    # Throughput against python3-vobject, which is measured on the 10k file (it is slow).
    vob = hyperfine("vobject")
    small = fact_int("c10k_bytes")
    ours_rate = mb(size) / ours["median_s"] if ours and size else None
    peer_rate = mb(small) / vob["median_s"] if vob and small else None
    ratio = ours_rate / peer_rate if ours_rate and peer_rate else None
    row("import-throughput", "import parse throughput vs python3-vobject (vobject on 10k contacts%s)" % (", %.0f MB" % mb(small) if small else ""),
        number(ours_rate, "MB/s") or na, number(peer_rate, "MB/s") or not_available("vobject"), "python3-vobject",
        times(ratio), "≥ 25×", None if stub or ratio is None else ratio >= 25, note, ours_rate, peer_rate, "MB/s")

    re_ = hyperfine("reimport")
    o = re_ and re_["median_s"]
    f = floor and floor["median_s"]
    row("reimport", "re-import the same 100k file (all unchanged)", seconds(o) or na, seconds(f), "cat FILE (floor)",
        times(f / o) if o and f else None, "—", None, note, o, f, "s")
    suggested = FACTS.get("duplicates_suggested")
    timed("duplicates", "duplicates over the 100k imported (%s suggested)" % (suggested or "?"), "duplicates", None, "",
          "< 1 s", limit=1.0, note=note)
    linking_row("import-linking", "linking's part of the import of 100k (perf samples in the relink and the added cards' keys)")


def linking_row(ident, what):
    """What linking adds to a command (issue 43: at most a tenth): the share s of its samples in the
    linking functions (run.sh's LINKING, read by bench/peers/perf_share.py from the same runs), so
    that without them it would take 1 - s of the time, and linking adds s / (1 - s)."""
    path = os.path.join(RUN, ident + ".share.json")
    share = None
    if os.path.exists(path):
        try:
            share = json.load(open(path, encoding="utf-8"))
        except ValueError:
            share = None
    if not share or not share.get("samples"):
        row(ident, what, not_available(ident) or "not measured", target="adds ≤ 1.1×")
        return
    if not share["matched"]:
        row(ident, what, "n/a", target="adds ≤ 1.1×",
            note="no sample of %d in the linking functions: were they renamed? (run.sh's LINKING)" % share["samples"])
        return
    s = share["share"]
    adds = s / (1 - s)
    # The sampling error of the share (binomial), for the note.
    error = (s * (1 - s) / share["samples"]) ** 0.5
    row(ident, what, "%.1f %% of %s samples" % (100 * s, format(share["samples"], ",")), ratio="adds %.3f×" % (1 + adds),
        target="adds ≤ 1.1×", passed=adds <= 0.1,
        note="linking adds %.1f %% (± %.1f %%, one standard error of the share)" % (100 * adds, 100 * error / (1 - s) ** 2))


def timed(ident, what, ours_name, peer_name_key, peer_label, target, limit=None, min_ratio=None, note=""):
    ours, peer = hyperfine(ours_name), hyperfine(peer_name_key) if peer_name_key else None
    o = ours and ours["median_s"]
    p = peer and peer["median_s"]
    ratio = p / o if o and p else None
    passed = None
    if limit is not None and o is not None:
        passed = o < limit
    if min_ratio is not None and ratio is not None:
        passed = ratio >= min_ratio
    ours_text = seconds(o) or not_available(ident) or "not measured"
    if o is None and "meaningless" in note:
        note = ""  # nothing of ours was measured, so nothing to qualify
    peer_text = seconds(p) or (not_available(peer_name_key) if peer_name_key else None)
    row(ident, what, ours_text, peer_text, peer_label, times(ratio), target, passed, note, o, p, "s")


def people_label(key, fallback):
    people = fact_int(key + "_people")
    contacts = fact_int(key + "_contacts")
    return "%s people (the dated of %s contacts)" % (format(people, ","), format(contacts, ",")) if people and contacts else fallback


def imported_note(key):
    imported, people = fact_int(key + "_imported"), fact_int(key + "_people")
    if imported is not None and people and imported != people:
        return "database holds %d of %d people: parser not built yet, figure meaningless" % (imported, people)
    return ""


def serve_rows():
    na = not_available("serve")
    events, size = fact_int("feed_events"), fact_int("feed_bytes")
    ages = " with ages" if FACTS.get("serve_ages") == "on" else ""
    label = "1,000-person feed" + ages + (" (%d events, %.0f KB)" % (events, size / 1e3) if events is not None and size else "")
    for kind, what, target, least in (("full", "feed full download, %s (wrk %s s)" % (label, FACTS.get("wrk_seconds", "10")), "≥ 0.9× nginx", 0.9),
                                      ("304", "feed 304 revalidation, If-None-Match (wrk)", "≥ 0.8× nginx", 0.8)):
        ours, peer = wrk("serve-%s-ours" % kind), wrk("serve-%s-nginx" % kind)
        o = ours and ours["rate"]
        p = peer and peer["rate"]
        ratio = o / p if o and p else None
        notes = []
        bad = False
        for who, result in (("ours", ours), ("nginx", peer)):
            if result and result["bad_responses"]:
                notes.append("%s: %d non-2xx/3xx responses" % (who, result["bad_responses"]))
                bad = True
            if result and result["socket_errors"]:
                notes.append("%s: %s" % (who, result["socket_errors"]))
        if kind == "304":
            for who in ("ours", "nginx"):
                status = FACTS.get("serve_%s_304_status" % who)
                if status and status != "304":
                    notes.append("%s answered %s, not 304, to its own ETag" % (who, status))
                    bad = True
        if FACTS.get("feed_source") == "python3-icalendar":
            notes.append("nginx served python3-icalendar's rendering of the same people (our server not built yet)")
        if o is not None and imported_note("p1k"):
            notes.append(imported_note("p1k"))
        note = "; ".join(notes)
        row("serve-" + kind, what, number(o, "req/s") or na or "not measured", number(p, "req/s"), "nginx static copy, etag on",
            times(ratio), target, None if ratio is None or bad else ratio >= least, note, o, p, "req/s")


def page_rows():
    """The page for the year against nginx serving a static copy of it."""
    na = not_available("page")
    size = fact_int("page_bytes")
    label = "page for the year, 1,000 people" + (" (%.0f KB of HTML)" % (size / 1e3) if size else "")
    for kind, what in (("full", "%s, full download (wrk %s s)" % (label, FACTS.get("wrk_seconds", "10"))),
                       ("304", "page for the year, 304 revalidation, If-None-Match (wrk)")):
        ours, peer = wrk("page-%s-ours" % kind), wrk("page-%s-nginx" % kind)
        o, p = ours and ours["rate"], peer and peer["rate"]
        ratio = o / p if o and p else None
        notes, bad = [], False
        for who, result in (("ours", ours), ("nginx", peer)):
            if result and result["bad_responses"]:
                notes.append("%s: %d non-2xx/3xx responses" % (who, result["bad_responses"]))
                bad = True
            if kind == "304" and FACTS.get("page_%s_304_status" % who) not in (None, "304"):
                notes.append("%s answered %s, not 304, to its own ETag" % (who, FACTS.get("page_%s_304_status" % who)))
                bad = True
        row("page-" + kind, what, number(o, "req/s") or na or "not measured", number(p, "req/s"), "nginx static copy, etag on",
            times(ratio), "≥ 0.5× nginx", None if ratio is None or bad else ratio >= 0.5, "; ".join(notes), o, p, "req/s")


def switches(b, a):
    """Voluntary and involuntary context switches between two proc_sample lines (split), the
    threads at the end, and each sample's threads by tid with those in both."""
    def per_thread(sample):
        return {tid: (int(vol), int(nonvol)) for tid, vol, nonvol in (t.split(":") for t in sample[2:])}

    tb, ta = per_thread(b), per_thread(a)
    kept = tb.keys() & ta.keys()
    # A thread that ended or started in the window woke at least once to do so.
    wakeups = sum(ta[t][0] - tb[t][0] for t in kept) + sum(ta[t][0] for t in ta.keys() - kept) + len(tb.keys() - kept)
    involuntary = sum(ta[t][1] - tb[t][1] for t in kept) + sum(ta[t][1] for t in ta.keys() - kept)
    return wakeups, involuntary, len(ta), tb, ta, kept


def window_switches(prefix):
    """(voluntary, threads) of the window PREFIX_before .. PREFIX_after, or None."""
    before, after = FACTS.get(prefix + "_before"), FACTS.get(prefix + "_after")
    if not (before and after):
        return None
    wakeups, _, threads, _, _, _ = switches(before.split(), after.split())
    return wakeups, threads


def users_rows():
    """Many users on one machine (BENCH_ONLY=users): the busy day, the daemon at rest, the
    servers' 304s against one user's, and users add."""
    na = not_available("users")
    count = fact_int("users_count") or 1000
    contacts = fact_int("users_contacts") or 300
    label = "%s users × %d contacts" % (format(count, ","), contacts)
    window = FACTS.get("idle_seconds", "60")
    load = "load %s at the start of the run" % FACTS.get("load_start", "?")
    lines = FACTS.get("users_lines", "").split()
    due, delivered = fact_int("users_due"), fact_int("users_delivered")
    started = FACTS.get("users_started_s")
    if len(lines) == 3 and due is not None:
        sent, last = int(lines[0]), float(lines[2]) - 60
        notes = ["%d of %d reminders due at 09:00 delivered" % (sent, due),
                 "every user's daemon started %s s after the start (09:00 is 60 s after it)" % started,
                 "set-up (users add, import, 2 settings each): %.0f s" % float(FACTS.get("users_setup_s", "0")), load]
        row("users-day", "busy day, %s: every 09:00 reminder from one run --all-users, the last one after 09:00" % label,
            "%.1f s" % max(last, 0), target="≤ 60 s, all delivered", passed=due > 0 and sent >= due and last <= 60,
            note="; ".join(notes), ours_value=max(last, 0), unit="s")
    else:
        row("users-day", "busy day, %s: every 09:00 reminder from one run --all-users" % label, na or "not measured",
            target="≤ 60 s, all delivered")
    rss = fact_int("users-idle_vmrss_kb")
    if rss is not None:
        rss /= 1024
        row("users-rss", "daemon at rest over %s: resident memory (VmRSS)" % label, "%.1f MB" % rss, target="< 300 MB",
            passed=rss < 300, ours_value=rss, unit="MB",
            note="peak %.1f MB since start; %s descriptors open, %s inotify; %s" % (
                (fact_int("users-idle_vmhwm_kb") or 0) / 1024, FACTS.get("users_fds", "?"), FACTS.get("users_inotify", "?"), load))
    else:
        row("users-rss", "daemon at rest over %s: resident memory (VmRSS)" % label, na or "not measured", target="< 300 MB")
    many, one = window_switches("users-idle"), window_switches("users-single")
    what = "daemon at rest over %s, %s s: voluntary context switches" % (label, window)
    if many and one:
        row("users-wakeups", what + " (%d threads)" % many[1], "%d" % many[0], "%d" % one[0], "one user's daemon (%d threads)" % one[1],
            None, "≤ one user's", many[0] <= one[0], load, many[0], one[0], "switches")
    else:
        row("users-wakeups", what, na or "not measured", target="≤ one user's")
    for kind, name in (("feed", "feed"), ("page", "page for the year")):
        many, one = wrk("users-%s-304-all" % kind), wrk("users-%s-304-one" % kind)
        m, o = many and many["rate"], one and one["rate"]
        ratio = m / o if m and o else None
        notes, bad = [], False
        for who, result, status in (("serve --all-users", many, FACTS.get("users_%s_304_status" % kind)),
                                    ("one user's serve", one, FACTS.get("users_%s_one_304_status" % kind))):
            if result and result["bad_responses"]:
                notes.append("%s: %d non-2xx/3xx responses" % (who, result["bad_responses"]))
                bad = True
            if status and status != "304":
                notes.append("%s answered %s, not 304, to its own ETag" % (who, status))
                bad = True
        if kind == "feed" and FACTS.get("users_serve_started_s"):
            notes.append("serve --all-users answered /healthz %.1f s after its start" % float(FACTS["users_serve_started_s"]))
        if kind == "page" and FACTS.get("users_404_ms"):
            notes.append("a token no one has: 404 in %.2f ms (mean of 50 on one connection)" % float(FACTS["users_404_ms"]))
        row("users-%s-304" % kind, "%s of one of %s, 304 revalidation (wrk)" % (name, label), number(m, "req/s") or na or "not measured",
            number(o, "req/s"), "one user's serve, same database", times(ratio), "≥ 0.5× one user's (within 2×)",
            None if ratio is None or bad else ratio >= 0.5, "; ".join(notes), m, o, "req/s")
    added = hyperfine("users-add")
    row("users-add", "users add of user %s (hyperfine, removed again before each run)" % format(count + 1, ","),
        seconds(added and added["median_s"]) or na or "not measured", target="< 1 s",
        passed=None if not added else added["median_s"] < 1, ours_value=added and added["median_s"], unit="s")


def idle_rows(prefix="idle", label="daemon idle", note_extra=""):
    na = not_available(prefix)
    before, after = FACTS.get(prefix + "_before"), FACTS.get(prefix + "_after")
    window = FACTS.get("idle_seconds", "60")
    if not (before and after):
        for ident, what, target in ((prefix + "-cpu", "%s %s s: CPU time" % (label, window), "—"),
                                    (prefix + "-rss", "%s: resident memory at rest (VmRSS)" % label, "< 30 MB"),
                                    (prefix + "-peak", "%s: peak RSS since start (VmHWM)" % label, "—"),
                                    (prefix + "-wakeups", "%s %s s: voluntary context switches" % (label, window), "0 (none unscheduled)")):
            row(ident, what, na or "not measured", target=target)
        return
    tick = int(FACTS.get(prefix + "_clk_tck", "100"))
    b, a = before.split(), after.split()
    cpu = (int(a[0]) - int(b[0])) / tick
    hwm = int(FACTS.get(prefix + "_vmhwm_kb", "0")) / 1024

    wakeups, involuntary, threads, tb, ta, kept = switches(b, a)
    changes = []
    if tb.keys() - kept:
        changes.append("%d thread%s ended" % (len(tb.keys() - kept), "" if len(tb.keys() - kept) == 1 else "s"))
    if ta.keys() - kept:
        changes.append("%d started" % len(ta.keys() - kept))
    held = imported_note("p1k").replace(": parser not built yet, figure meaningless", " (parser not built yet)") if prefix == "idle" else ""
    rss = int(FACTS.get(prefix + "_vmrss_kb", "0")) / 1024
    row(prefix + "-cpu", "%s %s s: CPU time (utime+stime)" % (label, window), "%.2f s" % cpu, ours_value=cpu, unit="s",
        note="; ".join(filter(None, ["ready by " + FACTS.get(prefix + "_ready", "?"), held, note_extra])))
    # What the daemon holds while it waits (the end of the window, after its rest handed the
    # start-up's code pages back), and separately the peak of its start-up and first pass.
    row(prefix + "-rss", "%s: resident memory at rest (VmRSS)" % label, "%.1f MB" % rss, target="< 30 MB", passed=rss < 30, ours_value=rss, unit="MB",
        note="at the end of the window")
    row(prefix + "-peak", "%s: peak RSS since start (VmHWM)" % label, "%.1f MB" % hwm, ours_value=hwm, unit="MB",
        note="start-up and the first pass included")
    row(prefix + "-wakeups", "%s %s s: voluntary context switches (%d thread%s)" % (label, window, threads, "" if threads == 1 else "s"),
        "%d" % wakeups,
        target="0 (none unscheduled)", passed=wakeups == 0, ours_value=wakeups, unit="switches",
        note="; ".join(["involuntary: %d" % involuntary] + changes))

def sources_rows():
    cards = fact_int("sources_cards")
    book = "%s-card" % format(cards, ",") if cards else "10,000-card"
    first, peer = hyperfine("sources-first"), hyperfine("vdirsyncer-first")
    o = first and first["median_s"]
    p = peer and peer["median_s"]
    ratio = p / o if o and p else None
    notes = []
    if FACTS.get("sources_first_requests"):
        notes.append("ours: %s requests (discovery and one sync-collection), %s people" % (FACTS["sources_first_requests"], FACTS.get("sources_first_added", "?")))
    if FACTS.get("vdirsyncer_files"):
        notes.append("vdirsyncer wrote %s cards" % FACTS["vdirsyncer_files"])
    if FACTS.get("radicale_cache_book_s"):
        notes.append("Radicale's cache built before timing (%s s)" % FACTS["radicale_cache_book_s"])
    row("sources-first", "first sync of a %s CardDAV book (Radicale): sources add, new database" % book,
        seconds(o) or not_available("sources") or "not measured", seconds(p), "vdirsyncer sync into a new vdir",
        times(ratio), "≥ 1× (at least as fast)", None if ratio is None else ratio >= 1, "; ".join(notes), o, p, "s")
    linking_row("sources-linking", "linking's part of the first sync of a %s CardDAV book (perf samples, as for the import)" % book)
    inc = hyperfine("sources-incremental")
    i = inc and inc["median_s"]
    requests = fact_int("sources_incremental_requests")
    unchanged = fact_int("sources_unchanged_requests")
    ratio = o / i if o and i else None
    notes = []
    if requests is not None:
        notes.append("requests: %d for the change (%s person updated), %s for an unchanged book, %s for the full download"
                     % (requests, FACTS.get("sources_incremental_updated", "?"), unchanged if unchanged is not None else "?",
                        FACTS.get("sources_first_requests", "?")))
    row("sources-incremental", "incremental sync, 1 changed card in %s" % (format(cards, ",") if cards else "10,000"),
        seconds(i) or not_available("sources") or "not measured", seconds(o), "full re-download (sources add)",
        times(ratio), "1–2 requests", None if requests is None else requests <= 2 and (unchanged or 0) <= 2, "; ".join(notes), i, o, "s")
    # Against the limit (issue 33): the server's own answer to the same REPORT, sent by curl, alternately with ours.
    limit_row("sources-first-limit", "first sync of a %s CardDAV book (Radicale) against the server's answer" % book,
              "sources-first", "sources-first-limit", "curl: the sync-collection REPORT returning every card", 1.1)
    limit_row("sources-incremental-limit", "incremental sync, 1 changed card in %s, against the server's answer"
              % (format(cards, ",") if cards else "10,000"),
              "sources-incremental", "sources-incremental-limit", "curl: the same sync-collection REPORT from the same token", 1.5)


def limit_row(ident, what, ours_name, limit_name, limit_label, most):
    """Ours against the limit measured beside it (alternately, by bench/peers/alternate.py): the ratio
    reads as elsewhere (the limit's time over ours), and passes when ours takes at most `most` times the limit."""
    ours, limit = hyperfine(ours_name), hyperfine(limit_name)
    o = ours and ours["median_s"]
    p = limit and limit["median_s"]
    ratio = p / o if o and p else None
    runs = ours and ours["runs"]
    note = "alternately, %d runs each; ours is %.2f× the limit" % (runs, o / p) if o and p else ""
    row(ident, what, seconds(o) or not_available(ours_name.split("-")[0]) or "not measured", seconds(p), limit_label,
        times(ratio), "≥ %.2f× (ours ≤ %g× the limit)" % (1 / most, most), None if ratio is None else ratio >= 1 / most - 1e-9,
        note, o, p, "s")


def publish_rows():
    people = fact_int("p1k_imported")
    label = "%s people" % format(people, ",") if people else "1,000 people"
    first, peer = hyperfine("publish-first"), hyperfine("vdirsyncer-publish")
    o = first and first["median_s"]
    p = peer and peer["median_s"]
    ratio = p / o if o and p else None
    na = not_available("publish") or "not measured"
    notes = []
    if FACTS.get("publish_first_put"):
        notes.append("ours: %s events written in %s requests" % (FACTS["publish_first_put"], FACTS.get("publish_first_requests", "?")))
    if FACTS.get("vdirsyncer_publish_files"):
        notes.append("vdirsyncer uploaded %s of %s UID.ics files" % (FACTS["vdirsyncer_publish_files"], FACTS.get("publish_vdir_files", "?")))
    row("publish-first", "first publish of %s to a CalDAV calendar (Radicale): publish add, empty calendar" % label,
        seconds(o) or na, seconds(p), "vdirsyncer sync of the same events from a vdir",
        times(ratio), "≥ 1× (at least as fast)", None if ratio is None else ratio >= 1, "; ".join(notes), o, p, "s")
    events = FACTS.get("publish_small_events", "?")
    for server, ours, limit in (("Radicale", "publish-first-small", "publish-first-limit"),
                                ("Xandikos", "publish-first-xandikos", "publish-first-xandikos-limit")):
        limit_row(limit, "first publish of %s events (100 contacts) to an empty calendar (%s) against the same PUTs" % (events, server),
                  ours, limit, "curl: the same PUTs one after another", 1.2)
    unchanged = hyperfine("publish-unchanged")
    u = unchanged and unchanged["median_s"]
    requests = fact_int("publish_unchanged_requests")
    row("publish-unchanged", "republish, nothing changed, %s" % label, seconds(u) or na, target="≤ 2 requests",
        passed=None if requests is None else requests <= 2,
        note="requests: %s" % (requests if requests is not None else "?"), ours_value=u, unit="s")
    limit_row("publish-unchanged-limit", "republish, nothing changed, %s, against the server's answer" % label,
              "publish-unchanged", "publish-unchanged-limit", "curl: sync-collection REPORT with the last sync-token", 1.5)
    changed = hyperfine("publish-changed")
    c = changed and changed["median_s"]
    requests = fact_int("publish_changed_requests")
    # One listing, one PUT per event of that person (with ages, four per date: three years and the
    # recurring one), and the sync-collection that moves the token past them.
    written = fact_int("publish_changed_put")
    row("publish-changed", "republish, 1 changed person in %s" % label, seconds(c) or na, target="≤ 2 + that person's events",
        passed=None if requests is None or written is None else requests <= 2 + written,
        note="requests: %s, events written: %s" % (requests if requests is not None else "?", FACTS.get("publish_changed_put", "?")),
        ours_value=c, unit="s")


timed("startup-version", "start-up: birthdays --version", "startup-version", "hello", "static Swift hello (floor)",
      "≤ 3× the hello's time", min_ratio=1 / 3)
timed("startup-upcoming", "start-up: upcoming on samples/ (30 days)", "startup-upcoming", "hello", "static Swift hello (floor)",
      "≤ 6× the hello's time", min_ratio=1 / 6)
import_rows()
timed("upcoming-default", "upcoming (next 30 days) on " + people_label("p10k", "10,000 people"), "upcoming-default", "khard",
      "khard birthdays (vdir, whole year)", "< 50 ms", limit=0.05, note=imported_note("p10k"))
timed("upcoming", "upcoming --days 365 on " + people_label("p10k", "10,000 people"), "upcoming", "khard",
      "khard birthdays (vdir)", "≥ 150×", min_ratio=150,
      note="; ".join(filter(None, [imported_note("p10k"),
                                   "khard printed %s lines" % FACTS["khard_lines"] if "khard_lines" in FACTS else ""])))
timed("reschedule", "reschedule on " + people_label("p100k", "100,000 people"), "reschedule", None, "", "< 100 ms",
      limit=0.1, note=imported_note("p100k"))
timed("reschedule-zones", "reschedule on the same people, %s cards with a time zone of their own" % format(fact_int("reschedule_zoned_cards") or 0, ","),
      "reschedule-zones", "reschedule", "the same without zones (ours)", "< 100 ms", limit=0.1, note=imported_note("p100k"))
# Greeting 10,000 friends beside the reminders: at most a tenth more than nobody greeted (issue 44).
# Each greeted reschedule against its twin (the same database before `greet add`) after the same
# change, alternated in the same run. Judged on the medians the fence uses (wall, or CPU time with
# BENCH_FENCE=cpu); both ratios are printed.


def paired(ours, theirs, key):
    """The median of the per-round ratios of `key` (alternate.py runs a greeted reschedule and its
    twin's in the same round, one after the other): on a machine whose speed changes between rounds
    (the same reschedule took 140 ms or 300 ms of CPU within minutes), the medians of the two columns
    taken apart may compare a fast round of one with a slow round of the other."""
    a, b = ours.get(key), theirs.get(key)
    if not a or not b or len(a) != len(b) or not all(b):
        return None
    return statistics.median(x / y for x, y in zip(a, b))


def greeting_ratios(timed, twin):
    """(the ratio judged, wall, CPU) of a greeted reschedule over its twin's, each the median of the
    rounds' ratios (the ratio of the medians when the rounds do not pair); Nones when not measured."""
    if not timed or not twin:
        return None, None, None
    wall = paired(timed, twin, "times") or timed["median_s"] / twin["median_s"]
    cpu = paired(timed, twin, "cpu_times") or (timed["cpu_median_s"] / twin["cpu_median_s"]
                                               if timed.get("cpu_median_s") and twin.get("cpu_median_s") else None)
    return (cpu if FACTS.get("fence") == "cpu" and cpu else wall), wall, cpu


def greeting_row(ident, what, name, twin_name, notes, after=()):
    """A row of the reschedule `name` against `twin_name` (nobody greeted), ≤ 1.1×; `after`: (label,
    name, twin) of the same databases' reschedules after a change, whose ratios go in the note."""
    timed = hyperfine(name)
    twin = hyperfine(twin_name)
    ratio, wall, cpu = greeting_ratios(timed, twin)
    if ratio:
        notes.append("greeted ÷ nobody greeted: %.3f× wall%s (medians of the ratios of %d alternated rounds)"
                     % (wall, ", %.3f× CPU" % cpu if cpu else "", timed["runs"]))
    for label, other, other_twin in after:
        _, other_wall, other_cpu = greeting_ratios(hyperfine(other), hyperfine(other_twin))
        if other_wall and other_cpu:
            notes.append("after a change of %s: %.3f× wall, %.3f× CPU" % (label, other_wall, other_cpu))
    row(ident, what,
        seconds(timed and timed["median_s"]) or not_available("greetings") or "not measured",
        seconds(twin and twin["median_s"]), "the same, nobody greeted (ours)",
        "%.3g×" % ratio if ratio else None, "≤ 1.1× nobody greeted",
        ratio <= 1.1 if ratio else None, "; ".join(filter(None, notes)),
        timed and timed["median_s"], twin and twin["median_s"], "s")


planned = fact_int("greetings_planned")
greet_notes = [imported_note("p100k")]
if planned is not None and planned != fact_int("greetings_cards"):
    greet_notes.append("%s greetings planned of %s cards greeted" % (format(planned, ","), format(fact_int("greetings_cards") or 0, ",")))
greeting_row("reschedule-greetings", "reschedule on the same people, %s of them greeted" % format(planned or 0, ","),
             "reschedule-greeted", "reschedule-ungreeted", list(greet_notes),
             after=[("someone not greeted", "reschedule-greeted-changed", "reschedule-ungreeted-changed")])
greeting_row("reschedule-greetings-friend", "the same, after a change of one greeted friend (their zone)",
             "reschedule-greeted-friend", "reschedule-ungreeted-friend", list(greet_notes))
grouped = fact_int("greetings_groupcard_planned")
group_notes = ["greeted through a file source's group card (KIND:group, %s members), not their categories"
               % format(fact_int("greetings_groupcard_members") or 0, ",")]
greeting_row("reschedule-greetings-groupcard", "reschedule on the same people, %s greeted by a group card" % format(grouped or 0, ","),
             "reschedule-groupcard", "reschedule-groupcard-ungreeted", list(group_notes),
             after=[("someone not greeted", "reschedule-groupcard-changed", "reschedule-groupcard-ungreeted-changed")])
greeting_row("reschedule-greetings-groupcard-friend", "the same, after a change of one greeted friend (their zone)",
             "reschedule-groupcard-friend", "reschedule-groupcard-ungreeted-friend", list(group_notes))

export_note = imported_note("p10k")
if FACTS.get("export_alarms") and FACTS.get("icalendar_alarms") and FACTS["export_alarms"] != FACTS["icalendar_alarms"]:
    export_note = "; ".join(filter(None, [export_note, "alarms: ours %s, peer %s" % (FACTS["export_alarms"], FACTS["icalendar_alarms"])]))
timed("export", "export .ics, %s, 2 alarms per event, calendar-ages off" % people_label("p10k", "10,000 people"), "export", "icalendar",
      "python3-icalendar, same events", "≥ 25×", min_ratio=25, note=export_note)
ages_notes = [imported_note("p10k")]
for what in ("events", "alarms"):
    ours_count, peer_count = FACTS.get("export_ages_" + what), FACTS.get("icalendar_ages_" + what)
    if ours_count and peer_count and ours_count != peer_count:
        ages_notes.append("%s: ours %s, peer %s" % (what, ours_count, peer_count))
if FACTS.get("export_ages_events"):
    ages_notes.append("%s events, ages for %s–%d" % (FACTS["export_ages_events"], FACTS.get("ages_year", "?"),
                                                      int(FACTS.get("ages_year", "0")) + 2))
timed("export-ages", "export .ics with ages (calendar-ages on), %s" % people_label("p10k", "10,000 people"), "export-ages",
      "icalendar-ages", "python3-icalendar, same events", "≥ 25×", min_ratio=25, note="; ".join(filter(None, ages_notes)))
serve_rows()
page_rows()
idle_rows()
idle_rows("idlechannels", "daemon idle, three channels and a digest", "e-mail, ntfy and Apprise added, digest weekly; channels listed: %s"
          % FACTS.get("idlechannels_channels", "?"))
sources_rows()
idle_rows("idlesource", "daemon idle, one CardDAV source", "%s people from a Radicale book; requests during the window and start: %s"
          % (FACTS.get("idlesource_people", "?"), FACTS.get("idlesource_requests", "?")))
publish_rows()
users_rows()


# MARK: The fence

# Row id: the measurement of ours the reference was timed beside (its own is ref-NAME,
# or NAME-ref.N.wrk for the servers). Rows that only restate one of these (import
# throughput, the limits of the first and incremental syncs and of the unchanged
# republish) are fenced there, once.
TIMED = {"startup-version": "startup-version", "startup-upcoming": "startup-upcoming", "import": "import",
         "reimport": "reimport", "upcoming-default": "upcoming-default", "upcoming": "upcoming",
         "reschedule": "reschedule", "reschedule-zones": "reschedule-zones", "export": "export",
         "export-ages": "export-ages", "sources-first": "sources-first", "sources-incremental": "sources-incremental",
         "publish-first": "publish-first", "publish-first-limit": "publish-first-small",
         "publish-first-xandikos-limit": "publish-first-xandikos", "publish-unchanged": "publish-unchanged",
         "publish-changed": "publish-changed"}
SERVED = {"serve-full", "serve-304", "page-full", "page-304"}
# wall: the fastest runs' wall times; cpu (BENCH_FENCE=cpu): the median CPU time of the runs (user and
# system), where alternate.py timed both; the servers' rows compare their rates either way.
FENCE_ON = FACTS.get("fence", "wall")
REFERENCE = FACTS.get("reference", "none")
REFERENCE_SHORT = FACTS.get("reference_short", REFERENCE[:7])


def reference_figures(ident):
    """(ours, reference, unit, reason): the two measurements of the row in this run (hyperfine's or
    wrk's, as read above), or a reason there is none."""
    if ident in SERVED:
        ours, ref, unit = wrk(ident + "-ours"), wrk(ident + "-ref"), "req/s"
    else:
        ours, ref, unit = hyperfine(TIMED[ident]), hyperfine("ref-" + TIMED[ident]), "s"
    reason = not_available("ref-" + (ident if ident in SERVED else TIMED[ident]))
    if ref and ref.get("failed_runs"):
        reason = "n/a (the reference failed in %d of %d runs)" % (ref["failed_runs"], ref["runs"])
    if ours is None or ref is None or reason:
        return None, None, unit, reason or ("not measured" if ours else None)
    return ours, ref, unit, None


def best(measurement, unit):
    """The fastest run's figure: hyperfine's least time, or wrk's highest rate."""
    return measurement["best_rate"] if unit.endswith("/s") else measurement["min_s"]


def median(measurement, unit):
    return measurement["rate"] if unit.endswith("/s") else measurement["median_s"]


def slowness(ours, ref, unit):
    """Ours ÷ reference: our time over the reference's, for a rate the reference's over ours (1.25 = a quarter slower)."""
    return ref / ours if unit.endswith("/s") else ours / ref


def figure(value, unit):
    return seconds(value) if unit == "s" else number(value, unit)


# The data set of the databases a row's commands read (each build imports it into its own).
DATA_SET = {"upcoming-default": "p10k", "upcoming": "p10k", "reschedule": "p100k", "reschedule-zones": "p100k-zoned",
            "export": "p10k", "export-ages": "p10k", "serve-full": "p1k", "serve-304": "p1k", "page-full": "p1k",
            "page-304": "p1k", "publish-first": "p1k", "publish-unchanged": "p1k", "publish-changed": "p1k",
            "publish-first-limit": "c100", "publish-first-xandikos-limit": "c100"}

for r in rows:
    if r["id"] not in TIMED and r["id"] not in SERVED:
        continue
    o, p, unit, reason = reference_figures(r["id"])
    data = DATA_SET.get(r["id"])
    ours_people, ref_people = fact_int("%s_imported" % data), fact_int("ref_%s_imported" % data)
    if o is not None and p is not None and ours_people is not None and ref_people is not None and ours_people != ref_people:
        # Not the same people: the times do not compare.
        o, p, reason = None, None, "n/a (the reference imported %d people, ours %d)" % (ref_people, ours_people)
    r["reference"] = reason
    if o is None or p is None:
        continue
    # The fence compares the fastest run of each: the runs alternate, so both had the same chances,
    # and the fastest is the one least disturbed by whatever else ran (on a busy machine the medians
    # of one binary against a copy of itself came out 1.1–1.8× apart, the fastest runs within 3 %).
    slower = slowness(best(o, unit), best(p, unit), unit)
    on_cpu = FENCE_ON == "cpu" and bool(o.get("cpu_median_s") and p.get("cpu_median_s"))
    # With BENCH_FENCE=cpu: the median of the rounds' ratios, each of our run over the reference's
    # beside it (alternate.py runs both in every round), as the greetings' rows are judged; the ratio
    # of the two columns' medians when the rounds do not pair.
    pair = paired(o, p, "cpu_times") if on_cpu else None
    if on_cpu:
        slower = pair or o["cpu_median_s"] / p["cpu_median_s"]
        r["cpu_paired"] = pair
    r["reference"] = figure(median(p, unit), unit)
    r["reference_value"] = median(p, unit)
    r["reference_slower"] = slower
    r["reference_slower_median"] = slowness(median(o, unit), median(p, unit), unit)
    r["fastest"] = {"ours": best(o, unit), "reference": best(p, unit)}
    cpu = ""
    if o.get("cpu_median_s") and p.get("cpu_median_s"):
        r["cpu_median"] = {"ours": o["cpu_median_s"], "reference": p["cpu_median_s"]}
        cpu = "; CPU time (user+system, median): ours %s, the reference's %s (%.2f×)" % (
            seconds(o["cpu_median_s"]), seconds(p["cpu_median_s"]), o["cpu_median_s"] / p["cpu_median_s"])
    if "meaningless" in r["note"]:
        continue
    r["reference_pass"] = slower <= FENCE
    if slower > FENCE and on_cpu:
        r["note"] = "; ".join(filter(None, [r["note"], "regression: CPU time (median) %s against the reference's %s (%s, same run): %.2f×%s, more than %.1f×"
                                            % (seconds(o["cpu_median_s"]), seconds(p["cpu_median_s"]), REFERENCE_SHORT, slower,
                                               " (median of %d rounds' ratios)" % len(o["cpu_times"]) if pair else "", FENCE)]))
    elif slower > FENCE:
        r["note"] = "; ".join(filter(None, [r["note"], "regression: fastest run %s against the reference's %s (%s, same run): %.2f×, more than %.1f× (medians: %.2f×)"
                                            % (figure(best(o, unit), unit), figure(best(p, unit), unit), REFERENCE_SHORT,
                                               slower, FENCE, r["reference_slower_median"]) + cpu]))


# MARK: Machine

def cpu_model():
    for line in open("/proc/cpuinfo", encoding="utf-8"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


machine = {
    "cpu": cpu_model(),
    "nproc": len(os.sched_getaffinity(0)),
    "kernel": platform.release(),
    "os": (lambda f: f.get("PRETTY_NAME", "?"))(dict(line.rstrip("\n").split("=", 1) for line in open("/etc/os-release") if "=" in line)).strip('"'),
    "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    "load_start": FACTS.get("load_start"),
    "load_end": " ".join(open("/proc/loadavg").read().split()[:3]),
}
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


# MARK: Output

def verdict(value):
    return {True: "pass", False: "FAIL", None: "—"}[value]


def slower_text(value):
    return "—" if value is None else "%.2f×" % value


header = ["what", "ours", "reference", "ours ÷ ref", "fence", "peer", "ratio", "target", "result"]
table = [[r["what"], r["ours"] or "—", r["reference"] or "—", slower_text(r["reference_slower"]), verdict(r["reference_pass"]),
          ("%s: %s" % (r["peer_name"], r["peer"])) if r["peer"] else "—",
          r["ratio"] or "—", r["target"], verdict(r["pass"])] for r in rows]
widths = [max(len(str(line[i])) for line in [header] + table) for i in range(len(header))]
print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
print("  ".join("-" * w for w in widths))
for line in table:
    print("  ".join(str(cell).ljust(w) for cell, w in zip(line, widths)))
notes = [(r["id"], r["note"]) for r in rows if r["note"]]
if notes:
    print()
    for ident, note in notes:
        print("note: %s: %s" % (ident, note))
print()
print("ratio = how many times better than the peer (peer time / ours, or our rate / peer's); result = against the target.")
fenced = [r for r in rows if r["reference_slower"] is not None]
if REFERENCE == "none":
    print("reference: none (BENCH_AGAINST=none): no row is fenced.")
else:
    print("reference: %s (%s; its binary %s), timed alternately with ours in this run (its median shown); ours ÷ ref = the time"
          % (REFERENCE_SHORT, FACTS.get("reference_rev", "?"), FACTS.get("reference_build", "?")))
    if FENCE_ON == "cpu":
        print("the median of the rounds' ratios of our run's CPU time over its run's beside it (BENCH_FENCE=cpu; for a server,")
        print("its best wrk round's rate over ours);")
    else:
        print("of our fastest run over the time of its fastest (for a server, its best wrk round's rate over ours);")
    try:
        load = float(machine["load_start"].split()[0])
    except (AttributeError, IndexError, ValueError):
        load = 0
    if FENCE_ON == "wall" and load > machine["nproc"]:
        print("the machine was busy (load average %.1f on %d CPUs): wall times wait for a core there; BENCH_FENCE=cpu compares CPU time."
              % (load, machine["nproc"]))
    print("fence: FAIL above %.1f×. %d rows fenced, %d FAIL, %d without a figure of the reference."
          % (FENCE, len(fenced), sum(1 for r in fenced if r["reference_pass"] is False),
             sum(1 for r in rows if r["reference"] is not None and r["reference_slower"] is None)))
print("machine: %s, %d CPUs, %s GB, %s, kernel %s; load average %s at start, %s at end; commit %s; %s"
      % (machine["cpu"], machine["nproc"], machine["memory_gb"], machine["os"], machine["kernel"],
         machine["load_start"], machine["load_end"], FACTS.get("commit", "?"), now.isoformat()))

with open(os.path.join(RUN, "table.md"), "w", encoding="utf-8") as md:
    md.write("| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n")
    for line in table:
        md.write("| " + " | ".join(str(cell).replace("|", "\\|") for cell in line) + " |\n")
    md.write("\nMeasured %s on %s (%d CPUs), %s, load average %s; reference %s.\n"
             % (now.date().isoformat(), machine["cpu"], machine["nproc"], machine["os"], machine["load_start"], REFERENCE_SHORT))

raw = {name[3:-5]: hyperfine(name[3:-5]) for name in sorted(os.listdir(RUN)) if name.startswith("hf-") and name.endswith(".json")}
raw.update({name[:-4]: wrk(name[:-4]) for name in sorted(os.listdir(RUN)) if name.endswith(".wrk")})
with open(RESULTS, "w", encoding="utf-8") as out:
    json.dump({"date": now.isoformat(), "commit": FACTS.get("commit"), "reference": REFERENCE, "machine": machine, "rows": rows,
               "facts": FACTS, "raw": raw}, out, indent=2, ensure_ascii=False)
    out.write("\n")
print("wrote %s and %s" % (os.path.relpath(RESULTS), os.path.relpath(os.path.join(RUN, "table.md"))))

if PUBLISH:
    commit = FACTS.get("commit_full", "unknown")
    if FACTS.get("commit", "").endswith("-dirty") or commit == "unknown":
        print("not published: the run was of a tree with changes not committed (%s)" % FACTS.get("commit", "?"))
    else:
        with open(BASELINE, "w", encoding="utf-8") as out:
            json.dump({"about": "The commit of the published run (bench/README.md's table): the reference bench/run.sh builds and "
                                "times beside this build when BENCH_AGAINST is not given. BENCH_PUBLISH=1 ./bench/run.sh replaces it.",
                       "reference": {"commit": commit, "date": now.date().isoformat(), "load": machine["load_start"]}},
                      out, indent=2, ensure_ascii=False, sort_keys=True)
            out.write("\n")
        print("published %s as the reference in %s" % (commit[:7], os.path.relpath(BASELINE)))
