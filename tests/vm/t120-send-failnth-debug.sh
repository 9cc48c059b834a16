#!/bin/bash
# Systematic allocation failure in the send ioctl, on the debug kernel
# (KASAN, lockdep, kmemleak, fail-nth): full, incremental, with a clone
# source, v2 compressed and a full send resumed by the kernel at a point,
# one boot each (tests/vm/guest/send-failnth.sh).
# Hours under TCG: run by make check-debug, never by make check.
# FAILNTH_MODES="full ..." picks modes; FAILNTH_FROM=N resumes the first.
# Per-mode results are kept in build/debug-kernel/failnth/.
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${VM_KERNEL:=$top/build/debug-kernel}"
export VM_KERNEL
n=0 failed=0
if [ ! -f "$VM_KERNEL/bzImage" ]; then
	echo "not ok 1 - no debug kernel in '$VM_KERNEL': run kernel/scripts/build-debug-kernel"
	echo "1..1"
	exit 1
fi
mkdir -p "$top/build/tests" "$top/build/debug-kernel/failnth"
cc -O2 -Wall -o "$top/build/tests/send-ioctl" "$top/tests/vm/guest/send-ioctl.c" || {
	echo "not ok 1 - build the send-ioctl helper"
	echo "1..1"
	exit 1
}
. "$top/tests/vm/lib-guest.sh"
from=${FAILNTH_FROM:-1}
for mode in ${FAILNTH_MODES:-full incremental clone compressed resume}; do
	start=$SECONDS
	tap_sub "$top/tests/vm/run" --module ours --disks 1 --mem 2048 --timeout 3600 \
		--out "$top/build/debug-kernel/failnth" -- \
		env SEND_IOCTL="$top/build/tests/send-ioctl" FAILNTH_MODE="$mode" \
		FAILNTH_FROM="$from" tests/vm/guest/send-failnth.sh
	echo "# $mode: $((SECONDS - start)) s wall"
	from=1
done
tap_done
