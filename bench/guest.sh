#!/bin/bash
# Guest side of `make bench`.  Disks: vdb scratch, vdc large files, vdd small
# files, vde one file to reflink, vdf made ext4 afresh for each W9 run, vdg
# a tar archive of the small files (made with the image from the same tree);
# after them, only where bench/run attached them (their workloads wanted),
# $BENCH_COMP_DEV W1Z's compressible files and $BENCH_HUGE_DEV W2M's
# $BENCH_HUGE_FILES small files.
# Writes $VM_OUT/results.tsv with one line per timed run: workload, implementation, pair, seconds, bytes, slab KiB delta, peak KiB, idle seconds.
set -u
. "$VM_TOP/tests/vm/lib-guest.sh"
pairs=${BENCH_PAIRS:-5}
# W2M's pairs (BENCH_HUGE_PAIRS, default BENCH_PAIRS): its stock send of a
# million files takes ten minutes of guest time, hours of emulation.
huge_pairs=${BENCH_HUGE_PAIRS:-$pairs}
# pairs_of WORKLOAD: how many pairs it is timed in.
pairs_of() { if [ "$1" = W2M ]; then echo "$huge_pairs"; else echo "$pairs"; fi; }
B=/tmp/b
res=$VM_OUT/results.tsv
: > "$res"
bs=${BENCH_BS:-$VM_TOP/build/bin/btrfs-stream}
# BENCH_ONLY picks workloads (W1 ... W11; W6 is the receives of the W1,
# W1Z, W2 and W4 streams, W6-W1 and W6-W1Z those of W1's and W1Z's alone,
# W6R that of 50k file renames), so a run that cannot fit in one sitting
# can be done in parts.
# W2M (a million files) comes last of the kernel figures: it takes longest.
only=" ${BENCH_ONLY:-W1 W1Z W2 W3 W4 W5 W2M W6 W6R W6C W7 W8 W9 W10 W11} "
comp_dev=${BENCH_COMP_DEV:-} huge_dev=${BENCH_HUGE_DEV:-}
want() { case "$only" in *" $1 "*) return 0 ;; esac; return 1; }
want_any() {
	local w
	for w; do want "$w" && return 0; done
	return 1
}

mounts() {
	mkdir -p $B/scratch $B/large $B/small $B/shared $B/comp $B/huge
	mount /dev/vdb $B/scratch && mount /dev/vdc $B/large &&
		mount /dev/vdd $B/small && mount /dev/vde $B/shared &&
		{ [ -z "$comp_dev" ] || mount /dev/$comp_dev $B/comp; } &&
		{ [ -z "$huge_dev" ] || mount /dev/$huge_dev $B/huge; }
}
umounts() { umount $B/scratch $B/large $B/small $B/shared $B/comp $B/huge 2>/dev/null; }
now() { date +%s.%N; }
slab() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }
# Progress also goes to the results directory, which outlives the VM.
log() { echo "bench: $*" | tee -a "$VM_OUT/progress.log" >&2; }
# fail WHAT: a check failed; the run reports it and fails at the end.
fail() { log "check failed: $*"; echo "failed" >> "$VM_OUT/failures"; }

