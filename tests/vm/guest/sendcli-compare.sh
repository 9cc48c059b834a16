#!/bin/bash
# Guest: `btrfs-stream send` against btrfs-progs `btrfs send` on the loaded
# module: byte-identical streams for the same snapshots and options (full,
# -p, -c with the parent chosen automatically, several subvolumes, -e,
# --no-data, --proto, --compressed-data, -f), the same refusals, and the
# progress line: on a terminal, not on a pipe, -q silencing it, and an
# estimate within 10% of the final size.
#
# SENDCLI_PARTS (space separated) selects: streams refusals progress
# estimate (default: all).  Disks: /dev/vdb, and /dev/vdc for a receive.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/sendcli-lib.sh"

parts=${SENDCLI_PARTS:-streams refusals progress estimate}
part() { case " $(echo $parts) " in *" $1 "*) return 0 ;; esac; return 1; }

M=/tmp/mnt/sc
fresh_btrfs /dev/vdb $M noatime || die "mkfs"
cd $M || die "cd"

# vol -> s1 -> (changes) s2 -> (changes) s3; s1c is a snapshot of s1.
btrfs -q subvolume create vol
make_every_file_type vol || die "populate"
mount -o remount,compress=zstd $M
python3 -c "open('vol/compressible', 'w').write('compress me, ' * 100000)"
sync
mount -o remount,compress=no $M
btrfs -q subvolume snapshot -r vol s1
echo appended >> vol/small
mv vol/dir vol/dir-moved
rm vol/inline
cp --reflink=always vol/large vol/large-clone
echo new > vol/new-file
chmod 600 vol/xattrs
btrfs -q subvolume snapshot -r vol s2
head -c 200000 /dev/urandom > vol/large
mkdir vol/newdir && echo x > vol/newdir/x
btrfs -q subvolume snapshot -r vol s3
btrfs -q subvolume snapshot -r s1 s1c
sync

if part streams; then
check "full send" same_stream s1
check "incremental send (-p)" same_stream -p s1 s2
check "-c alone: parent chosen among the clone sources" same_stream -c s1 s2
check "-c with two siblings: the closest ctransid is the parent" same_stream -c s1 -c s3 s2
check "-c with the snapshot's own origin" same_stream -c s1 s1c
check "-c: each subvolume sent becomes a clone source" same_stream -c s1 s2 s3
check "-p and -c together" same_stream -p s1 -c s3 s2
check "several subvolumes: one stream each" same_stream s1 s2 s3
check "-e: one stream for several subvolumes" same_stream -e s1 s2 s3
check "-e with a parent" same_stream -e -p s1 s2 s3
check "--no-data" same_stream --no-data -p s1 s2
check "--proto 0 (highest)" same_stream --proto 0 -p s1 s2
check "--proto 2" same_stream --proto 2 s1
check "--compressed-data" same_stream --compressed-data s1
check "--compressed-data --proto 0 incremental" same_stream --compressed-data --proto 0 -p s1 s2
check "-f FILE" sh -c "'$BS' send -q -f $SC_TMP/ours-f -p s1 s2 && btrfs -q send -f $SC_TMP/progs-f -p s1 s2 && cmp $SC_TMP/ours-f $SC_TMP/progs-f"
check "-f FILE replaces what was there" sh -c "head -c 1M /dev/zero > $SC_TMP/ours-f && '$BS' send -q -f $SC_TMP/ours-f s1 && btrfs -q send -f $SC_TMP/progs-f s1 && cmp $SC_TMP/ours-f $SC_TMP/progs-f"
check "output to an O_APPEND stdout" sh -c ": > $SC_TMP/app && '$BS' send -q s1 >> $SC_TMP/app && btrfs -q send s1 > $SC_TMP/progs && cmp $SC_TMP/app $SC_TMP/progs"
fresh_btrfs /dev/vdc /tmp/mnt/rcv || die "mkfs receiver"
check "btrfs receive takes the stream; the tree equals the source" \
	bash -o pipefail -c "'$BS' send -q s1 | btrfs -q receive /tmp/mnt/rcv && '$VM_TOP/build/bin/treecmp' s1 /tmp/mnt/rcv/s1"
fi

# Refusals, as progs.
if part refusals; then
check "a writable subvolume is refused" both_fail vol
check "a writable parent is refused" both_fail -p vol s2
check "a writable clone source is refused" both_fail -c vol s2
check "no parent among the clone sources: refused" both_fail -c s2 s1c
check "not a subvolume: refused" both_fail vol/dir-moved
"$BS" send vol > /dev/null 2> "$SC_TMP/err"
check "the message names the writable subvolume" stderr_says "$SC_TMP/err" "subvolume '$M/vol' is not read-only"
script -qec "'$BS' send s1" /dev/null > "$SC_TMP/tty" 2>&1
check "stdout a terminal: refused" stderr_says "$SC_TMP/tty" "not writing a send stream to a terminal"
check_fails "the reader goes away: send fails (EPIPE), no kernel warning" \
	bash -c "'$BS' send -q s1 | head -c 1000 > /dev/null; exit \${PIPESTATUS[0]}"
