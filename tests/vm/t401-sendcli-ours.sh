#!/bin/bash
# btrfs-stream send and diff on our module, one boot: streams byte-identical
# to btrfs-progs' `btrfs send` on the same kernel for every option, the same
# refusals, and diff of real snapshots against the expected reports and the
# oracle.  (Progress and the estimate do not depend on the kernel: t400.)
cd "$(dirname "$0")/../.." || exit 1
# Both guest scripts make one TAP stream with one plan (tap_sub).
exec tests/vm/run --module ours --disks 3 -- bash -c '
	. tests/vm/lib-guest.sh
	tap_sub env SENDCLI_PARTS="streams refusals" tests/vm/guest/sendcli-compare.sh
	tap_sub env DIFF_DEV=/dev/vdd tests/vm/guest/diff-snapshots.sh
	tap_done'
