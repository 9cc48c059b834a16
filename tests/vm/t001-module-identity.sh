#!/bin/bash
# The harness loads what it says: ours reports send_impl, stock has no such file.
cd "$(dirname "$0")/../.."
n=0 failed=0
report() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
out=$(tests/vm/run --module ours -- cat /sys/fs/btrfs/features/send_impl)
rc=$?
[ $rc = 0 ] && [ "$out" = btrfs-stream ]
report $? "ours: /sys/fs/btrfs/features/send_impl reads 'btrfs-stream' (got '$out', exit $rc)"
out=$(tests/vm/run --module stock -- sh -c 'test -d /sys/fs/btrfs/features && ! test -e /sys/fs/btrfs/features/send_impl && echo absent')
rc=$?
[ $rc = 0 ] && [ "$out" = absent ]
report $? "stock: btrfs loaded and send_impl absent (got '$out', exit $rc)"
echo "1..$n"
exit $failed
