#!/bin/bash
# btrfs-stream receive on the host, without btrfs: the hidden --plain-dirs
# mode makes SUBVOL a plain directory and uses no btrfs ioctl (ENCODED_WRITE
# is always decompressed, CLONE falls back to copying), so path
# confinement, the command logic and decompression run here under
# ASan/UBSan.  The same hostile corpus runs on btrfs in
# tests/vm/t302-receive-hostile.sh.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$root/$B ;; esac
recv=$B/asan/bin/btrfs-stream
plain=$B/bin/btrfs-stream
mkstream=$B/bin/mkstream
treecmp=$B/bin/treecmp
hostile=$root/tests/fixtures/hostile
export ASAN_OPTIONS=exitcode=86:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }

tmp=$(mktemp -d)
cleanup() { chattr -R -i -a "$tmp" 2> /dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

directive() {	# directive FILE KEY -> value of "# KEY: value"
	sed -n "s/^# $2: //p" "$1"
}

# receive ARGS...: plain-directory receive under ASan; output in $tmp/err.
receive() {
	"$recv" receive --plain-dirs "$@" > "$tmp/out" 2> "$tmp/err"
}

# ---------------------------------------------------------------------------
# Hostile corpus: exit 1 with the message, nothing changed outside.

h=$tmp/h
for src in "$hostile"/*.txt; do
	name=$(basename "$src" .txt)
	rm -rf "$h"
	mkdir -p "$h/box" "$h/outside/dir"
	echo target > "$h/outside/target"
	setfattr -n user.keep -v 1 "$h/outside/target" 2> /dev/null
	before=$("$treecmp" --digest -i atime "$h/outside")
	"$mkstream" -o "$tmp/stream" "$src" || { not_ok "$name: mkstream"; continue; }
	want=$(directive "$src" plain-error)
	[ -n "$want" ] || want=$(directive "$src" error)
	read -ra args <<< "$(directive "$src" args)"
	receive "${args[@]}" -f "$tmp/stream" "$h/box"
	rc=$?
	if [ $rc -eq 1 ] && grep -qF -- "$want" "$tmp/err"; then
		ok "$name: refused: $want"
	else
		not_ok "$name: exit $rc, want 1 and '$want'"
		sed 's/^/#   /' "$tmp/err"
	fi
	after=$("$treecmp" --digest -i atime "$h/outside")
	check "$name: nothing changed outside" test "$before" = "$after"
	check "$name: nothing new next to the destination" \
		test "$(ls -A "$h")" = "$(printf 'box\noutside')"
done

# ---------------------------------------------------------------------------
# A valid stream: every command that does not need btrfs.

U=01234567-89ab-cdef-0123-456789abcdef
d=$tmp/d
mkdir -p "$d"
"$mkstream" -o "$tmp/ok" <<EOF
stream version=2
subvol path=vol uuid=$U ctransid=9
mkdir path=o257-9-0 ino=257
rename path=o257-9-0 path_to=dir
mkfile path=o258-9-0 ino=258
rename path=o258-9-0 path_to=dir/file
write path=dir/file file_offset=0 data=text:hello
write path=dir/file file_offset=5 data=text:world
set_xattr path=dir/file xattr_name=user.a xattr_data=text:b
set_xattr path=dir/file xattr_name=user.gone xattr_data=text:x
remove_xattr path=dir/file xattr_name=user.gone
chown path=dir/file uid=1000 gid=100
chmod path=dir/file mode=04750
utimes path=dir/file atime=1.1 mtime=2.2 ctime=3.3
utimes path=dir atime=5 mtime=6 ctime=3.3
symlink path=dir/ln ino=259 path_link=/etc/passwd
chown path=dir/ln uid=7 gid=8
utimes path=dir/ln atime=11 mtime=12 ctime=3
utimes path=dir atime=7 mtime=8 ctime=3.3
mkfile path=big ino=260
clone path=big file_offset=0 clone_len=10 clone_uuid=$U clone_ctransid=9 clone_path=dir/file clone_offset=0
fallocate path=big fallocate_mode=0 file_offset=0 size=65536
truncate path=big size=20
update_extent path=big file_offset=0 size=20
link path=hl path_link=dir/file
mkfifo path=fifo ino=261 mode=010644
mksock path=sock ino=262 mode=0140644
mknod path=chr ino=263 mode=020644 rdev=0x103
mkdir path=gone ino=264
rmdir path=gone
mkfile path=gone-file ino=265
unlink path=gone-file
mkfile path=victim ino=266
write path=victim file_offset=0 data=text:old
mkfile path=o267-9-0 ino=267
rename path=o267-9-0 path_to=victim
fileattr path=big fileattr=0x140
utimes path=big atime=20 mtime=21 ctime=22
utimes path= atime=10 mtime=20 ctime=30 otime=40
end
EOF
receive -f "$tmp/ok" "$d"
rc=$?
check "valid stream: exit 0" test $rc -eq 0 || sed 's/^/#   /' "$tmp/err"
check "progs-style 'At subvol' line" grep -qx 'At subvol vol' "$tmp/err"
v=$d/vol
check "file times" test "$(stat -c %X.%Y "$v/dir/file")" = 1.2
check "data written" test "$(cat "$v/dir/file")" = helloworld
check "xattr set, removed one gone" test "$(getfattr --only-values -n user.a "$v/dir/file" 2>/dev/null)/$(getfattr -n user.gone "$v/dir/file" 2>&1 | grep -c 'No such')" = b/1
check "owner" test "$(stat -c %u:%g "$v/dir/file")" = 1000:100
check "setuid mode kept after chown" test "$(stat -c %a "$v/dir/file")" = 4750
check "symlink owner, times, target" \
	test "$(stat -c %u:%g:%X:%Y "$v/dir/ln"):$(readlink "$v/dir/ln")" = 7:8:11:12:/etc/passwd
check "directory gets the last utimes, after its entries changed" \
	test "$(stat -c %X.%Y "$v/dir")" = 7.8
check "root times" test "$(stat -c %X.%Y "$v")" = 10.20
check "clone (copied here) and truncate" test "$(head -c 10 "$v/big")$(stat -c %s "$v/big")" = helloworld20
check "hard link" test "$(stat -c %i "$v/hl")" = "$(stat -c %i "$v/dir/file")"
check "fifo, socket, device" \
	test "$(stat -c %F "$v/fifo")/$(stat -c %F "$v/sock")/$(stat -c %F:%t:%T "$v/chr")" = \
	"fifo/socket/character special file:1:3"
check "rmdir, unlink" test ! -e "$v/gone" -a ! -e "$v/gone-file"
check "a new file renamed over an existing one replaces it" test "$(stat -c %s "$v/victim")" = 0
check "fileattr: immutable and nodump, set after the times" \
	test "$(lsattr -d "$v/big" | cut -d' ' -f1 | tr -d -c 'id')$(stat -c %Y "$v/big")" = id21
chattr -i "$v/big"

# New inodes are created in place only where that is the same as creating
# them in the root and moving them: not in a directory with a default ACL.
"$mkstream" -o "$tmp/acl" <<EOF
stream version=1
subvol path=acl uuid=$U ctransid=9
mkdir path=o257-9-0 ino=257
rename path=o257-9-0 path_to=d
set_xattr path=d xattr_name=system.posix_acl_default xattr_data=hex:0200000001000700ffffffff02000700e803000004000500ffffffff10000700ffffffff20000500ffffffff
mkfile path=o258-9-0 ino=258
rename path=o258-9-0 path_to=d/f
mkdir path=o259-9-0 ino=259
rename path=o259-9-0 path_to=d/sub
mkfile path=o260-9-0 ino=260
rename path=o260-9-0 path_to=plain
end
EOF
rm -rf "$d" && mkdir -p "$d"
receive -f "$tmp/acl" "$d"
check "default ACL stream: exit 0" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
check "default ACL present on the directory" \
	test -n "$(getfattr -n system.posix_acl_default "$d/acl/d" 2>/dev/null)"
check "  not inherited by a new file moved into it" \
	test -z "$(getfattr -m - -d "$d/acl/d/f" 2>/dev/null)"
check "  nor by a new directory" test -z "$(getfattr -m - -d "$d/acl/d/sub" 2>/dev/null)"

# The worker thread changes nothing: the same tree without it.
rm -rf "$tmp/ta" "$tmp/tb" && mkdir "$tmp/ta" "$tmp/tb"
receive --worker -f "$tmp/ok" "$tmp/ta" && receive --serial -f "$tmp/ok" "$tmp/tb"
check "--worker and --serial (no worker thread): same tree (times of inodes without utimes aside)" "$treecmp" -i times "$tmp/ta/vol" "$tmp/tb/vol"
# One usable CPU: no worker, the stream file read through a mapping.
rm -rf "$tmp/tc" && mkdir "$tmp/tc"
taskset -c 0 "$recv" receive --plain-dirs -vv -f "$tmp/ok" "$tmp/tc" > "$tmp/out" 2> "$tmp/err"
check "one CPU: exit 0" test $? -eq 0 || sed 's/^/#   /' "$tmp/err" | head -n 5
check "one CPU: no worker thread" grep -q "one CPU: working serially" "$tmp/err"
check "one CPU: same tree as with the worker" "$treecmp" -i times "$tmp/ta/vol" "$tmp/tc/vol"
chattr -i "$tmp/ta/vol/big" "$tmp/tb/vol/big" "$tmp/tc/vol/big"

# The same stream through stdin, --chroot and -v (not under ASan: its
# leak checker needs /proc, which is not in the chroot).
rm -rf "$d" && mkdir -p "$d"
"$plain" receive --plain-dirs -C -v "$d" < "$tmp/ok" > "$tmp/out" 2> "$tmp/err"
check "stdin and --chroot: exit 0" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
check "-v prints statistics" grep -q 'vol: .* 1 clones, encoded writes: 0 by ioctl, 0 decompressed' "$tmp/err"
chattr -i "$d/vol/big"
"$recv" receive --plain-dirs -q -f "$tmp/ok" "$tmp/new-dir" > "$tmp/out" 2> "$tmp/err"
check "missing destination: exit 1" test $? -eq 1
check "missing destination: message" grep -qF "cannot open destination '$tmp/new-dir'" "$tmp/err"
mkdir "$tmp/new-dir"
"$recv" receive --plain-dirs -q -f "$tmp/ok" "$tmp/new-dir" > "$tmp/out" 2> "$tmp/err"
check "-q: nothing on stderr" test ! -s "$tmp/err"
chattr -i "$tmp/new-dir/vol/big"
"$recv" receive --plain-dirs -q -f "$tmp/ok" "$tmp/new-dir" > "$tmp/out" 2> "$tmp/err"
check "existing subvolume: exit 1" test $? -eq 1
check "existing subvolume: message" grep -qE "\(subvol\) at offset 17: 'vol': cannot create directory in '.*': File exists" "$tmp/err"

# ---------------------------------------------------------------------------
# Error handling: -E, several subvolumes, the failed one reported.

"$mkstream" -o "$tmp/errs" <<EOF
stream version=1
subvol path=a uuid=$U ctransid=1
mkfile path=f ino=257
write path=missing file_offset=0 data=text:x
write path=f file_offset=0 data=text:after
end
stream version=1
subvol path=b uuid=$U ctransid=2
mkfile path=g ino=257
end
EOF
rm -rf "$d" && mkdir -p "$d"
receive -f "$tmp/errs" "$d"
check "-E 1 (default): stops at the first error" test $? -eq 1 -a ! -e "$d/a/f" -o ! -s "$d/a/f"
check "  command index, name, offset, path, errno text" \
	grep -qF "command 3 (write) at offset 91: 'missing': cannot open: No such file or directory" "$tmp/err"
check "  says the subvolume is left incomplete" \
	grep -qF "subvolume '$d/a' is incomplete: it stays writable and is not marked as received" "$tmp/err"
check "  b not received" test ! -e "$d/b"
rm -rf "$d" && mkdir -p "$d"
receive -E 0 -f "$tmp/errs" "$d"
check "-E 0: exit 1" test $? -eq 1
check "-E 0: goes on after the error" test "$(cat "$d/a/f")" = after
check "-E 0: and receives the next subvolume" test -f "$d/b/g"
check "-E 0: only a is incomplete" test "$(grep -c 'is incomplete' "$tmp/err")" -eq 1

# ---------------------------------------------------------------------------
# Paths longer than PATH_MAX (btrfs-progs cannot receive them).

comp=$(printf 'd%.0s' $(seq 1 200))
{
	echo "stream version=1"
	echo "subvol path=long uuid=$U ctransid=1"
	p=
	for i in $(seq 1 30); do
		p=${p:+$p/}$comp$i
		echo "mkdir path=$p ino=$((256 + i))"
	done
	echo "mkfile path=$p/file ino=400"
	echo "write path=$p/file file_offset=0 data=text:deep"
	echo "rename path=$p/file path_to=$p/renamed"
	echo "utimes path=$p/renamed atime=1 mtime=2 ctime=3"
	echo "end"
} | "$mkstream" -o "$tmp/long"
rm -rf "$d" && mkdir -p "$d"
receive -f "$tmp/long" "$d"
check "path of $((30 * 204 + 8)) bytes: exit 0" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
deep=$( cd "$d/long" && for i in $(seq 1 30); do cd "$comp$i" || exit 1; done && cat renamed && stat -c %Y renamed )
check "deep file written, renamed, times set" test "$deep" = "deep2"

# ---------------------------------------------------------------------------
# ENCODED_WRITE fallback: zlib and zstd extents decompressed here.

python3 - "$tmp" <<'PY'
import sys, zlib
d = sys.argv[1]
data = b"".join(b"line %06d\n" % i for i in range(800))     # 9600 bytes
ext = data[:8192]
open(d + "/ext", "wb").write(ext)
open(d + "/zlib.hex", "w").write(zlib.compress(ext).hex())
PY
zstd -q -c "$tmp/ext" | od -An -v -tx1 | tr -d ' \n' > "$tmp/zstd.hex"
{
	echo "stream version=2"
	echo "subvol path=enc uuid=$U ctransid=1"
	echo "mkfile path=z ino=257"
	echo "encoded_write path=z file_offset=0 unencoded_file_len=8192 unencoded_len=8192 unencoded_offset=0 compression=1 data=hex:$(cat "$tmp/zlib.hex")"
	echo "mkfile path=s ino=258"
	# the second half of the extent at offset 0, padded with zeros
	echo "encoded_write path=s file_offset=0 unencoded_file_len=4096 unencoded_len=8192 unencoded_offset=4096 compression=2 data=hex:$(cat "$tmp/zstd.hex")000000"
	echo "end"
} | "$mkstream" -o "$tmp/enc"
rm -rf "$d" && mkdir -p "$d"
receive -v -f "$tmp/enc" "$d"
check "encoded writes: exit 0" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
check "zlib extent decompressed" cmp -s "$tmp/ext" "$d/enc/z"
check "zstd extent, from its middle, padded" cmp -s <(tail -c 4096 "$tmp/ext") "$d/enc/s"
check "both counted as decompressed" grep -q 'encoded writes: 0 by ioctl, 2 decompressed' "$tmp/err"

# ---------------------------------------------------------------------------
# Command line.

"$plain" receive --no-such-option 2> "$tmp/err"
check "unknown option: exit 1 with hint" test $? -eq 1 -a -n "$(grep -F "Try 'btrfs-stream receive --help'" "$tmp/err")"
"$plain" receive -f 2> "$tmp/err"
check "missing option argument" grep -qF "option '-f' requires an argument" "$tmp/err"
"$plain" receive 2> "$tmp/err"
check "missing destination argument" grep -qF "missing destination" "$tmp/err"
"$plain" receive --help > "$tmp/out"
check "--help" grep -q '^usage: btrfs-stream receive' "$tmp/out"
"$plain" receive --dump -f "$tmp/ok" > "$tmp/out" 2>&1
"$plain" dump -f "$tmp/ok" > "$tmp/dump" 2>&1
check "--dump prints what dump prints" cmp -s "$tmp/out" "$tmp/dump"
"$plain" receive --backend btrfs -f "$tmp/ok" "$tmp" 2> "$tmp/err"
check "--backend btrfs: a non-btrfs destination is refused" \
	grep -qF "'$tmp' is not on a btrfs filesystem" "$tmp/err"
mkdir "$tmp/auto"
"$plain" receive -f "$tmp/ok" "$tmp/auto" > "$tmp/out" 2> "$tmp/err"
check "without --backend, a non-btrfs destination gets plain directories" \
	eval 'grep -qF "is not on btrfs: receiving into plain directories" "$tmp/err" &&
	      test -f "$tmp/auto/.btrfs-stream/vol"'
chattr -i "$tmp/auto/vol/big" 2>/dev/null
"$plain" receive --backend zfs -f "$tmp/ok" "$tmp/auto" 2> "$tmp/err"
check "--backend with an unknown name: usage error" grep -qF "unknown backend 'zfs'" "$tmp/err"

echo "1..$n"
[ "$failed" -eq 0 ]