# switch_to IMPL: fresh mounts on the given module, caches dropped, so every
# run starts cold and alike.
switch_to() {
	umounts
	use_module "$1" || die "cannot load the $1 module"
	mounts || die "mount"
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# idle_ticks: the time (USER_HZ ticks) the guest's CPUs spent idle or in
# I/O wait.  Under -icount that time runs at the host's pace, so a figure
# whose idle share grew took longer on the host's disk or scheduler (other
# VMs), not in the guest's own work.
idle_ticks() { awk '$1 == "cpu" { print $5 + $6; exit }' /proc/stat; }

# record WORKLOAD IMPL PAIR CMD...: time CMD, note its output size if it
# wrote $B/scratch/out, the slab growth, the peak resident memory (KiB) of
# CMD and its children and the guest's idle seconds meanwhile (the time
# less them is what the guest computed; see idle_ticks).
record() {
	local w=$1 impl=$2 pair=$3 t0 t1 s0 s1 i0 i1 bytes= rss idle
	shift 3
	rm -f $B/scratch/out $B/rss
	s0=$(slab)
	i0=$(idle_ticks)
	t0=$(now)
	/usr/bin/time -f %M -o $B/rss "$@" ||
		{ log "$w $impl pair $pair failed: $*"; echo "failed" >> "$VM_OUT/failures"; }
	t1=$(now)
	i1=$(idle_ticks)
	s1=$(slab)
	rss=$(tail -n 1 $B/rss)
	[ -f $B/scratch/out ] && bytes=$(stat -c %s $B/scratch/out)
	idle=$(awk -v t=$((i1 - i0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$impl" "$pair" \
		"$(echo "$t1 - $t0" | bc)" "${bytes:-}" "$((s1 - s0))" "$rss" "$idle" >> "$res"
	log "$w $impl pair $pair: $(echo "$t1 - $t0" | bc) s ${bytes:+$bytes bytes }(idle $idle s)"
}

# alternate WORKLOAD CMD_OURS CMD_BASE: A B A B ..., each in a fresh mount.
# For kernel workloads both commands are the same and the module differs.
kernel_workload() {
	local w=$1 p
	shift
	for p in $(seq 1 "$(pairs_of "$w")"); do
		switch_to ours; record "$w" ours "$p" "$@"
		switch_to stock; record "$w" stock "$p" "$@"
	done
}
mkfs.btrfs -q -f /dev/vdb > /dev/null || die "mkfs scratch"
use_module stock || die "module"
mounts || die "mount"
{
	echo "guest kernel: $(uname -r)"
	echo "guest CPUs: $(nproc), memory: $(awk '/MemTotal/ {print $2}' /proc/meminfo) KiB"
	if [ -n "${BENCH_ICOUNT:-}" ]; then
		echo "emulation: QEMU TCG (no KVM), -icount shift=$BENCH_ICOUNT: guest time counts instructions ($((1 << BENCH_ICOUNT)) ns each) and real time only while idle"
	else
		echo "emulation: QEMU TCG (no KVM), multi-threaded, wall-clock guest time"
	fi
	echo "btrfs-progs: $(btrfs --version)"
	echo "small files: $(find $B/small -type f | wc -l), large data: $(du -sm $B/large | cut -f1) MiB"
	# Not counted here: walking a million files costs minutes of emulation.
	[ -z "$huge_dev" ] || echo "W2M files: ${BENCH_HUGE_FILES:-} (as made on the host)"
	[ -z "$huge_dev" ] || echo "W2M pairs: $huge_pairs"
	[ -z "$comp_dev" ] || echo "compressible data: $(du -sm --apparent-size $B/comp | cut -f1) MiB"
	echo "pairs: $pairs"
	echo "workloads:$only"
} > "$VM_OUT/facts.txt"

# Sources, made once: read-only snapshots of each image's top level.
btrfs -q subvolume snapshot -r $B/large $B/large/snap
btrfs -q subvolume snapshot -r $B/small $B/small/A
# W3: 0.1% of the small files changed; W4: rename the directory holding a
# quarter of the files. (Walking 200,000 files costs minutes of emulation,
# so only for the workloads that use these snapshots.)
if want_any W3 W4 W6 W6R W8; then
	find $B/small -path $B/small/A -prune -o -type f -name 'f*' -print | awk 'NR % 1000 == 7' |
		while read -r f; do echo changed >> "$f"; done
	btrfs -q subvolume snapshot -r $B/small $B/small/B
	mv $B/small/dir50k $B/small/dir50k-renamed
	btrfs -q subvolume snapshot -r $B/small $B/small/R
fi
# W6R: W4's stream is one rename; receive is also timed on 50k of them.
if want W6R; then
	python3 - $B/small/dir50k-renamed <<'PY'
import os, sys
d = sys.argv[1]
for name in os.listdir(d):
    os.rename(os.path.join(d, name), os.path.join(d, "r" + name[1:]))
PY
	btrfs -q subvolume snapshot -r $B/small $B/small/R2
fi
# W1Z: the compressible files compressed where they lie (mkfs --rootdir
# wrote them plain; defragment -c rewrites every extent compressed, -f
# writes it out), then checked on the extent items of the FS tree: the
# count of compressed file extents and the bytes they hold and take.
# extent_stats DEV: "compressed of all file extents, MiB in them, MiB on
# disk" over the regular file extents of DEV's top-level subvolume.
extent_stats() {
	btrfs inspect-internal dump-tree -t 5 "/dev/$1" | awk '
		/ EXTENT_DATA / { item = 1; next }
		item && /extent data disk byte/ { disk = $(NF - 2) == 0 ? -1 : $NF; next }
		item && /extent data offset/ { ram = $NF; next }
		item && /extent compression/ {
			if (disk >= 0) { all++; if ($3 != 0) { c++; cram += ram; cdisk += disk } }
			item = 0 }
		END { printf "%d %d %.1f %.1f\n", c, all, cram / 1048576, cdisk / 1048576 }'
}
if [ -n "$comp_dev" ]; then
	log "W1Z: compressing the source files (defragment -czstd)"
	btrfs filesystem defragment -r -f -czstd $B/comp || fail "W1Z: defragment -czstd"
	sync
	set -- $(extent_stats "$comp_dev")
	echo "W1Z note: source after defragment -czstd: $1 of $2 file extents compressed (dump-tree -t 5), holding $3 MiB of file data in $4 MiB ($(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')x)" >> "$VM_OUT/facts.txt"
	log "W1Z: $1 of $2 extents compressed, $3 MiB in $4 MiB"
	[ "${2:-0}" -gt 0 ] && [ $(($1 * 10)) -ge $(($2 * 9)) ] ||
		fail "W1Z: fewer than 90% of the source's file extents are compressed ($1 of $2)"
	set --
	btrfs -q subvolume snapshot -r $B/comp $B/comp/snap
elif want_any W1Z W6-W1Z; then
	fail "W1Z: no compressible image attached"
fi
# W2M: W2's tree at 5x.
if [ -n "$huge_dev" ]; then
	btrfs -q subvolume snapshot -r $B/huge $B/huge/A
elif want W2M; then
	fail "W2M: no image of its tree attached"
fi
# W5: 1000 files sharing one extent set.
if want W5; then
	mkdir $B/shared/files
	for i in $(seq 1 1000); do cp --reflink=always $B/shared/shared-source $B/shared/files/r$i; done
	btrfs -q subvolume snapshot -r $B/shared $B/shared/snap
fi
sync

send() { btrfs -q send "$@"; }
# kernel_figure WORKLOAD WHAT CMD: if wanted, time CMD in a shell on each module.
kernel_figure() {
	want "$1" || return 0
	log "$1: $2"
	kernel_workload "$1" sh -c "$3"
}
# ioctl_figure WORKLOAD WHAT CMD...: per pair and module, cold, the seconds
# CMD's main thread spends in BTRFS_IOC_SEND (strace -T).  Where the send is
# short next to starting the btrfs process (W4), this is the kernel's share.
ioctl_figure() {
	local w=$1 what=$2 p impl secs
	shift 2
	log "$w: $what"
	for p in $(seq 1 "$pairs"); do
		for impl in ours stock; do
			switch_to $impl
			secs=$(send_ioctl_seconds "$@")
			if [ -z "$secs" ]; then
				log "$w $impl pair $p failed (or no send ioctl traced): $*"
				echo "failed" >> "$VM_OUT/failures"
				continue
			fi
			printf '%s\t%s\t%s\t%s\t\t0\t\n' "$w" "$impl" "$p" "$secs" >> "$res"
			log "$w $impl pair $p: $secs s"
		done
	done
}

# limit_figure WORKLOAD CMD: issue 21's floor for a row, in the same boot:
# CMD reads (for a send) or writes (for a receive) the same data plainly,
# cold, once per pair. BENCH_LIMITS=0 leaves the limits out.
limit_figure() {
	local p
	want "$1" && [ "${BENCH_LIMITS:-1}" != 0 ] || return 0
	log "$1: its limit"
	for p in $(seq 1 "$(pairs_of "$1")"); do
		switch_to stock
		record "$1" limit "$p" bash -c "$2"
	done
}

# Kernel figures in the order BENCH_ONLY names them: a run that may not
# end in time does the most wanted first.
for w in $only; do
	case $w in
	W1) kernel_figure W1 "full send of the large files" \
		"btrfs -q send $B/large/snap > /dev/null"
		limit_figure W1 "cat $B/large/snap/large* > /dev/null" ;;
	W1Z) [ -n "$comp_dev" ] || continue
		kernel_figure W1Z "full send --compressed-data of the compressed files" \
		"btrfs -q send --compressed-data $B/comp/snap > /dev/null"
		# cat decompresses: the floor of reading the data, not the extents.
		limit_figure W1Z "cat $B/comp/snap/comp* > /dev/null" ;;
	W2M) [ -n "$huge_dev" ] || continue
		kernel_figure W2M "full send of W2's tree at 5x" \
		"btrfs -q send $B/huge/A > /dev/null"
		limit_figure W2M "set -o pipefail; tar -cf - -C $B/huge/A . | cat > /dev/null" ;;
	W2) kernel_figure W2 "full send of the small files" \
		"btrfs -q send $B/small/A > /dev/null"
		# Through a pipe: GNU tar does not read the files when the
		# archive it writes is /dev/null.
		limit_figure W2 "set -o pipefail; tar -cf - -C $B/small/A . | cat > /dev/null" ;;
	W3) kernel_figure W3 "incremental send, 0.1% changed" \
		"btrfs -q send -p $B/small/A $B/small/B > /dev/null" ;;
	W4) kernel_figure W4 "incremental send after a 50k-file directory rename" \
		"btrfs -q send -p $B/small/B $B/small/R > /dev/null"
		ioctl_figure W4-ioctl "W4's send ioctl alone" \
			btrfs -q send -p $B/small/B $B/small/R ;;
	W5) kernel_figure W5 "full send of 1000 reflinked files" \
		"btrfs -q send -f $B/scratch/out $B/shared/snap" ;;
	esac
