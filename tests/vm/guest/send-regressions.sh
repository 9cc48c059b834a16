#!/bin/bash
# Guest: send cases that fstests' send group found wrong in our module
# (docs/conformance.md), each rebuilt here in our own words so that make
# check keeps them fixed without an fstests checkout.  Every case sends
# from a fresh source filesystem, receives with btrfs receive onto a fresh
# destination, and checks the received data and, where the case is about
# sharing, that the received extents are shared (FIEMAP).
#
# Disks: /dev/vdb source, /dev/vdc destination.
. "$VM_TOP/tests/vm/lib-guest.sh"

S=/tmp/mnt/src D=/tmp/mnt/dst ST=/tmp/streams
FIEMAP=$VM_TOP/tests/tools/fiemap.py

# fresh [SOURCE MOUNT OPTIONS]: empty source and destination filesystems.
fresh() {
	umount $S $D 2> /dev/null
	rm -rf $ST && mkdir -p $ST &&
	fresh_btrfs /dev/vdb $S "$1" && fresh_btrfs /dev/vdc $D
}

# send_recv SNAP [SEND OPTION...]: send, then receive onto the destination.
send_recv() {
	local snap=$1
	shift
	btrfs -q send "$@" -f $ST/$snap.stream $S/$snap &&
		btrfs -q receive -f $ST/$snap.stream $D
}

same_data() {
	cmp "$1" "$2" || { echo "data differs: $1 $2"; return 1; }
}

# shared FILE FROM TO: FIEMAP marks every extent overlapping [FROM, TO)
# (bytes; TO "-" for the end) shared.
shared() {
	python3 "$FIEMAP" "$1" | awk -v from="$2" -v to="$3" -v f="$1" '
		{ if (to != "-" && $1 >= to) next; if ($1 + $2 <= from) next
		  n++; if ($3 !~ /shared/) { print f ": extent not shared: " $0; bad = 1 } }
		END { if (!n) { print f ": no extent in range"; bad = 1 }; exit bad }'
}

# hold_unlinked FD PATH: keep PATH open as FD of this shell; the caller
# unlinks it, which leaves an inode without links (an orphan).
hold() { eval "exec $1<\"\$2\""; }

# btrfs/278: inodes unlinked while open in the parent, the send root or
# both; a directory that has a name in the parent and none in the send root
# still has an entry in the parent (it must be renamed away, then removed).
case_orphans() {
	local v=$S/vol
	fresh || return 1
	btrfs -q subvolume create $v || return 1
	touch $v/gone-file $v/keep1-file $v/keep2-file
	mkdir $v/gone-dir $v/keep1-dir $v/keep2-dir
	touch $v/keep1-dir/child $v/keep2-dir/child
	btrfs -q subvolume snapshot -r $v $S/p || return 1
	unlink $v/gone-file && rmdir $v/gone-dir || return 1
	touch $v/new-file && mkdir $v/new-dir || return 1
	btrfs -q subvolume snapshot -r $v $S/c || return 1

	btrfs property set $S/p ro false || return 1
	hold 71 $S/p/gone-file; hold 72 $S/p/gone-dir
	hold 73 $S/p/keep1-file; hold 74 $S/p/keep1-dir
	unlink $S/p/gone-file && rmdir $S/p/gone-dir &&
		unlink $S/p/keep1-file && unlink $S/p/keep1-dir/child &&
		rmdir $S/p/keep1-dir || return 1
	btrfs property set $S/p ro true || return 1

	btrfs property set $S/c ro false || return 1
	hold 81 $S/c/keep1-file; hold 82 $S/c/keep1-dir
	hold 83 $S/c/keep2-file; hold 84 $S/c/keep2-dir
	hold 85 $S/c/new-file; hold 86 $S/c/new-dir
	unlink $S/c/keep1-file && unlink $S/c/keep1-dir/child &&
		rmdir $S/c/keep1-dir && unlink $S/c/keep2-file &&
		unlink $S/c/keep2-dir/child && rmdir $S/c/keep2-dir &&
		unlink $S/c/new-file && rmdir $S/c/new-dir || return 1
	btrfs property set $S/c ro true || return 1

	send_recv p && send_recv c -p $S/p || return 1
	treecmp $S/p $D/p && treecmp $S/c $D/c || return 1
	exec 71<&- 72<&- 73<&- 74<&- 81<&- 82<&- 83<&- 84<&- 85<&- 86<&-
}

