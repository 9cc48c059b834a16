#!/bin/bash
# Unit tests for bench/report.py, the writer of docs/benchmarks.md: pair-by-
# pair ratios, the previous-run column, and carrying rows over from the
# committed report when build/bench/runs is gone (a fresh checkout).
# The run results here are made-up test input, not measurements.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 failed=0

check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}

# run_results DIR NAME W OURS BASE [PAIRS]: a run that timed workload W at
# OURS and BASE seconds in each of PAIRS (5) pairs, out of 5 wanted.
run_results() {
	local d=$1/$2 p
	mkdir -p "$d"
	echo "pairs: 5" > "$d/facts.txt"
	echo "note: run $2" >> "$d/facts.txt"
	for p in $(seq 1 "${6:-5}"); do
		printf '%s\tours\t%d\t%s\t\t100\t2048\n%s\tstock\t%d\t%s\t\t200\t1024\n' \
			"$3" "$p" "$4" "$3" "$p" "$5" >> "$d/results.tsv"
	done
}

# limit_results DIR NAME W SECS: that run also timed W's limit at SECS
# seconds in each of its 5 pairs.
limit_results() {
	local p
	for p in 1 2 3 4 5; do
		printf '%s\tlimit\t%d\t%s\t\t0\t\n' "$3" "$p" "$4" >> "$1/$2/results.tsv"
	done
}

report() { python3 "$top/bench/report.py" "$@"; }
row() { grep "^| $1 |" "$2"; }

# Two runs here: the newer one gives the row, the older the previous column.
run_results "$T/a" 20260101-000000 W1 10 11
run_results "$T/a" 20260101-000000 W2 60 120
run_results "$T/a" 20260101-000000 W3 0.5 1.0
run_results "$T/a" 20260102-000000 W1 10 12
report "$T/a" cmd > "$T/a.md"
check "ratio is baseline over ours" "row W1 $T/a.md | grep -q '| 20260102-000000 | 5 | 10.00 (10.00-10.00) | 12.00 (12.00-12.00) | 1.20 (1.20-1.20) |'"
check "previous column names the older run and the change" \
	"row W1 $T/a.md | grep -q '| 1.10 (+9.1%) in 20260101-000000 |'"
check "goal verdict" "row W2 $T/a.md | grep -q '| >= 2.5 | no |\$' && row W3 $T/a.md | grep -q '| >= 1.0 | yes |\$'"
check "repeatability counts rows within 10%" \
	"grep -q 'Repeatability .*: 1 of 1 rows; one complete run only: W2, W3' $T/a.md"
check "W3 against W2 from our medians" "grep -q 'takes 1/120 of the' $T/a.md"
check "unmeasured workloads are listed" "grep -q 'Not measured to completion yet.*: W1Z, W2M, W4,' $T/a.md"
check "run facts of both runs" "[ \$(grep -c '^note: run' $T/a.md) -eq 2 ]"

# Two-digit workloads: W10 comes after W9 (not after W1), both with their
# titles and goals, and their notes are memory, not kernel slab.
run_results "$T/a" 20260102-000000 W9 40 44
run_results "$T/a" 20260102-000000 W10 2 20
report "$T/a" cmd > "$T/a.md"
check "W9 row: title, ratio, goal" \
	"row W9 $T/a.md | grep -q '| receive of W2.s stream onto ext4 vs tar -x .* | 1.10 (1.10-1.10) | - | >= 1.0 | yes |\$'"
check "W10 row: title, ratio, goal" \
	"row W10 $T/a.md | grep -q '| cat of one 256 MiB file of W1.s stream .* | 10.00 (10.00-10.00) | - | >= 5.0 | yes |\$'"
check "rows in workload order, W10 last" \
	"[ \"\$(grep -o '^| W[0-9]* |' $T/a.md | tail -n 3 | tr -d '| ' | tr '\n' ' ')\" = 'W3 W9 W10 ' ]"
check "W9 and W10 notes give peak memory" \
	"grep -q '^- W9 peak memory' $T/a.md && grep -q '^- W10 peak memory' $T/a.md && ! grep -q '^- W10 kernel slab' $T/a.md"

