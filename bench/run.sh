#!/usr/bin/env bash
# `make bench`: measure birthdays against its peers on generated data and print a table.
#
#   ./bench/run.sh                      # after `make release deps-bench` (what `make bench` does)
#   BENCH_IDLE_SECONDS=5 ./bench/run.sh # dry run: shorter daemon idle window
#
# Every figure comes from this run on this machine: hyperfine medians for commands,
# wrk for the feed server, /proc for the daemon. A peer is measured on the same data in
# the same run. The table is printed and written to bench/results.json (ignored by git).
# A command this build does not have yet gets "n/a (not built yet)", never a figure.
#
# The fence: every row that times our own binary also times a reference build in the same
# run, on the same data, alternately (bench/peers/alternate.py; wrk runs by turns), and the
# row FAILs when ours takes more than 1.2 times the reference's time (bench/report.py). The
# reference is BENCH_AGAINST=REV (default: the last published commit, bench/baseline.json),
# built once with `make release`'s flags in a git worktree under bench/work/reference/ and
# cached there by its full commit id; it works on databases of its own (bench/work/run/db/ref/)
# made by itself from the same data. A command the reference does not have gives
# "n/a (reference lacks it)" for its rows. BENCH_AGAINST=none skips the reference.
#
# Data comes from ../shared/tools/gen-contacts.py (vCard 3.0, 10% photos, seed 1) and is
# cached in bench/work/data/ (deterministic, so it is only regenerated when the
# generator changes); databases and results of a run go to bench/work/run/.
#
# "N people" means N contacts that carry a date: the generator dates about 72% of
# contacts, so 10,000 people are its first 13,843 contacts (checked against --truth).
#
# Knobs: BENCH_RUNS (fast commands, default 10), BENCH_MID_RUNS (imports, python3-icalendar,
# default 5), BENCH_SLOW_RUNS (python3-vobject, khard, default 3), BENCH_WRK_SECONDS (10),
# BENCH_WRK_THREADS (2), BENCH_WRK_CONNECTIONS (32), BENCH_WRK_ROUNDS (wrk runs of each server,
# default 3 with a reference, 1 without), BENCH_IDLE_SECONDS (60), BENCH_USERS (the users rows' count, 1000), BENCH_USERS_COPY (1: users past 1,000 get copies of the first 1,000's databases),
# BENCH_USERS_WAIT (seconds after 09:00 the busy day waits for every reminder and every user's start, 600),
# BENCH_ONLY (some of: startup import vobject upcoming reschedule greetings export serve page idle idlechannels sources idlesource publish publishlimit users;
# default all), BENCH_AGAINST (a commit, or none; see above), BENCH_FENCE (wall, the default: the fence
# compares the fastest runs' wall times; cpu: CPU time, user and system, the median of the rounds'
# ratios, for a machine busy with other work, where wall time measures the wait for a core),
# BIRTHDAYS_BIN (default .build/release/birthdays), SWIFT and BENCH_RELEASE_FLAGS (how the reference is
# built; default swift and the Makefile's RELEASE_FLAGS), BENCH_PUBLISH=1 (record this run's commit in
# bench/baseline.json as the reference of the runs after it; see bench/report.py).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BIN=${BIRTHDAYS_BIN:-$ROOT/.build/release/birthdays}
BIN_COMM=$(basename "$BIN" | cut -c1-15) # what /proc/PID/comm shows for it
PY=/usr/bin/python3 # Debian's: it has vobject and icalendar (a pyenv python3 on PATH may not)
GEN=$ROOT/../shared/tools/gen-contacts.py
WORK=$ROOT/bench/work
DATA=$WORK/data
OUT=$WORK/run
RUNS=${BENCH_RUNS:-10}
MID_RUNS=${BENCH_MID_RUNS:-5}
SLOW_RUNS=${BENCH_SLOW_RUNS:-3}
WRK_SECONDS=${BENCH_WRK_SECONDS:-10}
WRK_THREADS=${BENCH_WRK_THREADS:-2}
WRK_CONNECTIONS=${BENCH_WRK_CONNECTIONS:-32}
WRK_ROUNDS=${BENCH_WRK_ROUNDS:-}
IDLE_SECONDS=${BENCH_IDLE_SECONDS:-60}
ONLY=${BENCH_ONLY:-}
FENCE=${BENCH_FENCE:-wall}

# Contacts to generate for a number of dated people (see above).
CONTACTS_FOR_1K_PEOPLE=1382
CONTACTS_FOR_10K_PEOPLE=13843
CONTACTS_FOR_100K_PEOPLE=137975