done

# W8 before the receives: its rsync baseline walks the snapshots W3 made.
if ! want W8; then
	:
elif "$bs" diff --help > /dev/null 2>&1; then
	log "W8: diff of W3's snapshots (module: stock) vs rsync"
	switch_to stock
	for p in $(seq 1 "$pairs"); do
		sync; echo 3 > /proc/sys/vm/drop_caches
		record W8 ours "$p" sh -c "'$bs' diff $B/small/A $B/small/B > /dev/null"
		sync; echo 3 > /proc/sys/vm/drop_caches
		record W8 baseline "$p" sh -c "rsync -ain --delete $B/small/A/ $B/small/B/ > /dev/null"
	done
else
	echo "W8: btrfs-stream diff is not built yet" >> "$VM_OUT/facts.txt"
fi

# Streams for the userspace figures, written once by the stock module.
switch_to stock
if want_any W6 W6-W1 W7 W10; then
	log "streams for W6, W7 and W10, by the stock module"
	send -f $B/scratch/W1.stream $B/large/snap
fi
if want W6 || want W6R; then
	log "stream for W6 (and W9), by the stock module"
	send -f $B/scratch/W2.stream $B/small/A
fi
if want W6 || want W6R; then
	log "incremental streams for W6, by the stock module"
	send -p $B/small/A -f $B/scratch/W3.stream $B/small/B
	send -p $B/small/B -f $B/scratch/W4.stream $B/small/R
