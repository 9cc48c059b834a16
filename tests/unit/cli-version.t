#!/bin/bash
# btrfs-stream --version and -V: one line with the release from VERSION and
# the protocol versions read and written, each number checked against where
# it comes from (the library's BSTREAM_VERSION_MAX, the kernel series'
# BTRFS_SEND_STREAM_VERSION) and against what the tool does: it reads a
# stream of the highest version it names and refuses the next one.
set -u
. "$(dirname "$0")/tap.sh"

release=$(cat "$root/VERSION")
reads=$(sed -n 's/^#define BSTREAM_VERSION_MAX[[:space:]]*\([0-9]*\).*/\1/p' \
	"$root/lib/include/btrfs-stream/stream.h")
writes=$(sed -n 's/^+#define BTRFS_SEND_STREAM_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	"$root"/kernel/patches/*.patch)
check "VERSION holds one release number (got '$release')" \
	grep -qxE '[0-9]+\.[0-9]+\.[0-9]+' "$root/VERSION"
check "the library and the kernel series each name one highest version (got '$reads', '$writes')" \
	test "$(echo "$reads" | wc -w)" = 1 -a "$(echo "$writes" | wc -w)" = 1
want="btrfs-stream $release (stream protocol: reads 1-$reads, writes 1-$writes)"

for opt in --version -V; do
	"$bs" $opt > "$tmp/out" 2> "$tmp/err"
	rc=$?
	check "$opt: exit 0 (got $rc), nothing on stderr" test $rc -eq 0 -a ! -s "$tmp/err"
	if [ "$(cat "$tmp/out")" = "$want" ]; then
		ok "$opt: prints '$want'"
	else
		not_ok "$opt: prints '$want'"
		sed 's/^/#   got: /' "$tmp/out"
	fi
done

"$bs" --version > /dev/full 2> /dev/null
rc=$?
check "--version to a full stdout: exit 1 (got $rc)" test $rc -eq 1
"$bs" --help > "$tmp/out"
check "--help names --version" grep -q -- '--version' "$tmp/out"

# "reads 1-N": a stream of version N dumps, one of version N+1 is refused.
stream_of() { printf 'stream version=%s\n%s\nend\n' "$1" "$2" | "$mkstream" -o "$tmp/s$1"; }
stream_of "$reads" 'subvol path=v uuid=01234567-89ab-cdef-0123-456789abcdef ctransid=1'
"$bs" dump -f "$tmp/s$reads" > "$tmp/out" 2> "$tmp/err"
check "a version $reads stream dumps" grep -q '^subvol' "$tmp/out"
stream_of $((reads + 1)) ''
"$bs" dump -f "$tmp/s$((reads + 1))" > /dev/null 2> "$tmp/err"
rc=$?
check "a version $((reads + 1)) stream is refused (exit $rc)" test $rc -eq 1
check "  saying which version is supported" \
	grep -qF "version $((reads + 1)) not supported (max $reads)" "$tmp/err"

finish