say() { printf '\n== %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# MARK: Preconditions

[[ -f $GEN ]] || die "../shared/tools/gen-contacts.py is missing (expected at $GEN); the benchmark data comes from it"
[[ -x $BIN ]] || die "$BIN is missing: build it first (make release, or make bench)"
[[ $FENCE == wall || $FENCE == cpu ]] || die "BENCH_FENCE=$FENCE: wall or cpu"
missing=()
for tool in hyperfine wrk nginx khard curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[[ -x /usr/bin/time ]] || missing+=(/usr/bin/time)
[[ ${#missing[@]} -eq 0 ]] || die "missing ${missing[*]}: run make deps-bench"
$PY -c 'import vobject, icalendar' 2>/dev/null || die "$PY lacks vobject or icalendar: run make deps-bench"

rm -rf "$OUT"
mkdir -p "$DATA" "$OUT/db/ref" "$OUT/this"
# Ours is timed from a copy (with its network helper), as the reference is: the linker's output
# file itself ran `upcoming` with 5 % more CPU time than a copy of it made by cp, and two copies
# came out equal (bench/README.md, the fence).
cp "$BIN" "$OUT/this/"
if [[ -x $(dirname "$BIN")/birthdays-network ]]; then cp "$(dirname "$BIN")/birthdays-network" "$OUT/this/"; fi
BIN=$OUT/this/$(basename "$BIN")
FACTS=$OUT/facts.txt   # key=value lines for report.py
fact() { printf '%s=%s\n' "$1" "$2" >>"$FACTS"; }
na() { printf '%s\n' "$2" >"$OUT/$1.na"; printf 'bench: %s: %s\n' "$1" "$2" >&2; }
fact load_start "$(cut -d' ' -f1-3 /proc/loadavg)"
fact idle_seconds "$IDLE_SECONDS"
fact fence "$FENCE"
fact commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)"
fact commit_full "$(git rev-parse HEAD 2>/dev/null || echo unknown)"

# MARK: Background processes

# Every background process is recorded as "pid program"; the EXIT trap stops the ones
# still running (by pid, after checking the pid still names that program).
PIDS=$OUT/pids
started() { printf '%s %s\n' "$1" "$2" >>"$PIDS"; }
stop() {
    local pid=$1 comm=${2:-} i
    [[ -d /proc/$pid ]] || return 0
    [[ -z $comm || $(cat "/proc/$pid/comm" 2>/dev/null) == "$comm" ]] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((i = 0; i < 50; i++)); do [[ -d /proc/$pid ]] || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
    local pid comm
    [[ -f $PIDS ]] || return 0
    while read -r pid comm; do stop "$pid" "$comm"; done <"$PIDS"
    wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs one measurement in a subshell with -e in force; a failure marks its rows failed
# and the benchmark goes on with the next one.
measure() {
    local id=$1 status
    [[ -z $ONLY || " $ONLY " == *" $id "* ]] || return 0
    say "$id"
    set +e
    (set -e; "measure_$id")
    status=$?
    set -e
    cleanup
    if [[ $status -ne 0 && ! -f $OUT/$id.na ]]; then na "$id" "failed (exit $status; see bench/work/run/)"; fi
}

# MARK: Helpers

# Whether this build has the (sub)command. `birthdays help NOSUCH` prints the root help and
# exits 0, so look for the command's own usage line ("USAGE: birthdays export ...").
has_in() {
    local bin=$1 usage
    shift
    usage=$("$bin" help "$@" 2>/dev/null | grep -m1 '^USAGE: ') || return 1
    [[ "$usage " == "USAGE: birthdays $* "* ]]
}
has() { has_in "$BIN" "$@"; }
need() {
    local id=$1 cmd
    shift
    for cmd in "$@"; do
        # shellcheck disable=SC2086 # "feed url" is two words on purpose
        if ! has $cmd; then
            na "$id" "n/a (not built yet: birthdays $cmd)"
            return 1
        fi
    done
}

# The data set NAME with COUNT contacts: NAME.vcf and NAME.truth.tsv, cached.
gen() {
    local name=$1 count=$2
    local want
    want="gen=$(sha256sum "$GEN" | cut -c1-16) count=$count format=vcard3 photo-rate=0.1 seed=1"
    if [[ ! -f $DATA/$name.stamp || $(<"$DATA/$name.stamp") != "$want" ]]; then
        printf 'generating %s (%s contacts)\n' "$name" "$count" >&2
        rm -f "$DATA/$name.stamp"
        $PY "$GEN" --count "$count" --format vcard3 --photo-rate 0.1 --seed 1 \
            --truth "$DATA/$name.truth.tsv" >"$DATA/$name.vcf.tmp"
        mv "$DATA/$name.vcf.tmp" "$DATA/$name.vcf"
        echo "$want" >"$DATA/$name.stamp"
    fi
    fact "${name}_contacts" "$count"
    fact "${name}_bytes" "$(stat -c %s "$DATA/$name.vcf")"
    fact "${name}_people" "$(cut -f1 "$DATA/$name.truth.tsv" | sort -u | wc -l)"
}

# The database DB (default: NAME) with data set NAME imported (untimed), made once per run;
# when the reference is on (REF_ON), also the reference's own, made by it, at the same name
# under db/ref/ (see for_ref). Prints our database's path.
db_for() {
    local name=$1 db=$OUT/db/${2:-$1}.sqlite
    make_db "$BIN" "$db" "$name" ""
    [[ -z $REF_ON ]] || make_db "$REF_BIN" "$(for_ref "$db")" "$name" ref_
    printf '%s\n' "$db"
}

# make_db BIN DB NAME TAG: DB with data set NAME imported by BIN, unless it exists. Records how
# many people the import added (fact TAGNAME_imported), so a parser stub shows in the table.
make_db() {
    local bin=$1 db=$2 name=$3 tag=$4
    [[ ! -f $db ]] || return 0
    if "$bin" import --database "$db" --json "$DATA/$name.vcf" >"$OUT/import-$tag$name.json" 2>"$OUT/import-$tag$name.err"; then
        # People with a date: undated contacts are kept too (issue 34), and "N people" counts the dated.
        fact "$tag${name}_imported" "$(($(json_get "$OUT/import-$tag$name.json" added) - $(json_get "$OUT/import-$tag$name.json" without_dates)))"
    else
        fact "$tag${name}_imported" 0
        # Make the (empty) database anyway: a parser stub imports nothing and fails.
        # (A command that writes: reading commands never create a database.)
        "$bin" reschedule --database "$db" >/dev/null 2>&1 || true
    fi
}

json_get() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$1" "$2" 2>/dev/null || echo 0; }

# hyperfine ID RUNS [hyperfine options...] -- COMMAND ARGS...: median and runs to OUT/hf-ID.json.
hf() {
    local id=$1 runs=$2 cmd
    shift 2
    local opts=()
    while [[ $1 != -- ]]; do opts+=("$1"); shift; done
    shift
    cmd=$(printf '%q ' "$@")
    hyperfine -N --style basic --warmup "${HF_WARMUP:-1}" --runs "$runs" "${opts[@]}" --export-json "$OUT/hf-$id.json" --command-name "$id" -- "$cmd" >&2
}

# MARK: The reference

SWIFT=${SWIFT:-swift}
AGAINST=${BENCH_AGAINST-}
REF_BIN=""  # the reference's birthdays, when there is one (set by reference_build)
REF_COMM=""
REF_ON=""   # set by reference_for inside a measurement: the reference is timed in its rows
REF_OFF="skipped (BENCH_AGAINST=none)"
# The measurements whose rows time the reference too.
REF_MEASUREMENTS="startup import upcoming reschedule export serve page sources publish publishlimit"

# The commit bench/baseline.json names as the last published run's (report.py --publish writes it).
published_commit() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["reference"]["commit"])' bench/baseline.json 2>/dev/null; }

# The reference's release binaries, from the cache (bench/work/reference/FULL-ID/) or built
# there once: in a git worktree of the commit (bench/work/reference/src, switched from one
# reference to the next) with a scratch path of its own (bench/work/reference/build), with
# the flags of `make release`. Sets REF_BIN.
reference_build() {
    local m wanted=""
    for m in $REF_MEASUREMENTS; do [[ -n $ONLY && " $ONLY " != *" $m "* ]] || wanted=yes; done
    if [[ $AGAINST == none || -z $wanted ]]; then
        fact reference none
        return 0
    fi
    local rev id dir src=$WORK/reference/src scratch=$WORK/reference/build log flags product bin start
    rev=${AGAINST:-$(published_commit || true)}
    [[ -n $rev ]] || die "bench/baseline.json names no published commit: set BENCH_AGAINST=REV (or none)"
    id=$(git rev-parse --verify --quiet "$rev^{commit}") || die "BENCH_AGAINST=$rev names no commit of this repository"
    dir=$WORK/reference/$id
    log=$WORK/reference/$id.log
    fact reference "$id"
    fact reference_short "$(git rev-parse --short "$id")"
    fact reference_rev "$rev"
    if [[ -f $dir/complete ]]; then
        fact reference_build cached
    else
        read -r -a flags <<<"${BENCH_RELEASE_FLAGS:-$(sed -n 's/^RELEASE_FLAGS := //p' Makefile)}"
        [[ ${#flags[@]} -gt 0 ]] || die "no release flags: the Makefile has no RELEASE_FLAGS line and BENCH_RELEASE_FLAGS is empty"
        say "reference: building $(git rev-parse --short "$id") (${flags[*]}), once: it is cached in bench/work/reference/"
        mkdir -p "$WORK/reference"
        start=$SECONDS
        # Reuse the worktree only when it is one (else git -C would act on the repository around it).
        if [[ -f $src/.git && $(git -C "$src" rev-parse --show-toplevel 2>/dev/null) == "$(cd "$src" && pwd -P)" ]]; then
            git -C "$src" checkout --quiet --force --detach "$id"
            git -C "$src" clean -fdxq
        else
            # --force: a worktree registered there whose folder was deleted is taken over.
            rm -rf "$src"
            git worktree add --quiet --force --detach "$src" "$id"
        fi
        # Package.resolved is not committed: the reference resolves to this build's pins (offline, from
        # SwiftPM's cache) unless its Package.swift asks for others.
        if [[ -f Package.resolved ]]; then cp Package.resolved "$src/"; fi
        : >"$log"
        for product in birthdays birthdays-network; do
            # A reference older than the network helper has none to build.
            grep -q "\"$product\"" "$src/Package.swift" || continue
            "$SWIFT" build --package-path "$src" --scratch-path "$scratch" "${flags[@]}" --product "$product" >>"$log" 2>&1 ||
                { tail -n 30 "$log" >&2; die "the reference $id did not build (bench/work/reference/$id.log)"; }
        done
        bin=$("$SWIFT" build --package-path "$src" --scratch-path "$scratch" "${flags[@]}" --show-bin-path 2>>"$log")
        rm -rf "$dir" "$dir.tmp"
        mkdir -p "$dir.tmp"
        cp "$bin/birthdays" "$dir.tmp/"
        if [[ -x $bin/birthdays-network ]]; then cp "$bin/birthdays-network" "$dir.tmp/"; fi
        touch "$dir.tmp/complete"
        mv "$dir.tmp" "$dir"
        fact reference_build "built in $((SECONDS - start)) s"
    fi
    REF_BIN=$dir/birthdays
    REF_COMM=$(basename "$REF_BIN" | cut -c1-15)
}

# reference_for NAME... -- COMMAND...: whether the reference is timed beside us in this
# measurement's rows NAME (their hyperfine or wrk names): sets REF_ON when there is a reference
# and it has every (sub)command; else writes each NAME's reference cell (ref-NAME.na).
reference_for() {
    local names=() cmd
    while [[ $1 != -- ]]; do names+=("$1"); shift; done
    shift
    REF_ON=""
    if [[ -z $REF_BIN ]]; then
        ref_na "$REF_OFF" "${names[@]}"
        return 0
    fi
    for cmd in "$@"; do
        # shellcheck disable=SC2086 # "sources add" is two words on purpose
        if ! has_in "$REF_BIN" $cmd; then
            ref_na "n/a (reference lacks it: birthdays $cmd)" "${names[@]}"
            return 0
        fi
    done
    REF_ON=yes
}
ref_na() {
    local text=$1 name
    shift
    for name in "$@"; do printf '%s\n' "$text" >"$OUT/ref-$name.na"; done
}

# The reference works on databases of its own, made by itself from the same data: the path
# of ours with bench/work/run/db/ read as bench/work/run/db/ref/ (in every word given).
for_ref() {
    local from=$OUT/db/ to=$OUT/db/ref/
    printf '%s' "${1//"$from"/"$to"}"
}

# each ARGS...: "$BIN" ARGS, then, when the reference is on, the reference with the same
# ARGS on its own databases (untimed set-up).
each() {
    local from=$OUT/db/ to=$OUT/db/ref/
    "$BIN" "$@"
    if [[ -n $REF_ON ]]; then "$REF_BIN" "${@//"$from"/"$to"}"; fi
}

# both NAME RUNS [-i] [--prepare SHELL] -- ARGS...: "$BIN" ARGS timed as NAME and, when the
# reference is on, the reference with the same ARGS (and PREPARE) on its own databases, as
# ref-NAME, alternately, RUNS rounds after HF_WARMUP (default 1). Without the reference:
# hyperfine, as hf.
both() {
    local name=$1 runs=$2 prepare="" ignore=()
    shift 2
    while [[ $1 != -- ]]; do
        case $1 in
            -i) ignore=(-i); shift ;;
            --prepare) prepare=$2; shift 2 ;;
            *) die "both: unknown option $1" ;;
        esac
    done
    shift
    if [[ -z $REF_ON || -f $OUT/ref-$name.na ]]; then
        [[ -f $OUT/ref-$name.na ]] || ref_na "not measured" "$name"
        local prep=()
        [[ -z $prepare ]] || prep=(--prepare "$prepare")
        hf "$name" "$runs" "${ignore[@]}" "${prep[@]}" -- "$BIN" "$@"
        return 0
    fi
    local from=$OUT/db/ to=$OUT/db/ref/ prep=()
    [[ -z $prepare ]] || prep=(--prepare "$prepare" --prepare "$(for_ref "$prepare")")
    $PY bench/peers/alternate.py "$OUT" "$runs" "$name" "ref-$name" --warmup "${HF_WARMUP:-1}" "${ignore[@]}" "${prep[@]}" \
        -- "$BIN" "$@" -- "$REF_BIN" "${@//"$from"/"$to"}"
}

free_port() { $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Waits until URL answers 200 or the process PID dies or the deadline passes.
wait_url() {
    local url=$1 pid=$2 deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
        [[ $(curl -s -o /dev/null -w '%{http_code}' "$url" || true) == 200 ]] && return 0
        [[ -d /proc/$pid ]] || { echo "process $pid exited before serving $url" >&2; return 1; }
        sleep 0.2
    done
    echo "$url did not answer within 30 s" >&2
    return 1
}

# MARK: Measurements

measure_import() {
    gen c100k 100000
    local db=$OUT/db/import.sqlite status=0
    # A first, untimed import tells whether the parser is real (a stub imports nothing).
    "$BIN" import --database "$db" --json "$DATA/c100k.vcf" >"$OUT/import-trial.json" 2>"$OUT/import-trial.err" || status=$?
    fact import_exit "$status"
    fact import_added "$(json_get "$OUT/import-trial.json" added)"
    local ignore=()
    [[ $status -eq 0 ]] || ignore=(-i)
    reference_for import reimport -- import
    both import "$MID_RUNS" "${ignore[@]}" --prepare "rm -f $db $db-wal $db-shm" -- import --database "$db" "$DATA/c100k.vcf"
    /usr/bin/time -v -o "$OUT/import-time.txt" "$BIN" import --database "$OUT/db/import-rss.sqlite" "$DATA/c100k.vcf" >/dev/null 2>&1 || true
    # Each on the database its last timed import left.
    both reimport "$MID_RUNS" "${ignore[@]}" -- import --database "$db" "$DATA/c100k.vcf"
    hf cat "$RUNS" -- cat "$DATA/c100k.vcf"
    # What linking adds to the import (issue 43: at most a tenth): its share of the samples of two
    # imports into a new database, in the same runs.
    linking_share import-linking "rm -f $db $db-wal $db-shm" 2 -- "$BIN" import --database "$db" "$DATA/c100k.vcf"
    # Who may be one person among the 100k (issue 43: under a second).
    if has duplicates; then
        "$BIN" duplicates --json --database "$db" >"$OUT/duplicates.json" 2>&1 || true
        fact duplicates_suggested "$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$OUT/duplicates.json" 2>/dev/null || echo '?')"
        hf duplicates "$MID_RUNS" -- "$BIN" duplicates --database "$db"
    fi
}

# Start-up: what every command pays before its work. The floor is a static Swift
# "hello" built here with the same toolchain; `upcoming` runs on the samples.
measure_startup() {
    local hello=$OUT/hello db=$OUT/db/startup.sqlite
    printf 'print("hello")\n' >"$OUT/hello.swift"
    if ! swiftc -O -static-stdlib "$OUT/hello.swift" -o "$hello" >"$OUT/hello-build.txt" 2>&1; then
        na hello "swiftc could not build a static hello (see bench/work/run/hello-build.txt)"
    else
        hf hello "$RUNS" -- "$hello"
    fi
    reference_for startup-version --
    both startup-version "$RUNS" -- --version
    reference_for startup-upcoming -- import upcoming
    each import --database "$db" samples/contacts.vcf samples/google-contacts.csv >/dev/null
    both startup-upcoming "$RUNS" -- upcoming --database "$db"
}

# The functions that link cards into people (issue 43), as their mangled names start: the relink
# (AppDatabase.relinked, whatever it reads and writes), the added cards' keys as they are written
# (AddedLinkKeys) and the record of the cards a sync changed (ChangedCards.record).
LINKING='13BirthdayStore11AppDatabaseC8relinked_|13BirthdayStore13AddedLinkKeysV|13BirthdayStore12ChangedCardsV6record'

# linking_share NAME PREPARE RUNS -- CMD...: RUNS runs of CMD (each after sh -c PREPARE) under perf
# with DWARF call stacks; NAME.share.json: the share of their samples inside LINKING's functions
# (bench/peers/perf_share.py). A share of none means the functions were renamed: report.py says so.
linking_share() {
    local name=$1 prepare=$2 runs=$3
    shift 4
    command -v perf >/dev/null || { na "$name" "n/a (perf is not installed: make deps-bench)"; return 0; }
    if ! perf record -q -m 4096 -F 249 --call-graph dwarf,16384 -o "$OUT/$name.perf" -- sh -c \
        "for run in \$(seq $runs); do $prepare; $(printf '%q ' "$@") >/dev/null || exit 1; done" 2>"$OUT/$name.perf.log"; then
        na "$name" "n/a (perf record failed: see bench/work/run/$name.perf.log)"
        return 0
    fi
    $PY bench/peers/perf_share.py "$OUT/$name.perf" "$LINKING" --comm-exclude '^(sh|rm|seq)$' >"$OUT/$name.share.json" ||
        na "$name" "n/a (perf script failed)"
    rm -f "$OUT/$name.perf"
}

measure_vobject() {
    gen c10k 10000
    hf vobject "$SLOW_RUNS" -- "$PY" bench/peers/vobject_parse.py "$DATA/c10k.vcf"
}

measure_upcoming() {
    gen p10k "$CONTACTS_FOR_10K_PEOPLE"
    local db
    reference_for upcoming-default upcoming -- upcoming
    db=$(db_for p10k)
    # As typed at a shell prompt (the next 30 days), and the whole year (what khard lists).
    both upcoming-default "$RUNS" -- upcoming --database "$db"
    both upcoming "$RUNS" -- upcoming --database "$db" --days 365
    # khard reads a vdir (one .vcf per contact) named in its config file.
    local vdir=$DATA/p10k.vdir
    if [[ ! -f $vdir.stamp || $(<"$vdir.stamp") != "$(<"$DATA/p10k.stamp")" ]]; then
        rm -rf "$vdir"
        $PY bench/peers/split_vcards.py "$DATA/p10k.vcf" "$vdir" >/dev/null
        cp "$DATA/p10k.stamp" "$vdir.stamp"
    fi
    cat >"$OUT/khard.conf" <<EOF
[addressbooks]
[[bench]]
path = $vdir

[general]
debug = no
default_action = list
EOF
    khard -c "$OUT/khard.conf" --skip-unparsable birthdays >"$OUT/khard.out" 2>"$OUT/khard.err"
    fact khard_lines "$(wc -l <"$OUT/khard.out")"
    hf khard "$SLOW_RUNS" -- khard -c "$OUT/khard.conf" --skip-unparsable birthdays
}

measure_reschedule() {
    need reschedule reschedule "notifications enable" || return 0
    gen p100k "$CONTACTS_FOR_100K_PEOPLE"
    local db
    reference_for reschedule reschedule-zones -- reschedule "notifications enable"
    db=$(db_for p100k)
    each notifications enable --database "$db" >"$OUT/notifications.out" 2>&1
    "$BIN" reschedule --database "$db" --json >"$OUT/reschedule.out" 2>&1
    both reschedule "$RUNS" -- reschedule --database "$db"
    # The same people, one card in ten with a TZ of its own (eight zones, names and offsets):
    # their day-of moments are worked out per zone and day (docs/reminders.md, "Their own time zone").
    local zoned=$DATA/p100k-zoned.vcf
    if [[ ! -f $zoned || $zoned -ot $DATA/p100k.vcf ]]; then
        awk 'BEGIN { split("Asia/Tokyo America/New_York Europe/Helsinki -05:00 +05:30 Australia/Sydney America/Los_Angeles Pacific/Kiritimati", z, " ") }
             /^END:VCARD/ { n++; if (n % 10 == 0) printf "TZ:%s\r\n", z[n % 8 + 1] }
             { print }' "$DATA/p100k.vcf" >"$zoned.tmp"
        mv "$zoned.tmp" "$zoned"
    fi
    fact reschedule_zoned_cards "$(grep -c '^TZ:' "$zoned")"
    db=$(db_for p100k-zoned)
    each notifications enable --database "$db" >/dev/null 2>&1
    both reschedule-zones "$RUNS" -- reschedule --database "$db"
}

# The friends' greetings (issue 44) planned beside the reminders: the same 100,000 people, 10,000
# of those with a BDAY greeted (spread evenly through the file: in the group Greeted, with an
# e-mail address of their own), against the same database with nobody greeted (the same cards,
# addresses, group and e-mail channel, no `greet add`: its twin), alternately
# (bench/peers/alternate.py), in this run. A reschedule plans each greeted friend's next greeting
# outside the 64 places; it sends nothing (the e-mail channel's mail program, /bin/true, never
# runs). The target: greeting 10,000 people adds at most a tenth to the reschedule (report.py
# prints the ratio), repeated, after a change of someone not greeted (reschedule-greeted-changed,
# in the row's note) and after a change of one greeted friend (reschedule-greeted-friend), each
# against its twin after the same change. The same 10,000 greeted through a source's group card
# instead (a file source whose KIND:group card lists them: sourceGroupMember, not their
# categories) make the reschedule-groupcard rows, against that source's twin.
measure_greetings() {
    need greetings reschedule "notifications enable" "channels add" "greet add" "sources add" || return 0
    gen p100k "$CONTACTS_FOR_100K_PEOPLE"
    local greeted=$DATA/p100k-greeted.vcf grouped=$DATA/p100k-groupcard.vcf birthdays
    birthdays=$(grep -c '^BDAY' "$DATA/p100k.vcf")
    if [[ ! -f $greeted || $greeted -ot $DATA/p100k.vcf ]]; then
        awk -v n="$birthdays" -v want=10000 '
             /^BEGIN:VCARD/ { dated = 0 }
             /^BDAY/ { dated = 1 }
             /^END:VCARD/ && dated { b++; if (int(b * want / n) != int((b - 1) * want / n)) printf "CATEGORIES:Greeted\r\nEMAIL:greeted-%d@example.org\r\n", b }
             { print }' "$DATA/p100k.vcf" >"$greeted.tmp"
        mv "$greeted.tmp" "$greeted"
    fi
    # The same people given the same addresses, listed by one group card at the end of the file.
    if [[ ! -f $grouped || $grouped -ot $DATA/p100k.vcf ]]; then
        awk -v n="$birthdays" -v want=10000 '
             /^BEGIN:VCARD/ { dated = 0; uid = "" }
             /^BDAY/ { dated = 1 }
             /^UID:/ { uid = substr($0, 5); sub(/\r$/, "", uid) }
             /^END:VCARD/ && dated { b++; if (int(b * want / n) != int((b - 1) * want / n)) { printf "EMAIL:greeted-%d@example.org\r\n", b; members[++m] = uid } }
             { print }
             END {
                 printf "BEGIN:VCARD\r\nVERSION:4.0\r\nKIND:group\r\nFN:Greeted\r\nUID:urn:uuid:bench-greeted-group\r\n"
                 for (i = 1; i <= m; i++) printf "MEMBER:urn:uuid:%s\r\n", members[i]
                 printf "END:VCARD\r\n"
             }' "$DATA/p100k.vcf" >"$grouped.tmp"
        mv "$grouped.tmp" "$grouped"
    fi
    fact greetings_cards "$(grep -c '^CATEGORIES:Greeted' "$greeted")"
    fact greetings_groupcard_members "$(grep -c '^MEMBER:' "$grouped")"
    local plain db gdb=$OUT/db/p100k-groupcard.sqlite gplain=$OUT/db/p100k-groupcard-plain.sqlite
    # The twin: what the greeted database is before `greet add`.
    plain=$(db_for p100k-greeted p100k-greeted-plain)
    "$BIN" notifications enable --database "$plain" >/dev/null 2>&1
    "$BIN" channels add email me@example.org --sendmail /bin/true --database "$plain" >/dev/null 2>&1
    db=$(db_for p100k-greeted)
    "$BIN" notifications enable --database "$db" >/dev/null 2>&1
    "$BIN" channels add email me@example.org --sendmail /bin/true --database "$db" >"$OUT/greetings-channel.out" 2>&1
    "$BIN" greet add --group Greeted --database "$db" >"$OUT/greetings-add.out" 2>&1
    "$BIN" pending --json --database "$db" >"$OUT/greetings-pending.json"
    fact greetings_planned "$($PY -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1])) if r.get("kind") == "greeting"))' "$OUT/greetings-pending.json")"
    local each_db
    for each_db in "$gplain" "$gdb"; do
        [[ ! -f $each_db ]] || continue
        "$BIN" sources add "$grouped" --name book --database "$each_db" >"$OUT/greetings-groupcard-source.out" 2>&1
        "$BIN" notifications enable --database "$each_db" >/dev/null 2>&1
        "$BIN" channels add email me@example.org --sendmail /bin/true --database "$each_db" >/dev/null 2>&1
        [[ $each_db == "$gplain" ]] || "$BIN" greet add --group Greeted --database "$each_db" >"$OUT/greetings-groupcard-add.out" 2>&1
    done
    "$BIN" pending --json --database "$gdb" >"$OUT/greetings-groupcard-pending.json"
    fact greetings_groupcard_planned "$($PY -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1])) if r.get("kind") == "greeting"))' "$OUT/greetings-groupcard-pending.json")"
    # And after a change (SQLite's own connection, without the program's TEMP triggers, so the change does
    # what they would): of someone not greeted, a note written and the revision moved: the greetings'
    # plan holds; of one greeted friend (their zone, set and cleared by turns, so their greeting moves),
    # the friend noted in greetingPlanChange as the triggers note them (a build without that table took
    # the plan away instead, as its triggers did), the revision moved: their greeting alone is planned again.
    local change friend gchange gfriend pchange pfriend gpchange gpfriend
    cat >"$OUT/greetings-change.py" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
members = "SELECT personId FROM %s" % sys.argv[2]
if sys.argv[3] == "friend":
    person = c.execute("SELECT min(personId) FROM (%s)" % members).fetchone()[0]
    c.execute("UPDATE person SET zoneChoice = CASE WHEN zoneChoice IS NULL THEN ? ELSE NULL END WHERE id = ?", ("Asia/Tokyo", person))
    if len(sys.argv) > 4:
        pass  # the twin: nobody is greeted, and the program's triggers note no one
    elif c.execute("SELECT 1 FROM sqlite_master WHERE name = ?", ("greetingPlanChange",)).fetchone():
        c.execute("INSERT OR IGNORE INTO greetingPlanChange (personId) VALUES (?)", (person,))
    else:
        c.execute("DELETE FROM setting WHERE key = ?", ("internal.greetings.plan",))
else:
    c.execute("UPDATE person SET note = ? || random() WHERE rowid = (SELECT min(rowid) FROM person WHERE id NOT IN (%s))" % members, ("bench ",))
c.execute("UPDATE revision SET value = value + 1")
c.commit()
c.close()
PY
    # One line each, quoted for sh -c (alternate.py's prepare).
    change=$(printf '%q ' "$PY" "$OUT/greetings-change.py" "$db" "personGroup WHERE name = 'Greeted'" other)
    friend=$(printf '%q ' "$PY" "$OUT/greetings-change.py" "$db" "personGroup WHERE name = 'Greeted'" friend)
    gchange=$(printf '%q ' "$PY" "$OUT/greetings-change.py" "$gdb" "sourceGroupMember WHERE name = 'Greeted'" other)
    gfriend=$(printf '%q ' "$PY" "$OUT/greetings-change.py" "$gdb" "sourceGroupMember WHERE name = 'Greeted'" friend)
    pchange=$(printf '%q ' "$PY" "$OUT/greetings-change.py" "$plain" "personGroup WHERE name = 'Greeted'" other twin)
    pfriend=$(printf '%q ' "$PY" "$OUT/greetings-change.py" "$plain" "personGroup WHERE name = 'Greeted'" friend twin)
    gpchange=$(printf '%q ' "$PY" "$OUT/greetings-change.py" "$gplain" "sourceGroupMember WHERE name = 'Greeted'" other twin)
    gpfriend=$(printf '%q ' "$PY" "$OUT/greetings-change.py" "$gplain" "sourceGroupMember WHERE name = 'Greeted'" friend twin)
    # Each greeted reschedule right after its twin's, after the same change.
    # Twice the runs of a row: the ratios judged are a few hundredths from the target.
    $PY bench/peers/alternate.py "$OUT" "$((RUNS * 2))" reschedule-greeted reschedule-ungreeted reschedule-greeted-changed \
        reschedule-ungreeted-changed reschedule-greeted-friend reschedule-ungreeted-friend reschedule-groupcard \
        reschedule-groupcard-ungreeted reschedule-groupcard-changed reschedule-groupcard-ungreeted-changed \
        reschedule-groupcard-friend reschedule-groupcard-ungreeted-friend --warmup "${HF_WARMUP:-1}" \
        --prepare true --prepare true --prepare "$change" --prepare "$pchange" --prepare "$friend" --prepare "$pfriend" \
        --prepare true --prepare true --prepare "$gchange" --prepare "$gpchange" --prepare "$gfriend" --prepare "$gpfriend" \
        -- "$BIN" reschedule --database "$db" -- "$BIN" reschedule --database "$plain" \
        -- "$BIN" reschedule --database "$db" -- "$BIN" reschedule --database "$plain" \
        -- "$BIN" reschedule --database "$db" -- "$BIN" reschedule --database "$plain" \
        -- "$BIN" reschedule --database "$gdb" -- "$BIN" reschedule --database "$gplain" \
        -- "$BIN" reschedule --database "$gdb" -- "$BIN" reschedule --database "$gplain" \
        -- "$BIN" reschedule --database "$gdb" -- "$BIN" reschedule --database "$gplain"
}

measure_export() {
    gen p10k "$CONTACTS_FOR_10K_PEOPLE"
    # The peer first: it needs nothing from our build.
    $PY bench/peers/icalendar_build.py "$DATA/p10k.truth.tsv" >"$OUT/icalendar.ics"
    fact icalendar_events "$(grep -c '^BEGIN:VEVENT' "$OUT/icalendar.ics")"
    fact icalendar_alarms "$(grep -c '^BEGIN:VALARM' "$OUT/icalendar.ics")"
    hf icalendar "$MID_RUNS" -- "$PY" bench/peers/icalendar_build.py "$DATA/p10k.truth.tsv"
    # With ages (calendar-ages on, the default): this year and the next two as events of
    # their own, then the recurring event; the peer builds the same for the same year.
    local year
    year=$(date +%Y)
    fact ages_year "$year"
    $PY bench/peers/icalendar_build.py --ages "$year" "$DATA/p10k.truth.tsv" >"$OUT/icalendar-ages.ics"
    fact icalendar_ages_events "$(grep -c '^BEGIN:VEVENT' "$OUT/icalendar-ages.ics")"
    fact icalendar_ages_alarms "$(grep -c '^BEGIN:VALARM' "$OUT/icalendar-ages.ics")"
    hf icalendar-ages "$MID_RUNS" -- "$PY" bench/peers/icalendar_build.py --ages "$year" "$DATA/p10k.truth.tsv"
    need export export || return 0
    local db ages
    reference_for export export-ages -- export "settings set"
    # One event per date (calendar-ages off), as the first peer builds.
    db=$(db_for p10k p10k-noages)
    each settings set calendar-ages off --database "$db" >/dev/null 2>&1 || true
    "$BIN" export --database "$db" >"$OUT/export.ics"
    fact export_events "$(grep -c '^BEGIN:VEVENT' "$OUT/export.ics" || true)"
    fact export_alarms "$(grep -c '^BEGIN:VALARM' "$OUT/export.ics" || true)"
    both export "$RUNS" -- export --database "$db"
    ages=$(db_for p10k)
    "$BIN" export --database "$ages" >"$OUT/export-ages.ics"
    fact export_ages_events "$(grep -c '^BEGIN:VEVENT' "$OUT/export-ages.ics" || true)"
    fact export_ages_alarms "$(grep -c '^BEGIN:VALARM' "$OUT/export-ages.ics" || true)"
    both export-ages "$RUNS" -- export --database "$ages"
}

# wrk ID URL [ETAG]: wrk's report to OUT/ID.wrk.
run_wrk() {
    local id=$1 url=$2 etag=${3:-}
    local header=()
    [[ -z $etag ]] || header=(-H "If-None-Match: $etag")
    wrk -t "$WRK_THREADS" -c "$WRK_CONNECTIONS" -d "${WRK_SECONDS}s" "${header[@]}" "$url" >"$OUT/$id.wrk"
    cat "$OUT/$id.wrk" >&2
}

# wrk_rounds ID URL ETAG [REF_URL REF_ETAG]: wrk runs against our URL (ID-ours.N.wrk) and, with
# REF_URL, as many against the reference's server (ID-ref.N.wrk), by turns: ours first in odd
# rounds, the reference's in even ones. BENCH_WRK_ROUNDS rounds (default 3, or 1 without a reference).
wrk_rounds() {
    local id=$1 url=$2 etag=$3 ref_url=${4:-} ref_etag=${5:-} rounds=${WRK_ROUNDS:-1} round
    [[ -n $WRK_ROUNDS || -z $ref_url ]] || rounds=3
    fact wrk_rounds "$rounds"
    for ((round = 1; round <= rounds; round++)); do
        if [[ -n $ref_url && $((round % 2)) -eq 0 ]]; then run_wrk "$id-ref.$round" "$ref_url" "$ref_etag"; fi
        run_wrk "$id-ours.$round" "$url" "$etag"
        if [[ -n $ref_url && $((round % 2)) -eq 1 ]]; then run_wrk "$id-ref.$round" "$ref_url" "$ref_etag"; fi
    done
}

# ref_serve DB LOG [page]: the reference's server on its own copy of DB, on a port of its own;
# sets REF_URL to its feed (with "page", to its page for the year) once it answers.
ref_serve() {
    local db port pid
    db=$(for_ref "$1")
    port=$(free_port)
    REF_URL=$("$REF_BIN" feed url --database "$db" --host 127.0.0.1 --port "$port" | sed -n 1p)
    [[ -z ${3:-} ]] || REF_URL=${REF_URL%.ics}
    BIRTHDAYS_LOG_LEVEL=warning "$REF_BIN" serve --database "$db" --host 127.0.0.1 --port "$port" >"$2" 2>&1 &
    pid=$!
    started "$pid" "$REF_COMM"
    wait_url "$REF_URL" "$pid"
}

etag_of() { curl -s -D - -o /dev/null "$1" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' | head -n1; }
status_with() { curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $2" "$1"; }

measure_serve() {
    gen p1k "$CONTACTS_FOR_1K_PEOPLE"
    local db port url="" pid path=calendar/bench.ics REF_URL=""
    if need serve serve "feed url"; then
        reference_for serve-full serve-304 -- serve "feed url" "settings set"
        db=$(db_for p1k)
        # Served with ages (the default; said here so the row stays so).
        each settings set calendar-ages on --database "$db" >/dev/null 2>&1 || true
        fact serve_ages "$("$BIN" settings show --json --database "$db" 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin).get("calendar-ages", "?"))' 2>/dev/null || echo '?')"
        port=$(free_port)
        url=$("$BIN" feed url --database "$db" --host 127.0.0.1 --port "$port" | sed -n 1p) # sed reads every line: head would end the command with SIGPIPE (exit 141 under pipefail)
        path=${url#http://*/}
        # nginx runs with access_log off; so does ours (access lines are info-level).
        BIRTHDAYS_LOG_LEVEL=warning "$BIN" serve --database "$db" --host 127.0.0.1 --port "$port" >"$OUT/serve.log" 2>&1 &
        pid=$!
        started "$pid" "$BIN_COMM"
        wait_url "$url" "$pid"
        if [[ -n $REF_ON ]]; then ref_serve "$db" "$OUT/serve-ref.log"; fi
    fi

    # nginx serves a static copy of our feed at the same path, with its own ETag. Until
    # our server exists, it serves python3-icalendar's rendering of the same people.
    local nroot=$OUT/nginx
    mkdir -p "$nroot/root/$(dirname "$path")" "$nroot/tmp"
    if [[ -n $url ]]; then
        curl -sf -o "$nroot/root/$path" "$url"
        fact feed_source ours
    else
        $PY bench/peers/icalendar_build.py "$DATA/p1k.truth.tsv" >"$nroot/root/$path"
        fact feed_source python3-icalendar
    fi
    fact feed_bytes "$(stat -c %s "$nroot/root/$path")"
    fact feed_events "$(grep -c '^BEGIN:VEVENT' "$nroot/root/$path" || true)"
    chmod -R a+rX "$nroot/root"
    local nport
    nport=$(free_port)
    cat >"$nroot/nginx.conf" <<EOF
daemon off;
worker_processes auto;
pid $nroot/nginx.pid;
error_log $nroot/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $nroot/tmp/body;
    proxy_temp_path $nroot/tmp/proxy;
    fastcgi_temp_path $nroot/tmp/fastcgi;
    types { text/calendar ics; }
    server {
        listen 127.0.0.1:$nport;
        root $nroot/root;
        etag on;
    }
}
EOF
    nginx -e "$nroot/error.log" -p "$nroot" -c "$nroot/nginx.conf" 2>"$nroot/start.err" &
    local npid=$!
    started "$npid" nginx
    local nurl=http://127.0.0.1:$nport/$path
    wait_url "$nurl" "$npid"

    fact wrk_seconds "$WRK_SECONDS"
    fact wrk_threads "$WRK_THREADS"
    fact wrk_connections "$WRK_CONNECTIONS"
    local ours_etag="" nginx_etag ref_etag=""
    nginx_etag=$(etag_of "$nurl")
    fact serve_nginx_etag "$nginx_etag"
    fact serve_nginx_304_status "$(status_with "$nurl" "$nginx_etag")"
    if [[ -n $url ]]; then
        ours_etag=$(etag_of "$url")
        fact serve_ours_etag "$ours_etag"
        fact serve_ours_304_status "$(status_with "$url" "$ours_etag")"
        fact serve_ours_content_type "$(curl -s -o /dev/null -w '%{content_type}' "$url")"
        if [[ -n $REF_URL ]]; then
            ref_etag=$(etag_of "$REF_URL")
            fact serve_ref_304_status "$(status_with "$REF_URL" "$ref_etag")"
        fi
        wrk_rounds serve-full "$url" "" "$REF_URL" ""
    fi
    run_wrk serve-full-nginx "$nurl"
    if [[ -n $url ]]; then wrk_rounds serve-304 "$url" "$ours_etag" "$REF_URL" "$ref_etag"; fi
    run_wrk serve-304-nginx "$nurl" "$nginx_etag"
}

# The page for the year (/calendar/<token>, HTML) of the same 1,000 people, against nginx
# serving a static copy of it at the same path: full download and 304 revalidation.
measure_page() {
    gen p1k "$CONTACTS_FOR_1K_PEOPLE"
    need page serve "feed url" || return 0
    local db port url path pid REF_URL=""
    reference_for page-full page-304 -- serve "feed url"
    db=$(db_for p1k)
    port=$(free_port)
    url=$("$BIN" feed url --database "$db" --host 127.0.0.1 --port "$port" | sed -n 1p)
    url=${url%.ics}
    path=${url#http://*/}
    BIRTHDAYS_LOG_LEVEL=warning "$BIN" serve --database "$db" --host 127.0.0.1 --port "$port" >"$OUT/page-serve.log" 2>&1 &
    pid=$!
    started "$pid" "$BIN_COMM"
    wait_url "$url" "$pid"
    if [[ -n $REF_ON ]]; then ref_serve "$db" "$OUT/page-serve-ref.log" page; fi
    fact page_content_type "$(curl -s -o /dev/null -w '%{content_type}' "$url")"

    local nroot=$OUT/nginx-page
    mkdir -p "$nroot/root/$(dirname "$path")" "$nroot/tmp"
    curl -sf -o "$nroot/root/$path" "$url"
    fact page_bytes "$(stat -c %s "$nroot/root/$path")"
    chmod -R a+rX "$nroot/root"
    local nport
    nport=$(free_port)
    cat >"$nroot/nginx.conf" <<EOF
daemon off;
worker_processes auto;
pid $nroot/nginx.pid;
error_log $nroot/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $nroot/tmp/body;
    proxy_temp_path $nroot/tmp/proxy;
    fastcgi_temp_path $nroot/tmp/fastcgi;
    default_type text/html;
    server {
        listen 127.0.0.1:$nport;
        root $nroot/root;
        etag on;
    }
}
EOF
    nginx -e "$nroot/error.log" -p "$nroot" -c "$nroot/nginx.conf" 2>"$nroot/start.err" &
    local npid=$!
    started "$npid" nginx
    local nurl=http://127.0.0.1:$nport/$path
    wait_url "$nurl" "$npid"

    local ours_etag nginx_etag ref_etag=""
    ours_etag=$(etag_of "$url")
    nginx_etag=$(etag_of "$nurl")
    fact page_ours_304_status "$(status_with "$url" "$ours_etag")"
    fact page_nginx_304_status "$(status_with "$nurl" "$nginx_etag")"
    if [[ -n $REF_URL ]]; then
        ref_etag=$(etag_of "$REF_URL")
        fact page_ref_304_status "$(status_with "$REF_URL" "$ref_etag")"
    fi
    wrk_rounds page-full "$url" "" "$REF_URL" ""
    run_wrk page-full-nginx "$nurl"
    wrk_rounds page-304 "$url" "$ours_etag" "$REF_URL" "$ref_etag"
    run_wrk page-304-nginx "$nurl" "$nginx_etag"
}

# /proc figures of a process: CPU ticks, thread count, then each thread as
# tid:voluntary:involuntary context switches (report.py compares threads by tid, so a
# thread that exits or starts during the window is seen as such, not as a negative sum).
proc_sample() {
    local pid=$1 stat rest fields threads=() f key value vol nonvol tid
    stat=$(<"/proc/$pid/stat")
    rest=${stat##*) }
    read -r -a fields <<<"$rest"
    for f in /proc/"$pid"/task/*/status; do
        tid=${f#/proc/"$pid"/task/}
        tid=${tid%/status}
        vol="" nonvol=""
        while read -r key value _; do
            case $key in
                voluntary_ctxt_switches:) vol=$value ;;
                nonvoluntary_ctxt_switches:) nonvol=$value ;;
            esac
        done 2>/dev/null <"$f" || true
        # A thread that ended between the listing and the read is left out.
        [[ -n $vol && -n $nonvol ]] && threads+=("$tid:$vol:$nonvol")
    done
    echo "$((fields[11] + fields[12])) ${#threads[@]} ${threads[*]}"
}

measure_idle() {
    need idle run "settings set" "notifications enable" || return 0
    gen p1k "$CONTACTS_FOR_1K_PEOPLE"
    local db
    db=$(db_for p1k idle)
    idle_window idle "$db"
}

# The same, with three channels added the way a user adds them (e-mail, ntfy, Apprise)
# and a weekly digest: nothing is due in the window, so this is what they cost at rest.
measure_idlechannels() {
    need idlechannels run "channels add" "settings set" "notifications enable" || return 0
    [[ -x /usr/bin/apprise ]] || { na idlechannels "n/a (apprise is not installed: make deps-bench)"; return 0; }
    gen p1k "$CONTACTS_FOR_1K_PEOPLE"
    local db
    db=$(db_for p1k idlechannels)
    "$BIN" channels add email me@example.org --sendmail /bin/true --database "$db" >/dev/null
    "$BIN" channels add ntfy https://ntfy.example/bench-topic --name phone --database "$db" >/dev/null
    "$BIN" channels add apprise json://127.0.0.1:9/ --name hook --database "$db" >/dev/null
    "$BIN" settings set digest weekly --database "$db" >/dev/null
    fact idlechannels_channels "$("$BIN" channels list --json --database "$db" | $PY -c 'import json,sys; print(len(json.load(sys.stdin)))')"
    idle_window idlechannels "$db"
}

# idle_window PREFIX DB: starts the daemon on DB (log channel, deliveries three hours
# away), lets it settle and samples it over IDLE_SECONDS, as facts PREFIX_*.
idle_window() {
    local prefix=$1 db=$2
    "$BIN" settings set channels log --database "$db"
    # Deliveries three hours from now: nothing is due during the window.
    "$BIN" settings set delivery-time "$(date -d '+3 hours' +%H:%M)" --database "$db"
    "$BIN" notifications enable --database "$db"
    "$BIN" run --database "$db" >"$OUT/$prefix-daemon.log" 2>&1 &
    local pid=$! deadline=$((SECONDS + 30)) up="" poll_status=""
    started "$pid" "$BIN_COMM"
    if has status; then poll_status=yes; fi
    while ((SECONDS < deadline)); do
        [[ -d /proc/$pid ]] || { cat "$OUT/$prefix-daemon.log" >&2; echo "the daemon exited" >&2; return 1; }
        if [[ -n $poll_status ]]; then
            "$BIN" status --database "$db" >/dev/null 2>&1 && { up=status; break; }
        elif [[ -s $OUT/$prefix-daemon.log ]]; then
            up=log
            break
        fi
        sleep 0.2
    done
    if [[ -z $up ]]; then
        # Nothing to poll: it is alive, so treat it as up.
        up="alive after 30 s"
    fi
    fact "${prefix}_ready" "$up"
    # Let start-up work finish before the window opens: libdispatch's worker that ran
    # the signal handlers' registration exits 5 s after its last job, and the engine
    # rests 30 s after its first pass (it hands the start-up's code pages back then).
    sleep 40
    local before after
    before=$(proc_sample "$pid")
    sleep "$IDLE_SECONDS"
    [[ -d /proc/$pid ]] || { cat "$OUT/$prefix-daemon.log" >&2; echo "the daemon exited during the window" >&2; return 1; }
    after=$(proc_sample "$pid")
    fact "${prefix}_clk_tck" "$(getconf CLK_TCK)"
    fact "${prefix}_before" "$before"
    fact "${prefix}_after" "$after"
    fact "${prefix}_vmhwm_kb" "$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")"
    fact "${prefix}_vmrss_kb" "$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")"
    stop "$pid"
}

# MARK: Sources (CardDAV)

# start_radicale DIR: a Radicale server (apt radicale) on an ephemeral loopback port,
# user alice/secret, storage in DIR/storage, one log line per request in DIR/radicale.log
# (with the client's User-Agent). Under eatmydata when installed. Sets RAD_PORT.
start_radicale() {
    local dir=$1 emd pid deadline=$((SECONDS + 30))
    mkdir -p "$dir/storage"
    printf 'alice:secret\n' >"$dir/users"
    printf '%s\n' "[server]" "hosts = 127.0.0.1:0" "[auth]" "type = htpasswd" "htpasswd_filename = $dir/users" \
        "htpasswd_encryption = plain" "delay = 0" "[rights]" "type = owner_only" "[storage]" \
        "filesystem_folder = $dir/storage" "[web]" "type = none" "[logging]" "level = info" "mask_passwords = True" \
        >"$dir/config"
    emd=$(command -v eatmydata || true)
    $emd /usr/bin/radicale --config "$dir/config" >"$dir/radicale.log" 2>&1 &
    pid=$!
    started "$pid" radicale
    until grep -q 'Radicale server ready' "$dir/radicale.log"; do
        [[ -d /proc/$pid && $SECONDS -lt $deadline ]] || { cat "$dir/radicale.log" >&2; return 1; }
        sleep 0.05
    done
    RAD_PORT=$(sed -n "s/.*Listening on '\[127.0.0.1\]:\([0-9]*\)'.*/\1/p" "$dir/radicale.log" | head -n1)
}

# seed_book DIR NAME DISPLAY VCF: the book NAME of alice, one file per card of VCF, written
# into Radicale's storage (thousands of PUTs would take it half an hour), then read once
# so that Radicale builds its cache before anything is timed.
seed_book() {
    local dir=$1 name=$2 display=$3 vcf=$4 book start
    book=$dir/storage/collection-root/alice/$name
    mkdir -p "$book"
    printf '{"tag": "VADDRESSBOOK", "D:displayname": "%s"}' "$display" >"$book/.Radicale.props"
    $PY bench/peers/split_vcards.py "$vcf" "$book" >/dev/null
    start=$SECONDS
    curl -sf -o /dev/null -u alice:secret -X REPORT -H 'Depth: 0' -H 'Content-Type: application/xml' \
        --data-binary '<?xml version="1.0"?><d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>' \
        "http://127.0.0.1:$RAD_PORT/alice/$name/"
    fact "radicale_cache_${name}_s" "$((SECONDS - start))"
}

# Requests Radicale logged from our client (User-Agent "birthdays").
our_requests() { grep -c "request for .* using 'birthdays" "$1/radicale.log" || true; }

json_get_source() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["sources"][0].get(sys.argv[2], 0))' "$1" "$2" 2>/dev/null || echo 0; }

measure_sources() {
    need sources "sources add" "sources sync" || return 0
    [[ -x /usr/bin/radicale ]] || { na sources "n/a (radicale is not installed: make deps-bench)"; return 0; }
    command -v vdirsyncer >/dev/null || { na sources "n/a (vdirsyncer is not installed: make deps-bench)"; return 0; }
    gen c10k 10000
    local rdir=$OUT/radicale db=$OUT/db/sources.sqlite url before card
    start_radicale "$rdir"
    seed_book "$rdir" book Book "$DATA/c10k.vcf"
    url=http://127.0.0.1:$RAD_PORT/alice/book/
    fact sources_cards "$(find "$rdir/storage/collection-root/alice/book" -maxdepth 1 -name '*.vcf' | wc -l)"
    local add=("$BIN" sources add "$url" --username alice --password-command "echo secret" --database "$db")
    local rdb ref_add=() ref_names=() ref_first=() ref_incremental=()
    reference_for sources-first sources-incremental -- "sources add" "sources sync"
    rdb=$(for_ref "$db")
    if [[ -n $REF_ON ]]; then
        ref_add=("$REF_BIN" sources add "$url" --username alice --password-command "echo secret" --database "$rdb")
        ref_names=(ref-sources-first)
        ref_first=(-- "${ref_add[@]}")
    fi

    # First sync: `sources add` on a new database (discovery, then the whole book). The limit beside
    # it: curl sending the sync-collection REPORT that returns every card, alternately with ours
    # (and the reference's, on a database of its own).
    $PY bench/peers/sync_report.py - source "$OUT/sources-all.xml"
    $PY bench/peers/alternate.py "$OUT" "$MID_RUNS" sources-first "${ref_names[@]}" sources-first-limit \
        --prepare "rm -f $db $db-wal $db-shm $rdb $rdb-wal $rdb-shm" \
        -- "${add[@]}" "${ref_first[@]}" \
        -- curl -sf -o /dev/null -u alice:secret -X REPORT -H 'Depth: 0' -H 'Content-Type: application/xml' \
        --data-binary "@$OUT/sources-all.xml" "$url"
    if [[ -n $REF_ON ]]; then
        # The reference's database for its incremental syncs.
        rm -f "$rdb" "$rdb-wal" "$rdb-shm"
        "${ref_add[@]}" >/dev/null
        ref_names=(ref-sources-incremental)
        ref_incremental=(-- "$REF_BIN" sources sync Book --database "$rdb")
    fi
    rm -f "$db" "$db-wal" "$db-shm"
    before=$(our_requests "$rdir")
    "${add[@]}" --json >"$OUT/sources-first.json"
    fact sources_first_requests "$(($(our_requests "$rdir") - before))"
    fact sources_first_added "$(json_get_source "$OUT/sources-first.json" added)"
    # What linking adds to the first sync (issue 43: at most a tenth), as for the import.
    # (Its last run leaves the database of a first sync, as the incremental syncs below need.)
    linking_share sources-linking "rm -f $db $db-wal $db-shm" 4 -- "${add[@]}"

    # The peer: vdirsyncer syncing the same book into a new vdir.
    local vds=$OUT/vdirsyncer
    mkdir -p "$vds"
    printf '%s\n' "[general]" "status_path = \"$vds/status/\"" "[pair book]" "a = \"local\"" "b = \"remote\"" \
        "collections = null" "conflict_resolution = \"b wins\"" "[storage local]" "type = \"filesystem\"" \
        "path = \"$vds/book/\"" "fileext = \".vcf\"" "[storage remote]" "type = \"carddav\"" "url = \"$url\"" \
        "username = \"alice\"" "password = \"secret\"" >"$vds/config"
    hf vdirsyncer-first "$SLOW_RUNS" \
        --prepare "sh -c 'rm -rf $vds/book $vds/status && mkdir -p $vds/book && vdirsyncer -c $vds/config discover'" \
        -- vdirsyncer -c "$vds/config" sync
    fact vdirsyncer_files "$(find "$vds/book" -maxdepth 1 -name '*.vcf' | wc -l)"

    # Incremental: one card (with a birthday, so a person changes) changed among all of
    # them, on the database of the first sync.
    card=$(find "$rdir/storage/collection-root/alice/book" -maxdepth 1 -name '*.vcf' -exec grep -l '^BDAY' {} + | sort | sed -n 1p)
    # The limit beside it: curl sending the same sync-collection REPORT (with address-data) from the
    # token our database holds, alternately with ours (and the reference's); before each, one card
    # changes on disk (the same card each time: each sync finds one card changed since its last).
    script "$OUT/sources-change.sh" "$PY bench/peers/sync_report.py '$db' source '$OUT/sources-report.xml'" \
        "$PY bench/peers/change_card.py '$card'"
    $PY bench/peers/alternate.py "$OUT" "$RUNS" sources-incremental "${ref_names[@]}" sources-incremental-limit \
        --prepare "$OUT/sources-change.sh" \
        -- "$BIN" sources sync Book --database "$db" "${ref_incremental[@]}" \
        -- curl -sf -o /dev/null -u alice:secret -X REPORT -H 'Depth: 0' -H 'Content-Type: application/xml' \
        --data-binary "@$OUT/sources-report.xml" "$url"
    $PY bench/peers/change_card.py "$card"
    before=$(our_requests "$rdir")
    "$BIN" sources sync Book --database "$db" --json >"$OUT/sources-incremental.json"
    fact sources_incremental_requests "$(($(our_requests "$rdir") - before))"
    fact sources_incremental_updated "$(json_get_source "$OUT/sources-incremental.json" updated)"
    before=$(our_requests "$rdir")
    "$BIN" sources sync Book --database "$db" >/dev/null
    fact sources_unchanged_requests "$(($(our_requests "$rdir") - before))"
}

measure_idlesource() {
    need idlesource run "sources add" "settings set" "notifications enable" || return 0
    [[ -x /usr/bin/radicale ]] || { na idlesource "n/a (radicale is not installed: make deps-bench)"; return 0; }
    gen p1k "$CONTACTS_FOR_1K_PEOPLE"
    local rdir=$OUT/radicale-idle db=$OUT/db/idlesource.sqlite before
    start_radicale "$rdir"
    seed_book "$rdir" small Small "$DATA/p1k.vcf"
    rm -f "$db" "$db-wal" "$db-shm"
    "$BIN" sources add "http://127.0.0.1:$RAD_PORT/alice/small/" --username alice --password-command "echo secret" \
        --database "$db" >"$OUT/idlesource-add.txt"
    fact idlesource_people "$(sqlite_people "$db")"
    before=$(our_requests "$rdir")
    idle_window idlesource "$db"
    # The daemon's sync at start, then none: its timer is 15 minutes away.
    fact idlesource_requests "$(($(our_requests "$rdir") - before))"
}

sqlite_people() { "$BIN" sources list --json --database "$1" | $PY -c 'import json,sys; print(sum(s["people"] for s in json.load(sys.stdin)))'; }

# MARK: Publish (CalDAV)

json_first() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]))[0].get(sys.argv[2], 0))' "$1" "$2" 2>/dev/null || echo 0; }

# mkcalendar URL: an empty calendar of events at URL (deleted first when there is one).
MKCALENDAR_BODY='<?xml version="1.0"?><c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><d:displayname>Birthdays</d:displayname><c:supported-calendar-component-set><c:comp name="VEVENT"/></c:supported-calendar-component-set></d:prop></d:set></c:mkcalendar>'
mkcalendar() {
    curl -s -o /dev/null -u alice:secret -X DELETE "$1"
    curl -sf -o /dev/null -u alice:secret -X MKCALENDAR -H 'Content-Type: application/xml' --data-binary "$MKCALENDAR_BODY" "$1"
}

# script FILE LINES...: an executable shell script (hyperfine's --prepare runs it).
script() {
    local file=$1
    shift
    printf '%s\n' "#!/bin/sh" "set -e" "$@" >"$file"
    chmod +x "$file"
}

# ref_script FILE REF_FILE: the script FILE working on the reference's databases instead (for_ref).
ref_script() {
    { for_ref "$(<"$1")"; printf '\n'; } >"$2"
    chmod +x "$2"
}

# publish_limit OURS LIMIT URL [CURL AUTH...]: `publish add URL` of the c100 database against curl
# PUTting the same events ($OUT/publish-small/events) one after another, alternately, each from an
# empty calendar at URL; with CURL AUTH (Radicale's alice) the target gets that user. When the
# reference is on, its `publish add` (of its own database, ref-OURS) takes its turn too.
publish_limit() {
    local ours=$1 limit=$2 url=$3 sdir=$OUT/publish-small sdb=$OUT/db/publish-small.sqlite file body
    shift 3
    local user=()
    [[ $# -gt 0 ]] && user=(--username alice --password-command "echo secret")
    for file in "$sdir"/events/*.ics; do
        printf 'upload-file = "%s"\nurl = "%s%s"\noutput = "/dev/null"\n' "$file" "$url" "${file##*/}"
    done >"$sdir/$limit.cfg"
    body=$(printf '%q' "$MKCALENDAR_BODY")
    script "$OUT/$ours-prepare.sh" "cp '$(db_for c100)' '$sdb'" "rm -f '$sdb-wal' '$sdb-shm'" \
        "curl -s -o /dev/null $* -X DELETE '$url'" \
        "curl -sf -o /dev/null $* -X MKCALENDAR -H 'Content-Type: application/xml' --data-binary $body '$url'"
    # One preparation for both, or one each (the limit's is ours: it only empties the calendar).
    local ref_names=() prepares=(--prepare "$OUT/$ours-prepare.sh") ref_add=()
    if [[ -n $REF_ON ]]; then
        ref_script "$OUT/$ours-prepare.sh" "$OUT/ref-$ours-prepare.sh"
        ref_names=("ref-$ours")
        prepares+=(--prepare "$OUT/ref-$ours-prepare.sh" --prepare "$OUT/$ours-prepare.sh")
        ref_add=(-- "$REF_BIN" publish add "$url" "${user[@]}" --database "$(for_ref "$sdb")")
    fi
    $PY bench/peers/alternate.py "$OUT" "$MID_RUNS" "$ours" "${ref_names[@]}" "$limit" "${prepares[@]}" \
        -- "$BIN" publish add "$url" "${user[@]}" --database "$sdb" "${ref_add[@]}" \
        -- curl -sf "$@" -H 'Expect:' -H 'If-None-Match: *' -H 'Content-Type: text/calendar; charset=utf-8' -K "$sdir/$limit.cfg"
    "$OUT/$ours-prepare.sh"
    "$BIN" publish add "$url" "${user[@]}" --database "$sdb" --json >"$OUT/$ours.json"
    fact "${ours//-/_}_put" "$(json_first "$OUT/$ours.json" put)"
    fact "${ours//-/_}_requests" "$(json_first "$OUT/$ours.json" requests)"
}

measure_publishlimit() {
    need publishlimit "publish add" "export" || return 0
    [[ -x /usr/bin/radicale ]] || { na publishlimit "n/a (radicale is not installed: make deps-bench)"; return 0; }
    # First publish against the floor: the same PUTs sent by curl one after another from one
    # process (If-None-Match: *, as ours; no `Expect: 100-continue`, for which curl would wait a
    # second before each body Radicale never answers with 100), alternately with ours. A smaller
    # set (100 contacts), each round from an empty calendar and the database without the target:
    # Radicale's PUT slows with the calendar's size, so 5 alternated rounds of the 1,000-person set
    # would take hours. The same row against Xandikos when it is installed.
    gen c100 100
    local small sdir=$OUT/publish-small sdb=$OUT/db/publish-small.sqlite
    reference_for publish-first-small publish-first-xandikos -- "publish add"
    small=$(db_for c100)
    rm -rf "$sdir"
    mkdir -p "$sdir"
    "$BIN" export --database "$small" --output "$sdir/export.ics"
    fact publish_small_events "$($PY bench/peers/split_events.py "$sdir/export.ics" "$sdir/events")"
    start_radicale "$OUT/radicale-publishlimit"
    publish_limit publish-first-small publish-first-limit "http://127.0.0.1:$RAD_PORT/alice/small/" -u alice:secret
    if [[ -x /usr/bin/xandikos ]]; then
        local xport xpid deadline=$((SECONDS + 30))
        xport=$(free_port)
        rm -rf "$OUT/xandikos"
        mkdir -p "$OUT/xandikos"
        $(command -v eatmydata || true) /usr/bin/xandikos --defaults -d "$OUT/xandikos/storage" -l 127.0.0.1 -p "$xport" \
            >"$OUT/xandikos/log" 2>&1 &
        xpid=$!
        started "$xpid" xandikos
        until [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$xport/" || true) != 000 ]]; do
            [[ -d /proc/$xpid && $SECONDS -lt $deadline ]] || { cat "$OUT/xandikos/log" >&2; return 1; }
            sleep 0.1
        done
        publish_limit publish-first-xandikos publish-first-xandikos-limit "http://127.0.0.1:$xport/user/calendars/small/"
    else
        na publish-first-xandikos "n/a (xandikos is not installed: make deps-bench)"
    fi
}

# change_script FILE BIN DB: a script that changes one person of DB (BIN's): their reminder days
# alternate between two values, so a publish after each run writes that person's events.
change_script() {
    local file=$1 bin=$2 db=$3 id
    id=$("$bin" people --json --database "$db" | $PY -c 'import json,sys; print(next(p["id"] for p in json.load(sys.stdin) if p.get("birthday") and not p["excluded"] and not p["deceased"]))')
    script "$file" \
        "if [ -f '$file.flip' ]; then rm '$file.flip'; exec '$bin' remind '$id' --default --database '$db' >/dev/null; fi" \
        "touch '$file.flip'; exec '$bin' remind '$id' --days 3,0 --database '$db' >/dev/null"
}

measure_publish() {
    need publish "publish add" "publish sync" "export" || return 0
    [[ -x /usr/bin/radicale ]] || { na publish "n/a (radicale is not installed: make deps-bench)"; return 0; }
    command -v vdirsyncer >/dev/null || { na publish "n/a (vdirsyncer is not installed: make deps-bench)"; return 0; }
    # About 1,000 people (3,900 events with ages): Radicale stores some 10 events a second
    # here, so 10,000 people (28,000 events) would take 45 minutes a run for each tool;
    # for the same reason the first publishes run once, without a warm-up.
    gen p1k "$CONTACTS_FOR_1K_PEOPLE"
    local people rdir=$OUT/radicale-publish db=$OUT/db/publish.sqlite url vurl before id
    reference_for publish-first publish-unchanged publish-changed -- "publish add" "publish sync" remind people
    people=$(db_for p1k)
    start_radicale "$rdir"
    url=http://127.0.0.1:$RAD_PORT/alice/birthdays/
    local add=("$BIN" publish add "$url" --username alice --password-command "echo secret" --database "$db")
    # The reference publishes its own database to a calendar of its own.
    local rdb ref_url ref_add=()
    rdb=$(for_ref "$db")
    ref_url=http://127.0.0.1:$RAD_PORT/alice/birthdays-ref/
    [[ -z $REF_ON ]] || ref_add=("$REF_BIN" publish add "$ref_url" --username alice --password-command "echo secret" --database "$rdb")

    # First publish: `publish add` of an empty calendar from a database with the people and no target.
    local body
    body=$(printf '%q' "$MKCALENDAR_BODY")
    script "$OUT/publish-prepare.sh" "cp '$people' '$db'" "rm -f '$db-wal' '$db-shm'" \
        "curl -s -o /dev/null -u alice:secret -X DELETE '$url'" \
        "curl -sf -o /dev/null -u alice:secret -X MKCALENDAR -H 'Content-Type: application/xml' --data-binary $body '$url'"
    if [[ -n $REF_ON ]]; then
        script "$OUT/ref-publish-prepare.sh" "cp '$(for_ref "$people")' '$rdb'" "rm -f '$rdb-wal' '$rdb-shm'" \
            "curl -s -o /dev/null -u alice:secret -X DELETE '$ref_url'" \
            "curl -sf -o /dev/null -u alice:secret -X MKCALENDAR -H 'Content-Type: application/xml' --data-binary $body '$ref_url'"
        # Its calendar stays as this left it, for its republishes below.
        $PY bench/peers/alternate.py "$OUT" 1 publish-first ref-publish-first --warmup 0 \
            --prepare "$OUT/publish-prepare.sh" --prepare "$OUT/ref-publish-prepare.sh" -- "${add[@]}" -- "${ref_add[@]}"
    else
        HF_WARMUP=0 hf publish-first 1 --prepare "$OUT/publish-prepare.sh" -- "${add[@]}"
    fi
    cp "$people" "$db"
    rm -f "$db-wal" "$db-shm"
    mkcalendar "$url"
    before=$(our_requests "$rdir")
    "${add[@]}" --json >"$OUT/publish-first.json"
    fact publish_first_requests "$(($(our_requests "$rdir") - before))"
    fact publish_first_put "$(json_first "$OUT/publish-first.json" put)"

    # The peer: vdirsyncer uploading the same events (UID.ics, the bytes publish writes) from a vdir.
    local vds=$OUT/vdirsyncer-publish
    mkdir -p "$vds"
    "$BIN" export --database "$db" --output "$vds/export.ics"
    fact publish_vdir_files "$($PY bench/peers/split_events.py "$vds/export.ics" "$vds/events")"
    vurl=http://127.0.0.1:$RAD_PORT/alice/vdirsyncer/
    printf '%s\n' "[general]" "status_path = \"$vds/status/\"" "[pair cal]" "a = \"local\"" "b = \"remote\"" \
        "collections = null" "conflict_resolution = \"a wins\"" "[storage local]" "type = \"filesystem\"" \
        "path = \"$vds/events/\"" "fileext = \".ics\"" "[storage remote]" "type = \"caldav\"" "url = \"$vurl\"" \
        "username = \"alice\"" "password = \"secret\"" >"$vds/config"
    script "$OUT/vdirsyncer-prepare.sh" "rm -rf '$vds/status'" \
        "curl -s -o /dev/null -u alice:secret -X DELETE '$vurl'" \
        "curl -sf -o /dev/null -u alice:secret -X MKCALENDAR -H 'Content-Type: application/xml' --data-binary $body '$vurl'" \
        "vdirsyncer -c '$vds/config' discover >/dev/null"
    HF_WARMUP=0 hf vdirsyncer-publish 1 --prepare "$OUT/vdirsyncer-prepare.sh" -- vdirsyncer -c "$vds/config" sync
    fact vdirsyncer_publish_files "$(find "$rdir/storage/collection-root/alice/vdirsyncer" -maxdepth 1 -name '*.ics' | wc -l)"

    # Republish with nothing changed: one sync-collection REPORT from the token the target keeps.
    # The limit beside it: curl sending the same REPORT with that token (the server's own answer
    # to an empty delta), alternately with ours, after one publish that settles the token.
    each publish sync --database "$db" >/dev/null
    $PY bench/peers/sync_report.py "$db" publish "$OUT/publish-report.xml"
    local ref_names=() ref_sync=()
    if [[ -n $REF_ON ]]; then
        ref_names=(ref-publish-unchanged)
        ref_sync=(-- "$REF_BIN" publish sync --database "$rdb")
    fi
    $PY bench/peers/alternate.py "$OUT" "$RUNS" publish-unchanged "${ref_names[@]}" publish-unchanged-limit \
        -- "$BIN" publish sync --database "$db" "${ref_sync[@]}" \
        -- curl -sf -o /dev/null -u alice:secret -X REPORT -H 'Depth: 0' -H 'Content-Type: application/xml' \
        --data-binary "@$OUT/publish-report.xml" "$url"
    before=$(our_requests "$rdir")
    "$BIN" publish sync --database "$db" >/dev/null
    fact publish_unchanged_requests "$(($(our_requests "$rdir") - before))"

    # One changed person: their reminder days alternate between two values, so every run writes one event.
    change_script "$OUT/publish-change.sh" "$BIN" "$db"
    if [[ -n $REF_ON ]]; then
        change_script "$OUT/ref-publish-change.sh" "$REF_BIN" "$rdb"
        $PY bench/peers/alternate.py "$OUT" "$RUNS" publish-changed ref-publish-changed \
            --prepare "$OUT/publish-change.sh" --prepare "$OUT/ref-publish-change.sh" \
            -- "$BIN" publish sync --database "$db" -- "$REF_BIN" publish sync --database "$rdb"
    else
        hf publish-changed "$RUNS" --prepare "$OUT/publish-change.sh" -- "$BIN" publish sync --database "$db"
    fi
    "$OUT/publish-change.sh"
    before=$(our_requests "$rdir")
    "$BIN" publish sync --database "$db" --json >"$OUT/publish-changed.json"
    fact publish_changed_requests "$(($(our_requests "$rdir") - before))"
    fact publish_changed_put "$(json_first "$OUT/publish-changed.json" put)"
}

# MARK: Many users (serve and run --all-users)

# BENCH_USERS users (default 1,000), each with 300 contacts of their own: slices of one
# generated file (seed 2, no photos), cached in bench/work/data/users/; past 1,000 users the
# slices are used again (user 1,000 has user 0's contacts, in a database of their own). Each
# user is made as a person would: users add, import --user, settings set channels log,
# notifications enable; the imports at noon the day before the busy day (pretend time,
# BIRTHDAYS_NOW_WRITES=1), so its 09:00 is every reminder's first. With BENCH_USERS_COPY=1,
# each user past the first 1,000 is made by users add and then given a copy of the database
# of the user whose slice they have (what 4,000 more imports would make, in a fraction of
# their time; their tokens are then that user's too, and serve --all-users answers 404 for a
# token two users hold: the 304 rows use one of the first 1,000, their feed token rotated first).
USERS=${BENCH_USERS:-1000}
USERS_COPY=${BENCH_USERS_COPY:-}
USER_CONTACTS=300
USER_SLICES=1000
# The busy day (its 09:00 is when the reminders are due) and the day before.
USERS_EVE=2027-03-09
USERS_DAY=2027-03-10

users_data() {
    local want count=$((USER_CONTACTS * USER_SLICES))
    want="gen=$(sha256sum "$GEN" | cut -c1-16) count=$count format=vcard3 photo-rate=0 seed=2 per=$USER_CONTACTS"
    if [[ ! -f $DATA/users.stamp || $(<"$DATA/users.stamp") != "$want" ]]; then
        printf 'generating users (%s contacts in %s slices)\n' "$count" "$USER_SLICES" >&2
        rm -rf "$DATA/users.stamp" "$DATA/users"
        $PY "$GEN" --count "$count" --format vcard3 --photo-rate 0 --seed 2 >"$DATA/users.vcf.tmp"
        $PY bench/peers/users.py slices "$DATA/users.vcf.tmp" "$DATA/users" "$USER_CONTACTS" "$USER_SLICES"
        rm -f "$DATA/users.vcf.tmp"
        echo "$want" >"$DATA/users.stamp"
    fi
}

# users_make FROM TO: users uFROM..u(TO-1), each with their slice, eight at a time (each
# command waits for the disk's syncs far longer than it computes).
users_make() {
    local from=$1 to=$2 lane
    for ((lane = 0; lane < 8; lane++)); do
        (
            local i name
            # Every reminder planned from the eve's noon: the busy day's 09:00 is the first.
            export BIRTHDAYS_NOW=${USERS_EVE}T12:00:00Z BIRTHDAYS_NOW_WRITES=1
            for ((i = from + lane; i < to; i += 8)); do
                printf -v name 'u%04d' "$i"
                "$BIN" users add "$name" >/dev/null
                if [[ -n $USERS_COPY && $i -ge $USER_SLICES ]]; then
                    local from
                    printf -v from 'u%04d' $((i % USER_SLICES))
                    rm -f "$BIRTHDAYS_USERS_DIR/$name"/birthdays.sqlite*
                    cp "$BIRTHDAYS_USERS_DIR/$from/birthdays.sqlite" "$BIRTHDAYS_USERS_DIR/$name/"
                    if [[ -f $BIRTHDAYS_USERS_DIR/$from/birthdays.sqlite-wal ]]; then cp "$BIRTHDAYS_USERS_DIR/$from/birthdays.sqlite-wal" "$BIRTHDAYS_USERS_DIR/$name/"; fi
                    continue
                fi
                "$BIN" --user "$name" import "$(printf '%s/%04d.vcf' "$DATA/users" $((i % USER_SLICES)))" >/dev/null 2>&1
                "$BIN" --user "$name" settings set channels log >/dev/null 2>&1
                "$BIN" --user "$name" notifications enable >/dev/null 2>&1
            done
        ) &
    done
    wait
}

measure_users() {
    need users "users add" "users list" run serve "feed url" || return 0
    users_data
    export BIRTHDAYS_USERS_DIR=$OUT/users TZ=UTC
    local start pid nine due stamped
    fact users_count "$USERS"
    fact users_contacts "$USER_CONTACTS"
    start=$EPOCHREALTIME
    if [[ -n $USERS_COPY && $USERS -gt $USER_SLICES ]]; then
        users_make 0 "$USER_SLICES"
        users_make "$USER_SLICES" "$USERS"
    else
        users_make 0 "$USERS"
    fi
    fact users_copied "$([[ -n $USERS_COPY && $USERS -gt $USER_SLICES ]] && echo $((USERS - USER_SLICES)) || echo 0)"
    fact users_setup_s "$(echo "$EPOCHREALTIME - $start" | bc)"
    [[ $("$BIN" users list | wc -l) -ge $USERS ]] || { echo "users list shows fewer than $USERS users" >&2; return 1; }

    # (a) The busy day: run --all-users from 08:59:00 (pretend, flowing), the log channel's lines
    # stamped as they arrive; every reminder due at 09:00 must leave within 60 s of it.
    nine=$(date -u -d "${USERS_DAY}T09:00:00Z" +%s)
    due=$($PY bench/peers/users.py due "$BIRTHDAYS_USERS_DIR" "$nine")
    fact users_due "$due"
    stamped=$OUT/users-run
    start=$EPOCHREALTIME
    BIRTHDAYS_NOW=${USERS_DAY}T08:59:00Z BIRTHDAYS_NOW_WRITES=1 "$BIN" run --all-users \
        > >($PY bench/peers/users.py stamp "$stamped.out") 2> >($PY bench/peers/users.py stamp "$stamped.err") &
    pid=$!
    started "$pid" "$BIN_COMM"
    fact users_start "$start"
    # Only the lines of reminders due at 09:00 count, not those of any other hour.
    local deadline=$((SECONDS + 60 + ${BENCH_USERS_WAIT:-600})) delivered=0 up=0 nine_at=fire_at=${USERS_DAY}T09:00
    while ((SECONDS < deadline)); do
        [[ -d /proc/$pid ]] || { tail "$stamped.err" >&2; echo "run --all-users exited" >&2; return 1; }
        delivered=$(cat "$stamped.out" 2>/dev/null | grep -c "$nine_at" || true)
        up=$(cat "$stamped.err" 2>/dev/null | grep -c 'birthdays run started' || true)
        ((delivered < due || up < USERS)) || break
        sleep 1
    done
    fact users_delivered "$delivered"
    # Seconds after the start: the log channel's first and last 09:00 line (09:00 is 60 s after it).
    fact users_lines "$($PY bench/peers/users.py lateness "$stamped.out" "$start" "$nine_at")"
    fact users_started_s "$($PY bench/peers/users.py started "$stamped.err" "$start" "$USERS")"

    # (b) At rest over every user, nothing due for a day, sampled as the idle rows are.
    sleep 40
    local before after
    before=$(proc_sample "$pid")
    sleep "$IDLE_SECONDS"
    [[ -d /proc/$pid ]] || { echo "run --all-users exited during the window" >&2; return 1; }
    after=$(proc_sample "$pid")
    fact users-idle_clk_tck "$(getconf CLK_TCK)"
    fact users-idle_before "$before"
    fact users-idle_after "$after"
    fact users-idle_vmhwm_kb "$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")"
    fact users-idle_vmrss_kb "$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")"
    fact users_fds "$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
    fact users_inotify "$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 -lname 'anon_inode:inotify' 2>/dev/null | wc -l)"
    stop "$pid"
    wait "$pid" 2>/dev/null || true
    # One user's daemon on a copy of one user's database, the same window (the idle rows' way).
    mkdir -p "$OUT/db"
    $PY bench/peers/users.py copy "$BIRTHDAYS_USERS_DIR/u0000/birthdays.sqlite" "$OUT/db/users-single.sqlite"
    (unset BIRTHDAYS_USERS_DIR; idle_window users-single "$OUT/db/users-single.sqlite")

    # (c) Page and feed of one user, 304, from serve --all-users and from one user's serve.
    local port url one_port one_url one_pid etag one_etag name
    printf -v name 'u%04d' $(((USERS < USER_SLICES ? USERS : USER_SLICES) / 2))
    if [[ -n $USERS_COPY && $USERS -gt $USER_SLICES ]]; then "$BIN" --user "$name" feed rotate >/dev/null; fi
    port=$(free_port)
    start=$EPOCHREALTIME
    BIRTHDAYS_LOG_LEVEL=warning "$BIN" serve --all-users --host 127.0.0.1 --port "$port" >"$OUT/users-serve.log" 2>&1 &
    pid=$!
    started "$pid" "$BIN_COMM"
    deadline=$((SECONDS + 600))
    until [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz" || true) == 200 ]]; do
        [[ -d /proc/$pid ]] && ((SECONDS < deadline)) || { cat "$OUT/users-serve.log" >&2; return 1; }
        sleep 0.2
    done
    fact users_serve_started_s "$(echo "$EPOCHREALTIME - $start" | bc)"
    url=$("$BIN" --user "$name" feed url --host 127.0.0.1 --port "$port" | sed -n 1p)
    $PY bench/peers/users.py copy "$BIRTHDAYS_USERS_DIR/$name/birthdays.sqlite" "$OUT/db/users-one.sqlite"
    one_port=$(free_port)
    one_url=${url/:$port\//:$one_port/}
    BIRTHDAYS_LOG_LEVEL=warning "$BIN" serve --database "$OUT/db/users-one.sqlite" --host 127.0.0.1 --port "$one_port" >"$OUT/users-one-serve.log" 2>&1 &
    one_pid=$!
    started "$one_pid" "$BIN_COMM"
    wait_url "$one_url" "$one_pid" || { cat "$OUT/users-one-serve.log" >&2; return 1; }
    local kind target one_target
    for kind in feed page; do
        target=$url one_target=$one_url
        if [[ $kind == page ]]; then target=${url%.ics} one_target=${one_url%.ics}; fi
        etag=$(etag_of "$target")
        one_etag=$(etag_of "$one_target")
        fact "users_${kind}_304_status" "$(status_with "$target" "$etag")"
        fact "users_${kind}_one_304_status" "$(status_with "$one_target" "$one_etag")"
        run_wrk "users-$kind-304-one" "$one_target" "$one_etag"
        run_wrk "users-$kind-304-all" "$target" "$etag"
    done
    # A token no user has: one index lookup, then every user's watch read once (no database asked when none changed).
    local i unknown=http://127.0.0.1:$port/calendar/$(printf '7%.0s' {1..32}).ics
    [[ $(curl -s -o /dev/null -w '%{http_code}' "$unknown") == 404 ]] || { echo "an unknown token did not answer 404" >&2; return 1; }
    # One curl, one connection, 50 requests: the server's time, not curl's start-up.
    local asks=()
    for ((i = 0; i < 50; i++)); do asks+=(-o /dev/null "$unknown"); done
    fact users_404_ms "$(curl -s -w '%{time_total}\n' "${asks[@]}" | awk '{ total += $1 } END { printf "%.3f", total * 1000 / NR }')"
    # Both servers stopped: users add is timed alone.
    stop "$pid"
    stop "$one_pid"
    wait "$pid" "$one_pid" 2>/dev/null || true

    # (d) users add of the (N+1)st user, removed again before each run.
    printf '#!/bin/sh\n%q users remove extra >/dev/null 2>&1 || true\n' "$BIN" >"$OUT/users-remove-extra.sh"
    chmod +x "$OUT/users-remove-extra.sh"
    hf users-add "$RUNS" --prepare "$OUT/users-remove-extra.sh" -- "$BIN" users add extra
}

reference_build
measure startup
measure import
measure vobject
measure upcoming
measure reschedule
measure greetings
measure export
measure serve
measure page
measure idle
measure idlechannels
measure sources
measure idlesource
measure publish
measure publishlimit
measure users

fact load_end "$(cut -d' ' -f1-3 /proc/loadavg)"
say report
$PY bench/report.py ${BENCH_PUBLISH:+--publish} "$OUT" "$ROOT/bench/results.json"
