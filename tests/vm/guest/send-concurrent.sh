#!/bin/bash
# Guest: a full send stays correct while the filesystem keeps changing under
# it: block group relocation (balance) moving the snapshot's extents, new
# snapshots of the snapshot being sent (which COW its root node), and
# transaction commits.  The received tree must equal the source.
. "$VM_TOP/tests/vm/lib-guest.sh"
SRC=/tmp/mnt/src DST=/tmp/mnt/dst
fresh_btrfs /dev/vdb $SRC || die "mkfs"
fresh_btrfs /dev/vdc $DST || die "mkfs destination"
btrfs -q subvolume create $SRC/vol
python3 - $SRC/vol <<'PY'
import fcntl, os, sys
FICLONE = 0x40049409
d = sys.argv[1]
for i in range(24):
    sub = os.path.join(d, 'd%d' % (i % 4))
    os.makedirs(sub, exist_ok=True)
    p = os.path.join(sub, 'f%02d' % i)
    with open(p, 'wb') as f:
        f.write(os.urandom(3 << 20))
    if i % 3 == 0:
        with open(p, 'rb') as s, open(p + '.clone', 'wb') as t:
            fcntl.ioctl(t.fileno(), FICLONE, s.fileno())
for i in range(3000):
    open(os.path.join(d, 'small%04d' % i), 'w').write('%d\n' % i)
PY
btrfs -q subvolume snapshot -r $SRC/vol $SRC/snap
sync

stop=/tmp/stop
(
	n=0
	while [ ! -e $stop ]; do
		btrfs balance start --full-balance $SRC > /dev/null 2>&1
		btrfs -q subvolume snapshot -r $SRC/snap $SRC/s$n 2> /dev/null
		n=$((n + 1))
		sync
	done
) &
churn=$!
sleep 5
check "send while balance, snapshots and commits run" \
	btrfs -q send -f /tmp/stream $SRC/snap
touch $stop
btrfs balance cancel $SRC > /dev/null 2>&1
wait $churn
check "receive" btrfs -q receive -f /tmp/stream $DST
check "received tree equals the source" treecmp $SRC/snap $DST/snap
check "reflinked files went out as clones" \
	sh -c "$VM_TOP/build/bin/btrfs-stream dump -f /tmp/stream > /tmp/stream.dump && grep -q '^clone' /tmp/stream.dump"
tap_done
