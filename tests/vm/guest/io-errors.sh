#!/bin/bash
# Guest: I/O errors under send and receive, with device-mapper between
# btrfs and the disk.  Send: read errors on a file's data and on the
# snapshot's tree leaves make the send ioctl return EIO; the same send
# succeeds once the disk reads again, the snapshot is deletable and the
# filesystem unmountable.  Receive: a destination whose writes all fail
# makes receive fail with a message, and the subvolume is never marked
# received (checked after remounting on a working disk).  The kernel log
# is checked by tests/vm/run; on a kernel with kmemleak, a scan at the
# end must find nothing.
#
# Disks: /dev/vdb source, /dev/vdc destination.  SEND_IOCTL: the helper.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/receive-lib.sh"

H=${SEND_IOCTL:?}
S=/tmp/mnt/src D=/tmp/mnt/dst
# No udev in the guest: libdevmapper makes the /dev/mapper nodes itself.
export DM_DISABLE_UDEV=1
modprobe -a dm-mod dm-flakey 2>/dev/null

# table_with_errors DEV "START:LEN ..." [writes]: a dm table over DEV
# (sectors) that fails all I/O (with "writes": only writes, and flushes)
# in the given ranges and maps the rest linearly.
table_with_errors() {
	local dev=$1 size at=0 r s l
	size=$(blockdev --getsz "$dev")
	for r in $(printf '%s\n' $2 | sort -n -t: -k1,1); do
		s=${r%:*} l=${r#*:}
		[ "$s" -ge "$at" ] || continue
		[ "$s" -eq "$at" ] || echo "$at $((s - at)) linear $dev $at"
		if [ "${3:-}" = writes ]; then
			# flakey always "down", failing only writes
			echo "$s $l flakey $dev $s 0 3600 1 error_writes"
		else
			echo "$s $l error"
		fi
		at=$((s + l))
	done
	[ "$at" -ge "$size" ] || echo "$at $((size - at)) linear $dev $at"
}

# swap_table NAME TABLE: replace a live device's table.
swap_table() {
	dmsetup suspend "$1" && printf '%s\n' "$2" | dmsetup load "$1" && dmsetup resume "$1"
}

# sectors LOGICAL LEN: "START:LEN" in 512-byte sectors of the device
# holding btrfs logical range LOGICAL+LEN (single profiles: one copy).
sectors() {
	local phys
	phys=$(btrfs-map-logical -l "$1" -b "$2" /dev/mapper/src 2>/dev/null |
		awk '/mirror 1 logical/ { print $6; exit }')
	[ -n "$phys" ] || return 1
	echo "$((phys / 512)):$(($2 / 512))"
}

# data_ranges FILE: its first extent, as sectors.
data_ranges() {
	local logical
	logical=$(filefrag -v "$1" | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 * 4096; exit }')
	sectors "$logical" 65536
}

# leaf_ranges ROOTID: every leaf of that tree but the first, which holds
# the subvolume's top directory, and the last, where the orphan items are
# looked up: both are read to open the subvolume at all.
leaf_ranges() {
	local l
	for l in $(btrfs inspect-internal dump-tree -t "$1" /dev/mapper/src 2>/dev/null |
			awk '/^leaf [0-9]+ items/ { print $2 }' | sed '1d;$d'); do
		sectors "$l" 16384 || return 1
	done
}

# send_gives ERRNO SUBVOL: the helper's send ends with ERRNO.
# outside_metadata DEV: the sectors of DEV that hold no metadata or system
# chunk nor a superblock copy (so only data can be written there), as
# "START:LEN ...".
outside_metadata() {
	local size
	size=$(blockdev --getsz "$1")
	btrfs inspect-internal dump-tree -t chunk "$1" 2>/dev/null | awk -v size="$size" '
	/^[[:space:]]*length [0-9]+ owner/ { len = $2; meta = ($0 !~ /type DATA/) }
	/stripe [0-9]+ devid/ && meta { keep[n++] = ($6 / 512) ":" (len / 512) }
	END {
		keep[n++] = "0:2048"; keep[n++] = "131072:8"	# superblocks at 0-1 MiB and 64 MiB
		for (i = 0; i < n; i++) print keep[i]
	}' | sort -n -t: -k1,1 | awk -F: -v size="$size" '
	{ if ($1 > at) printf "%d:%d\n", at, $1 - at; if ($1 + $2 > at) at = $1 + $2 }
	END { if (size > at) printf "%d:%d\n", at, size - at }'
}

send_gives() {
	local out
	out=$("$H" -o /tmp/io.stream "$2" 2>&1)
	[ "$out" = "errno=$1" ] || { echo "wanted errno=$1, got: $out"; return 1; }
}

kmemleak_clean() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	[ -e /sys/kernel/debug/kmemleak ] || return 0
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	! grep . /sys/kernel/debug/kmemleak
}

# --- send: read errors on the source ---------------------------------------

