#!/usr/bin/env bash
# Runs the test command given as arguments (make test's `swift test`) with its
# whole output in .build/test-output.log, and prints what a reader needs:
# every issue, every skipped test and why, and the summary. The two lines each
# of 1,500 tests writes ("started", "passed") stay in the log: tens of
# thousands of lines that drown a failure and fill a CI job's output.
#
# A run that has not ended after TEST_TIMEOUT seconds (default 1800; the suite
# takes 3 to 15 minutes on two cores, busy or not) is stopped, and the tests
# that had started and not ended are named: a hang fails in half an hour with
# its cause, instead of holding CI until its own limit says nothing.
set -uo pipefail
log=.build/test-output.log
limit=${TEST_TIMEOUT:-1800}
mkdir -p .build
echo "running the tests (the whole output goes to $log)"

# The command runs in a process group of its own, so a stop reaches the test
# process that `swift test` starts, and the programs the tests started.
setsid "$@" >"$log" 2>&1 </dev/null &
runner=$!
started=$SECONDS
status=
while [ -z "$status" ]; do
    if ! kill -0 "$runner" 2>/dev/null; then
        wait "$runner"
        status=$?
        break
    fi
    if [ $((SECONDS - started)) -ge "$limit" ]; then
        echo "error: the tests did not end within $limit s; these had started and not ended:" >&2
        # "◇ Test NAME started." without a later "✔/✘ Test NAME ..." line.
        python3 - "$log" >&2 <<'EOF'
import re, sys
started, ended = {}, set()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if m := re.match(r"^◇ Test (\S+?)(\(.*?\))? started", line):
        started[m.group(1)] = line.strip()
    elif m := re.match(r"^[✔✘] Test (\S+?)(\(.*?\))? ", line):
        ended.add(m.group(1))
for name, line in started.items():
    if name not in ended:
        print("  " + line)
EOF
        kill -TERM -- -"$runner" 2>/dev/null
        sleep 10
        kill -KILL -- -"$runner" 2>/dev/null
        wait "$runner" 2>/dev/null
        status=124
        break
    fi
    # A watchdog's poll, not a test's synchronisation: it only decides when to give up.
    sleep 5
done

# Everything but the per-test "started" and "passed" lines (a test case's
# arguments may span lines): issues and their details, skips with their
# reasons, warnings, the build's errors, the summary.
python3 - "$log" <<'EOF'
import re, sys
quiet = re.compile(r"^[◇✔] (Test|Suite) ")
summary = re.compile(r"^[✔✘] Test run with ")
done = re.compile(r"(started\.|passed after [0-9.]+ seconds\.)$")
entry = []
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if not entry and not (quiet.match(line) and not summary.match(line)):
        sys.stdout.write(line)
        continue
    entry.append(line)
    if done.search(line.rstrip("\n")):
        entry = []
    elif len(entry) > 50:
        # Not a test's own lines after all: print them.
        sys.stdout.writelines(entry)
        entry = []
sys.stdout.writelines(entry)
EOF
if [ "$status" -ne 0 ]; then
    echo "error: the tests failed (exit $status); the whole output is in $log" >&2
fi
exit "$status"
