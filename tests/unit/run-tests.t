#!/bin/bash
# tests/run-tests itself: small fake test programs whose TAP output is right
# or wrong in one way each.  A program that stops early with status 0, prints
# more results than it planned, prints no plan, two plans or a plan between
# its results must fail; a plan before the first result or after the last,
# and "1..0" with no results, must not.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
runner=$root/tests/run-tests

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# program NAME LINE...: fake NAME printing the lines; "exit N" or "kill"
# as the last argument sets how it ends (exit 0 by default).
program() {
	local name=$1 end='exit 0'
	shift
	case ${!#} in
	exit\ *) end=${!#}; set -- "${@:1:$#-1}" ;;
	kill) end='kill -TERM $$'; set -- "${@:1:$#-1}" ;;
	esac
	{
		echo '#!/bin/sh'
		[ $# -eq 0 ] || printf 'echo %q\n' "$@"
		echo "$end"
	} > "$tmp/$name"
	chmod +x "$tmp/$name"
}

# run PROGRAM...: run-tests on them; its output in $tmp/out, report in
# $tmp/report, status in $rc.
run() {
	"$runner" --report "$tmp/report" "${@/#/$tmp/}" > "$tmp/out" 2>&1
	rc=$?
}

# expect DESC RC SUMMARY [TEXT]: the last run exited RC (never a crash),
# ended with the line SUMMARY and, if given, printed TEXT.
expect() {
	local desc=$1 want=$2 summary=$3 text=${4:-}
	if [ "$rc" -eq "$want" ] && [ "$(tail -n 1 "$tmp/out")" = "$summary" ] &&
	   { [ -z "$text" ] || grep -qF -- "$text" "$tmp/out"; }; then
		ok "$desc"
		return
	fi
	not_ok "$desc"
	echo "#   exit $rc, expected $want; wanted '$summary' and '$text' in:"
	sed 's/^/#   /' "$tmp/out"
}

program plan-first '1..2' 'ok 1 - a' 'ok 2 - b'
run plan-first
expect "plan before the results: passes" 0 "2 passed, 0 failed"

program plan-last 'ok 1 - a' '# a comment' 'ok 2 - b' '1..2'
run plan-last
expect "plan after the results: passes" 0 "2 passed, 0 failed"

program nothing '1..0 # nothing to run here'
run nothing
expect "1..0 alone: no failure (and nothing passed)" 1 "0 passed, 0 failed"
run nothing plan-first
expect "1..0 next to a passing test: passes" 0 "2 passed, 0 failed"

program early '1..3' 'ok 1 - a' 'exit 0'
run early
expect "stops early with status 0: fails" 1 "1 passed, 1 failed" \
	"planned 3 results but printed 1"

program early-noplan 'ok 1 - a' 'exit 0'
run early-noplan
expect "stops before its plan at the end: fails" 1 "1 passed, 1 failed" \
	"printed no plan"

program more '1..1' 'ok 1 - a' 'ok 2 - b'
run more
expect "more results than planned: fails" 1 "2 passed, 1 failed" \
	"planned 1 results but printed 2"

program more-last 'ok 1 - a' 'ok 2 - b' '1..1'
run more-last
expect "more results than the plan at the end: fails" 1 "2 passed, 1 failed" \
	"planned 1 results but printed 2"

program noplan 'ok 1 - a' 'ok 2 - b'
run noplan
expect "no plan: fails" 1 "2 passed, 1 failed" "printed no plan"

program twoplans '1..1' 'ok 1 - a' '1..1'
run twoplans
expect "two plans: fails" 1 "1 passed, 1 failed" "printed 2 plans"

program midplan 'ok 1 - a' '1..2' 'ok 2 - b'
run midplan
expect "plan between results: fails" 1 "2 passed, 1 failed" \
	"printed its plan between results"

program notok '1..2' 'ok 1 - a' 'not ok 2 - b' 'exit 1'
run notok
expect "a failing result with a sound plan: one failure" 1 "1 passed, 1 failed"
check_report() { [ "$(cat "$tmp/report")" = "$tmp/notok: not ok 2 - b" ]; }
if check_report; then ok "the report lists the failing result"; else
	not_ok "the report lists the failing result"; sed 's/^/#   /' "$tmp/report"; fi

program status '1..1' 'ok 1 - a' 'exit 3'
run status
expect "status 3 with every result ok: fails" 1 "1 passed, 1 failed" \
	"exited with status 3"

program killed '1..1' 'ok 1 - a' kill
run killed
expect "killed by a signal: fails" 1 "1 passed, 2 failed" "killed by signal 15"

program planlike '1..1' 'ok 1 - count 1..10' '# 1..5 in a comment'
run planlike
expect "1..N inside a result or comment is no plan" 0 "1 passed, 0 failed"

run plan-first more plan-last
expect "one bad program among good ones fails the run" 1 "6 passed, 1 failed"
if grep -qx "# $tmp/more: [0-9]* s" "$tmp/out"; then ok "each program's seconds are shown"; else
	not_ok "each program's seconds are shown"; sed 's/^/#   /' "$tmp/out"; fi

# --jobs N: the same counts, and the programs really run side by side: each
# of the pair below waits for the other's mark (up to 30 s, so that a
# serial run fails rather than hangs).
run_jobs() {
	"$runner" --report "$tmp/report" --jobs "$1" "${@:2}" > "$tmp/out" 2>&1
	rc=$?
}
run_jobs 2 "$tmp/plan-first" "$tmp/more" "$tmp/plan-last" "$tmp/killed"
expect "--jobs 2: one bad program among good ones fails the run" 1 "7 passed, 3 failed" \
	"killed by signal 15"
if [ "$(grep -c '^== ' "$tmp/out")" -eq 4 ] && grep -qx "# $tmp/plan-last: [0-9]* s" "$tmp/out"; then
	ok "--jobs 2: every program is shown with its seconds"
else
	not_ok "--jobs 2: every program is shown with its seconds"; sed 's/^/#   /' "$tmp/out"
fi
for side in a b; do
	other=b; [ $side = b ] && other=a
	cat > "$tmp/pair-$side" <<-EOS
	#!/bin/sh
	touch "$tmp/mark-$side"
	i=0
	while [ ! -e "$tmp/mark-$other" ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
	echo 1..1
	if [ -e "$tmp/mark-$other" ]; then echo "ok 1 - met $other"; else echo "not ok 1 - $other never came"; exit 1; fi
	EOS
	chmod +x "$tmp/pair-$side"
done
run_jobs 2 "$tmp/pair-a" "$tmp/pair-b"
expect "--jobs 2 runs two programs at once" 0 "2 passed, 0 failed"
run_jobs 0 "$tmp/plan-first"
expect "--jobs 0 is refused" 2 "run-tests: --jobs wants a number above 0, not '0'"

echo "1..$n"
[ "$failed" -eq 0 ]