dmsetup create src --table "0 $(blockdev --getsz /dev/vdb) linear /dev/vdb 0" || die "dmsetup src"
mkfs.btrfs -q -f -m single -d single /dev/mapper/src > /dev/null && mkdir -p $S &&
	mount /dev/mapper/src $S || die "mkfs on dm"
btrfs -q subvolume create $S/vol
head -c 4000000 /dev/urandom > $S/vol/big
mkdir $S/vol/many && (cd $S/vol/many && for i in $(seq 3000); do echo $i > f$i; done) || die "populate"
btrfs -q subvolume snapshot -r $S/vol $S/A
rootid=$(btrfs inspect-internal rootid $S/A)
check "reference send" send_gives 0 $S/A
cp /tmp/io.stream /tmp/ref.stream
data=$(data_ranges $S/A/big) && leaves=$(leaf_ranges $rootid) || die "map the snapshot"
check "the snapshot has leaves to break ($(echo $leaves | wc -w))" test -n "$leaves"
umount $S || die "umount"
linear=$(dmsetup table src)

for what in data leaves; do
	eval "ranges=\$$what"
	swap_table src "$(table_with_errors /dev/vdb "$ranges")" || die "error table"
	mount /dev/mapper/src $S || die "mount with errors"
	check "read errors on the snapshot's $what: send fails with EIO" \
		send_gives EIO $S/A
	swap_table src "$linear" || die "restore table"
	echo 3 > /proc/sys/vm/drop_caches
	check "  the disk reads again: same send succeeds, same stream" \
		sh -c "test \"\$(\"$H\" -o /tmp/io.stream $S/A)\" = errno=0 && cmp /tmp/io.stream /tmp/ref.stream"
	check "  filesystem unmountable" umount $S
done
# --- receive: write errors on the destination -----------------------------

dsize=$(blockdev --getsz /dev/vdc)
dmsetup create dst --table "0 $dsize linear /dev/vdc 0" || die "dmsetup dst"
mkfs.btrfs -q -f /dev/mapper/dst > /dev/null && mkdir -p $D || die "mkfs destination"
# Always in the "down" phase, and only writes fail: every write is EIO.
failing="0 $dsize flakey /dev/vdc 0 0 3600 1 error_writes"

# receive_fails_at BYTES: receive the reference stream; its first BYTES
# reach a working disk (made durable), the rest one whose writes all fail.
receive_fails_at() {
	local pid i
	rm -f /tmp/fifo && mkfifo /tmp/fifo || return 1
	"$BSTREAM" receive -f /tmp/fifo $D 2> /tmp/recv.err &
	pid=$!
	exec 3> /tmp/fifo
	head -c "$1" /tmp/ref.stream >&3
	if [ "$1" -gt 0 ]; then
		for i in $(seq 300); do [ -d $D/A ] && break; sleep 0.1; done
		sync
	fi
	swap_table dst "$failing" || return 1
	tail -c +$(($1 + 1)) /tmp/ref.stream >&3 2>/dev/null
	exec 3>&-
	! wait $pid
}

for at in 0 300000 data; do
	mount /dev/mapper/dst $D || die "mount destination"
	if [ $at = data ]; then
		sync
		# (the error target, not flakey: flakey fails the empty flushes
		# of every commit too, which would fail metadata writes as well)
		failing=$(table_with_errors /dev/vdc "$(outside_metadata /dev/mapper/dst)")
		at=0
		check "receive, data writes failing (metadata fine): fails" receive_fails_at 0
	else
		check "receive, writes failing from byte $at of the stream: fails" receive_fails_at $at
	fi
	check "  and says why" grep -qiE 'input/output error|read-only file system' /tmp/recv.err
	sed 's/^/#   /' /tmp/recv.err | tail -n 3
	swap_table dst "0 $dsize linear /dev/vdc 0" || die "restore destination"
	umount $D
	check "  destination mounts again" mount /dev/mapper/dst $D
	check "  the subvolume is not marked received" \
		sh -c "[ ! -e $D/A ] || btrfs subvolume show $D/A | grep -Eq 'Received UUID:[[:space:]]+-\$'"
	[ ! -e $D/A ] || btrfs -q subvolume delete $D/A || die "delete the partial subvolume"
	umount $D || die "umount destination"
done
mount /dev/mapper/dst $D || die "mount destination"
mount /dev/mapper/src $S || die "mount the source"
check "  a receive onto the working disk succeeds and matches the source" \
	sh -c "\"$BSTREAM\" receive -f /tmp/ref.stream $D && \"$VM_TOP/build/bin/treecmp\" $S/A $D/A"
check "destination unmountable" umount $D
check "snapshot deletable after the failed sends" btrfs -q subvolume delete $S/A
check "source unmountable" umount $S
dmsetup remove dst && dmsetup remove src
check "kmemleak (where the kernel has it) finds no leak" kmemleak_clean
[ -e /sys/kernel/debug/kmemleak ] || echo "# this kernel has no kmemleak: no leak check made (make check-debug makes it)"
tap_done
