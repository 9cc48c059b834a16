#!/bin/bash
# Guest: receives that must fail cleanly (missing, changed or out-of-reach
# parent, existing subvolume, full filesystem, damaged real streams): exit
# status 1, a clear message, and a subvolume that is never marked received.
#
# Disks: /dev/vdb source, /dev/vdc destination, /dev/vdd a small one.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/receive-lib.sh"
src=/tmp/mnt/src dst=/tmp/mnt/dst small=/tmp/mnt/small st=/tmp/streams
fresh_btrfs /dev/vdb $src || die "mkfs source"
fresh_btrfs /dev/vdc $dst || die "mkfs destination"
mkdir -p $st

btrfs -q subvolume create $src/vol
echo a > $src/vol/a
mkdir $src/vol/d
head -c 300000 /dev/urandom > $src/vol/d/f
btrfs -q subvolume snapshot -r $src/vol $src/A
echo b > $src/vol/b
mv $src/vol/a $src/vol/d/a2
btrfs -q subvolume snapshot -r $src/vol $src/B
btrfs -q send -f $st/A $src/A &&
btrfs -q send -p $src/A -f $st/B $src/B || die "send"
uuid_a=$(subvol_field $src/A UUID)

# Parent missing.
mkdir $dst/none
check "missing parent: refused" \
	fails_with "cannot use parent $uuid_a" "$BSTREAM" receive -f $st/B $dst/none
check "  says it is not there" grep -qF "no subvolume with UUID or received UUID $uuid_a on this filesystem" /tmp/fails_with.err
check "  nothing created" test -z "$(ls -A $dst/none)"
check "missing parent with -E 0: one error, the rest skipped" \
	fails_with "cannot use parent" "$BSTREAM" receive -E 0 -f $st/B $dst/none
check "  only one error reported" test "$(grep -c 'btrfs-stream receive: ' /tmp/fails_with.err)" -eq 1

# Parent made writable (and changed) after it was received.
mkdir $dst/mod
check "receive A" ours_received $st/A $dst/mod
python3 - $dst/mod/A <<'PY'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
flags = struct.unpack("Q", fcntl.ioctl(fd, 0x80089419, b"\0" * 8))[0]   # SUBVOL_GETFLAGS
fcntl.ioctl(fd, 0x4008941A, struct.pack("Q", flags & ~2))                 # SUBVOL_SETFLAGS
PY
echo changed > $dst/mod/A/a
check "parent made writable and modified: refused" \
	fails_with "was made writable after it was received and may have changed" \
	"$BSTREAM" receive -f $st/B $dst/mod
check "  no snapshot made" test ! -e $dst/mod/B

# Parent received from another transid of its source (crafted streams).
"$MKSTREAM" -o $st/v10 <<'EOF'
stream version=1
subvol path=P uuid=0d0d0d0d-1111-4222-8333-444444444444 ctransid=10
end
EOF
"$MKSTREAM" -o $st/v11 <<'EOF'
stream version=1
snapshot path=Q uuid=0e0e0e0e-1111-4222-8333-444444444444 ctransid=12 clone_uuid=0d0d0d0d-1111-4222-8333-444444444444 clone_ctransid=11
end
EOF
mkdir $dst/ver
check "receive P from transid 10" ours_received $st/v10 $dst/ver
check "snapshot of P as of transid 11: refused" \
	fails_with "was received from transid 10, the stream needs transid 11: it has changed since it was received" \
	"$BSTREAM" receive -f $st/v11 $dst/ver

# Parent outside the destination: refused, found with -m.
mkdir $dst/x $dst/y
check "receive A into x" ours_received $st/A $dst/x
check "parent outside the destination: refused" \
	fails_with "is outside '$dst/y', refusing it" "$BSTREAM" receive -f $st/B $dst/y
check "  found with -m ROOTMOUNT" ours_received $st/B $dst/y -m $dst
check "  equal to the source" treecmp $src/B $dst/y/B
check "  marked received" is_received $dst/y/B "$(subvol_field $src/B UUID)"

# The subvolume exists already.
check "existing subvolume: refused" \
	fails_with "cannot create subvolume in '$dst/x': File exists" "$BSTREAM" receive -f $st/A $dst/x
check "  the existing one untouched" is_received $dst/x/A "$uuid_a"

# Damaged real streams: a flipped byte, a cut.
size=$(stat -c %s $st/A)
cp $st/A $st/A-flipped
printf '\xff' | dd of=$st/A-flipped bs=1 seek=$((size / 2)) conv=notrunc status=none
mkdir $dst/flip $dst/cut
check "flipped byte in a real stream: refused" \
	fails_with "crc mismatch" "$BSTREAM" receive -f $st/A-flipped $dst/flip
check "  left writable, not received" not_received $dst/flip/A
head -c $((size / 2)) $st/A > $st/A-cut
check "real stream cut in the middle: refused" \
	fails_with "runs past end of input" "$BSTREAM" receive -f $st/A-cut $dst/cut
check "  says so, and where the subvolume is" \
	grep -qF "subvolume '$dst/cut/A' is incomplete: it stays writable and is not marked as received" /tmp/fails_with.err
check "  left writable, not received" not_received $dst/cut/A

# A full filesystem.
mkfs.btrfs -q -f -b 160M /dev/vdd > /dev/null && mkdir -p $small && mount /dev/vdd $small || die "small fs"
nospc() {
	{
		echo "stream version=2"
		echo "subvol path=big uuid=0f0f0f0f-1111-4222-8333-444444444444 ctransid=5"
		echo "mkfile path=f ino=257"
		awk 'BEGIN { for (i = 0; i < 2400; i++) printf "write path=f file_offset=%d data=fill:131072:%d\n", i * 131072, i % 251 }'
		echo "end"
	} | "$MKSTREAM" | "$BSTREAM" receive "$small"
}
check "ENOSPC: refused with the errno text" fails_with "No space left on device" nospc
check "  names the command and file" grep -qE "command [0-9]+ \((write|end)\)" /tmp/fails_with.err
check "  says the subvolume is incomplete" \
	grep -qF "subvolume '$small/big' is incomplete: it stays writable and is not marked as received" /tmp/fails_with.err
check "  left writable, not received" not_received $small/big
tap_done