# W11 (issue 19's resumed transfer): its title and goal (1/0.15), and the
# facts the guest marks "W11 note:" shown as notes.
mkdir -p "$T/r"
run_results "$T/r" 20260105-000000 W11 3 30
echo "W11 note: continuation 100 bytes, rest after the cut 90" >> "$T/r/20260105-000000/facts.txt"
report "$T/r" cmd > "$T/r.md"
check "W11 row: title, ratio, goal" \
	"row W11 $T/r.md | grep -q '| resumed transfer of W1 cut at 90% .* | 10.00 (10.00-10.00) | - | >= 6.67 | yes |\$'"
check "W11 facts marked as notes are notes" \
	"grep -q '^- W11: continuation 100 bytes, rest after the cut 90\$' $T/r.md"
mkdir -p "$T/empty"
report "$T/empty" cmd "$T/r.md" > "$T/r2.md"
check "W11 notes are carried over" "cmp -s $T/r.md $T/r2.md"

# Issue 21's limit: no column while no run timed one (the rows above), then
# ours / limit per pair for the rows that have it, "-" for the others,
# carried rows included.
check "no limit column without limit figures" "! grep -q 'ours / limit' $T/a.md"
run_results "$T/l" 20260104-000000 W2 40 80
limit_results "$T/l" 20260104-000000 W2 10
report "$T/l" cmd "$T/a.md" > "$T/l.md"
check "limits do not count as the baseline" "row W2 $T/l.md | grep -q '| 40.00 (40.00-40.00) | 80.00 (80.00-80.00) | 2.00 (2.00-2.00) |'"
check "ours / limit is our time over the limit's" "row W2 $T/l.md | grep -q '| >= 2.5 | no | 4.00 |\$'"
check "other rows, carried too, get a dash" "row W1 $T/l.md | grep -q '| no | - |\$' && row W10 $T/l.md | grep -q '| yes | - |\$'"
check "header and rule have the column" \
	"grep -q '| met | ours / limit, time median |\$' $T/l.md && grep -q '^|---|---|---|---|---|---|---|---|---|---|---|\$' $T/l.md"
check "the limit is described in the notes" \
	"grep -q '^- W2 limit (tar -c of the same files through a pipe to /dev/null, cold): 10.00 (10.00-10.00) s\$' $T/l.md"
# W1's own bound on the limit (issue 21: within 2x of cat).
run_results "$T/m" 20260105-000000 W1 10 16
limit_results "$T/m" 20260105-000000 W1 4
report "$T/m" cmd "$T/l.md" > "$T/m.md"
check "W1's ours / limit is judged against 2x" "row W1 $T/m.md | grep -q '| >= 1.5 | yes | 2.50 (goal <= 2.0: no) |\$'"
mkdir -p "$T/empty"
report "$T/empty" cmd "$T/l.md" > "$T/l2.md"
check "a report with the column carries over unchanged" "cmp -s $T/l.md $T/l2.md"

# W2M may be timed in fewer pairs than the rest ("W2M pairs: N" in the
# run's facts, BENCH_HUGE_PAIRS): its one pair completes it, W2's one does not.
run_results "$T/h" 20260107-000000 W2M 300 600 1
run_results "$T/h" 20260107-000000 W2 60 120 1
echo "W2M pairs: 1" >> "$T/h/20260107-000000/facts.txt"
report "$T/h" cmd > "$T/h.md"
check "W2M complete in its own number of pairs" \
	"row W2M $T/h.md | grep -q '| 20260107-000000 | 1 | 300.00 (300.00-300.00) | 600.00 (600.00-600.00) | 2.00 (2.00-2.00) |'"
check "the others still want the run's pairs" \
	"! row W2 $T/h.md && grep -q '^- W2: no complete run; run 20260107-000000 measured 1 of 5 pairs' $T/h.md"

