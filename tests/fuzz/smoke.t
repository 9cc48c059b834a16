#!/bin/bash
# A short fuzzing run for CI: `make fuzz-smoke` (60 s in all, split between
# the libFuzzer targets, clang, see tests/fuzz/build.mk).  A finding (crash,
# sanitizer report, leak, timeout) fails the test, and libFuzzer's report
# and the saved input are shown.  Longer runs: make fuzz FUZZ_SECONDS=N.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

cd "$root" || exit 1
make -s fuzz-smoke B="$B" > "$log" 2>&1
rc=$?
runs=$(grep -c '^stat::number_of_executed_units' "$log")
if [ $rc -eq 0 ]; then
	execs=$(awk '/^stat::number_of_executed_units/ { n += $2 } END { print n + 0 }' "$log")
	echo "ok 1 - make fuzz-smoke: $runs targets, $execs inputs, no finding"
else
	echo "not ok 1 - make fuzz-smoke failed (status $rc)"
	grep -E '^(==[0-9]+==|SUMMARY|artifact_prefix|Test unit written|.*runtime error)' "$log" |
		head -40 | sed 's/^/# /'
	tail -n 20 "$log" | sed 's/^/# /'
fi
echo "1..1"
exit $rc
