#!/bin/bash
# Guest: streams made by `btrfs send` with the loaded module ($VM_MODULE),
# protocol 1 and protocol 2 with compressed data, received by our receive
# and by btrfs-progs' on two other filesystems; every received tree must
# equal its source (treecmp) and be marked received and read-only.
#
# Disks: /dev/vdb source, /dev/vdc ours, /dev/vdd btrfs-progs.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/receive-lib.sh"

src=/tmp/mnt/src ours=/tmp/mnt/ours progs=/tmp/mnt/progs st=/tmp/streams
exec 3>&1	# like_progs comments go straight to the TAP output
fresh_btrfs /dev/vdb $src || die "mkfs source"
fresh_btrfs /dev/vdc $ours || die "mkfs ours"
fresh_btrfs /dev/vdd $progs || die "mkfs progs"
mkdir -p $st

# ---------------------------------------------------------------------------
# Sources

. "$VM_TOP/tests/vm/guest/receive-sources.sh"

btrfs -q subvolume create $src/vol || die "subvolume vol"
populate_vol $src/vol || die "populate vol"
btrfs -q subvolume snapshot -r $src/vol $src/A
mutate_vol_b $src/vol || die "mutate vol for B"
btrfs -q subvolume snapshot -r $src/vol $src/B
mutate_vol_c $src/vol || die "mutate vol for C"
btrfs -q subvolume snapshot -r $src/vol $src/C

btrfs -q subvolume create $src/cvol || die "subvolume cvol"
populate_cvol $src/cvol || die "populate cvol"
btrfs -q subvolume snapshot -r $src/cvol $src/CA
mutate_cvol_b $src/cvol || die "mutate cvol"
btrfs -q subvolume snapshot -r $src/cvol $src/CB

# M1, M2: two small subvolumes sent in one stream.
for m in M1 M2; do
	btrfs -q subvolume create $src/m-$m
	echo "$m" > $src/m-$m/file
	btrfs -q subvolume snapshot -r $src/m-$m $src/$m
done

# BASE: a clone source; R (from M1) reflinks from it: send -p M1 -c BASE R.
btrfs -q subvolume create $src/base
head -c 2000000 /dev/urandom > $src/base/big
btrfs -q subvolume snapshot -r $src/base $src/BASE
btrfs -q subvolume snapshot $src/M1 $src/rvol
cp --reflink=always $src/BASE/big $src/rvol/copy
echo own > $src/rvol/own
btrfs -q subvolume snapshot -r $src/rvol $src/R

uuid_of() { subvol_field "$1" UUID; }
encoded_io_only() { set -- $(encoded_counts); [ "$1" -gt 0 ] && [ "$2" -eq 0 ]; }
decompressed_only() { set -- $(encoded_counts); [ "$1" -eq 0 ] && [ "$2" -gt 0 ]; }
has_flag() { lsattr -d "$2" | cut -d' ' -f1 | grep -q "$1"; }

# ---------------------------------------------------------------------------
# Streams: protocol 1 (default) and 2 with compressed data

# One check per stream, so that a send the module cannot make yet fails
# alone (its receives then fail too) and the others still run.
for v in v1 v2c; do
	opt=
	[ $v = v2c ] && opt=--compressed-data
	check "send $v A" btrfs -q send $opt -f $st/$v-A $src/A
	check "send $v B from A" btrfs -q send $opt -p $src/A -f $st/$v-B $src/B
	check "send $v C from B" btrfs -q send $opt -p $src/B -f $st/$v-C $src/C
	check "send $v CA" btrfs -q send $opt -f $st/$v-CA $src/CA
	check "send $v CB from CA" btrfs -q send $opt -p $src/CA -f $st/$v-CB $src/CB
	check "send $v BASE" btrfs -q send $opt -f $st/$v-BASE $src/BASE
	check "send $v M1" btrfs -q send $opt -f $st/$v-M1 $src/M1
	check "send $v R from M1, clone source BASE" \
		btrfs -q send $opt -p $src/M1 -c $src/BASE -f $st/$v-R $src/R
	$BSTREAM dump -f $st/$v-R > $st/$v-R.dump 2>&1
