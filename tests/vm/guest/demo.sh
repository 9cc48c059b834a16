#!/bin/bash
# Guest side of `make demo`.  /dev/vdb: empty destination disk; /dev/vdc: a
# btrfs image holding real files under data/.
set -u
. "$VM_TOP/tests/vm/lib-guest.sh"

# Our userspace by default; DEMO_TOOLS=progs runs btrfs-progs instead.
bs="$VM_TOP/build/bin/btrfs-stream"
if [ "${DEMO_TOOLS:-ours}" = progs ]; then
	send() { btrfs -q send "$@"; }
	receive() { btrfs -q receive "$@"; }
	dump() { btrfs receive --dump -f "$1"; }
else
	send() { "$bs" send -q "$@"; }
	receive() { "$bs" receive -q "$@"; }
	dump() { "$bs" dump -f "$1"; }
fi

src=/tmp/mnt/src dst=/tmp/mnt/dst
mkdir -p $src $dst
mount /dev/vdc $src || die "mount source image"
fresh_btrfs /dev/vdb $dst || die "mkfs destination"
btrfs -q subvolume create $src/vol || die "create the source subvolume"
cp -a --reflink=always $src/data/. $src/vol/ || die "populate"
btrfs -q subvolume snapshot -r $src/vol $src/A || die "snapshot A"

now() { date +%s.%N; }
elapsed() { printf '%.2f' "$(echo "$2 - $1" | bc)"; }
# count_commands STREAM: commands in it; fails if the dump does (a pipe
# into wc would count a failed dump's lines as if it had worked).
count_commands() { dump "$1" > /tmp/dump.out && wc -l < /tmp/dump.out; }
# verify SRC DST NAME: "yes", or "no" with treecmp's findings kept for later.
verify() { treecmp "$1" "$2" > /tmp/treecmp-$3.out 2>&1 && echo yes || echo no; }

# round NAME SNAPSHOT [SEND OPTIONS]: send, receive and verify one stream;
# sets the array named NAME to bytes, commands, send s, receive s, verified.
round() {
	local name=$1 snap=$2 t0 t1 t2 verified commands
	shift 2
	t0=$(now)
	if ! send "$@" -f /tmp/$name.stream $src/$snap; then
		eval "$name=(- - - - 'no (send failed)')"
		return 1
	fi
	t1=$(now)
	if ! receive -f /tmp/$name.stream $dst; then
		eval "$name=($(stat -c %s /tmp/$name.stream) - $(elapsed $t0 $t1) - 'no (receive failed)')"
		return 1
	fi
	t2=$(now)
	verified=$(verify $src/$snap $dst/$snap $name)
	commands=$(count_commands /tmp/$name.stream) || verified="'no (dump failed)'" commands=-
	eval "$name=($(stat -c %s /tmp/$name.stream) $commands \
		$(elapsed $t0 $t1) $(elapsed $t1 $t2) $verified)"
}
round full A

# Mutate: edits, appends, truncations, renames and moves of files and
# directories, deletions, new hard links and xattr changes.  Every path it
# touches is one of these, checked first (they come from libc6-dev,
# linux-libc-dev and bash, which every machine that builds this project
# has), or one it creates.
v=$src/vol
mutated=(include/stdio.h include/stdlib.h include/string.h include/errno.h
	include/linux include/netinet include/stdint.h include/assert.h
	include/limits.h include/time.h share-doc/bash)
for p in "${mutated[@]}"; do
	[ -e "$v/$p" ] || die "the demo data has no '$p' (from this machine's /usr/include or /usr/share/doc)"
done
compgen -G "$v/share-doc/[a-c]*" > /dev/null || die "the demo data has no share-doc/[a-c]*"

mutate() {
	sed -i 's/a/A/g' $v/include/stdio.h
	echo appended >> $v/include/stdlib.h
	truncate -s 100 $v/include/string.h
	truncate -s 0 $v/include/errno.h
	mv $v/include/linux $v/linux-headers
	mv $v/share-doc/bash $v/include/bash-doc
	mkdir $v/new-dir
	mv $v/include/netinet $v/new-dir/netinet
	mv $v/include/stdint.h $v/new-dir/stdint-renamed.h
	rm -r $v/share-doc/[a-c]*
	rm $v/include/assert.h
	ln $v/include/limits.h $v/new-dir/limits-link.h
	ln $v/include/limits.h $v/limits-link2.h
	setfattr -n user.demo -v changed $v/include/stdio.h
	setfattr -n user.gone -v soon $v/include/stdlib.h
	setfattr -x user.gone $v/include/stdlib.h
	chmod 600 $v/include/time.h
	head -c 1000000 /dev/urandom > $v/new-dir/random.bin
}
strictly "mutate the source" mutate
btrfs -q subvolume snapshot -r $src/vol $src/B || die "snapshot B"

