#!/bin/bash
# Every receive scenario of the btrfs-destination tests onto plain
# directories, run by make check-long (SEND_LONG=1): the roundtrip trees
# (protocol 1 and 2 with compressed data), every incremental scenario in
# v1, v2 and (data scenarios) v2 --compressed-data, four random trees,
# the crafted streams, and the hostile corpus, on ext4, XFS (reflink) and
# tmpfs, as root and as nobody (tests/vm/guest/receive-anywhere.sh); one
# VM boot per filesystem, one TAP stream.  t307 is the short version in
# make check.  ANYWHERE_FSES="xfs tmpfs" runs some of the filesystems (each
# boot takes about an hour under TCG on a shared machine).
if [ "${SEND_LONG:-0}" != 1 ]; then
	echo "1..0 # skip every receive scenario on plain directories: set SEND_LONG=1 to run it"
	exit 0
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/lib-guest.sh"
for fs in ${ANYWHERE_FSES:-ext4 xfs tmpfs}; do
	echo "# destination $fs"
	tap_sub "$top/tests/vm/run" --module ours --disks 3 --mem 3072 --timeout 3600 -- \
		env ANYWHERE_FS=$fs ANYWHERE_USERS="root nobody" ANYWHERE_SCENARIOS=all \
		ANYWHERE_MODES="v1 v2 enc" ANYWHERE_ROUNDTRIP="v1 v2c" ANYWHERE_SEEDS="1 2 3 4" \
		ANYWHERE_CRAFTED=1 ANYWHERE_HOSTILE="$fs:root $fs:nobody" \
		tests/vm/guest/receive-anywhere.sh
done
tap_done