fi
want W6R && send -p $B/small/R -f $B/scratch/W4R.stream $B/small/R2
# W6-W1Z's: a v2 stream whose WRITEs of the compressed files are encoded
# (the compressed extents as they are on disk).
if want_any W6 W6-W1Z && [ -n "$comp_dev" ]; then
	log "compressed-data stream for W6-W1Z, by the stock module"
	send --compressed-data -f $B/scratch/W1Z.stream $B/comp/snap || fail "W1Z stream"
	echo "W6-W1Z note: stream (btrfs send --compressed-data, stock module) $(stat -c %s $B/scratch/W1Z.stream) bytes for $(find $B/comp/snap -type f -printf '%s\n' | awk '{ s += $1 } END { print s }') bytes of file data" >> "$VM_OUT/facts.txt"
fi

# W6: receive the same stream with ours and with btrfs-progs, into a
# directory emptied before each run.  W4's parents are received once.
# empty_dest DIR NAME: delete the received subvolume and wait until the
# cleaner has dropped its tree, so that work is not timed in the next run.
empty_dest() {
	btrfs -q subvolume delete -c "$1/$2" > /dev/null 2>&1
	btrfs -q subvolume sync "$1" > /dev/null
	sync
	echo 3 > /proc/sys/vm/drop_caches
}
# receive_workload W DIR NAME [TAR]: with TAR, an archive of the same
# files, also the row's limit: tar -x of it into a new subvolume.
receive_workload() {
	local w=$1 dir=$2 name=$3 tar=${4:-} p
	log "W6-$w: receive of the $w stream"
	[ "${BENCH_LIMITS:-1}" != 0 ] || tar=
	for p in $(seq 1 "$pairs"); do
		empty_dest "$dir" "$name"
		# Timed to the end of a sync: both pay for their writeback.
		record "W6-$w" ours "$p" sh -c "'$bs' receive -q -f $B/scratch/$w.stream '$dir' && sync"
		empty_dest "$dir" "$name"
		record "W6-$w" baseline "$p" sh -c "btrfs -q receive -f $B/scratch/$w.stream '$dir' && sync"
		[ -n "$tar" ] || continue
		empty_dest "$dir" "$name"
		record "W6-$w" limit "$p" sh -c "btrfs -q subvolume create '$dir/$name' && tar -xf '$tar' -C '$dir/$name' && sync"
	done
	empty_dest "$dir" "$name"
}
# encoded_extents DIR: "encoded of all extents" of DIR's files (filefrag -v).
encoded_extents() {
	find "$1" -type f -exec filefrag -v {} + | awk '
		$1 ~ /^[0-9]+:$/ { all++; if ($NF ~ /encoded/) c++ }
		END { print c + 0, all + 0 }'
}
# w1z_receive_check: once, untimed, after the pairs: our receive of the
# compressed-data stream gives the source's tree and keeps the extents
# compressed (encoded writes, not decompressed and written plain).
w1z_receive_check() {
	local n
	empty_dest $B/scratch/full snap
	"$bs" receive -q -f $B/scratch/W1Z.stream $B/scratch/full && sync || { fail "W6-W1Z: check receive"; return; }
	if "$VM_TOP/build/bin/treecmp" $B/comp/snap $B/scratch/full/snap > $B/treecmp.out 2>&1; then
		n="equals the source by treecmp"
	else
		n="differs from the source, first: $(head -n 3 $B/treecmp.out | tr '\n' ';')"
		fail "W6-W1Z: our received tree differs from the source"
	fi
	set -- $(encoded_extents $B/scratch/full/snap)
	echo "W6-W1Z note: our received tree $n; $1 of its $2 extents compressed (filefrag -v: encoded)" >> "$VM_OUT/facts.txt"
	[ $(($1 * 10)) -ge $(($2 * 9)) ] || fail "W6-W1Z: fewer than 90% of our received extents are compressed ($1 of $2)"
	empty_dest $B/scratch/full snap
}
if ! want_any W6 W6-W1 W6R W6-W1Z; then
	:
