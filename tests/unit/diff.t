#!/bin/bash
# btrfs-stream diff -f against crafted streams: the model of docs/diff.md.
#
# Fixtures live in tests/fixtures/diff/:
#   NAME.txt    a mkstream description of a send stream; its first comment
#               line says what the scenario is
#   NAME.out    the expected text output
#   NAME.json   the expected --json output
# For bad-NAME.txt the command must fail (exit 1, never crash) and stderr
# must contain the text of the "# error: TEXT" comment line.
#
# Everything runs through the ASan/UBSan build.  REGEN=1 rewrites the
# .out and .json files from the current output (review the diff!).
set -u
. "$(dirname "$0")/tap.sh"
fixtures=$root/tests/fixtures/diff

# same EXPECTED ACTUAL: compare files, showing the difference on failure
same() {
	if [ "${REGEN:-}" = 1 ] && [ -n "${regen_ok:-}" ]; then cp "$2" "$1"; fi
	cmp -s "$1" "$2" && return 0
	diff -u "$1" "$2" | head -n 30 | sed 's/^/#   /'
	return 1
}

scenarios=0
for src in "$fixtures"/*.txt; do
	name=$(basename "$src" .txt)
	stream=$tmp/$name.stream
	if ! "$mkstream" -o "$stream" "$src"; then
		not_ok "$name: mkstream"
		continue
	fi
	if [[ $name == bad-* ]]; then
		"$bs" diff -f "$stream" > "$tmp/out" 2> "$tmp/err"
		rc=$?
		check "$name: exit status 1 (got $rc)" test "$rc" -eq 1
		want=$(sed -n 's/^# error: //p' "$src")
		if [ -n "$want" ] && grep -qF -- "$want" "$tmp/err"; then
			ok "$name: error says '$want'"
		else
			not_ok "$name: error says '$want'"
			sed 's/^/#   /' "$tmp/err"
		fi
		check "$name: nothing on stdout" test ! -s "$tmp/out"
		continue
	fi
	scenarios=$((scenarios + 1))
	"$bs" diff -f "$stream" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	regen_ok=$([ $rc = 0 ] && echo 1)
	check "$name: text, exit status 0 (got $rc)" test "$rc" -eq 0
	[ -s "$tmp/err" ] && sed 's/^/#   stderr: /' "$tmp/err"
	check "$name: text output as expected" same "$fixtures/$name.out" "$tmp/out"
	"$bs" diff --json -f "$stream" > "$tmp/json" 2> "$tmp/err"
	rc=$?
	regen_ok=$([ $rc = 0 ] && echo 1)
	check "$name: json, exit status 0 (got $rc)" test "$rc" -eq 0
	check "$name: json output as expected" same "$fixtures/$name.json" "$tmp/json"
	check "$name: every json line parses" python3 -c '
import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' "$tmp/json"
done
check "at least 20 scenarios with expected output (have $scenarios)" test "$scenarios" -ge 20

# The same stream from stdin.
"$mkstream" -o "$tmp/s" "$fixtures/swap-dirs.txt"
"$bs" diff -f - < "$tmp/s" > "$tmp/out" 2>&1
check "-f - reads stdin" same "$fixtures/swap-dirs.out" "$tmp/out"

# Usage errors: exit 1 with a hint, never a crash.
expect_fail() {	# expect_fail TEXT ARGS...: exit 1 and TEXT on stderr
	local want=$1 rc
	shift
	"$bs" diff "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$want" "$tmp/err"; then
		ok "diff $*: fails with '$want'"
	else
		not_ok "diff $*: fails with '$want' (exit $rc)"
		sed 's/^/#   /' "$tmp/err"
	fi
}
expect_fail "need OLD and NEW snapshots, or -f STREAM"
expect_fail "need OLD and NEW snapshots, or -f STREAM" /a
expect_fail "unexpected argument" -f "$tmp/s" /a
expect_fail "requires an argument" -f
expect_fail "unrecognized option '--bogus'" --bogus
expect_fail "cannot open '$tmp/missing'" -f "$tmp/missing"
expect_fail "'/proc' is not on a btrfs filesystem" /proc /proc
expect_fail "input is empty" -f /dev/null

finish
