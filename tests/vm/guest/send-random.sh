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
# RANDOM_ENTRIES, RANDOM_OPS: tree size and number of operations.
# RANDOM_MODULE: the module named in replay commands (ours or stock).
# Failing seeds are also listed in $VM_OUT/failed-seeds.
# Disks: /dev/vdb source, /dev/vdc destination.
. "$VM_TOP/tests/vm/lib-guest.sh"

SRC=/tmp/mnt/src DST=/tmp/mnt/dst ST=/tmp/streams
FSGEN=$VM_TOP/build/bin/fsgen
ENTRIES=${RANDOM_ENTRIES:-120} OPS=${RANDOM_OPS:-80}
SEEDS=${RANDOM_SEEDS:?RANDOM_SEEDS lists the seeds}

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

# fsgen_all ACTION SNAPSHOT: one fsgen process for every seed (a process
# start costs up to a second under TCG), then a snapshot of each.
fsgen_all() {
	local args=() s
	for s in $SEEDS; do args+=(--seed $s --$1 $SRC/r$s); done
	$FSGEN --entries $ENTRIES --ops $OPS "${args[@]}" > $ST/fsgen.log 2>&1 ||
		die "fsgen --$1 failed: $(tail -n 3 $ST/fsgen.log)"
	for s in $SEEDS; do
		btrfs -q subvolume snapshot -r $SRC/r$s $SRC/r$s.$2 || fail $s "snapshot $2 failed"
	done
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

t0=$SECONDS
for s in $SEEDS; do btrfs -q subvolume create $SRC/r$s || die "subvolume create"; done
fsgen_all populate A
fsgen_all mutate B
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

for s in $SEEDS; do
	tap_n=$((tap_n + 1))
	if ! failed $s; then
		echo "ok $tap_n - seed $s"
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
