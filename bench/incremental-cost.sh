#!/bin/bash
# Does an incremental send cost what changed, not what exists?  On a
# snapshot of FILES small files (default 200000) with CHANGED of them
# modified (default 100), time the full send of the new snapshot and the
# incremental send from the old one, both with our module, caches dropped
# before each run, RUNS times (default 3); print the medians and their
# ratio (issue 5 asks for under 2%).  Guest timing by instruction count
# (QEMU -icount, see bench/run).
#
#   bench/incremental-cost.sh          (run `make kernel userspace` first)
#   COST_FILES=200000 COST_CHANGED=100 COST_RUNS=3 COST_MODULE=ours bench/incremental-cost.sh
#
# Inside the guest it runs as: bench/incremental-cost.sh --guest DEV
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
files=${COST_FILES:-200000}
changed=${COST_CHANGED:-100}
runs=${COST_RUNS:-3}
module=${COST_MODULE:-ours}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# time_send ARGS...: seconds for `btrfs send ARGS > /dev/null`, cold cache.
time_send() {
	local t0 t1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	t0=$(date +%s.%N)
	btrfs -q send "$@" > /dev/null || return 1
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

guest() {
	local m=/tmp/cost full=() incr=() i f fm im
	mkdir -p $m
	mount "$1" $m
	btrfs -q subvolume snapshot -r $m $m/A
	# Spread the changes over the tree: every (files/changed)-th file.
	find $m -path $m/A -prune -o -type f -print | sort |
		awk -v n="$files" -v c="$changed" 'NR % int(n / c) == 1 && k++ < c' |
		while read -r f; do echo changed >> "$f"; done
	btrfs -q subvolume snapshot -r $m $m/B
	echo "files: $(find $m/B -type f | wc -l), changed: $(diff -rq $m/A $m/B | grep -c differ)"
	for i in $(seq 1 "$runs"); do
		f=$(time_send $m/B) && i2=$(time_send -p $m/A $m/B) || return 1
		echo "run $i: full $f s, incremental $i2 s"
		full+=("$f") incr+=("$i2")
	done
	fm=$(printf '%s\n' "${full[@]}" | median)
	im=$(printf '%s\n' "${incr[@]}" | median)
	echo "median: full $fm s, incremental $im s, incremental/full $(echo "scale=5; $im / $fm" | bc)"
}

if [ "${1:-}" = --guest ]; then
	guest "$2"
	exit
fi

cache="$top/build/bench"
img="$cache/cost-$files.img"
mkdir -p "$cache"
if [ ! -f "$img" ]; then
	stage=$(mktemp -d "$cache/stage.XXXXXX")
	python3 - "$stage" "$files" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(7)
blob = os.urandom(8192)
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // 10000), "e%02d" % (i // 1000 % 10))
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.write(blob[: rnd.randrange(0, 8192)])
PY
	truncate -s 6G "$img.tmp"
	mkfs.btrfs -q -f --rootdir "$stage" "$img.tmp" > /dev/null
	rm -rf "$stage"
	mv "$img.tmp" "$img"
fi
work=$(mktemp -d "$cache/cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp --sparse=always "$img" "$work/cost.img"
"$top/tests/vm/run" --icount 0 --cpus 1 --module "$module" --disks 1 --mem 4096 \
	--timeout 14400 --disk-image "$work/cost.img" -- \
	env COST_FILES="$files" COST_CHANGED="$changed" COST_RUNS="$runs" \
	bench/incremental-cost.sh --guest /dev/vdc
