#!/bin/bash
# Receive benchmark: btrfs-stream receive against btrfs receive (btrfs-progs)
# on the same streams, in the same VM boot, alternating, caches dropped
# before every run.  Each run is timed to the exit of the command and to
# the end of a `sync` after it (both pay for their writeback); the ratios
# are given for both.  Workloads:
#
#   small     full stream of 100k small files (0-8 KiB)
#   large     full stream of 2 GiB in 8 large files
#   renames   incremental stream renaming 50k files into another directory
#
# Host side (default): builds cached source images with mkfs.btrfs
# --rootdir under build/bench-receive/, boots one VM and prints a table of
# median times and ratios (btrfs-progs time / ours: above 1 we are faster).
#
#   bench/receive.sh                      (run `make userspace` first)
#   RECV_BENCH_RUNS=3 RECV_BENCH_FILES=100000 RECV_BENCH_LARGE_MB=2048 \
#   RECV_BENCH_RENAMES=50000 RECV_BENCH_SERIAL= RECV_BENCH_ICOUNT= bench/receive.sh
#
# RECV_BENCH_ICOUNT=SHIFT times by instruction count (QEMU -icount, one
# virtual CPU) as make bench does, so that figures do not depend on the
# host's load; empty (default) is wall clock on two virtual CPUs.
#
# Guest side, for `make bench` to call on sources it already has:
#
#   bench/receive.sh --guest --streams DIR --dest DIR [--runs N] [--out TSV]
#                    [--small SNAP] [--large SNAP] [--renames PARENT:CHILD]
#                    [--serial]
#
# --serial also times ours without its worker thread ("ours-serial") and
# with it forced on ("ours-worker"; by default ours has one only when it
# can use two CPUs).
#
# DIR of --streams is scratch space for the streams (any filesystem),
# --dest a directory on a btrfs filesystem where each run receives into a
# new subdirectory (deleted afterwards).  SNAPs are read-only subvolumes;
# PARENT:CHILD the two ends of the incremental.  Prints the table and
# appends "workload<TAB>impl<TAB>run<TAB>seconds<TAB>seconds with sync"
# lines to TSV.
#
#   bench/receive.sh --make-renames SUBVOL DIR N PARENT CHILD
#
# snapshots SUBVOL read-only as PARENT, renames N files of SUBVOL/DIR into
# a new directory, snapshots it as CHILD.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

# ---------------------------------------------------------------------------
# Guest side

log() { echo "receive-bench: $*" >&2; }
now() { date +%s.%N; }

make_renames() {
	local sv=$1 dir=$2 n=$3 parent=$4 child=$5
	btrfs -q subvolume snapshot -r "$sv" "$parent" || return 1
	python3 - "$sv" "$dir" "$n" <<'PY' || return 1
import os, sys
sv, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
src = os.path.join(sv, d)
dst = os.path.join(sv, d + "-renamed")
os.makedirs(dst, exist_ok=True)
names = sorted(os.listdir(src))[:n]
for name in names:
    os.rename(os.path.join(src, name), os.path.join(dst, "r-" + name))
print("renamed", len(names), file=sys.stderr)
PY
	btrfs -q subvolume snapshot -r "$sv" "$child"
}

# timed IMPL CMD...: "SECONDS<TAB>SECONDS_WITH_SYNC" of CMD, caches dropped first.
timed() {
	local t0 t1 t2
	sync
	echo 3 > /proc/sys/vm/drop_caches
	t0=$(now)
	"${@:2}" > /dev/null || { log "$1 failed: ${*:2}"; return 1; }
	t1=$(now)
	sync
	t2=$(now)
	printf '%s\t%s\n' "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t0" | bc)"
}

