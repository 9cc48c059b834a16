#!/bin/bash
# The TAP and failure helpers of tests/vm/lib-guest.sh, on the host: they
# need no VM.  tap_done prints the plan; tap_sub joins TAP programs into one
# stream whose numbering and plan hold, turning a short plan, a missing
# plan, a bad status or a crash into failures; strictly stops at the first
# failing step and dies naming it.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$root/tests/vm/lib-guest.sh

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# guest SCRIPT: run SCRIPT in bash with lib-guest.sh sourced; its output in
# $tmp/out, its status in $rc.
guest() {
	bash -c ". '$lib'; $1" > "$tmp/out" 2>&1
	rc=$?
}

# expect DESC RC FILE: the last run exited RC and printed exactly FILE.
expect() {
	if [ "$rc" -eq "$2" ] && cmp -s "$3" "$tmp/out"; then
		ok "$1"
		return
	fi
	not_ok "$1"
	echo "#   exit $rc, expected $2; output differs:"
	diff -u "$3" "$tmp/out" | sed 's/^/#   /'
}

# A sub-program: prints its arguments as lines, exits with $SUB_RC.
cat > "$tmp/sub" <<'EOF'
#!/bin/bash
printf '%s\n' "$@"
[ "${SUB_RC:-0}" = kill ] && kill -KILL $$
exit "${SUB_RC:-0}"
EOF
chmod +x "$tmp/sub"
sub=$tmp/sub

guest 'check one true; check two true; tap_done'
printf '%s\n' 'ok 1 - one' 'ok 2 - two' '1..2' > "$tmp/want"
expect "tap_done: the plan after the results, status 0" 0 "$tmp/want"

guest 'check one false; tap_done'
printf '%s\n' 'not ok 1 - one (exit 1)' '#   ' '1..1' > "$tmp/want"
expect "tap_done: status 1 after a failure" 1 "$tmp/want"

guest "check first true
tap_sub $sub 'ok 1 - a' '# note' 'ok 2 - b' '1..2'
tap_sub $sub '1..1' 'ok 1 - c'
tap_done"
printf '%s\n' 'ok 1 - first' 'ok 2 - a' '# note' 'ok 3 - b' 'ok 4 - c' '1..4' > "$tmp/want"
expect "tap_sub: results renumbered into one stream, one plan" 0 "$tmp/want"

guest "tap_sub $sub '1..3' 'ok 1 - a'; tap_done"
printf '%s\n' 'ok 1 - a' "not ok 2 - $sub 1..3 ok 1 - a: planned 3, ran 1" '1..2' > "$tmp/want"
expect "tap_sub: a program that stopped early fails" 1 "$tmp/want"

guest "tap_sub $sub 'ok 1 - a'; tap_done"
printf '%s\n' 'ok 1 - a' "not ok 2 - $sub ok 1 - a: planned nothing, ran 1" '1..2' > "$tmp/want"
expect "tap_sub: a program without a plan fails" 1 "$tmp/want"

guest "SUB_RC=3 tap_sub $sub 'ok 1 - a' '1..1'; tap_done"
printf '%s\n' 'ok 1 - a' "not ok 2 - $sub ok 1 - a 1..1 exited with status 3" '1..2' > "$tmp/want"
expect "tap_sub: status 3 with every result ok fails" 1 "$tmp/want"

guest "SUB_RC=1 tap_sub $sub 'not ok 1 - a' '1..1'; tap_done"
printf '%s\n' 'not ok 1 - a' '1..1' > "$tmp/want"
expect "tap_sub: status 1 with a failed result: that failure only" 1 "$tmp/want"

guest "SUB_RC=kill tap_sub $sub 'not ok 1 - a' '1..1'; tap_done"
printf '%s\n' 'not ok 1 - a' "not ok 2 - $sub not ok 1 - a 1..1 exited with status 137" '1..2' > "$tmp/want"
expect "tap_sub: a crash fails even after a failed result" 1 "$tmp/want"

guest "tap_sub $sub 'not ok - died' ; tap_done"
printf '%s\n' 'not ok 1 - died' "not ok 2 - $sub not ok - died: planned nothing, ran 1" '1..2' > "$tmp/want"
expect "tap_sub: die's unnumbered line gets a number" 1 "$tmp/want"

guest "steps() {
	echo one
	false
	echo two
}
strictly 'the steps' steps
echo after"
printf '%s\n' one '# the steps: failed (status 1): false' 'not ok - the steps (status 1)' > "$tmp/want"
expect "strictly: stops at the failing step, names it, dies" 1 "$tmp/want"

guest "steps() {
	echo one
	echo two
}
strictly 'the steps' steps
echo after"
printf '%s\n' one two after > "$tmp/want"
expect "strictly: goes on when every step worked" 0 "$tmp/want"

echo "1..$n"
[ "$failed" -eq 0 ]
