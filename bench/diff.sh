#!/bin/bash
# Guest side: `btrfs-stream diff` against `rsync -ain --delete` on two
# snapshots of many files that differ in a few, as a ratio.
#
#   tests/vm/run --module stock --timeout 7200 -- bench/diff.sh
#
# Knobs: BENCH_DIFF_FILES (default 200000), BENCH_DIFF_CHANGES (default
# 100), BENCH_DIFF_RUNS (default 3, best of), BENCH_DIFF_DEV (scratch disk,
# default /dev/vdb, made into a fresh btrfs), or BENCH_DIFF_SRC: an existing
# writable subvolume to take the snapshots of instead (e.g. make bench's
# small-file image).  Every run starts with cold caches.  Writes
# $VM_OUT/diff-bench.txt when $VM_OUT is set.
#
# Both tools answer "what changed between A and B"; rsync -n walks and
# stats both trees (it compares size and mtime, -i itemizes, --delete
# lists removals), btrfs-stream diff lets the kernel compare the trees,
# which skips every subtree whose metadata blocks the snapshots share.
set -u
. "$VM_TOP/tests/vm/lib-guest.sh"

files=${BENCH_DIFF_FILES:-200000}
changes=${BENCH_DIFF_CHANGES:-100}
runs=${BENCH_DIFF_RUNS:-3}
bs=${BTRFS_STREAM:-$VM_TOP/build/bin/btrfs-stream}
M=/tmp/mnt/bench-diff

command -v rsync > /dev/null || die "rsync is missing: run scripts/deps.sh"
if [ -n "${BENCH_DIFF_SRC:-}" ]; then
	src=$BENCH_DIFF_SRC
	top=$(dirname "$src")
else
	fresh_btrfs "${BENCH_DIFF_DEV:-/dev/vdb}" $M noatime || die "mkfs"
	top=$M src=$M/src
	btrfs -q subvolume create $src || die "subvolume"
	echo "bench: making $files files" >&2
	python3 - "$src" "$files" <<'PY' || die "making files"
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1)
blob = os.urandom(4096)
for i in range(n):
    d = os.path.join(root, 'd%04d' % (i // 1000))
    if i % 1000 == 0:
        os.mkdir(d)
    fd = os.open(os.path.join(d, 'f%06d' % i), os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, blob[:rnd.randrange(0, 4096)])
    os.close(fd)
PY
fi
a=$top/bench-diff-A b=$top/bench-diff-B
btrfs -q subvolume delete "$a" "$b" > /dev/null 2>&1
btrfs -q subvolume snapshot -r "$src" "$a" || die "snapshot A"

# $changes changes: data, metadata, added, removed, renamed.
python3 - "$src" "$changes" <<'PY' || die "changes"
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(2)
files = []
for d, ds, fs in os.walk(root):
    files += [os.path.join(d, f) for f in fs]
picked = rnd.sample(files, n)
for i, p in enumerate(picked):
    kind = i % 5
    if kind == 0:
        with open(p, 'ab') as f:
            f.write(b'changed\n')
    elif kind == 1:
        os.chmod(p, 0o600)
    elif kind == 2:
        with open(p + '.new', 'wb') as f:
            f.write(b'added\n')
    elif kind == 3:
        os.unlink(p)
    else:
        os.rename(p, p + '.renamed')
PY
btrfs -q subvolume snapshot -r "$src" "$b" || die "snapshot B"
sync

cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# best CMD...: fastest of $runs cold runs, in seconds
best() {
	local i t0 t1 t best=
	for ((i = 0; i < runs; i++)); do
		cold
		t0=$(date +%s%N)
		# best runs in $(...): a die here would only leave its subshell
		"$@" > /tmp/bench-diff.out || { echo "bench: failed: $*" >&2; return 1; }
		t1=$(date +%s%N)
		t=$(( (t1 - t0) / 1000000 ))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
	echo "$best"
}
t_diff=$(best "$bs" diff "$a" "$b") || die "timing btrfs-stream diff"
n_diff=$(wc -l < /tmp/bench-diff.out)
t_rsync=$(best rsync -ain --delete "$a/" "$b/") || die "timing rsync"
n_rsync=$(wc -l < /tmp/bench-diff.out)
nfiles=$(find "$a" -type f | wc -l)
ratio=$(awk -v d="$t_diff" -v r="$t_rsync" 'BEGIN { printf "%.1f", (d > 0 ? r / d : 0) }')
{
	echo "diff of two snapshots of $nfiles files with $changes changes, best of $runs cold runs ($VM_MODULE module):"
	echo "  btrfs-stream diff     ${t_diff} ms  ($n_diff lines)"
	echo "  rsync -ain --delete   ${t_rsync} ms  ($n_rsync lines)"
	echo "  ratio rsync/diff      ${ratio}x"
} | tee ${VM_OUT:+"$VM_OUT/diff-bench.txt"}
