#!/bin/bash
# Guest side of t500-packages.sh: the btrfs.ko that dkms built from the
# btrfs-send-dkms package replaces the stock module, and btrfs-stream as
# unpacked from its .deb sends (full and incremental) and receives on it.
# PKG_ROOT: the .debs unpacked; VM_OURS_KO: the dkms-built module.
. "$VM_TOP/tests/vm/lib-guest.sh"
bs=$PKG_ROOT/usr/bin/btrfs-stream
src=/tmp/mnt/src dst=/tmp/mnt/dst

check "the dkms-built btrfs.ko ($VM_OURS_KO) replaces the stock module" \
	use_module ours || tap_done
impl=$(cat /sys/fs/btrfs/features/send_impl 2>&1)
check "/sys/fs/btrfs/features/send_impl reads 'btrfs-stream' (got '$impl')" \
	test "$impl" = btrfs-stream

fresh_btrfs /dev/vdb $src || die "mkfs source"
fresh_btrfs /dev/vdc $dst || die "mkfs destination"
btrfs -q subvolume create $src/vol || die "subvolume create"
make_every_file_type $src/vol || die "populate"
btrfs -q subvolume snapshot -r $src/vol $src/A || die "snapshot A"
echo appended >> $src/vol/small
mv $src/vol/dir $src/vol/moved
rm $src/vol/large
head -c 200000 /dev/urandom > $src/vol/new
btrfs -q subvolume snapshot -r $src/vol $src/B || die "snapshot B"

check "packaged btrfs-stream: full send of A" "$bs" send -q -f /tmp/A.stream $src/A
check "packaged btrfs-stream: incremental send of B from A" \
	"$bs" send -q -p $src/A -f /tmp/B.stream $src/B
check "packaged btrfs-stream: receive A" "$bs" receive -q -f /tmp/A.stream $dst
check "packaged btrfs-stream: receive B" "$bs" receive -q -f /tmp/B.stream $dst
check "received A equals the source" treecmp $src/A $dst/A
check "received B equals the source" treecmp $src/B $dst/B
"$bs" diff $src/A $src/B > /tmp/diff.out 2>&1
check "packaged btrfs-stream: diff A B names the new file" grep -q '^+	/new$' /tmp/diff.out
tap_done
