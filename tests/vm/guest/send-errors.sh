#!/bin/bash
# Guest: argument checks and robustness of BTRFS_IOC_SEND with the loaded
# module: every rejection with its errno, a closed pipe, ^C during a large
# send, concurrent sends, and the interlocks that keep a snapshot read-only
# and undeletable while it is being sent.
# SEND_IOCTL is the send-ioctl helper (tests/vm/guest/send-ioctl.c).
. "$VM_TOP/tests/vm/lib-guest.sh"

H=${SEND_IOCTL:?}
SRC=/tmp/mnt/src OTHER=/tmp/mnt/other
fresh_btrfs /dev/vdb $SRC || die "mkfs"
fresh_btrfs /dev/vdc $OTHER || die "mkfs other"

btrfs -q subvolume create $SRC/rw
echo data > $SRC/rw/file
btrfs -q subvolume snapshot -r $SRC/rw $SRC/ro
rwid=$(btrfs inspect-internal rootid $SRC/rw)
roid=$(btrfs inspect-internal rootid $SRC/ro)
for i in $(seq 1 10); do btrfs -q subvolume create $OTHER/v$i; done
otherid=$(btrfs inspect-internal rootid $OTHER/v10)
btrfs inspect-internal rootid $SRC 2>/dev/null >/dev/null
[ "$otherid" -gt "$roid" ] || die "ids overlap"

# expect ERRNO DESCRIPTION HELPER-ARGS...: the helper reports ERRNO
expect() {
	local want=$1 desc=$2
	shift 2
	check "$desc: $want" sh -c '"$@" | grep -qx "errno=$0"' "$want" "$H" "$@"
}

expect EPERM "read-write send root" $SRC/rw
expect EPERM "read-write parent" -p $rwid $SRC/ro
expect EPERM "read-write clone source" -c $rwid $SRC/ro
expect ENOENT "clone source of another filesystem" -c $otherid $SRC/ro
expect ENOENT "parent that does not exist" -p $otherid $SRC/ro
expect EOPNOTSUPP "unknown flag" -f 0x40 $SRC/ro
expect EPROTO "unsupported version" -v 3 $SRC/ro
expect EINVAL "compressed data with version 1" -f 0x10 -v 1 $SRC/ro
expect EINVAL "compressed data without a version" -f 0x10 $SRC/ro
expect EINVAL "clone source count too large" -n 300000 $SRC/ro
expect EFAULT "clone source array unreadable" -n 5 $SRC/ro
expect EBADF "read-only send_fd" -R $SRC/ro
expect EPIPE "reader of the pipe gone" -P $SRC/ro
expect 0 "version 2" -v 2 -o /tmp/v2.stream $SRC/ro
check "version 2 stream header says 2" \
	sh -c 'od -An -tu4 -j13 -N4 /tmp/v2.stream | grep -qw 2'
expect 0 "plain 64-bit layout" -o /tmp/native.stream $SRC/ro
expect 0 "32-bit compat layout" -3 -o /tmp/compat.stream $SRC/ro
check "compat layout gives the same stream" cmp /tmp/native.stream /tmp/compat.stream
expect 0 "omit header and end" -f 0x6 -o /tmp/bare.stream $SRC/ro
check "without header and end the stream is the middle of a full one" \
	sh -c 'n=$(stat -c %s /tmp/native.stream);
	       tail -c +18 /tmp/native.stream | head -c $((n - 27)) | cmp - /tmp/bare.stream'
check "sysfs reports stream version 2" \
	grep -qx 2 /sys/fs/btrfs/features/send_stream_version

# The resume flag (0x20, ours): the point in the reserved bytes.
check "sysfs reports resumable send" grep -qx 1 /sys/fs/btrfs/features/send_resume
expect 0 "reserved bytes set without the resume flag are ignored, as by 6.1" \
	-X -o /tmp/reserved.stream $SRC/ro
check "  the same stream as with them zero" cmp /tmp/native.stream /tmp/reserved.stream
expect EINVAL "resume point at command 0" -f 0x20 -r 0,17,0 $SRC/ro
expect EINVAL "resume offset below what 3 commands take" -f 0x20 -r 3,46,0 $SRC/ro
expect EINVAL "resume without the stream header" -f 0x22 -r 1,100,0 $SRC/ro
expect EINVAL "resume without the end command" -f 0x24 -r 1,100,0 $SRC/ro
expect EINVAL "resume point past the end of the stream" \
	-f 0x20 -r 1000,100000,0 -o /tmp/past.stream $SRC/ro
check "  nothing written" test ! -s /tmp/past.stream
# Command 1 (SUBVOL) ends here; a wrong checksum at the right offset.
sub_end=$((17 + 10 + $(od -An -tu4 -j17 -N4 /tmp/native.stream)))
expect ESTALE "resume point whose metadata checksum differs" \
	-f 0x20 -r 1,$sub_end,0 -o /tmp/stale.stream $SRC/ro
