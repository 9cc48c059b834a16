#!/bin/bash
# Guest side of `make demo`.  /dev/vdb: empty destination disk; /dev/vdc: a
# btrfs image holding real files under data/.
set -u
. "$VM_TOP/tests/vm/lib-guest.sh"

send() { btrfs -q send "$@"; }
receive() { btrfs -q receive "$@"; }
count_commands() { btrfs receive --dump -f "$1" | wc -l; }

src=/tmp/mnt/src dst=/tmp/mnt/dst
mkdir -p $src $dst
mount /dev/vdc $src || die "mount source image"
fresh_btrfs /dev/vdb $dst || die "mkfs destination"
btrfs -q subvolume create $src/vol
cp -a --reflink=always $src/data/. $src/vol/ || die "populate"
btrfs -q subvolume snapshot -r $src/vol $src/A

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }
# verify SRC DST NAME: "yes", or "no" with treecmp's findings kept for later.
verify() { treecmp "$1" "$2" > /tmp/treecmp-$3.out 2>&1 && echo yes || echo no; }

t0=$(now); send -f /tmp/full.stream $src/A || die "full send"
t1=$(now); receive -f /tmp/full.stream $dst || die "full receive"
t2=$(now)
full=( "$(stat -c %s /tmp/full.stream)" "$(count_commands /tmp/full.stream)"
	"$(elapsed $t0 $t1)" "$(elapsed $t1 $t2)" "$(verify $src/A $dst/A full)" )

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

t0=$(now); send -p $src/A -f /tmp/incr.stream $src/B || die "incremental send"
t1=$(now); receive -f /tmp/incr.stream $dst || die "incremental receive"
t2=$(now)
incr=( "$(stat -c %s /tmp/incr.stream)" "$(count_commands /tmp/incr.stream)"
	"$(elapsed $t0 $t1)" "$(elapsed $t1 $t2)" "$(verify $src/B $dst/B incremental)" )

files=$(find $src/A | wc -l)
echo
echo "Demo: $files files from /usr/share/doc and /usr/include, btrfs module: $(cat /sys/fs/btrfs/features/send_impl 2>/dev/null || echo stock)"
printf '%-12s %14s %10s %10s %12s %9s\n' stream bytes commands send_s receive_s verified
printf '%-12s %14s %10s %10.2f %12.2f %9s\n' full "${full[@]}"
printf '%-12s %14s %10s %10.2f %12.2f %9s\n' incremental "${incr[@]}"
for f in /tmp/treecmp-*.out; do
	[ -s "$f" ] || continue
	echo "differences ($(basename "$f" .out)):"
	head -n 10 "$f" | sed 's/^/  /'
done
[ "${full[4]}" = yes ] && [ "${incr[4]}" = yes ]
