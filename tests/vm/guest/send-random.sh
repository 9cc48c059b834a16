#!/bin/bash
# Guest: randomized differential test of incremental send.  For every seed
# in RANDOM_SEEDS: a fresh subvolume populated by `fsgen --populate`,
# snapshot A, `fsgen --mutate`, snapshot B; A sent in full and received by
# btrfs receive on a second disk, B sent with -p A and received beside it,
# both compared with their sources by treecmp.  One TAP line per seed; a
# failing seed prints the command that replays it alone.
#
# The phases run over all seeds in turn (populate all, send all A, send
# all B), so that INCR_MODULE=stock can swap the stock module in between
# the full sends (ours, exact) and the incremental ones, once per boot,
# and so that one fsgen, one full send and one receive of the incremental
# streams serve every seed.  Each seed still has its own subvolume and its
# own `send -p A B`, so a seed alone (the replay) sends the same changes.
# Odd seeds send protocol 2, even ones protocol 1.
#
# fsgen runs with --orphans (RANDOM_ORPHANS=0 leaves them out, for seeds
# recorded before they existed): one fsgen process makes every seed's
# trees and holds its inodes without links open until the sends are done.
# Snapshots do not keep the orphans of their subvolume, so after each
# snapshot is taken it is made writable, fsgen orphans a few of its
# entries (--orphan-snapshot), and it is made read-only again.  After the
# comparison, every received B must share at least the bytes its source
# shares (tests/tools/sharing.py, docs/incremental-tests.md); the ok line
# reports both.
#
# RANDOM_ENTRIES, RANDOM_OPS: tree size and number of operations.
# RANDOM_MODULE: the module named in replay commands (ours or stock).
# Failing seeds are also listed in $VM_OUT/failed-seeds.
# Disks: /dev/vdb source, /dev/vdc destination.
. "$VM_TOP/tests/vm/lib-guest.sh"

SRC=/tmp/mnt/src DST=/tmp/mnt/dst ST=/tmp/streams
FSGEN=$VM_TOP/build/bin/fsgen
ENTRIES=${RANDOM_ENTRIES:-120} OPS=${RANDOM_OPS:-80}
SEEDS=${RANDOM_SEEDS:?RANDOM_SEEDS lists the seeds}
ORPHANS=${RANDOM_ORPHANS:-1}
# Swapping modules unmounts the source, which open orphans would keep busy.
[ -n "${INCR_MODULE:-}" ] && ORPHANS=0

fresh_btrfs /dev/vdb $SRC || die "mkfs source"
fresh_btrfs /dev/vdc $DST || die "mkfs destination"
mkdir -p $ST

# fail SEED TEXT...: keep the first failure of a seed.
fail() {
	local s=$1
	shift
	[ -e $ST/$s.failed ] || printf '%s\n' "$*" > $ST/$s.failed
}
failed() { [ -e $ST/$1.failed ]; }

# snap_all NAME: a read-only snapshot r$s.NAME of every seed's subvolume.
snap_all() {
	local s
	for s in $SEEDS; do
		btrfs -q subvolume snapshot -r $SRC/r$s $SRC/r$s.$1 || fail $s "snapshot $1 failed"
	done
}

# ro_all NAME true|false: every r$s.NAME read-only or writable.
ro_all() {
	local s
	for s in $SEEDS; do
		[ -d $SRC/r$s.$1 ] || continue
		btrfs property set -ts $SRC/r$s.$1 ro $2 || fail $s "property set $1 ro $2 failed"
	done
}

# wait_pause NAME: until fsgen (pid $FSGEN_PID) holds at pause NAME.
wait_pause() {
	while [ ! -e $ST/pause-$1.ready ]; do
		kill -0 $FSGEN_PID 2> /dev/null ||
			die "fsgen stopped before pause $1: $(tail -n 3 $ST/fsgen.log)"
		sleep 0.2
	done
}

# fsgen_args: one fsgen process for every seed (a process start costs up
# to a second under TCG): populate, pause A, [orphans in A, pause A-ro,]
# mutate, pause B, [orphans in B, pause B-ro,] pause end.
fsgen_args() {
	local s snap
	[ "$ORPHANS" = 1 ] && echo --orphans
	echo --entries $ENTRIES --ops $OPS
	for snap in A B; do
		for s in $SEEDS; do
			[ $snap = A ] && echo --seed $s --populate $SRC/r$s
			[ $snap = B ] && echo --seed $s --mutate $SRC/r$s
		done
		echo --pause $ST/pause-$snap
		[ "$ORPHANS" = 1 ] || continue
		for s in $SEEDS; do echo --seed $s --orphan-snapshot $SRC/r$s.$snap; done
		echo --pause $ST/pause-$snap-ro
	done
	echo --pause $ST/pause-end
}

# make_trees: the trees and snapshots A and B; fsgen then waits, its
# orphans open, until end_trees.
make_trees() {
	local snap
	$FSGEN $(fsgen_args) > $ST/fsgen.log 2>&1 &
	FSGEN_PID=$!
	for snap in A B; do
		wait_pause $snap && snap_all $snap
		[ "$ORPHANS" = 1 ] && ro_all $snap false
		touch $ST/pause-$snap.go
		[ "$ORPHANS" = 1 ] || continue
		wait_pause $snap-ro && ro_all $snap true && touch $ST/pause-$snap-ro.go
	done
	wait_pause end
}