check "  nothing written" test ! -s /tmp/stale.stream
expect ESTALE "resume point whose offset differs" -f 0x20 -r 1,$((sub_end + 1)),0 $SRC/ro

# A large snapshot: 2 GiB of data.
btrfs -q subvolume create $SRC/big
dd if=/dev/zero of=$SRC/big/data bs=1M count=2048 status=none
btrfs -q subvolume snapshot -r $SRC/big $SRC/big.snap
sync

# While a send blocks on a full pipe, the snapshot stays read-only and
# cannot be deleted; afterwards both work.
mkfifo /tmp/fifo
# Background jobs of a script ignore SIGINT unless told otherwise.
env --default-signal=INT btrfs -q send -f /tmp/fifo $SRC/big.snap 2>/dev/null &
send_pid=$!
exec 7< /tmp/fifo
sleep 3
check_fails "snapshot cannot be deleted during send" \
	btrfs -q subvolume delete $SRC/big.snap
check_fails "snapshot cannot be made read-write during send" \
	btrfs property set -ts $SRC/big.snap ro false
kill -INT $send_pid
t0=$(date +%s)
wait $send_pid
rc=$?
t1=$(date +%s)
exec 7<&-
check "^C stops a send blocked on its pipe promptly ($((t1 - t0)) s)" \
	test $((t1 - t0)) -le 20
check "the blocked send died of SIGINT (status $rc)" test $rc -eq 130

# ^C while the send is busy reading data (not blocked on the pipe).
env --default-signal=INT btrfs -q send -f /dev/null $SRC/big.snap 2>/dev/null &
send_pid=$!
sleep 4
kill -INT $send_pid
t0=$(date +%s)
wait $send_pid
rc=$?
t1=$(date +%s)
check "^C stops a running 2 GiB send promptly ($((t1 - t0)) s)" \
	test $((t1 - t0)) -le 20
check "the running send died of SIGINT (status $rc)" test $rc -eq 130

# A handled signal interrupts a blocked write: the ioctl fails with EINTR
# (it is not restarted: that would write a second stream).
expect EINTR "handled signal while blocked on the pipe" -B -A 3 $SRC/big.snap

# The same with compressed extents sent as they are (-f 0x10 -v 2), whose
# pages go into the pipe by reference: the send blocks with some of them
# in the pipe and the rest still its own; both sets are released (a page
# released twice or never is a kernel report, which fails the test).
btrfs -q subvolume create $SRC/comp
btrfs property set $SRC/comp compression zstd
python3 - $SRC/comp/text <<'PY'
import sys
open(sys.argv[1], 'wb').write(b''.join(b'line %d of some compressible text\n' % i
				       for i in range(400000)))
PY
btrfs -q subvolume snapshot -r $SRC/comp $SRC/comp.snap
sync
check "compressed test file is stored compressed" \
	sh -c 'filefrag -v $0/text | grep -q encoded' $SRC/comp.snap
zc=$(cat /sys/module/btrfs/parameters/send_zero_copy) || die "no send_zero_copy parameter"
probe_add zcopy send_splice_pages || die "cannot probe send_splice_pages"
expect EINTR "compressed data, handled signal while blocked on the pipe" \
	-f 0x10 -v 2 -B -A 3 $SRC/comp.snap
zc_calls=$(probe_hits zcopy)
probe_del zcopy
if [ "$zc" = Y ]; then
	check "  its pages went into the pipe by reference ($zc_calls calls)" test "$zc_calls" -gt 0
else
	check "  copied, as send_zero_copy is off ($zc_calls by-reference calls)" test "$zc_calls" -eq 0
fi
expect EPIPE "compressed data, reader of the pipe gone" -f 0x10 -v 2 -P $SRC/comp.snap
expect 0 "compressed data sent whole afterwards" -f 0x10 -v 2 -o /tmp/comp.stream $SRC/comp.snap

check "snapshot can be made read-write after the sends" \
	btrfs property set -ts $SRC/ro ro false
btrfs property set -ts $SRC/ro ro true

# Two concurrent sends of one snapshot.
btrfs -q send -f /tmp/a.stream $SRC/ro & a=$!
btrfs -q send -f /tmp/b.stream $SRC/ro & b=$!
wait $a; ra=$?
wait $b; rb=$?
check "two concurrent sends both succeed ($ra, $rb)" test $ra -eq 0 -a $rb -eq 0
check "and give the same stream" cmp /tmp/a.stream /tmp/b.stream

check "snapshot deletable after interrupted sends" \
	btrfs -q subvolume delete $SRC/big.snap
tap_done
