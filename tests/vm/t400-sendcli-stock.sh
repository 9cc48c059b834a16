#!/bin/bash
# btrfs-stream send and diff on the stock module, one boot: streams
# byte-identical to btrfs-progs' for every option, the same refusals, the
# progress line and its estimate; diff of real snapshots against expected
# reports and an oracle.
cd "$(dirname "$0")/../.." || exit 1
# Both guest scripts make one TAP stream with one plan (tap_sub).
exec tests/vm/run --module stock --disks 3 -- bash -c '
	. tests/vm/lib-guest.sh
	tap_sub tests/vm/guest/sendcli-compare.sh
	tap_sub env DIFF_DEV=/dev/vdd tests/vm/guest/diff-snapshots.sh
	tap_done'
