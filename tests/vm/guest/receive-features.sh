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
U=0a0a0a0a-1111-4222-8333-444444444444

# A path of 30 components of 200 bytes (6 KiB).
comp=$(printf 'd%.0s' $(seq 1 200))
{
	echo "stream version=1"
	echo "subvol path=long uuid=$U ctransid=1"
	p=
	for i in $(seq 1 30); do
		p=${p:+$p/}$comp$i
		echo "mkdir path=$p ino=$((256 + i))"
	done
	echo "mkfile path=$p/file ino=400"
	echo "write path=$p/file file_offset=0 data=text:deep"
	echo "rename path=$p/file path_to=$p/renamed"
	echo "set_xattr path=$p/renamed xattr_name=user.x xattr_data=text:y"
	echo "utimes path=$p/renamed atime=1 mtime=2 ctime=3"
	echo "end"
} | "$MKSTREAM" -o $st/long
check "path longer than PATH_MAX" ours_received $st/long $dst
deep() { cd $dst/long && for i in $(seq 1 30); do cd "$comp$i" || return 1; done && cat renamed && stat -c %Y renamed; }
check "  deep file written, renamed, times set" test "$(deep)" = deep2
check "  marked received" is_received $dst/long $U

# Inode flags.  The immutable directory gets its entries after FILEATTR;
# the append-only file its data and times; NOCOW applies to an empty file.
python3 - > $st/zlib.hex <<'PY'
import zlib
ext = b"".join(b"nocow line %05d\n" % i for i in range(500))[:8192]
print(zlib.compress(ext).hex())
open("/tmp/streams/ext", "wb").write(ext)
PY
U2=0b0b0b0b-1111-4222-8333-444444444444
"$MKSTREAM" -o $st/flags <<EOF
stream version=2
subvol path=flags uuid=$U2 ctransid=3
mkdir path=imm ino=257
fileattr path=imm fileattr=0x40
mkfile path=o258-3-0 ino=258
rename path=o258-3-0 path_to=imm/inside
write path=imm/inside file_offset=0 data=text:inside
utimes path=imm/inside atime=5 mtime=6 ctime=7
utimes path=imm atime=8 mtime=9 ctime=10
mkfile path=app ino=259
write path=app file_offset=0 data=text:appended
fileattr path=app fileattr=0x380
chmod path=app mode=0600
utimes path=app atime=11 mtime=12 ctime=13
mkfile path=nocow ino=260
fileattr path=nocow fileattr=0x3
encoded_write path=nocow file_offset=0 unencoded_file_len=8192 unencoded_len=8192 unencoded_offset=0 compression=1 data=hex:$(cat $st/zlib.hex)
mkfile path=comp ino=261
fileattr path=comp fileattr=0x800
end
EOF
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
P=0d0d0d0d-1111-4222-8333-444444444444 C=0e0e0e0e-1111-4222-8333-444444444444
"$MKSTREAM" -o $st/locked <<EOF
stream version=2
subvol path=locked uuid=$P ctransid=5
mkdir path=d ino=257
mkfile path=d/f ino=258
write path=d/f file_offset=0 data=text:original
fileattr path=d/f fileattr=0x40
mkfile path=a ino=259
write path=a file_offset=0 data=text:log
fileattr path=a fileattr=0x80
mkfile path=gone ino=260
fileattr path=gone fileattr=0x40
fileattr path=d fileattr=0x40
end
EOF
"$MKSTREAM" -o $st/unlocked <<EOF
stream version=2
snapshot path=unlocked uuid=$C ctransid=6 clone_uuid=$P clone_ctransid=5
write path=d/f file_offset=0 data=text:changed!
mkfile path=o300-6-0 ino=300
rename path=o300-6-0 path_to=d/new
utimes path=d atime=1 mtime=2 ctime=3
write path=a file_offset=0 data=text:rewritten
fileattr path=a fileattr=0
unlink path=gone
end
EOF
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

# fs-verity (protocol 3): data, then ENABLE_VERITY, then times.  SHA-512
# is a module in Debian's kernel, and the guest cannot autoload it.
modprobe sha512_generic || die "modprobe sha512_generic"
U3=0c0c0c0c-1111-4222-8333-444444444444
"$MKSTREAM" -o $st/verity <<EOF
stream version=3
subvol path=verity uuid=$U3 ctransid=4
mkfile path=f ino=257
write path=f file_offset=0 data=fill:20000:0x61
enable_verity path=f verity_algorithm=1 verity_block_size=4096 verity_salt_data=hex:0102030405 verity_sig_data=hex:
utimes path=f atime=1 mtime=2 ctime=3
mkfile path=g ino=258
write path=g file_offset=0 data=text:plain
enable_verity path=g verity_algorithm=2 verity_block_size=4096 verity_salt_data=hex: verity_sig_data=hex:
end
EOF
check "ENABLE_VERITY stream" ours_received $st/verity $dst
check "  verity enabled (SHA-256, salted), data readable, times" \
	test "$(lsattr $dst/verity/f | cut -d' ' -f1 | tr -d -c V):$(head -c 3 $dst/verity/f):$(stat -c %Y $dst/verity/f)" = V:aaa:2
check "  verity enabled (SHA-512)" test "$(lsattr $dst/verity/g | cut -d' ' -f1 | tr -d -c V)" = V
check "  writing a verity file fails" sh -c "! echo x >> $dst/verity/f"
check "  marked received" is_received $dst/verity $U3
tap_done