fi

# Progress: live on a terminal, never in the stream.
if part progress; then
script -qec "'$BS' send -f $SC_TMP/pty-f -p s1 s2" /dev/null > "$SC_TMP/tty" 2>&1
check "terminal: progress line" stderr_says "$SC_TMP/tty" "/s  0:00:"
check "terminal: summary line with the estimate" stderr_says "$SC_TMP/tty" "; estimated "
check "terminal: 'At subvol' as progs" stderr_says "$SC_TMP/tty" "At subvol s2"
btrfs -q send -f "$SC_TMP/progs" -p s1 s2
check "terminal: the stream is unchanged" cmp "$SC_TMP/pty-f" "$SC_TMP/progs"
script -qec "'$BS' send -p s1 s2 | cat > $SC_TMP/piped" /dev/null > "$SC_TMP/tty" 2>&1
check "stream into a pipe with progress on the terminal: unchanged" cmp "$SC_TMP/piped" "$SC_TMP/progs"
check "... and the progress was shown" stderr_says "$SC_TMP/tty" "sent "
script -qec "'$BS' send -q -f $SC_TMP/q -p s1 s2" /dev/null > "$SC_TMP/tty" 2>&1
check "-q on a terminal: nothing printed" test ! -s "$SC_TMP/tty"
"$BS" send -p s1 s2 2>&1 > "$SC_TMP/out" | cat > "$SC_TMP/err"
check "stderr a pipe: only 'At subvol', as progs" test "$(cat "$SC_TMP/err")" = "At subvol s2"
"$BS" send --progress -p s1 s2 > "$SC_TMP/out" 2> "$SC_TMP/err"
check "--progress without a terminal: summary" stderr_says "$SC_TMP/err" "sent "
check "--progress: the stream is unchanged" cmp "$SC_TMP/out" "$SC_TMP/progs"
fi

# The estimate on sizeable data: within 10%, for a full and an incremental
# send.  Incompressible files of mixed sizes.
if part estimate; then
btrfs -q subvolume create big
fill_random big 40 || die "fill big"
btrfs -q subvolume snapshot -r big big1
python3 - big <<'PY'
import os, sys
d = sys.argv[1]
for i, name in enumerate(sorted(os.listdir(os.path.join(d, 'd03')))[:40]):
    p = os.path.join(d, 'd03', name)
    with open(p, 'r+b') as f:
        f.seek(i * 4096)
        f.write(os.urandom(100000))
os.rename(os.path.join(d, 'd04'), os.path.join(d, 'd04-moved'))
PY
btrfs -q subvolume snapshot -r big big2
sync
t0=$(date +%s%N)
"$BS" send -q --no-data big1 > /dev/null
t1=$(date +%s%N)
"$BS" send --progress -f "$SC_TMP/big1" big1 2> "$SC_TMP/err"
t2=$(date +%s%N)
err=$(estimate_error "$SC_TMP/err")
check "full send: the line showed an ETA once the estimate was in" stderr_says "$SC_TMP/err" " ETA "
echo "# full send of $(stat -c %s "$SC_TMP/big1") bytes: estimate off by $err%"
echo "# NO_FILE_DATA pass $(( (t1 - t0) / 1000000 )) ms, send with estimate and progress $(( (t2 - t1) / 1000000 )) ms"
check "estimate of a full send within 10% (${err}%)" within_pct "$err" 10
btrfs -q send -f "$SC_TMP/progs" big1
check "full send with progress equals progs'" cmp "$SC_TMP/big1" "$SC_TMP/progs"
"$BS" send --progress -f "$SC_TMP/big2" -p big1 big2 2> "$SC_TMP/err"
err=$(estimate_error "$SC_TMP/err")
echo "# incremental send of $(stat -c %s "$SC_TMP/big2") bytes: estimate off by $err%"
check "estimate of an incremental send within 10% (${err}%)" within_pct "$err" 10
"$BS" send --progress --proto 0 -f "$SC_TMP/big2v2" -p big1 big2 2> "$SC_TMP/err"
err=$(estimate_error "$SC_TMP/err")
check "estimate of a v2 incremental send within 10% (${err}%)" within_pct "$err" 10
"$BS" send --progress -e -f "$SC_TMP/bige" big1 big2 2> "$SC_TMP/err"
err=$(estimate_error "$SC_TMP/err")
check "estimate of two subvolumes with -e within 10% (${err}%)" within_pct "$err" 10
check_fails "the reader goes away during a send with progress: the estimate pass is cancelled" \
	bash -c "'$BS' send --progress big1 2> /dev/null | head -c 100000 > /dev/null; exit \${PIPESTATUS[0]}"
fi
tap_done