# Guest CPU time (the time less the guest's idle time): idle seconds come
# from results.tsv's eighth column, or for runs made before it from the
# progress log's "(idle N s)".  W2M's note gives its growth over W2's.
d=$T/i/20260108-000000
mkdir -p "$d"
printf 'pairs: 1\nW2M pairs: 1\nsmall files: 200000\nW2M files: 1000000 (as made on the host)\n' > "$d/facts.txt"
printf 'W2\tours\t1\t12\t\t100\t2048\t2.00\nW2\tstock\t1\t104\t\t200\t1024\t4.00\n' > "$d/results.tsv"
printf 'W2M\tours\t1\t70\t\t100\t2048\nW2M\tstock\t1\t520\t\t200\t1024\n' >> "$d/results.tsv"
printf 'bench: W2M ours pair 1: 70.0 s (idle 20.00 s)\nbench: W2M stock pair 1: 520.0 s 5 bytes (idle 20.00 s)\n' > "$d/progress.log"
report "$T/i" cmd > "$T/i.md"
check "CPU time from results.tsv's idle column" \
	"grep -q '^- W2 guest CPU time per send (.*), s: ours median 10.00, stock median 100.00, ratio 10.00\$' $T/i.md"
check "CPU time from the progress log's idle" \
	"grep -q '^- W2M guest CPU time per send (.*), s: ours median 50.00, stock median 500.00, ratio 10.00\$' $T/i.md"
check "W2M's growth in CPU time" \
	"grep -q '^- W2M vs W2: .*; guest CPU time W2M / W2: ours 5.00x, stock 5.00x for 5.0x the files\$' $T/i.md"

# A fresh checkout: no runs, only the committed report. Nothing is lost.
mkdir -p "$T/empty"
report "$T/empty" cmd "$T/a.md" > "$T/carry.md"
check "carried report equals the one it came from" "cmp -s $T/a.md $T/carry.md"

# One new run on a fresh checkout: its rows replace the carried ones and
# are compared with the committed report's ratio; the rest are carried.
run_results "$T/b" 20260103-000000 W2 50 105
run_results "$T/b" 20260103-000000 W1 10 30 3
report "$T/b" cmd "$T/a.md" > "$T/b.md"
check "new run's row replaces the carried one" \
	"row W2 $T/b.md | grep -q '| 20260103-000000 | 5 | 50.00 .* | 2.10 (2.10-2.10) | 2.00 (+5.0%) in 20260101-000000 |'"
check "an incomplete run does not replace a carried row" "[ \"\$(row W1 $T/b.md)\" = \"\$(row W1 $T/a.md)\" ]"
check "incomplete run is noted with its pairs" \
	"grep -q '^- W1: no complete run; run 20260103-000000 measured 3 of 5 pairs: ours 10.00, 10.00, 10.00 s, baseline 30.00, 30.00, 30.00 s, ratio median 3.00\$' $T/b.md"
check "carried rows keep their notes" "grep -q '^- W3 kernel slab growth' $T/b.md"
check "a two-digit workload keeps its notes" "grep -q '^- W10 peak memory' $T/b.md"
mkdir -p "$T/c"
run_results "$T/c" 20260106-000000 W9 40 44
report "$T/c" cmd "$T/b.md" > "$T/c.md"
check "a partial note no run here measured is kept" \
	"grep -q '^- W1: no complete run; run 20260103-000000 measured 3 of 5 pairs' $T/c.md"
check "repeatability includes carried and compared rows" \
	"grep -q 'Repeatability .*: 2 of 2 rows; one complete run only: W3' $T/b.md"
check "W3 against W2 mixes a carried and a new median" "grep -q 'takes 1/100 of the' $T/b.md"
check "facts of carried and compared runs are kept" \
	"grep -q '^### 20260101-000000' $T/b.md && grep -q '^### 20260102-000000' $T/b.md && grep -q '^### 20260103-000000' $T/b.md"

# Writing the report again from the same runs and its own last version
# (what every later make bench does) changes nothing.
report "$T/b" cmd "$T/b.md" > "$T/b2.md"
check "regenerating changes nothing" "cmp -s $T/b.md $T/b2.md"
report "$T/empty" cmd "$T/b.md" > "$T/b3.md"
check "a fresh checkout keeps every row" "[ \"\$(grep '^| W' $T/b.md)\" = \"\$(grep '^| W' $T/b3.md)\" ]"

echo "1..$n"
[ "$failed" -eq 0 ]
