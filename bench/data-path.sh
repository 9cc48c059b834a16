#!/bin/bash
# The cost of sending file data, copy by copy (docs/data-path.md): one VM
# boot under an instruction-counted clock sends the same large files with
# our module with file data going into the pipe by reference
# (send_zero_copy=1), with our module copying it (send_zero_copy=0) and
# with the stock module, and reads them with cat as the floor.  Each figure
# is guest nanoseconds per byte of file data (with --icount 0 one
# instruction is one nanosecond while the guest computes), warm (the pages
# already cached: the CPU cost of the data path alone) and cold (read from
# the virtual disk first).
#
#   bench/data-path.sh           (needs make userspace kernel)
#   DP_MB=256 DP_RUNS=3 bench/data-path.sh
#
# The output is `btrfs-stream send > /dev/null`: its pipe goes to /dev/null
# by splice, so what is measured is the kernel's side alone; one more mode
# sends with btrfs-progs' `btrfs send -f /dev/null`, which reads the pipe
# into a buffer (the userspace copy btrfs-stream send avoids).  Prints a TSV
# (mode, cache, run, bytes, ns, ns/byte) and a summary of medians.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" != --guest ]; then
	mb=${DP_MB:-128} runs=${DP_RUNS:-2}
	out=$(mktemp -d "${TMPDIR:-/tmp}/data-path.XXXXXX")
	"$top/tests/vm/run" --icount 0 --cpus 1 --disks 1 --disk-size 4G \
		--mem 2048 --timeout 3600 --out "$out" -- \
		env DP_MB="$mb" DP_RUNS="$runs" bench/data-path.sh --guest
	cat "$out/data-path.tsv"
	python3 - "$out/data-path.tsv" <<'PY'
import statistics, sys
rows = [l.split('\t') for l in open(sys.argv[1]).read().splitlines()[1:]]
med = {}
for mode, cache, run, nbytes, ns, per in rows:
    med.setdefault((mode, cache), []).append(float(per))
print('# median ns/byte: mode warm cold')
for mode in dict.fromkeys(m for m, _ in med):
    w = statistics.median(med.get((mode, 'warm'), [float('nan')]))
    c = statistics.median(med.get((mode, 'cold'), [float('nan')]))
    print(f'{mode}\t{w:.2f}\t{c:.2f}')
PY
	rm -rf "$out"
	exit 0
fi

# --- in the guest ------------------------------------------------------------
. "$VM_TOP/tests/vm/lib-guest.sh"
mb=$DP_MB runs=$DP_RUNS
src=/tmp/mnt/src
bin=$VM_TOP/build/bin/btrfs-stream
tsv=$VM_OUT/data-path.tsv

fresh_btrfs /dev/vdb $src || die "mkfs"
btrfs -q subvolume create $src/vol || die "subvolume"
# Two files of incompressible data, so that send reads two inodes.
for i in 1 2; do
	head -c $((mb * 1024 * 1024 / 2)) /dev/urandom > $src/vol/large$i || die "data"
done
sync
btrfs -q subvolume snapshot -r $src/vol $src/snap || die "snapshot"
bytes=$((mb * 1024 * 1024))

now_ns() { date +%s%N; }
# cache warm|cold: the snapshot's file pages cached or not.
cache() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	[ "$1" = cold ] || cat $src/snap/large* > /dev/null
}
# measure MODE CACHE RUN CMD...: one timed run into the TSV.
measure() {
	local mode=$1 c=$2 run=$3 t0 t1
	shift 3
	cache "$c"
	t0=$(now_ns)
	"$@" > /dev/null || die "$mode: $*"
	t1=$(now_ns)
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$c" "$run" "$bytes" $((t1 - t0)) \
		"$(awk -v n=$((t1 - t0)) -v b=$bytes 'BEGIN { printf "%.3f", n / b }')" >> "$tsv"
}
zero_copy() { echo "$1" > /sys/module/btrfs/parameters/send_zero_copy; }

printf 'mode\tcache\trun\tbytes\tns\tns_per_byte\n' > "$tsv"
umount $src || die "umount"
for run in $(seq 1 "$runs"); do
	for c in warm cold; do
		use_module ours && mount /dev/vdb $src || die "mount (ours)"
		measure cat "$c" "$run" cat $src/snap/large1 $src/snap/large2
		zero_copy 1
		measure ours-by-reference "$c" "$run" "$bin" send -q $src/snap
		measure ours-by-reference-progs-cli "$c" "$run" \
			btrfs -q send -f /dev/null $src/snap
		zero_copy 0
		measure ours-copying "$c" "$run" "$bin" send -q $src/snap
		zero_copy 1
		umount $src && use_module stock && mount /dev/vdb $src ||
			die "switch to stock"
		measure stock "$c" "$run" "$bin" send -q $src/snap
		umount $src || die "umount (stock)"
	done
done
echo "ok 1 - data path measured: $tsv"
echo "1..1"
