#!/bin/bash
# btrfs-stream send, host side: what needs no btrfs.  The option checks,
# the refusal to write a stream to a terminal, and the size estimate: a
# NO_FILE_DATA stream must estimate the data stream Linux would send to
# the byte (docs/send-cli.md).  The sends themselves are VM tests (t4xx).
set -u
. "$(dirname "$0")/tap.sh"

# expect_fail TEXT ARGS...: exit 1 and TEXT on stderr, stdout a file
expect_fail() {
	local want=$1 rc
	shift
	"$bs" send "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$want" "$tmp/err"; then
		ok "send $*: fails with '$want'"
	else
		not_ok "send $*: fails with '$want' (exit $rc)"
		sed 's/^/#   /' "$tmp/err"
	fi
}
expect_fail "no subvolume given"
expect_fail "invalid protocol version 'x'" --proto x /proc
expect_fail "invalid protocol version '-1'" --proto -1 /proc
expect_fail "protocol version number too big 4294967296" --proto 4294967296 /proc
expect_fail "only one parent (-p) is allowed" -p /a -p /b /proc
expect_fail "unrecognized option '--bogus'" --bogus /proc
expect_fail "invalid option -- 'i'" -i /proc
expect_fail "requires an argument" /proc -c
expect_fail "'/proc' is not on a btrfs filesystem" /proc
expect_fail "cannot resolve '$tmp/missing'" "$tmp/missing"
expect_fail "'/proc' is not on a btrfs filesystem" -c /proc "$tmp"
expect_fail "'/proc' is not on a btrfs filesystem" -p /proc "$tmp"

# Like btrfs send: never a stream on a terminal (script gives a pty).
if command -v script > /dev/null; then
	script -qec "'$bs' send /proc" /dev/null > "$tmp/tty" 2>&1
	rc=$?
	check "stdout a terminal: exit status 1 (got $rc)" test $rc -eq 1
	check "stdout a terminal: says why" grep -q "not writing a send stream to a terminal" "$tmp/tty"
	script -qec "'$bs' send -f '$tmp/x' /proc" /dev/null > "$tmp/tty" 2>&1
	check "-f FILE with stdout a terminal: goes on to the subvolume check" \
		grep -q "'/proc' is not on a btrfs filesystem" "$tmp/tty"
else
	not_ok "script (util-linux) is missing: run scripts/deps.sh"
fi

# --- the estimate ---------------------------------------------------------
#
# stream_pair VERSION CHUNK EXTENT...: a NO_FILE_DATA stream (UPDATE_EXTENT
# per extent, as the kernel sends it) in nodata.txt, and in data.txt the
# stream Linux sends instead: each extent cut into WRITEs of CHUNK bytes.
stream_pair() {
	local version=$1 chunk=$2 path=dir/a\ file\ with\ a\ longer\ name
	shift 2
	{
		echo "stream version=$version"
		echo "subvol path=vol uuid=01234567-89ab-cdef-0123-456789abcdef ctransid=9"
		echo "mkdir path=o257-9-0 ino=257"
		echo "rename path=o257-9-0 path_to=dir"
		echo "mkfile path=o258-9-0 ino=258"
		echo "rename path=o258-9-0 path_to=\"$path\""
		echo "@extents $*"
		echo "truncate path=\"$path\" size=1"
		echo "utimes path=\"$path\" atime=1 mtime=2 ctime=3"
		echo "end"
	} > "$tmp/shape.txt"
	awk -v chunk="$chunk" -v path="$path" -v mode=nodata '
		/^@extents/ { off = 0
			for (i = 2; i <= NF; i++) {
				printf "update_extent path=\"%s\" file_offset=%d size=%d\n", path, off, $i
				off += $i
			}
			next }
		{ print }' "$tmp/shape.txt" > "$tmp/nodata.txt"
	awk -v chunk="$chunk" -v path="$path" '
		/^@extents/ { off = 0
			for (i = 2; i <= NF; i++) {
				for (sent = 0; sent < $i; sent += len) {
					len = $i - sent < chunk ? $i - sent : chunk
					printf "write path=\"%s\" file_offset=%d data=zeros:%d\n", path, off + sent, len
				}
				off += $i
			}
			next }
		{ print }' "$tmp/shape.txt" > "$tmp/data.txt"
	"$mkstream" -o "$tmp/nodata" "$tmp/nodata.txt" &&
		"$mkstream" -o "$tmp/data" "$tmp/data.txt"
}

# estimate_is_exact VERSION CHUNK EXTENT...
estimate_is_exact() {
	local want got
	stream_pair "$@" || return 1
	want=$(stat -c %s "$tmp/data")
	"$bs" send --estimate-from "$tmp/nodata" > "$tmp/est" 2> "$tmp/err" || {
		sed 's/^/#   /' "$tmp/err"
		return 1
	}
	got=$(sed -n 's/^estimate //p' "$tmp/est")
	[ "$got" = "$want" ] && return 0
	echo "#   estimate $got, data stream $want bytes"
	return 1
}

# Linux: 64 KiB - 16 KiB per v1 WRITE; 16 KiB + 128 KiB buffer (4 KiB
# pages) - 16 KiB in v2.
check "v1: one small extent" estimate_is_exact 1 49152 3000
check "v1: extents of 1, 2 and 4.5 chunks" estimate_is_exact 1 49152 49152 98304 221184
check "v1: odd sizes" estimate_is_exact 1 49152 1 49153 1000000 7
check "v2: extents around 128 KiB" estimate_is_exact 2 131072 131071 131072 131073 1048576
check "v2: many small extents" estimate_is_exact 2 131072 4096 4096 4096 12288 5

stream_pair 1 49152 100000 20000
"$bs" send --estimate-from "$tmp/nodata" > "$tmp/est" 2>&1
check "reports the data announced by UPDATE_EXTENT" grep -qx "data 120000" "$tmp/est"
check "reports the NO_FILE_DATA stream's size" \
	grep -qx "nodata $(stat -c %s "$tmp/nodata")" "$tmp/est"
expect_fail "cannot parse the NO_FILE_DATA stream" --estimate-from /dev/null

finish
