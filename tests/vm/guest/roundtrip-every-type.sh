#!/bin/bash
# Guest: full send of a subvolume holding every file type with btrfs-progs
# `btrfs send`, received by `btrfs receive` on a second filesystem, compared.
. "$VM_TOP/tests/vm/lib-guest.sh"
src=/tmp/mnt/src dst=/tmp/mnt/dst
fresh_btrfs /dev/vdb $src || die "mkfs source"
fresh_btrfs /dev/vdc $dst || die "mkfs destination"
btrfs -q subvolume create $src/vol
make_every_file_type $src/vol || die "populate"
btrfs -q subvolume snapshot -r $src/vol $src/snap

check "send ($VM_MODULE module) and receive" \
	sh -c "btrfs -q send -f /tmp/stream $src/snap && btrfs -q receive -f /tmp/stream $dst"
check "received tree equals the source" treecmp $src/snap $dst/snap
check "received subvolume has a received UUID" \
	sh -c "btrfs subvolume show $dst/snap | grep -E 'Received UUID:[[:space:]]+[0-9a-f]{8}-'"
tap_done
