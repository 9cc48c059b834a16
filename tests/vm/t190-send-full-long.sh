#!/bin/bash
# Long full-send scenarios (100k small files, ours and stock), run only
# with SEND_LONG=1 so that the default VM suite stays within CI's budget.
if [ "${SEND_LONG:-0}" != 1 ]; then
	echo "1..0 # skip long send scenarios: set SEND_LONG=1 to run them"
	exit 0
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/build/tests"
cc -O2 -Wall -o "$top/build/tests/send-ioctl" "$top/tests/vm/guest/send-ioctl.c" || {
	echo "not ok 1 - build the send-ioctl helper"
	exit 1
}
exec "$(dirname "$0")/run" --module ours --disks 3 --mem 4096 --timeout 3600 -- \
	env SEND_IOCTL="$top/build/tests/send-ioctl" SEND_SCENARIOS="many" tests/vm/guest/send-full.sh
