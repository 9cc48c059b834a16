# Helpers for the incremental send scenarios: making files, and asserting
# on the dumps of the streams sent, and the source filesystem's mounts.
# Sourced by send-incremental.sh, receive-anywhere.sh and send-failnth.sh.
#
# Stream assertions take a MODE (v1, v2, enc) first and read
# $ST/$S.MODE.dump, the `btrfs-stream dump` of scenario $S's incremental
# stream; PATH arguments are relative to the snapshot (./$S.B/PATH).

# --- making files -----------------------------------------------------------

make_socket() {
	python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$1"
}

# many_files DIR N [PREFIX]: N small files PREFIX0000..., without forking.
many_files() {
	local i n
	for ((i = 0; i < $2; i++)); do
		printf -v n '%s%04d' "${3:-f}" $i
		echo "$n" > "$1/$n" || return 1
	done
}

# write_random FILE OFFSET LEN: overwrite bytes in place.
write_random() {
	head -c "$3" /dev/urandom |
		dd of="$1" bs="$3" seek="$2" oflag=seek_bytes iflag=fullblock conv=notrunc status=none
}

# clone_range SRC SRC_OFF DST DST_OFF LEN: FICLONERANGE (a partial reflink).
clone_range() {
	python3 - "$@" <<'PY'
import fcntl, os, struct, sys
src, soff, dst, doff, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
FICLONERANGE = 0x4020940d
s = os.open(src, os.O_RDONLY)
d = os.open(dst, os.O_WRONLY)
fcntl.ioctl(d, FICLONERANGE, struct.pack('qQQQ', s, soff, n, doff))
PY
}

# ino_gen PATH...: "inode:generation" of each path (lsattr -v shows the
# generation btrfs keeps for the inode).
ino_gen() {
	local p
	for p in "$@"; do
		printf '%s:%s\n' "$(stat -c %i "$p")" "$(lsattr -vd "$p" | awk '{ print $1 }')"
	done
}

# reused BEFORE AFTER: every inode number came back, with a new generation.
reused() {
	paste -d' ' <(echo "$1") <(echo "$2") | awk '{
		split($1, b, ":"); split($2, a, ":")
		if (b[1] != a[1] || b[2] == a[2]) { print "not reused: " $0; bad = 1 }
	} END { exit bad }'
}

# hold_open KIND PATH SIG: a background process keeps an inode open
# without a name until SIG.go exists.  KIND tmpfile: an O_TMPFILE made in
# directory PATH (written, then linked as PATH/linked on SIG.go); KIND
# file: the existing file PATH, opened (the caller then unlinks it).
# Returns once the inode is open; release with `release SIG`.
hold_open() {
	rm -f "$3".*
	python3 - "$@" <<'PY' &
import os, sys, time
kind, path, sig = sys.argv[1:4]
if kind == "tmpfile":
    fd = os.open(path, os.O_TMPFILE | os.O_WRONLY, 0o644)
    os.write(fd, b"written before it had a name\n" * 3000)
else:
    fd = os.open(path, os.O_RDONLY)
open(sig + ".ready", "w").close()
while not os.path.exists(sig + ".go"):
    time.sleep(0.05)
if kind == "tmpfile":
    # linkat(fd, "", dirfd, name, AT_EMPTY_PATH): no /proc needed.
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    dfd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    if libc.linkat(fd, b"", dfd, b"linked", 0x1000) != 0:
        err = ctypes.get_errno()
        sys.exit("linkat: %s" % os.strerror(err))
os.close(fd)
open(sig + ".done", "w").close()
PY
	wait_for "$3.ready" 60 && return 0
	echo "hold_open $*: not open after 60 s"
	return 1
}

release() {
	touch "$1.go"
	wait_for "$1.done" 60 && return 0
	echo "release $1: holder did not finish"
	return 1
}

# --- the source filesystem ---------------------------------------------------