# btrfs/322: a file shrinks and becomes a whole-file reflink of a file
# whose size is not sector aligned.  Its unaligned tail can be cloned only
# at the receiver's end of file, where the file is still longer until the
# final truncate: the tail must still arrive as a clone, not as data.
case_shrunk_reflink() {
	fresh || return 1
	head -c 131072 /dev/urandom | dd of=$S/foo bs=128K oflag=direct status=none &&
		head -c 131077 /dev/urandom >> $S/foo &&
		head -c 1048576 /dev/urandom > $S/bar && sync || return 1
	btrfs -q subvolume snapshot -r $S $S/p || return 1
	cp --reflink=always $S/foo $S/bar || return 1
	btrfs -q subvolume snapshot -r $S $S/c || return 1
	shared $S/c/bar 0 - || return 1
	send_recv p && send_recv c -p $S/p || return 1
	same_data $S/c/bar $D/c/bar && same_data $S/c/foo $D/c/foo &&
		shared $D/c/bar 0 - && shared $D/c/foo 0 -
}

# btrfs/281: a compressed extent is shared in part (its first half is
# reflinked into another file sent earlier): with --compressed-data the
# shared part arrives as a clone and the rest as an encoded write.
case_compressed_partial() {
	fresh compress=zstd || return 1
	head -c 66560 /dev/zero | tr '\0' a > $S/foo &&
		head -c 131072 /dev/zero | tr '\0' b > $S/bar && sync || return 1
	clone_range $S/bar 0 $S/foo 0 65536 && sync || return 1
	btrfs -q subvolume snapshot -r $S $S/snap || return 1
	send_recv snap --proto 2 --compressed-data || return 1
	same_data $S/snap/foo $D/snap/foo && same_data $S/snap/bar $D/snap/bar &&
		shared $D/snap/bar 0 65536 && shared $D/snap/foo 0 65536
}

# btrfs/283: two files reflink all of an extent of which a third file sent
# before them keeps only the first half: each clones what is cloneable, so
# that every received extent is shared.
case_partial_overwrite() {
	fresh || return 1
	head -c 131072 /dev/urandom > $S/foo && sync &&
		cp --reflink=always $S/foo $S/bar &&
		cp --reflink=always $S/foo $S/baz &&
		head -c 65536 /dev/urandom |
		dd of=$S/foo bs=64K seek=1 conv=notrunc status=none && sync ||
		return 1
	btrfs -q subvolume snapshot -r $S $S/snap || return 1
	send_recv snap || return 1
	for f in foo bar baz; do
		same_data $S/snap/$f $D/snap/$f || return 1
	done
	shared $D/snap/foo 0 65536 && shared $D/snap/bar 0 - &&
		shared $D/snap/baz 0 -
}

# clone_range SRC SRC_OFF DST DST_OFF LEN: FICLONERANGE.
clone_range() {
	python3 - "$@" <<'PY'
import fcntl, os, struct, sys
src, soff, dst, doff, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
s = os.open(src, os.O_RDONLY)
d = os.open(dst, os.O_WRONLY)
fcntl.ioctl(d, 0x4020940d, struct.pack('qQQQ', s, soff, n, doff))
PY
}

check "btrfs/278: orphans in the parent and the send root" case_orphans
check "btrfs/322: unaligned whole-file reflink after a shrink is a clone" case_shrunk_reflink
check "btrfs/281: partly shared compressed extent keeps its sharing" case_compressed_partial
check "btrfs/283: partly overwritten shared extent keeps its sharing" case_partial_overwrite
tap_done