end_trees() {
	touch $ST/pause-end.go
	wait $FSGEN_PID || die "fsgen failed: $(tail -n 3 $ST/fsgen.log)"
}

# full_all: every A in one stream (ours, exact: t101) and one receive.
full_all() {
	local snaps=() s
	for s in $SEEDS; do snaps+=($SRC/r$s.A); done
	btrfs -q send -f $ST/full "${snaps[@]}" && btrfs -q receive -f $ST/full $DST ||
		die "full send/receive of the A snapshots failed"
}

# incremental SEED: B sent from A; odd seeds in protocol 2.
incremental() {
	local s=$1
	failed $s && return
	btrfs -q send --proto $((s % 2 + 1)) -p $SRC/r$s.A -f $ST/$s.B $SRC/r$s.B 2> $ST/$s.err ||
		fail $s "send failed: $(tail -n 3 $ST/$s.err)"
}

# receive_all: the incremental streams in one receive; if it stops, the
# seeds not received yet are received one by one to tell which failed.
receive_all() {
	local s
	for s in $SEEDS; do failed $s || cat $ST/$s.B; done > $ST/incr
	btrfs -q receive -f $ST/incr $DST 2> $ST/incr.err && return
	for s in $SEEDS; do
		failed $s || [ -d $DST/r$s.B ] && continue
		btrfs -q receive -f $ST/$s.B $DST 2> $ST/$s.err ||
			fail $s "receive failed: $(tail -n 3 $ST/$s.err)"
	done
}

# compare SEED: B against its source; A too when B differs, to tell a
# full-send problem from an incremental one.
compare() {
	local s=$1
	failed $s && return
	treecmp $SRC/r$s.B $DST/r$s.B > $ST/$s.cmp 2>&1 && return
	if [ $SENDER_61 = yes ] && [ "$(wc -l < $ST/$s.cmp)" = 1 ] && grep -q '^\.: mtime: ' $ST/$s.cmp; then
		# the 6.1 code's top-directory mtime shortfall (see
		# send-incremental.sh, same_tree)
		echo $s >> $ST/shortfall-61
		return
	fi
	treecmp -q $SRC/r$s.A $DST/r$s.A || echo "(A differs too)" >> $ST/$s.cmp
	fail $s "B differs from the source: $(head -n 3 $ST/$s.cmp | tr '\n' ';')"
}

# sharing_all: every received B shares at least what its source shares.
sharing_all() {
	local s
	sync
	for s in $SEEDS; do
		failed $s || echo "$s $SRC/r$s.A $SRC/r$s.B $DST/r$s.A $DST/r$s.B"
	done | python3 $VM_TOP/tests/tools/sharing.py > $ST/sharing 2> $ST/sharing.err
	[ -s $ST/sharing.err ] && die "sharing.py failed: $(tail -n 3 $ST/sharing.err)"
	while read -r s verdict rest; do
		case $verdict in
		ok) echo "$rest" > $ST/$s.sharing ;;
		*) fail $s "received B shares less than its source: $rest" ;;
		esac
	done < $ST/sharing
}

t0=$SECONDS
for s in $SEEDS; do btrfs -q subvolume create $SRC/r$s || die "subvolume create"; done
make_trees
echo "# trees made in $((SECONDS - t0)) s"
t1=$SECONDS
full_all
echo "# full sends in $((SECONDS - t1)) s"
if [ -n "${INCR_MODULE:-}" ]; then
	umount $SRC $DST && use_module $INCR_MODULE && mount /dev/vdb $SRC && mount /dev/vdc $DST ||
		die "switch to the $INCR_MODULE module"
fi
SENDER_61=no
[ ! -e /sys/fs/btrfs/features/send_impl ] || grep -q ' btrfs_ioctl_send_legacy' /proc/kallsyms &&
	SENDER_61=yes
echo "# incremental streams from the 6.1 code: $SENDER_61"
t1=$SECONDS
for s in $SEEDS; do incremental $s; done
receive_all
for s in $SEEDS; do compare $s; done
echo "# incremental sends in $((SECONDS - t1)) s"
t1=$SECONDS
sharing_all
echo "# sharing compared in $((SECONDS - t1)) s"
end_trees

for s in $SEEDS; do
	tap_n=$((tap_n + 1))
	if ! failed $s; then
		echo "ok $tap_n - seed $s ($(cat $ST/$s.sharing) bytes)"
		continue
	fi
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - seed $s: $(cat $ST/$s.failed)"
	echo "#   replay: make check-long SEEDS=1 SEED0=$s MODULE=${RANDOM_MODULE:-ours}"
	echo $s >> $VM_OUT/failed-seeds
done
if [ -s $ST/shortfall-61 ]; then
	echo "# seeds where the 6.1 top-directory mtime shortfall was tolerated:" $(cat $ST/shortfall-61)
fi
n=$(echo $SEEDS | wc -w)
echo "# $n seeds in $((SECONDS - t0)) s, $(awk -v t=$((SECONDS - t0)) -v n=$n 'BEGIN { printf "%.2f", t / n }') s per seed"
tap_done