# remount_src: what a reboot does to inode numbers (see ino_reuse).  Files
# held open by other scenarios (hold_open) would keep the unmount from
# happening: they are released first, which is still within their step.
remount_src() {
	local h
	for h in $ST/*.hold.ready; do
		[ -e "$h" ] && { release "${h%.ready}" || return 1; }
	done
	sync && umount $SRC && mount -o $SRC_OPTS /dev/vdb $SRC
}

# src_compress FLAGS: mount the source as a scenario with these flags wants
# it (d: data scenarios want compression).
src_compress() {
	local want=compress=no
	case $1 in *d*) want=compress=zstd ;; esac
	[ $want = $SRC_OPTS ] && return 0
	SRC_OPTS=$want
	mount -o remount,$SRC_OPTS $SRC
}

# wait_for FILE SECONDS: until FILE exists; false after SECONDS.
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# nlink0_inodes SUBVOL: how many inode items with nlink 0 the subvolume's
# tree holds (read from the device, so after a sync).
nlink0_inodes() {
	local id dev
	sync
	id=$(btrfs inspect-internal rootid "$1") || return 1
	dev=$(findmnt -n -o SOURCE --target "$1")
	btrfs inspect-internal dump-tree -t "$id" "${dev%%\[*}" 2>/dev/null |
		grep -c ' links 0 '
}

# --- stream assertions --------------------------------------------------------

dumpfile() { echo "$ST/$S.$1.dump"; }
spath() { echo "./$S.B/$1"; }

# count_in MODE CMD PATH: how many CMD commands on PATH.
count_in() {
	awk -v c="$2" -v p="$(spath "$3")" '$1 == c && $2 == p { n++ } END { print n + 0 }' "$(dumpfile "$1")"
}

has() { [ "$(count_in "$@")" -gt 0 ] || { echo "$1: no $2 for $3"; return 1; }; }
lacks() {
	[ "$(count_in "$@")" -eq 0 ] && return 0
	echo "$1: unexpected $2 for $3:"
	grep -F "$(spath "$3")" "$(dumpfile "$1")" | grep "^$2 " | head -5
	return 1
}

# has_line MODE LINE: the dump has LINE, whitespace runs folded.
has_line() {
	awk '{ $1 = $1; print }' "$(dumpfile "$1")" | grep -qFx -- "$2" && return 0
	echo "$1: no line '$2'"
	return 1
}

# only_cmds MODE CMD...: the stream has no other commands.
only_cmds() {
	local m=$1
	shift
	awk -v ok=" $* " 'index(ok, " " $1 " ") == 0 { print "unexpected: " $0; bad = 1 }
		END { exit bad }' "$(dumpfile "$m")"
}

# all_writes_to MODE PATH: every WRITE is to PATH, and there is one.
all_writes_to() {
	awk -v p="$(spath "$2")" '$1 == "write" { n++; if ($2 != p) { print "write elsewhere: " $0; bad = 1 } }
		END { if (!n) print "no write"; exit bad || !n }' "$(dumpfile "$1")"
}

# bytes_written MODE PATH: total length of the WRITEs to PATH.
bytes_written() {
	awk -v p="$(spath "$2")" '$1 == "write" && $2 == p { sub("len=", "", $4); n += $4 }
		END { print n + 0 }' "$(dumpfile "$1")"
}

# writes_from MODE PATH OFFSET: PATH has WRITEs, none before OFFSET.
writes_from() {
	awk -v p="$(spath "$2")" -v o="$3" '$1 == "write" && $2 == p { n++; sub("offset=", "", $3)
		if ($3 + 0 < o) { print "write before " o ": " $0; bad = 1 } }
		END { if (!n) print "no write"; exit bad || !n }' "$(dumpfile "$1")"
}

# no_write_within MODE PATH OFFSET LEN: no WRITE overlaps the range.
no_write_within() {
	awk -v p="$(spath "$2")" -v o="$3" -v l="$4" '$1 == "write" && $2 == p {
		sub("offset=", "", $3); sub("len=", "", $4)
		if ($3 + $4 > o && $3 < o + l) { print "write in the range: " $0; bad = 1 } }
		END { exit bad }' "$(dumpfile "$1")"
}

# each_dump FN ARG...: FN MODE ARG... for every mode the scenario was sent in.
each_dump() {
	local fn=$1 m
	shift
	for m in $MODES; do
		"$fn" $m "$@" || return 1
	done
}

# all_eq N: every line of stdin is N (and there is one).
all_eq() {
	awk -v n="$1" '{ c++; if ($0 != n) { print "got " $0 ", wanted " n; bad = 1 } }
		END { exit bad || !c }'
}

# every_type DIR: make_every_file_type's names and kinds (regular, sparse,
# hard links, symlinks, fifo, socket, devices, xattrs, ACLs, setuid,
# sticky), with less data so that 45 scenarios stay quick under TCG.
every_type() {
	local d=$1
	mkdir -p "$d/dir/sub" "$d/empty-dir"
	: > "$d/empty"
	echo hello > "$d/small"
	head -c 3000 /dev/urandom > "$d/inline"
	head -c 300000 /dev/urandom > "$d/large"
	truncate -s 8M "$d/sparse"
	echo middle | dd of="$d/sparse" bs=1M seek=3 conv=notrunc status=none
	echo linked > "$d/dir/link1"
	ln "$d/dir/link1" "$d/dir/sub/link2" && ln "$d/dir/link1" "$d/link3"
	ln -s ../small "$d/dir/symlink" && ln -s /nonexistent/target "$d/dangling"
	mkfifo "$d/fifo" && make_socket "$d/socket"
	mknod "$d/chardev" c 1 7 && mknod "$d/blockdev" b 8 3
	echo xattrs > "$d/xattrs"
	setfattr -n user.one -v first "$d/xattrs" && setfattr -n user.empty "$d/xattrs"
	setfacl -m u:1000:rwx,g:100:r-x "$d/xattrs" && setfacl -d -m u:1000:rwx "$d/dir"
	echo suid > "$d/setuid" && chown 1000:100 "$d/setuid" && chmod 4755 "$d/setuid"
	mkdir "$d/sticky" && chmod 1777 "$d/sticky"
	touch -d '1999-12-31 23:59:59.5' "$d/small"
}
