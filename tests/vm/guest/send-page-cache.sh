#!/bin/bash
# Guest: what a send leaves in the page cache, with our module and then
# the stock one (6.1 drops what it read, too).  Disk: /dev/vdb.
. "$VM_TOP/tests/vm/lib-guest.sh"
M=/tmp/mnt/pc

# cached_pages FILE: resident pages of FILE (fincore).
cached_pages() { fincore -n -b -o PAGES "$1" | awk '{ print $1 }'; }

# send_leaves IMPL: send the snapshot with uncached "cold" and cached
# "warm"; cold must come out uncached, warm still fully cached.
send_leaves() {
	local cold warm total
	umount $M 2>/dev/null
	use_module "$1" && mount /dev/vdb $M || { echo "cannot mount with $1"; return 1; }
	echo 3 > /proc/sys/vm/drop_caches
	cat $M/snap/warm > /dev/null
	total=$(cached_pages $M/snap/warm)
	btrfs -q send $M/snap > /dev/null || { echo "send failed"; return 1; }
	cold=$(cached_pages $M/snap/cold)
	warm=$(cached_pages $M/snap/warm)
	echo "# $1: cold file $cold pages cached after the send, warm file $warm of $total"
	[ "$cold" -eq 0 ] || { echo "$1: the send left $cold pages of an uncached file in the cache"; return 1; }
	[ "$warm" -eq "$total" ] || { echo "$1: the send dropped pages it did not bring in"; return 1; }
}

fresh_btrfs /dev/vdb $M || die "mkfs"
btrfs -q subvolume create $M/v
head -c $((64 << 20)) /dev/urandom > $M/v/cold
head -c $((16 << 20)) /dev/urandom > $M/v/warm
btrfs -q subvolume snapshot -r $M/v $M/snap
sync
check "ours: a send drops the pages it read, keeps pages cached before" send_leaves ours
check "stock: the same (validates the check)" send_leaves stock
umount $M
tap_done
