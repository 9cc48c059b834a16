#!/bin/bash
# Guest: btrfs-stream ls, cat and extract (docs/archive.md) on real kernel
# streams of random trees.  For every seed in ARCHIVE_SEEDS: fsgen
# populates a subvolume on a compress=zstd btrfs (snapshot A), mutates it
# (B) and mutates it again (C); A is sent in full, B from A, C from B,
# odd seeds with --proto 2 --compressed-data (ENCODED_WRITE), even ones in
# protocol 1.  The three streams are received one after the other with
# the plain backend onto ext4, and for each step of the chain (A; A B;
# A B C) extract must give what receive gave (treecmp), ls --json must
# describe it (tests/tools/archive-ls-check.py), and, for C, cat of the
# largest regular files must give the received bytes.
# Disks: /dev/vdb source (btrfs), /dev/vdc destination (ext4).
. "$VM_TOP/tests/vm/lib-guest.sh"

SRC=/tmp/mnt/src DST=/tmp/mnt/dst ST=/tmp/streams
BS=$VM_TOP/build/bin/btrfs-stream
FSGEN=$VM_TOP/build/bin/fsgen
LSCHECK=$VM_TOP/tests/tools/archive-ls-check.py
SEEDS=${ARCHIVE_SEEDS:-1 2 3}
ENTRIES=${ARCHIVE_ENTRIES:-150} OPS=${ARCHIVE_OPS:-80} CATS=${ARCHIVE_CATS:-25}

fresh_btrfs /dev/vdb $SRC compress=zstd || die "mkfs source"
modprobe ext4
mkfs.ext4 -q -F /dev/vdc && mkdir -p $DST && mount /dev/vdc $DST || die "mkfs.ext4 destination"
mkdir -p $ST

# streams SEED: the three streams of a seed, sent by btrfs send.
streams() {
	local s=$1 opts=(--proto 1)
	[ $((s % 2)) = 1 ] && opts=(--proto 2 --compressed-data)
	btrfs -q subvolume create $SRC/r$s &&
	$FSGEN --seed $s --populate $SRC/r$s --entries $ENTRIES > /dev/null &&
	sync && btrfs -q subvolume snapshot -r $SRC/r$s $SRC/r$s.A &&
	$FSGEN --seed $s --mutate $SRC/r$s --ops $OPS > /dev/null &&
	sync && btrfs -q subvolume snapshot -r $SRC/r$s $SRC/r$s.B &&
	$FSGEN --seed $((s + 1000)) --mutate $SRC/r$s --ops $OPS > /dev/null &&
	sync && btrfs -q subvolume snapshot -r $SRC/r$s $SRC/r$s.C &&
	btrfs -q send "${opts[@]}" -f $ST/$s.A $SRC/r$s.A &&
	btrfs -q send "${opts[@]}" -p $SRC/r$s.A -f $ST/$s.B $SRC/r$s.B &&
	btrfs -q send "${opts[@]}" -p $SRC/r$s.B -f $ST/$s.C $SRC/r$s.C
}

# same_as_receive SEED STEP STREAM...: extract and ls of the chain against
# what receive made of it (treecmp first: reading the tree moves atimes).
same_as_receive() {
	local s=$1 step=$2 x=$DST/x$1.$2
	shift 2
	mkdir $x &&
	$BS extract "$@" -C $x &&
	treecmp $DST/recv$s/r$s.$step $x &&
	$BS ls --json "$@" > $ST/$s.$step.json &&
	python3 $LSCHECK $ST/$s.$step.json $DST/recv$s/r$s.$step
}

# cat_largest SEED STREAM...: cat of the CATS largest files of C.
cat_largest() {
	local s=$1 f bad=0 n=0
	shift
	# A file, not a process substitution: the guest has no /dev/fd.
	(cd $DST/recv$s/r$s.C && find . -type f -printf '%s %P\0' | sort -rnz |
		head -z -n $CATS | cut -z -d' ' -f2-) > $ST/largest
	while IFS= read -r -d '' f; do
		n=$((n + 1))
		$BS cat "$@" "$f" > $ST/cat.out || { echo "cat '$f' failed"; bad=1; continue; }
		cmp $ST/cat.out "$DST/recv$s/r$s.C/$f" || bad=1
	done < $ST/largest
	echo "$n files compared"
	[ $bad = 0 ] && [ $n -gt 0 ]
}

failed_before=0
for s in $SEEDS; do
	check "seed $s: full and two incremental streams sent" streams $s || continue
	encoded=$($BS dump -f $ST/$s.A | grep -c '^encoded_write')
	[ $((s % 2)) = 1 ] && check "seed $s: --compressed-data gave ENCODED_WRITEs ($encoded)" test "$encoded" -gt 0
	mkdir $DST/recv$s
	# Each step is compared before the next is received: receiving a
	# snapshot copies its parent, and reading a symlink moves its atime.
	chain=()
	for step in A B C; do
		chain+=($ST/$s.$step)
		check "seed $s: $step received with the plain backend" \
			$BS receive --backend plain -q -f $ST/$s.$step $DST/recv$s
		check "seed $s: extract and ls of ${chain[*]##*/} as received" \
			same_as_receive $s $step "${chain[@]}"
	done
	check "seed $s: cat of the largest files of C" cat_largest $s $ST/$s.A $ST/$s.B $ST/$s.C
	check_fails "seed $s: C without B is a broken chain" $BS ls $ST/$s.A $ST/$s.C
	# A failing seed's streams, to replay on the host (extract needs no btrfs).
	if [ $tap_failed -gt $failed_before ]; then
		cp $ST/$s.A $ST/$s.B $ST/$s.C "$VM_OUT/" && echo "# seed $s: streams kept in \$VM_OUT"
	fi
	failed_before=$tap_failed
done
tap_done
