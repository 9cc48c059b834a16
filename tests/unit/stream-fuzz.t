#!/bin/bash
# Replay the fuzz seed corpus through both fuzz targets (ASan/UBSan build).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$root/$B ;; esac
export ASAN_OPTIONS=exitcode=86:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1
status=0
n=0
for t in reader dump; do
	out=$("$B/tests/fuzz/replay-$t" "$root"/tests/fuzz/corpus/* 2>&1)
	rc=$?
	count=$(grep -c '^ok ' <<< "$out")
	n=$((n + 1))
	if [ "$rc" -eq 0 ] && [ "$count" -gt 0 ]; then
		echo "ok $n - fuzz-$t replays $count corpus inputs"
	else
		echo "not ok $n - fuzz-$t replay failed (status $rc)"
		sed 's/^/# /' <<< "$out" | tail -40
		status=1
	fi
done
echo "1..$n"
exit $status
