#!/bin/bash
# Guest script: incremental send after renaming a directory of 5000 files in
# a 20k-file tree, ours vs stock, cold and warm cache, three times each, plus
# a full --no-data send; with PROFILE=1, perf of 40 warm incremental sends
# of ours instead; with PROFILE=syscalls, for each module the stream's size
# and the time of each system call of one cold send (strace -f -T), which
# shows where the command spends what the send ioctl does not.  A quick look
# at make bench's W4 without its hours:
#
#   tests/vm/run --icount 0 --cpus 1 --module stock --disks 1 --timeout 2400 \
#       -- bench/rename-incremental.sh
#   tests/vm/run ... -- env PROFILE=1 bench/rename-incremental.sh
#   tests/vm/run ... -- env PROFILE=syscalls bench/rename-incremental.sh
. "$VM_TOP/tests/vm/lib-guest.sh"
M=/tmp/w4
fresh_btrfs /dev/vdb $M || die mkfs
btrfs -q subvolume create $M/v
mkdir $M/v/big $M/v/other
python3 - $M/v <<'PY'
import os, sys
r = sys.argv[1]
for i in range(20000):
    d = "big" if i < 5000 else "other/d%02d" % (i // 1000)
    os.makedirs(os.path.join(r, d), exist_ok=True)
    with open(os.path.join(r, d, "f%05d" % i), "w") as f:
        f.write("x" * (i % 3000))
PY
btrfs -q subvolume snapshot -r $M/v $M/A
mv $M/v/big $M/v/big-renamed
btrfs -q subvolume snapshot -r $M/v $M/B
sync
umount $M
if [ "${PROFILE:-0}" = 1 ]; then
	use_module ours && mount /dev/vdb $M || die mount
	cd /tmp && perf record -q -a -g -e cpu-clock -o /tmp/perf.data -- \
		sh -c "for i in \$(seq 40); do btrfs -q send -p $M/A $M/B > /dev/null; done"
	perf report -i /tmp/perf.data --no-children --sort sym --stdio 2>/dev/null |
		grep '%' | head -60
	exit 0
fi
if [ "${PROFILE:-0}" = syscalls ]; then
	for impl in ours stock; do
		use_module $impl && mount /dev/vdb $M || die mount
		echo "$impl: stream $(btrfs -q send -p $M/A $M/B | wc -c) bytes"
		sync; echo 3 > /proc/sys/vm/drop_caches
		strace -f -T -o /tmp/strace.$impl btrfs -q send -p $M/A $M/B > /dev/null
		# Lines end "<seconds>"; calls a thread resumed show as "<...".
		awk '{ if (match($0, /<[0-9.]+>$/)) { t = substr($0, RSTART + 1, RLENGTH - 2)
			name = $2; sub(/\(.*/, "", name); sum[name] += t; n[name]++ } }
			END { for (k in sum) printf "  %-16s %4d calls %9.6f s\n", k, n[k], sum[k] }' \
			/tmp/strace.$impl | sort -k4 -gr
		umount $M
	done
	exit 0
fi
# reads: completed reads and sectors read of the scratch disk.
reads() { awk '$3 == "vdb" { print $4, $6 }' /proc/diskstats; }
t() { local t0=$EPOCHREALTIME; "$@" > /dev/null; awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN { printf "%.4f", b - a }'; }
for i in 1 2 3; do
	for impl in ours stock; do
		use_module $impl && mount /dev/vdb $M || die mount
		sync; echo 3 > /proc/sys/vm/drop_caches
		r0=$(reads)
		cold=$(t btrfs -q send -p $M/A $M/B)
		r1=$(reads)
		warm=$(t btrfs -q send -p $M/A $M/B)
		full=$(t btrfs -q send --no-data $M/A)
		sync; echo 3 > /proc/sys/vm/drop_caches
		cold_ioctl=$(send_ioctl_seconds btrfs -q send -p $M/A $M/B)
		warm_ioctl=$(send_ioctl_seconds btrfs -q send -p $M/A $M/B)
		echo "$impl run $i: incremental cold $cold ($((${r1% *} - ${r0% *})) reads, $(((${r1#* } - ${r0#* }) / 2)) KiB) warm $warm; full --no-data (warm-ish) $full; send ioctl alone: cold $cold_ioctl warm $warm_ioctl"
		umount $M
	done
done