elif "$bs" receive --help > /dev/null 2>&1; then
	mkdir -p $B/scratch/full $B/scratch/incr
	# Archives of the same files for the limits: W1's made here (8
	# files), W2's on the host (vdg; 200,000 files).
	if want_any W6 W6-W1; then
		[ "${BENCH_LIMITS:-1}" = 0 ] || tar -cf $B/scratch/W1.tar -C $B/large/snap . ||
			die "tar archive of the W1 files"
		receive_workload W1 $B/scratch/full snap $B/scratch/W1.tar
		rm -f $B/scratch/W1.tar
	fi
	if want W6; then
		[ "${BENCH_LIMITS:-1}" = 0 ] || cat /dev/vdg > $B/scratch/W2.tar ||
			die "copy of the tar archive"
		receive_workload W2 $B/scratch/full A $B/scratch/W2.tar
	fi
	if want_any W6 W6-W1Z && [ -f $B/scratch/W1Z.stream ]; then
		[ "${BENCH_LIMITS:-1}" = 0 ] || tar -cf $B/scratch/W1Z.tar -C $B/comp/snap . ||
			die "tar archive of the W1Z files"
		receive_workload W1Z $B/scratch/full snap $B/scratch/W1Z.tar
		rm -f $B/scratch/W1Z.tar
		w1z_receive_check
	fi
	if want_any W6 W6R; then
		log "parents of the incremental streams, received by btrfs-progs"
		btrfs -q receive -f $B/scratch/W2.stream $B/scratch/incr
		btrfs -q receive -f $B/scratch/W3.stream $B/scratch/incr
	fi
	want W6 && receive_workload W4 $B/scratch/incr R
	if want W6R; then
		btrfs -q receive -f $B/scratch/W4.stream $B/scratch/incr
		receive_workload W4R $B/scratch/incr R2
	fi
