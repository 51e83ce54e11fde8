#!/usr/bin/env bash
# Where does a command spend its time? For when a `make bench` target is missed.
#
#   ./bench/profile.sh                          # import of the 10k-contact benchmark file
#   ./bench/profile.sh -- upcoming --days 365   # another command, on a database of the same contacts
#
# First choice: valgrind --tool=callgrind, whose instruction counts do not depend on machine
# load, so they compare well between commits (about 50× slower than native). Writes
# bench/work/profile/callgrind.out (open it with kcachegrind or callgrind_annotate).
#
# Debian 12's valgrind 3.19 cannot run Swift 6.3 binaries (it cannot read their DWARF 5
# and, with debug info stripped, still dies with an internal SIGSEGV). Then this falls back
# to a sampling profile: perf record on the cpu-clock (VMs often have no hardware counters),
# written to bench/work/profile/perf.data, top functions and libraries printed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${BIRTHDAYS_BIN:-$ROOT/.build/release/birthdays}
PY=/usr/bin/python3
GEN=$ROOT/../shared/tools/gen-contacts.py
OUT=$ROOT/bench/work/profile

die() { printf 'profile: %s\n' "$*" >&2; exit 1; }
[[ -f $GEN ]] || die "../shared/tools/gen-contacts.py is missing (expected at $GEN)"
[[ -x $BIN ]] || die "$BIN is missing: build it first (make release)"
command -v valgrind >/dev/null || command -v perf >/dev/null || die "neither valgrind nor perf is installed: run make deps-bench"

rm -rf "$OUT"
mkdir -p "$OUT"
DATA=$OUT/c10k.vcf
DB=$OUT/profile.sqlite
$PY "$GEN" --count 10000 --format vcard3 --photo-rate 0.1 --seed 1 >"$DATA"

args=(import --database "$DB" "$DATA")
if [[ ${1:-} == -- ]]; then
    shift
    "$BIN" import --database "$DB" "$DATA" >/dev/null || echo "profile: the import failed; profiling anyway" >&2
    args=("$@" --database "$DB")
fi
demangle() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }

if command -v valgrind >/dev/null; then
    status=0
    # The Swift runtime's crash backtracer installs signal handlers valgrind does not need.
    SWIFT_BACKTRACE=enable=no valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
        "$BIN" "${args[@]}" >"$OUT/stdout" 2>"$OUT/valgrind.log" || status=$?
    if grep -q "^==[0-9]*== Collected" "$OUT/valgrind.log"; then
        [[ $status -eq 0 ]] || echo "profile: birthdays ${args[0]} exited with $status (see $OUT/stdout)" >&2
        grep -E '^==[0-9]+== (Collected|Events)' "$OUT/valgrind.log" >&2 || true
        callgrind_annotate --inclusive=yes "$OUT/callgrind.out" 2>/dev/null | head -n 40 | demangle
        echo "full profile: $OUT/callgrind.out" >&2
        exit 0
    fi
    echo "profile: valgrind could not run birthdays (see $OUT/valgrind.log); sampling with perf instead" >&2
fi

command -v perf >/dev/null || die "perf is not installed (apt-get install linux-perf)"
status=0
perf record -q -F 10000 -e cpu-clock -g -o "$OUT/perf.data" -- "$BIN" "${args[@]}" >"$OUT/stdout" 2>"$OUT/perf.log" || status=$?
[[ $status -eq 0 ]] || echo "profile: birthdays ${args[0]} exited with $status (see $OUT/stdout)" >&2
echo "-- time by library" >&2
perf report -i "$OUT/perf.data" --stdio --no-children -g none --sort dso 2>/dev/null | grep -v -e '^#' -e '^$' | head -n 10
echo "-- top functions (self time)" >&2
perf report -i "$OUT/perf.data" --stdio --no-children -g none --sort dso,sym 2>/dev/null | grep -v -e '^#' -e '^$' | head -n 30 | demangle | cut -c1-200
echo "full profile: perf report -i $OUT/perf.data" >&2