if [ "${full[4]}" = yes ]; then
	round incremental B -p $src/A
else
	incremental=(- - - - 'no (not run)')
fi

# An interrupted and resumed transfer (ours only): the incremental stream
# received again, its pipe cut at 40%; the token of the partial snapshot,
# send --resume on the running kernel, and the continuation received.
# Sets resumed to cut bytes, stream bytes, continuation bytes, verified.
resumed_round() {
	local size cut tok
	btrfs -q subvolume delete $dst/B > /dev/null || return 1
	size=$(stat -c %s /tmp/incremental.stream)
	cut=$((size * 2 / 5))
	head -c $cut /tmp/incremental.stream | "$bs" receive -q --resumable $dst 2> /tmp/resume-cut.err
	[ -d $dst/B ] || return 1
	tok=$("$bs" receive --resume-token $dst/B) || return 1
	"$bs" send -v -v --resume "$tok" -p $src/A -f /tmp/cont.stream $src/B \
		2> /tmp/resume-send.err || return 1
	resumed_by="regenerated in userspace, its prefix dropped"
	grep -q "resuming in the kernel" /tmp/resume-send.err &&
		resumed_by="started by the kernel at the resume point"
	"$bs" receive -q --resumable -f /tmp/cont.stream $dst || return 1
	resumed=($cut $size $(stat -c %s /tmp/cont.stream) $(verify $src/B $dst/B resumed))
	echo "token: $tok" > /tmp/resume-token.out
}
resumed=(- - - 'no (not run)') resumed_by=-
if [ "${DEMO_TOOLS:-ours}" = ours ] && [ "${incremental[4]}" = yes ]; then
	resumed_round || resumed=(- - - 'no (failed)')
fi

files=$(find $src/A | wc -l)
echo
echo "Demo: $files files from /usr/share/doc and /usr/include"
echo "btrfs module: $(cat /sys/fs/btrfs/features/send_impl 2>/dev/null || echo stock), userspace: ${DEMO_TOOLS:-ours}"
printf '%-12s %14s %10s %10s %12s %9s\n' stream bytes commands send_s receive_s verified
printf '%-12s %14s %10s %10s %12s %9s\n' full "${full[@]}"
printf '%-12s %14s %10s %10s %12s %9s\n' incremental "${incremental[@]}"
if [ "${DEMO_TOOLS:-ours}" = ours ]; then
	echo
	echo "Interrupted and resumed: the incremental stream's pipe cut after ${resumed[0]} of ${resumed[1]} bytes,"
	echo "then 'btrfs-stream send --resume TOKEN' sent ${resumed[2]} bytes ($resumed_by); verified: ${resumed[3]}"
	[ -s /tmp/resume-token.out ] && cat /tmp/resume-token.out
fi
if [ "${DEMO_TOOLS:-ours}" = ours ] && [ "${incremental[4]}" = yes ]; then
	"$bs" diff $src/A $src/B > /tmp/diff.out || die "btrfs-stream diff A B"
	echo
	echo "btrfs-stream diff A B (first 25 lines of $(wc -l < /tmp/diff.out)):"
	head -n 25 /tmp/diff.out
fi
for f in /tmp/treecmp-*.out; do
	[ -s "$f" ] || continue
	echo "differences ($(basename "$f" .out)):"
	head -n 10 "$f" | sed 's/^/  /'
done
echo
if [ "${DEMO_TOOLS:-ours}" = progs ] && [ "${full[4]}" = yes ] && [ "${incremental[4]}" = yes ]; then
	echo "verified: full (A) and incremental (B) received trees equal their sources"
	exit 0
fi
if [ "${full[4]}" = yes ] && [ "${incremental[4]}" = yes ] && [ "${resumed[3]}" = yes ]; then
	echo "verified: full (A), incremental (B) and resumed (B) received trees equal their sources"
	exit 0
fi
echo "NOT verified: full ${full[4]}, incremental ${incremental[4]}, resumed ${resumed[3]}"
exit 1
