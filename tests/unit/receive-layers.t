#!/bin/bash
# The files of cli/receive/ call each other in layers, without a cycle
# (docs/receive.md, "Where things are"); the checker itself must see one.
root=$(cd "$(dirname "$0")/../.." && pwd)
deps=$root/tests/tools/file-deps.py
prefix='recv_|fdop_|dcache_|fcache_'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; failed=$((failed + 1)); fi
}

out=$(python3 "$deps" "$prefix" "$root"/cli/receive/*.c "$root"/cli/cmd-receive.c)
check "cli/receive has no call cycle between files" test $? -eq 0
echo "$out" | sed 's/^/# /'
check "apply.c (the dispatcher) is called by no other receive file" \
	eval '! echo "$out" | grep -v "^cmd-receive.c" | grep -q " -> .*apply\.c"'

printf 'int recv_a(void) { return recv_b(); }\n' > "$tmp/a.c"
printf 'int recv_b(void) { return recv_a(); }\n' > "$tmp/b.c"
python3 "$deps" "$prefix" "$tmp/a.c" "$tmp/b.c" > "$tmp/out"
check "a cycle is found" test $? -eq 1
check "and named" grep -q "cycle: a.c -> b.c -> a.c" "$tmp/out"

echo "1..$n"
[ "$failed" -eq 0 ]
