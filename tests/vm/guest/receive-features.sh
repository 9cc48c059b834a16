#!/bin/bash
# Guest: what only crafted streams exercise on btrfs: paths longer than
# PATH_MAX, inode flags (FILEATTR) including immutable directories filled
# after the flag arrives, the ENCODED_WRITE fallback when the ioctl
# refuses (a NOCOW file), and fs-verity (protocol 3).
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/receive-lib.sh"
dst=/tmp/mnt/dst st=/tmp/streams
fresh_btrfs /dev/vdb $dst || die "mkfs"
mkdir -p $st
. "$VM_TOP/tests/vm/guest/receive-crafted.sh"
# SHA-512 (the verity stream) is a module in Debian's kernel, and the
# guest cannot autoload it.
modprobe sha512_generic || die "modprobe sha512_generic"
crafted_streams || die "crafted streams"

check "path longer than PATH_MAX" ours_received $st/long $dst
deep() { cd $dst/long && for i in $(seq 1 30); do cd "$comp$i" || return 1; done && cat renamed && stat -c %Y renamed; }
check "  deep file written, renamed, times set" test "$(deep)" = deep2
check "  marked received" is_received $dst/long $U

# Inode flags.  The immutable directory gets its entries after FILEATTR;
# the append-only file its data and times; NOCOW applies to an empty file.
check "FILEATTR stream" ours_received $st/flags $dst
flags_of() { lsattr -d "$1" | cut -d' ' -f1 | tr -d -c 'iaAdCc'; }
check "  immutable directory, filled after the flag came" \
	test "$(flags_of $dst/flags/imm):$(cat $dst/flags/imm/inside):$(stat -c %Y $dst/flags/imm)" = "i:inside:9"
check "  append-only, noatime, nodump file with its data and times" \
	test "$(flags_of $dst/flags/app):$(cat $dst/flags/app):$(stat -c %Y $dst/flags/app)" = "adA:appended:12"
check "  NOCOW file" test "$(flags_of $dst/flags/nocow)" = C
check "  encoded write refused on NOCOW, decompressed instead" \
	sh -c "cmp $st/ext $dst/flags/nocow && grep -q 'encoded writes: 0 by ioctl, 1 decompressed' /tmp/ours.err"
check "  compression flag" test "$(flags_of $dst/flags/comp)" = c
check "  marked received" is_received $dst/flags $U2

# Incrementals onto a parent whose inodes are immutable or append-only
# (which our receive sets and btrfs-progs never does): the flags are lifted
# for the stream's changes and come back unless a FILEATTR changes them.
check "parent with immutable and append-only inodes" ours_received $st/locked $dst
check "incremental changing them" ours_received $st/unlocked $dst
check "  immutable file changed, immutable again" \
	test "$(cat $dst/unlocked/d/f):$(flags_of $dst/unlocked/d/f)" = "changed!:i"
check "  immutable directory got its entry, immutable again" \
	test "$(ls $dst/unlocked/d | tr '\n' ' '):$(flags_of $dst/unlocked/d):$(stat -c %Y $dst/unlocked/d)" = "f new :i:2"
check "  append-only file rewritten, flag cleared by FILEATTR" \
	test "$(cat $dst/unlocked/a):$(flags_of $dst/unlocked/a)" = "rewritten:"
check "  immutable file deleted" test ! -e $dst/unlocked/gone
check "  parent unchanged" test "$(cat $dst/locked/d/f):$(flags_of $dst/locked/d/f)" = "original:i"
check "  marked received" is_received $dst/unlocked $C

# fs-verity (protocol 3): data, then ENABLE_VERITY, then times.
check "ENABLE_VERITY stream" ours_received $st/verity $dst
check "  verity enabled (SHA-256, salted), data readable, times" \
	test "$(lsattr $dst/verity/f | cut -d' ' -f1 | tr -d -c V):$(head -c 3 $dst/verity/f):$(stat -c %Y $dst/verity/f)" = V:aaa:2
check "  verity enabled (SHA-512)" test "$(lsattr $dst/verity/g | cut -d' ' -f1 | tr -d -c V)" = V
check "  writing a verity file fails" sh -c "! echo x >> $dst/verity/f"
check "  marked received" is_received $dst/verity $U3
tap_done
