#!/bin/bash
# Guest: btrfs-stream receive onto ext4 (the plain backend, chosen by
# itself): a full stream and two incrementals made by `btrfs send`, each
# received tree equal to its source by treecmp, each recorded in
# DEST/.btrfs-stream, and a clone of data from the parent received as a
# clone where ext4 cannot share it (a copy).
#
# Disks: /dev/vdb source (btrfs), /dev/vdc destination (ext4).
. "$VM_TOP/tests/vm/lib-guest.sh"

src=/tmp/mnt/src dst=/tmp/mnt/dst st=/tmp/streams
BSTREAM=$VM_TOP/build/bin/btrfs-stream
fresh_btrfs /dev/vdb $src || die "mkfs source"
modprobe ext4; mkfs.ext4 -q -F /dev/vdc && mkdir -p $dst && mount /dev/vdc $dst || die "mkfs.ext4 destination"
mkdir -p $st

populate() {
	local d=$1
	make_every_file_type "$d" &&
		mkdir -p "$d/tree/a/b" &&
		for i in $(seq 1 30); do echo "file $i" > "$d/tree/a/f$i" || return 1; done &&
		cp --reflink=always "$d/large" "$d/tree/reflink"
}

mutate_b() {
	local d=$1
	mv "$d/tree/a/f1" "$d/tree/a/b/f1-moved" &&
		rm "$d/tree/a/f2" && rm -r "$d/empty-dir" &&
		echo appended >> "$d/small" &&
		cp --reflink=always "$d/large" "$d/large-again" &&
		ln "$d/tree/a/f3" "$d/tree/f3-link" &&
		setfattr -n user.new -v b "$d/tree/a/f4" && chmod 0600 "$d/tree/a/f5"
}

mutate_c() {
	local d=$1
	mv "$d/tree/a" "$d/tree/a-renamed" && truncate -s 1000 "$d/large" &&
		rm "$d/dir/sub/link2"
}

step() { "$@" > $st/step.out 2>&1 || { cat $st/step.out; die "$*"; }; }
step btrfs -q subvolume create $src/vol
step populate $src/vol
step btrfs -q subvolume snapshot -r $src/vol $src/A
step mutate_b $src/vol
step btrfs -q subvolume snapshot -r $src/vol $src/B
step mutate_c $src/vol
step btrfs -q subvolume snapshot -r $src/vol $src/C
step btrfs -q send -f $st/A $src/A
step btrfs -q send -p $src/A -f $st/B $src/B
step btrfs -q send -p $src/B -f $st/C $src/C

# received NAME STREAM: receive onto ext4, compare, check the record.
received() {
	local out
	out=$("$BSTREAM" receive -f "$2" $dst 2>&1) || { echo "$out"; return 1; }
	echo "$out" | grep -q "is not on btrfs: receiving into plain directories" ||
		{ echo "no word of plain directories: $out"; return 1; }
	treecmp $src/$1 $dst/$1 || return 1
	grep -q "^uuid=$(btrfs subvolume show $src/$1 | awk '$1 == "UUID:" { print $2 }') " \
		$dst/.btrfs-stream/$1 || { echo "record: $(cat $dst/.btrfs-stream/$1)"; return 1; }
}
check "full stream onto ext4: equal to its source, recorded" received A $st/A
check "incremental onto ext4: equal to its source, recorded" received B $st/B
check "second incremental onto the first: equal, recorded" received C $st/C
# Copying a parent reads its symlinks, which sets their access times (no
# O_NOATIME for readlink); receive-plain.t checks every other atime.
check "the parents stay as they were received (atime aside)" treecmp -i atime $src/A $dst/A
tap_done