done
check "send M1 M2" btrfs -q send -f $st/multi $src/M1 $src/M2
check "send -e M1 M2" btrfs -q send -e -f $st/multi-e $src/M1 $src/M2

# ---------------------------------------------------------------------------
# Receive and compare

# roundtrip V SNAP [TREECMP OPTIONS]: receive stream V-SNAP with ours and
# progs into DIR/V, compare both with the source, check the marks.
roundtrip() {
	local v=$1 s=$2
	shift 2
	check "$v $s: our receive" ours_received $st/$v-$s $ours/$v &&
	check "$v $s: equal to the source" treecmp "$@" $src/$s $ours/$v/$s
	check "$v $s: marked received, read-only" is_received $ours/$v/$s "$(uuid_of $src/$s)"
	check "$v $s: btrfs receive" progs_received $st/$v-$s $progs/$v &&
	check "$v $s: btrfs-progs' tree equals ours" like_progs $progs/$v/$s $ours/$v/$s
}

for v in v1 v2c; do
	roundtrip $v A
	# v1 has no FILEATTR: B's chattr +A/+i do not travel.
	if [ $v = v1 ]; then roundtrip $v B -i flags; else roundtrip $v B; fi
	if [ $v = v1 ]; then roundtrip $v C -i flags; else roundtrip $v C; fi
	roundtrip $v CA
	[ $v = v2c ] && check "v2c CA: compressed extents written by encoded I/O" encoded_io_only
	roundtrip $v CB
	roundtrip $v BASE
	roundtrip $v M1
	roundtrip $v R
	check "$v R: clones from the clone source" grep -q 'clone' $st/$v-R.dump
done
check "v2c B: immutable flag set (after the inode's times)" has_flag i $ours/v2c/B/attr-i

# The fallback: the same compressed streams decompressed by us.
check "v2c CA --force-decompress" ours_received $st/v2c-CA $ours/forced --force-decompress &&
check "v2c CA decompressed: equal to the source" treecmp $src/CA $ours/forced/CA
check "v2c CA decompressed: no encoded I/O used" decompressed_only
check "v2c CB --force-decompress" ours_received $st/v2c-CB $ours/forced --force-decompress &&
check "v2c CB decompressed: equal to the source" treecmp $src/CB $ours/forced/CB

# Several subvolumes in one stream, and -e.
check "two subvolumes in one stream" ours_received $st/multi $ours/multi &&
check "  M1 equal" treecmp $src/M1 $ours/multi/M1 &&
check "  M2 equal" treecmp $src/M2 $ours/multi/M2 &&
check "  M2 marked received" is_received $ours/multi/M2 "$(uuid_of $src/M2)"
check "send -e stream with receive -e" ours_received $st/multi-e $ours/multi-e -e &&
check "  M1 equal" treecmp $src/M1 $ours/multi-e/M1 &&
check "  M2 equal" treecmp $src/M2 $ours/multi-e/M2 &&
check "  M1 marked received" is_received $ours/multi-e/M1 "$(uuid_of $src/M1)"
check "receive -e stops at the first end" ours_received $st/multi $ours/multi-stop -e &&
check "  only M1 received" sh -c "[ -d $ours/multi-stop/M1 ] && [ ! -e $ours/multi-stop/M2 ]"
cat $st/multi-e /etc/hostname > $st/multi-e-trailing
check "receive -e ignores what follows the end" ours_received $st/multi-e-trailing $ours/multi-trail -e

# --chroot
check "receive --chroot" ours_received $st/v1-A $ours/chroot -C &&
check "  equal to the source" treecmp $src/A $ours/chroot/A

# Our received subvolumes are parents for btrfs-progs too.
check "btrfs receive of an incremental onto our subvolume" progs_received $st/v1-B $ours/chroot &&
check "  equal to ours" like_progs $ours/chroot/B $ours/v1/B
tap_done
