#!/bin/bash
# I/O errors under send (read errors on data and on tree leaves: EIO, no
# warning, the same send works again) and under receive (a destination
# whose writes fail: receive fails, nothing marked received), through
# device-mapper, with our module.
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/build/tests"
cc -O2 -Wall -o "$top/build/tests/send-ioctl" "$top/tests/vm/guest/send-ioctl.c" || {
	echo "not ok 1 - build the send-ioctl helper"
	exit 1
}
exec "$(dirname "$0")/run" --module ours --disks 2 --mem 2048 --timeout 900 -- \
	env SEND_IOCTL="$top/build/tests/send-ioctl" tests/vm/guest/io-errors.sh