# remove_subvols DIR: delete every subvolume under DIR, then DIR.
remove_subvols() {
	local s
	for s in "$1"/*; do
		[ -d "$s" ] && btrfs -q subvolume delete "$s" > /dev/null
	done
	rm -rf "$1"
	btrfs subvolume sync "$(dirname "$1")" > /dev/null 2>&1
}

guest_main() {
	local streams= dest= runs=3 out=/dev/null small= large= renames= impls="ours progs"
	while [ $# -gt 0 ]; do
		case $1 in
		--serial) impls="ours progs ours-serial ours-worker"; shift ;;
		--streams) streams=$2; shift 2 ;;
		--dest) dest=$2; shift 2 ;;
		--runs) runs=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--small) small=$2; shift 2 ;;
		--large) large=$2; shift 2 ;;
		--renames) renames=$2; shift 2 ;;
		*) log "unknown option '$1'"; return 2 ;;
		esac
	done
	[ -n "$streams" ] && [ -n "$dest" ] || { log "--streams and --dest are required"; return 2; }
	local ours="$top/build/bin/btrfs-stream" res w i impl t
	res=$(mktemp)

	# Streams, made once by the loaded module's send.
	[ -n "$small" ] && { btrfs -q send -f "$streams/small" "$small" || return 1; }
	[ -n "$large" ] && { btrfs -q send -f "$streams/large" "$large" || return 1; }
	if [ -n "$renames" ]; then
		btrfs -q send -f "$streams/renames-parent" "${renames%%:*}" &&
		btrfs -q send -p "${renames%%:*}" -f "$streams/renames" "${renames#*:}" || return 1
	fi
	ls -l "$streams" >&2

	for w in small large renames; do
		[ -f "$streams/$w" ] || continue
		for i in $(seq 1 "$runs"); do
			mkdir -p "$dest/base"
			if [ $w = renames ]; then
				"$ours" receive -q -f "$streams/renames-parent" "$dest/base" || return 1
			fi
			# Alternate which goes first.
			for impl in $( ((i % 2)) && echo $impls || echo $impls | tr ' ' '\n' | tac); do
				mkdir -p "$dest/$impl"
				case $impl in
				ours) t=$(timed ours "$ours" receive -q -m "$dest" -f "$streams/$w" "$dest/$impl") ;;
				ours-serial) t=$(timed ours "$ours" receive -q --serial -m "$dest" -f "$streams/$w" "$dest/$impl") ;;
				ours-worker) t=$(timed ours "$ours" receive -q --worker -m "$dest" -f "$streams/$w" "$dest/$impl") ;;
				progs) t=$(timed progs btrfs receive -q -f "$streams/$w" "$dest/$impl") ;;
				esac || return 1
				printf '%s\t%s\t%s\t%s\n' "$w" "$impl" "$i" "$t" | tee -a "$res" >> "$out"
				log "$w $impl run $i: $t s (to exit, to end of sync)"
				remove_subvols "$dest/$impl"
			done
			remove_subvols "$dest/base"
		done
	done
	python3 - "$res" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
times = {}
for w, impl, run, t, ts in rows:
    times.setdefault(w, {}).setdefault(impl, []).append((float(t), float(ts)))
print("%-10s %-12s %10s %10s %7s   %10s %10s %7s" % ("workload", "impl", "time", "progs",
      "ratio", "+sync", "progs", "ratio"))
for w, d in times.items():
    p = [statistics.median(x[k] for x in d["progs"]) for k in (0, 1)]
    for impl in sorted(i for i in d if i != "progs"):
        o = [statistics.median(x[k] for x in d[impl]) for k in (0, 1)]
        print("%-10s %-12s %9.2fs %9.2fs %6.2fx   %9.2fs %9.2fs %6.2fx"
              % (w, impl, o[0], p[0], p[0] / o[0], o[1], p[1], p[1] / o[1]))
print("ratio = btrfs-progs time / ours, medians of %d runs; above 1: ours is faster;"
      % len(next(iter(times.values()))["ours"]))
print("+sync: until the end of a sync after the command (writeback included)")
PY
	rm -f "$res"
}

# Host mode, second half: runs in the guest booted by host_main.
guest_standalone() {
	. "$top/tests/vm/lib-guest.sh"
	local b=/tmp/rb
	mkdir -p $b/streams $b/dest $b/small $b/large
	modprobe ext4
	mkfs.ext4 -q -F /dev/vdb && mount /dev/vdb $b/streams || die "streams disk"
	fresh_btrfs /dev/vdc $b/dest || die "destination disk"
	mount /dev/vdd $b/small && mount /dev/vde $b/large || die "source images"
	btrfs -q subvolume snapshot -r $b/large $b/large/snap || die "snapshot"
	btrfs -q subvolume snapshot -r $b/small $b/small/full || die "snapshot"
	make_renames $b/small dir50k "$RECV_BENCH_RENAMES" $b/small/A $b/small/B || die "renames"
	{
		echo "guest: $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print $2}' /proc/meminfo) KiB, QEMU TCG"
		echo "btrfs-progs: $(btrfs --version)"
		echo "small files: $(find $b/small/full -type f | wc -l), large: $(du -sm $b/large/snap | cut -f1) MiB"
	} >&2
	guest_main --streams $b/streams --dest $b/dest --runs "$RECV_BENCH_RUNS" ${RECV_BENCH_SERIAL:+--serial} \
		--out "$VM_OUT/receive-bench.tsv" \
		--small $b/small/full --large $b/large/snap --renames $b/small/A:$b/small/B
}

# ---------------------------------------------------------------------------
# Host side

host_main() {
	local runs=${RECV_BENCH_RUNS:-3} files=${RECV_BENCH_FILES:-100000}
	local large_mb=${RECV_BENCH_LARGE_MB:-2048} renames=${RECV_BENCH_RENAMES:-50000}
	local cache=$top/build/bench-receive small large

	[ -x "$top/build/bin/btrfs-stream" ] || { echo "run 'make userspace' first" >&2; exit 1; }
	mkdir -p "$cache"
	small=$cache/small-$files.img
	if [ ! -f "$small" ]; then
		local stage
		stage=$(mktemp -d "$cache/stage.XXXXXX")
		# files 0-8 KiB; the first $renames in dir50k, the rest 1000 a directory
		python3 - "$stage" "$files" "$renames" <<'PY'
import os, random, sys
root, n, big = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(7)
blob = os.urandom(8192)
for i in range(n):
    d = os.path.join(root, "dir50k" if i < big else "d%04d" % ((i - big) // 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.write(blob[: rnd.randrange(0, 8193)])
PY
		truncate -s 4G "$small.tmp"
		mkfs.btrfs -q -f --rootdir "$stage" "$small.tmp" > /dev/null || exit 1
		rm -rf "$stage"
		mv "$small.tmp" "$small"
	fi
	large=$cache/large-$large_mb.img
	if [ ! -f "$large" ]; then
		local stage i
		stage=$(mktemp -d "$cache/stage.XXXXXX")
		for i in 1 2 3 4 5 6 7 8; do
			head -c $((large_mb * 1024 * 1024 / 8)) /dev/urandom > "$stage/large$i"
		done
		truncate -s $((large_mb * 2 + 1024))M "$large.tmp"
		mkfs.btrfs -q -f --rootdir "$stage" "$large.tmp" > /dev/null || exit 1
		rm -rf "$stage"
		mv "$large.tmp" "$large"
	fi
	work=$(mktemp -d "$cache/run.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	cp --sparse=always "$small" "$work/small.img"
	cp --sparse=always "$large" "$work/large.img"
	local vmopts=(--cpus 2)
	[ -z "${RECV_BENCH_ICOUNT:-}" ] || vmopts=(--icount "$RECV_BENCH_ICOUNT" --cpus 1)
	"$top/tests/vm/run" "${vmopts[@]}" --module stock --disks 2 --disk-size 16G --mem 3072 --timeout 14400 \
		--disk-image "$work/small.img" --disk-image "$work/large.img" -- \
		env RECV_BENCH_RUNS="$runs" RECV_BENCH_RENAMES="$renames" \
		RECV_BENCH_SERIAL="${RECV_BENCH_SERIAL:-}" bench/receive.sh --standalone-guest
}

case ${1:-} in
--guest) shift; guest_main "$@" ;;
--make-renames) shift; make_renames "$@" ;;
--standalone-guest) guest_standalone ;;
"") host_main ;;
*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