else
	echo "W6: btrfs-stream receive is not built yet" >> "$VM_OUT/facts.txt"
fi

# W6C: what checkpoints cost (issue 19): our receive with --resumable
# (a checkpoint every 256 MiB of stream, the default) against our receive
# without it, on W6's full streams.  The resume directory it leaves in
# DEST is emptied with the received subvolume.
empty_resumable() {
	local s
	for s in "$1"/.btrfs-stream-resume/*/; do
		[ -d "$s" ] && btrfs -q subvolume delete -c "$s" > /dev/null 2>&1
	done
	rm -rf "$1/.btrfs-stream-resume"
	empty_dest "$1" "$2"
}
# Before the pairs, one untimed warm-up receive (plain, as the baseline's):
# the first receive after the streams are written and W11's subvolumes are
# dropped otherwise runs slower, and pair 1's ours (run first) paid for it
# (17.03 s against 15.00 and 15.03 in run 20261206-230758).  Its seconds go
# to the notes, so that a slow first receive stays visible, and the data
# allocation before each timed receive to the progress log.
data_alloc() { btrfs filesystem df -b "$1" | awk -F'[ ,=]+' '/^Data/ { print "data total " $4 ", used " $6 }'; }
resumable_workload() {
	local w=$1 dir=$2 name=$3 p t0 t1
	log "W6C-$w: resumable receive of the $w stream"
	empty_resumable "$dir" "$name"
	log "W6C-$w: warm-up receive (untimed; $(data_alloc "$dir"))"
	t0=$(now)
	"$bs" receive -q -f $B/scratch/$w.stream "$dir" && sync || fail "W6C-$w: warm-up receive"
	t1=$(now)
	echo "W6C-$w note: untimed warm-up receive (without --resumable) before the pairs: $(echo "$t1 - $t0" | bc) s" >> "$VM_OUT/facts.txt"
	for p in $(seq 1 "$pairs"); do
		empty_resumable "$dir" "$name"
		log "W6C-$w ours pair $p: before it, $(data_alloc "$dir")"
		record "W6C-$w" ours "$p" sh -c "'$bs' receive -q --resumable -f $B/scratch/$w.stream '$dir' && sync"
		empty_resumable "$dir" "$name"
		log "W6C-$w baseline pair $p: before it, $(data_alloc "$dir")"
		record "W6C-$w" baseline "$p" sh -c "'$bs' receive -q -f $B/scratch/$w.stream '$dir' && sync"
	done
	empty_resumable "$dir" "$name"
}
# W11: an interrupted transfer resumed (issue 19).  With our module (its
# kernel resume: the send starts at the point without reading the data
# before it), the full stream of the W1 files is received with
# --resumable up to 90% of its bytes (a cut pipe), then per pair, cold:
# ours = the resumed send piped into the resumed receive, from that same
# interrupted state (made again, untimed, before each pair); baseline =
# the uninterrupted transfer, send piped into a plain receive (no
# checkpoints: W6C prices those).  Once, untimed: the continuation's bytes
# against the rest of the stream after the cut, and the sectors of the
# source disk (vdc) read by the resumed send alone and by the full send
# alone.  At the end the resumed tree must equal the source.
sectors_read() { awk '{ print $3 }' /sys/block/$1/stat; }
cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# pct PART WHOLE: PART in percent of WHOLE, four decimals (bc's scale
# truncates 13 KB of 2 GiB to 0).
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a * 100 / b }'; }
# w11_cut: DEST holds the partial subvolume of the 90% receive; prints its token.
w11_cut() {
	empty_resumable $B/scratch/w11 snap
	head -c "$w11_at" $B/scratch/W11.stream | "$bs" receive -q --resumable $B/scratch/w11 2> /dev/null
	"$bs" receive --resume-token $B/scratch/w11/snap
}
w11_measure() {
	local - tok=$1 r0 r1 r2 full cont rest
	set -o pipefail
	cold; r0=$(sectors_read vdc)
	"$bs" send -q $B/large/snap | cat > /dev/null || { fail "W11: full send"; return; }
	cold; r1=$(sectors_read vdc)
	"$bs" send -v -v --resume "$tok" -f $B/scratch/W11.cont $B/large/snap 2> $B/w11.err ||
		{ fail "W11: resumed send: $(tail -n 1 $B/w11.err)"; return; }
	r2=$(sectors_read vdc)
	grep -q "resuming in the kernel" $B/w11.err ||
		fail "W11: the resumed send did not start in the kernel: $(tail -n 1 $B/w11.err)"
	full=$((r1 - r0)) cont=$(stat -c %s $B/scratch/W11.cont) rest=$((w11_size - w11_at))
	rm -f $B/scratch/W11.cont
	{
		echo "W11 note: stream $w11_size bytes (our module), cut at $w11_at (90%); continuation $cont bytes on the pipe, the rest after the cut $rest, $((cont - rest)) more ($(pct $((cont - rest)) "$w11_size")% of the stream; bound 1%)"
		echo "W11 note: source disk sectors read (vdc, cold): resumed send $((r2 - r1)), full send $full ($(pct $((r2 - r1)) "$full")%)"
	} >> "$VM_OUT/facts.txt"
	log "W11: continuation $cont bytes, rest $rest; sectors read: resumed $((r2 - r1)), full $full"
	[ $((cont - rest)) -le $((w11_size / 100)) ] ||
		fail "W11: the continuation ($cont bytes) exceeds the rest after the cut ($rest) by more than 1% of the stream"
}
if want W11; then
	log "W11: resumed transfer of W1 cut at 90% vs the uninterrupted transfer (module: ours)"
	switch_to ours
	[ -e /sys/fs/btrfs/features/send_resume ] || fail "W11: our module does not advertise send_resume"
	mkdir -p $B/scratch/w11
	"$bs" send -q -f $B/scratch/W11.stream $B/large/snap || die "W11 stream"
	w11_size=$(stat -c %s $B/scratch/W11.stream)
	w11_at=$((w11_size * 9 / 10))
	for p in $(seq 1 "$pairs"); do
		if ! tok=$(w11_cut); then
			fail "W11 pair $p: no resume token after the cut"
			continue
		fi
		[ "$p" = 1 ] && w11_measure "$tok"
		cold
		record W11 ours "$p" bash -c "set -o pipefail; '$bs' send -q --resume '$tok' $B/large/snap | '$bs' receive -q --resumable $B/scratch/w11 && sync"
		if [ "$p" = "$pairs" ]; then
			if "$VM_TOP/build/bin/treecmp" $B/large/snap $B/scratch/w11/snap > $B/treecmp.out 2>&1; then
				echo "W11 note: the resumed tree (pair $p) equals the source by treecmp" >> "$VM_OUT/facts.txt"
			else
				echo "W11 note: the resumed tree (pair $p) differs from the source, first: $(head -n 3 $B/treecmp.out | tr '\n' ';')" >> "$VM_OUT/facts.txt"
				fail "W11 pair $p: the resumed tree differs from the source"
			fi
			btrfs subvolume show $B/scratch/w11/snap | grep -Eq 'Received UUID:[[:space:]]+[0-9a-f]{8}-' ||
				fail "W11 pair $p: the resumed subvolume is not marked received"
		fi
		empty_resumable $B/scratch/w11 snap
		record W11 baseline "$p" bash -c "set -o pipefail; '$bs' send -q $B/large/snap | '$bs' receive -q $B/scratch/w11 && sync"
	done
	empty_resumable $B/scratch/w11 snap
	rm -f $B/scratch/W11.stream
	switch_to stock
fi

if want W6C; then
	mkdir -p $B/scratch/full
	[ -f $B/scratch/W1.stream ] || send -f $B/scratch/W1.stream $B/large/snap
	[ -f $B/scratch/W2.stream ] || send -f $B/scratch/W2.stream $B/small/A
	resumable_workload W1 $B/scratch/full snap
	resumable_workload W2 $B/scratch/full A
fi

want W7 && log "W7: dump of the W1 stream"
want W7 && for p in $(seq 1 "$pairs"); do
	cat $B/scratch/W1.stream > /dev/null
	record W7 ours "$p" sh -c "'$bs' dump -f $B/scratch/W1.stream > /dev/null"
	record W7 baseline "$p" sh -c "btrfs receive --dump -f $B/scratch/W1.stream > /dev/null"
done

# W10: one file of a stream without receiving it, against receiving all.
if want W10; then
	log "W10: cat of one file of the W1 stream vs its full receive"
	mkdir -p $B/scratch/full
	"$bs" cat $B/scratch/W1.stream large5 | cmp - $B/large/snap/large5 ||
		fail "W10: cat's bytes differ from large5"
	for p in $(seq 1 "$pairs"); do
		empty_dest $B/scratch/full snap
		record W10 ours "$p" sh -c "'$bs' cat $B/scratch/W1.stream large5 > /dev/null"
		empty_dest $B/scratch/full snap
		record W10 baseline "$p" sh -c "'$bs' receive -q -f $B/scratch/W1.stream $B/scratch/full && sync"
	done
	cmp $B/scratch/full/snap/large5 $B/large/snap/large5 || fail "W10: received large5 differs"
	empty_dest $B/scratch/full snap
fi

# W9: the plain backend against GNU tar, the tool people use for this.
# Both write the W2 files onto a fresh ext4 filesystem (vdf), timed to the
# end of a sync. The first pair's results are compared with the source,
# untimed, so the two trees are known to be equal (a comparison of 200,000
# files costs minutes of emulation; later pairs run the same commands).
fresh_ext4() {
	umount $B/ext4 2> /dev/null
	# No lazy init: ext4lazyinit zeroing inode tables during a timed run
	# would be charged to whichever ran first.
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/vdf > /dev/null &&
		mount /dev/vdf $B/ext4 || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
}
# same_as_source IMPL PAIR: tar cannot restore atimes, so they are left out.
same_as_source() {
	[ "$2" = 1 ] || return 0
	if "$VM_TOP/build/bin/treecmp" -i atime $B/small/A $B/ext4/A > $B/treecmp.out 2>&1; then
		echo "W9 check: $1's tree on ext4 (pair 1) equal to the source by treecmp -i atime" >> "$VM_OUT/facts.txt"
	else
		# The first differences say what the figure would hide.
		echo "W9 check: $1's tree on ext4 (pair 1) differs from the source ($(wc -l < $B/treecmp.out) lines), first: $(head -n 3 $B/treecmp.out | tr '\n' ';')" >> "$VM_OUT/facts.txt"
		fail "W9 $1 pair $2: the tree on ext4 differs from its source"
	fi
}
if want W9; then
	log "W9: receive of the W2 stream onto ext4 vs tar -x onto ext4"
	modprobe ext4 || die "ext4 module"
	mkdir -p $B/ext4
	# Sent by our module (half the stock module's time) unless W6 made it.
	if [ ! -f $B/scratch/W2.stream ]; then
		switch_to ours
		log "W9: W2 stream, by our module"
		send -f $B/scratch/W2.stream $B/small/A || die "W2 stream"
		echo "W9 stream: W2's, sent by our module" >> "$VM_OUT/facts.txt"
	fi
	# The archive was made on the host from the tree the image holds; on
	# the same filesystem as the stream, so both read alike.
	[ -f $B/scratch/W2.tar ] || cat /dev/vdg > $B/scratch/W2.tar || die "copy of the tar archive"
	echo "W9 tar: $(tar --version | head -n 1), archive $(stat -c %s $B/scratch/W2.tar) bytes, stream $(stat -c %s $B/scratch/W2.stream) bytes" >> "$VM_OUT/facts.txt"
	for p in $(seq 1 "$pairs"); do
		fresh_ext4 || die "mkfs.ext4"
		record W9 ours "$p" sh -c "'$bs' receive -q -f $B/scratch/W2.stream $B/ext4 && sync"
		same_as_source ours "$p"
		fresh_ext4 || die "mkfs.ext4"
		record W9 baseline "$p" sh -c "mkdir $B/ext4/A && tar -xf $B/scratch/W2.tar -C $B/ext4/A && sync"
		same_as_source tar "$p"
	done
	umount $B/ext4
	rm -f $B/scratch/W2.tar
fi

umounts
[ ! -s "$VM_OUT/failures" ]
