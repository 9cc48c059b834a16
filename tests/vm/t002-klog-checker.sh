#!/bin/bash
# A kernel warning fails the VM run: one injected into the guest's real kernel
# log, and crafted logs fed to the checker directly.
cd "$(dirname "$0")/../.."
n=0 failed=0
report() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'btrfs: device fsid 1 devid 1\nkmemleak: Kernel memory leak detector initialized (mem pool available: 99000)\nrcu: \tRCU lockdep checking is enabled.\nmodule verification failed: signature and/or required key missing - tainting kernel\n' > "$tmp/clean"
tests/vm/check-klog "$tmp/clean" 2>/dev/null
report $? "a clean log passes the checker"
for line in 'WARNING: CPU: 1 PID: 42 at fs/btrfs/send.c:123 foo+0x1/0x2 [btrfs]' \
	'kernel BUG at fs/btrfs/ctree.c:100!' 'Oops: 0000 [#1] PREEMPT SMP NOPTI' \
	'Call Trace:' 'WARNING: possible circular locking dependency detected' \
	'refcount_t: underflow; use-after-free.' \
	'BUG: KASAN: slab-use-after-free in send_emit+0x1/0x2 [btrfs]' \
	'UBSAN: shift-out-of-bounds in fs/btrfs/send-data.c:10:3' \
	'kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'; do
	printf 'ok line\n%s\n' "$line" > "$tmp/bad"
	tests/vm/check-klog "$tmp/bad" 2>/dev/null
	[ $? = 1 ]
	report $? "the checker fails on '$line'"
done

# A real kernel log line, written through /dev/kmsg in the guest.
tests/vm/run --module ours -- sh -c 'echo "<4>WARNING: CPU: 0 PID: 1 at injected-by-test" > /dev/kmsg' > "$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'kernel log shows a problem' "$tmp/out"
report $? "a WARNING in the guest's kernel log fails the run (exit $rc)"
tests/vm/run --module ours -- true > "$tmp/out" 2>&1
report $? "a clean guest run passes"
echo "1..$n"
exit $failed
