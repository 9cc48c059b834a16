#!/bin/bash
# BTRFS_IOC_SEND argument checks (one errno per rejection), closed pipe,
# ^C during a 2 GiB send, concurrent sends and the send_in_progress
# interlocks, with our module.
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/build/tests"
cc -O2 -Wall -o "$top/build/tests/send-ioctl" "$top/tests/vm/guest/send-ioctl.c" || {
	echo "not ok 1 - build the send-ioctl helper"
	exit 1
}
exec "$(dirname "$0")/run" --module ours --disks 2 --mem 2048 --timeout 1200 -- \
	env SEND_IOCTL="$top/build/tests/send-ioctl" tests/vm/guest/send-errors.sh
