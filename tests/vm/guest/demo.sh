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
	count_commands() { btrfs receive --dump -f "$1" | wc -l; }
else
	send() { "$bs" send -q "$@"; }
	receive() { "$bs" receive -q "$@"; }
	count_commands() { "$bs" dump -f "$1" | wc -l; }
fi

src=/tmp/mnt/src dst=/tmp/mnt/dst
mkdir -p $src $dst
mount /dev/vdc $src || die "mount source image"
fresh_btrfs /dev/vdb $dst || die "mkfs destination"
btrfs -q subvolume create $src/vol
cp -a --reflink=always $src/data/. $src/vol/ || die "populate"
btrfs -q subvolume snapshot -r $src/vol $src/A

now() { date +%s.%N; }
elapsed() { printf '%.2f' "$(echo "$2 - $1" | bc)"; }
# verify SRC DST NAME: "yes", or "no" with treecmp's findings kept for later.
verify() { treecmp "$1" "$2" > /tmp/treecmp-$3.out 2>&1 && echo yes || echo no; }

# round NAME SNAPSHOT [SEND OPTIONS]: send, receive and verify one stream;
# sets the array named NAME to bytes, commands, send s, receive s, verified.
round() {
	local name=$1 snap=$2 t0 t1 t2 verified
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
	eval "$name=($(stat -c %s /tmp/$name.stream) $(count_commands /tmp/$name.stream) \
		$(elapsed $t0 $t1) $(elapsed $t1 $t2) $verified)"
}
round full A

# Mutate: edits, appends, truncations, renames and moves of files and
# directories, deletions, new hard links and xattr changes.
v=$src/vol
( set -e
  sed -i 's/a/A/g' $v/include/stdio.h
  echo appended >> $v/include/stdlib.h
  truncate -s 100 $v/include/string.h
  truncate -s 0 $v/include/errno.h
  mv $v/include/linux $v/linux-headers
  mv $v/share-doc/bash $v/include/bash-doc
  mkdir $v/new-dir && mv $v/include/sys $v/new-dir/sys
  mv $v/include/stdint.h $v/new-dir/stdint-renamed.h
  rm -rf $v/share-doc/[a-c]*
  rm -f $v/include/*.h.bak $v/include/assert.h
  ln $v/include/limits.h $v/new-dir/limits-link.h
  ln $v/include/limits.h $v/limits-link2.h
  setfattr -n user.demo -v changed $v/include/stdio.h
  setfattr -n user.gone -v soon $v/include/stdlib.h
  setfattr -x user.gone $v/include/stdlib.h
  chmod 600 $v/include/time.h
  head -c 1000000 /dev/urandom > $v/new-dir/random.bin
) || die "mutate"
btrfs -q subvolume snapshot -r $src/vol $src/B

if [ "${full[4]}" = yes ]; then
	round incremental B -p $src/A
else
	incremental=(- - - - 'no (not run)')
fi

files=$(find $src/A | wc -l)
echo
echo "Demo: $files files from /usr/share/doc and /usr/include"
echo "btrfs module: $(cat /sys/fs/btrfs/features/send_impl 2>/dev/null || echo stock), userspace: ${DEMO_TOOLS:-ours}"
printf '%-12s %14s %10s %10s %12s %9s\n' stream bytes commands send_s receive_s verified
printf '%-12s %14s %10s %10s %12s %9s\n' full "${full[@]}"
printf '%-12s %14s %10s %10s %12s %9s\n' incremental "${incremental[@]}"
if [ "${DEMO_TOOLS:-ours}" = ours ] && [ "${incremental[4]}" = yes ]; then
	echo
	echo "btrfs-stream diff A B (first 25 lines of $("$bs" diff $src/A $src/B | wc -l)):"
	"$bs" diff $src/A $src/B | head -n 25
fi
for f in /tmp/treecmp-*.out; do
	[ -s "$f" ] || continue
	echo "differences ($(basename "$f" .out)):"
	head -n 10 "$f" | sed 's/^/  /'
done
[ "${full[4]}" = yes ] && [ "${incremental[4]}" = yes ]
