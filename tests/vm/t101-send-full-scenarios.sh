#!/bin/bash
# Full send with our module: every file type and the scenarios of issue 4,
# received by btrfs receive and compared with the source and with what the
# stock module sends (swapped in within the same boot); stream sizes of
# both are reported and ours may not be more than 5% larger.  Every stream
# of ours is sent with file data into the pipe by reference and copying
# (send_zero_copy flipped) and must be the same bytes; VM_SEND_ZERO_COPY=0
# starts with the copying path.
# The 100k-files scenario runs in t190 (long runs).
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/build/tests"
cc -O2 -Wall -o "$top/build/tests/send-ioctl" "$top/tests/vm/guest/send-ioctl.c" || {
	echo "not ok 1 - build the send-ioctl helper"
	exit 1
}
exec "$(dirname "$0")/run" --module ours --disks 3 --mem 3072 --timeout 1500 -- \
	env SEND_IOCTL="$top/build/tests/send-ioctl" SEND_SCENARIOS="types empty sparse4g names hardlinks xattrs reflink clonesrc compressed fallocate fileattr nodata multi shared1000 longpath orphannames" \
	tests/vm/guest/send-full.sh
