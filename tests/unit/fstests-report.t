#!/bin/bash
# Unit tests for tests/fstests/report.py, the writer of docs/conformance.md:
# known failures of the userspace (tests/fstests/known-failures) are shown
# as such and are not the module's failures, unless the failure is another
# one.  The records here are made-up test input, not results.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 failed=0

check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}

# record MODULE TEST RESULT NOTE
record() {
	local d=$T/$1
	mkdir -p "$d/records"
	printf 'ko_sha256=%s\nxfstests=abc\ndate=2026-01-01\n' "$1" > "$d/meta"
	printf 'result=%s\nseconds=10\nnote=%s\n' "$3" "$4" > "$d/records/${2//\//-}"
}

progs_hint='output mismatch: `+ERROR: cannot open stream`; fstests: You _MAY_ be missing btrfs-progs fix: cd933616d485 "btrfs-progs: receive: ..."'
record ours btrfs/339 fail "$progs_hint"
record stock btrfs/339 fail "$progs_hint"
record ours btrfs/278 fail 'output mismatch'
record stock btrfs/278 pass ''
record ours btrfs/281 pass ''
record stock btrfs/281 pass ''

report() {
	python3 "$top/tests/fstests/report.py" --doc "$T/doc.md" --xfstests abc \
		--known "$top/tests/fstests/known-failures" --failures-out "$T/failures" \
		--ran "ours=$T/ours" --ran "stock=$T/stock" "$@" > "$T/out"
}
row() { grep "^| $1 |" "$T/doc.md"; }

report btrfs/278 btrfs/281 btrfs/339
check "a known userspace failure shows as one on both modules" \
	"row btrfs/339 | grep -q '^| btrfs/339 | fail (btrfs-progs) | fail (btrfs-progs) |'"
check "its note says why, from known-failures" \
	"row btrfs/339 | grep -q 'btrfs-progs cd933616d485: Debian 12'"
check "the summary counts it apart from the module's failures" \
	"grep -q '^| ours | .* | 1 | 1 | 1 | 0 | 0 |$' $T/doc.md"
check "the module's own failures are listed, the known one is not" \
	"[ \"\$(cat $T/failures)\" = btrfs/278 ]"

# The same test failing with a kernel warning, or for another reason, is
# the module's failure.
record ours btrfs/339 fail "kernel warning: WARNING: at fs/btrfs/send.c $progs_hint"
report btrfs/278 btrfs/281 btrfs/339
check "a kernel warning in a known-failure test fails the module" \
	"grep -qx btrfs/339 $T/failures && row btrfs/339 | grep -q '^| btrfs/339 | \*\*FAIL\*\* |'"
record ours btrfs/339 fail 'output mismatch: `+something else`'
report btrfs/278 btrfs/281 btrfs/339
check "a failure without the named fix is the module's" "grep -qx btrfs/339 $T/failures"

# --selected limits the failures written to the tests this run picked.
report --selected btrfs/281 btrfs/278 btrfs/281 btrfs/339
check "only selected tests are reported as this run's failures" "[ ! -s $T/failures ]"

echo "1..$n"
exit $((failed > 0))
