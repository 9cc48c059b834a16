#!/bin/bash
# btrfs-stream receive onto plain directories (the plain backend, chosen
# here with --plain-dirs): a full stream records what it received, an
# incremental stream finds its parent by that record and starts from a
# copy of it, a chain goes on from there, and a failed receive records
# nothing.  The host's /tmp is whatever filesystem it is (ext4 here).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$root/$B ;; esac
recv=$B/asan/bin/btrfs-stream
mkstream=$B/bin/mkstream
treecmp=$B/bin/treecmp
export ASAN_OPTIONS=exitcode=86:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; failed=$((failed + 1)); fi
}
receive() { "$recv" receive --plain-dirs -q "$@" 2> "$tmp/err"; }
D=$tmp/dest
mkdir "$D"

U1=11111111-0000-4000-8000-000000000001
U2=22222222-0000-4000-8000-000000000002
U3=33333333-0000-4000-8000-000000000003

"$mkstream" -o "$tmp/full" <<EOF
stream version=1
subvol path=vol uuid=$U1 ctransid=7
mkfile path=o257-7-0 ino=257
rename path=o257-7-0 path_to=keep
write path=keep file_offset=0 data=random:20000
set_xattr path=keep xattr_name=user.k xattr_data=text:kept
chown path=keep uid=1000 gid=100
chmod path=keep mode=04750
utimes path=keep atime=1600000000.5 mtime=1600000001.25 ctime=1600000002
mkfile path=o258-7-0 ino=258
rename path=o258-7-0 path_to=gone
write path=gone file_offset=0 data=text:to-be-deleted
mkdir path=o259-7-0 ino=259
rename path=o259-7-0 path_to=dir
mkfile path=o260-7-0 ino=260
rename path=o260-7-0 path_to=dir/moved
write path=dir/moved file_offset=0 data=random:9000
link path=dir/twin path_link=dir/moved
symlink path=o261-7-0 ino=261 path_link=../keep
rename path=o261-7-0 path_to=dir/sym
mkfifo path=o262-7-0 ino=262 rdev=0 mode=010644
rename path=o262-7-0 path_to=fifo
chmod path=dir mode=0750
utimes path=dir atime=1500000000 mtime=1500000000 ctime=1500000000
utimes path= atime=1400000000 mtime=1400000000 ctime=1400000000
end
EOF
"$mkstream" -o "$tmp/incr" <<EOF
stream version=1
snapshot path=snap uuid=$U2 ctransid=9 clone_uuid=$U1 clone_ctransid=7
unlink path=gone
rename path=dir/moved path_to=moved
write path=moved file_offset=100 data=text:changed
mkfile path=o263-9-0 ino=263
rename path=o263-9-0 path_to=dir/copy
clone file_offset=0 clone_len=8192 path=dir/copy clone_uuid=$U1 clone_ctransid=7 clone_path=keep clone_offset=4096
utimes path=dir atime=1500000000 mtime=1500000000 ctime=1500000000
end
EOF
"$mkstream" -o "$tmp/incr2" <<EOF
stream version=1
snapshot path=snap2 uuid=$U3 ctransid=11 clone_uuid=$U2 clone_ctransid=9
truncate path=moved size=50
end
EOF

receive -f "$tmp/full" "$D"
check "full stream: received" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
check "full stream: recorded as received" grep -qx "uuid=$U1 ctransid=7" "$D/.btrfs-stream/vol"
# Every field, symlinks' access times too (readlink moves them: the copy
# puts them back).
listing() { "$treecmp" --digest --list "$1" | head -n -1; }
before=$(listing "$D/vol")

receive -f "$tmp/incr" "$D"
check "incremental: received onto the copy of its parent" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
check "incremental: recorded" grep -qx "uuid=$U2 ctransid=9" "$D/.btrfs-stream/snap"
check "the parent is unchanged, access times too" test "$before" = "$(listing "$D/vol")"
same_file() {
	cmp -s "$1" "$2" &&
		[ "$(stat -c '%s %u %g %a %X %Y' "$1")" = "$(stat -c '%s %u %g %a %X %Y' "$2")" ] &&
		[ "$(getfattr --absolute-names -d "$1" | tail -n +2)" = "$(getfattr --absolute-names -d "$2" | tail -n +2)" ]
}
check "unchanged file: same data, owner, mode, xattr and times as the parent's" \
	same_file "$D/vol/keep" "$D/snap/keep"
check "deleted file gone" test ! -e "$D/snap/gone"
check "moved and changed file" eval 'cmp -s -n 100 "$D/vol/dir/moved" "$D/snap/moved" &&
	[ "$(dd if="$D/snap/moved" bs=1 skip=100 count=7 status=none)" = changed ]'
check "hard link kept across the copy" test "$(stat -c %i "$D/snap/moved")" = "$(stat -c %i "$D/snap/dir/twin")"
check "symlink and fifo copied" eval '[ "$(readlink "$D/snap/dir/sym")" = ../keep ] && [ -p "$D/snap/fifo" ]'
check "clone from the parent" cmp -s <(dd if="$D/vol/keep" bs=4096 skip=1 count=2 status=none) "$D/snap/dir/copy"
check "directory mode and times kept" test "$(stat -c %a.%Y "$D/snap/dir")" = 750.1500000000

receive -f "$tmp/incr2" "$D"
check "chain: second incremental on the first" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
check "chain: its change" test "$(stat -c %s "$D/snap2/moved")" = 50

# The copy of a parent keeps inode flags (noatime, nodump; immutable on a
# directory, set after its entries) and holes.
U4=44444444-0000-4000-8000-000000000004
U5=55555555-0000-4000-8000-000000000005
"$mkstream" -o "$tmp/flagged" <<EOF
stream version=2
subvol path=flagged uuid=$U4 ctransid=3
mkfile path=o257-3-0 ino=257
rename path=o257-3-0 path_to=f
write path=f file_offset=0 data=text:flagged
fileattr path=f fileattr=0x300
mkfile path=o258-3-0 ino=258
rename path=o258-3-0 path_to=sparse
write path=sparse file_offset=0 data=text:head
write path=sparse file_offset=104857600 data=text:tail
mkdir path=o259-3-0 ino=259
rename path=o259-3-0 path_to=imm
mkfile path=o260-3-0 ino=260
rename path=o260-3-0 path_to=imm/inside
fileattr path=imm fileattr=0x40
end
EOF
"$mkstream" -o "$tmp/flagged2" <<EOF
stream version=2
snapshot path=flagged2 uuid=$U5 ctransid=4 clone_uuid=$U4 clone_ctransid=3
end
EOF
mkdir "$tmp/fl"
receive -f "$tmp/flagged" "$tmp/fl" && receive -f "$tmp/flagged2" "$tmp/fl"
check "flags and holes: received, and the copy of the parent" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
# (ext4's extents flag 'e' says how the data is stored: left out)
flags_of() { lsattr -d "$1" | cut -d' ' -f1 | tr -d -- -e; }
check "the copy keeps the flags of files and directories" \
	test "$(flags_of "$tmp/fl/flagged2/f") $(flags_of "$tmp/fl/flagged2/imm")" = "dA i"
check "the copy keeps holes" eval '[ "$(stat -c %b "$tmp/fl/flagged2/sparse")" -lt 1000 ] &&
	cmp -s "$tmp/fl/flagged/sparse" "$tmp/fl/flagged2/sparse"'
chattr -i "$tmp/fl/flagged/imm" "$tmp/fl/flagged2/imm"

# A parent that was never received, and a stream that breaks off: no record.
receive -f "$tmp/incr" "$tmp"
check "unknown parent: refused" grep -q "nothing was received into" "$tmp/err"
mkdir "$tmp/d2"
head -c 400 "$tmp/full" > "$tmp/cut"
receive -f "$tmp/cut" "$tmp/d2"
check "stream cut short: receive fails" test $? -ne 0
check "stream cut short: nothing recorded" test ! -e "$tmp/d2/.btrfs-stream/vol"
check "a stream cannot take the records' name" eval '
	"$mkstream" -o "$tmp/rec" <<< "stream version=1
subvol path=.btrfs-stream uuid=$U1 ctransid=7
end" && ! receive -f "$tmp/rec" "$tmp/d2"'

# As an ordinary user: owners and trusted. xattrs cannot be set; they are
# skipped with one summary line each, and the rest is received; --strict
# makes them errors.
"$mkstream" -o "$tmp/owned" <<EOF
stream version=1
subvol path=u uuid=$U1 ctransid=7
mkfile path=o257-7-0 ino=257
rename path=o257-7-0 path_to=f
write path=f file_offset=0 data=text:user-data
set_xattr path=f xattr_name=user.ok xattr_data=text:yes
set_xattr path=f xattr_name=trusted.no xattr_data=text:no
chown path=f uid=0 gid=0
chmod path=f mode=0640
mkdir path=o258-7-0 ino=258
rename path=o258-7-0 path_to=d
chown path=d uid=1234 gid=1234
end
EOF
if [ "$(id -u)" = 0 ]; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	chmod 755 "$tmp" && mkdir "$tmp/user" "$tmp/user2" && chown 65534:65534 "$tmp/user" "$tmp/user2"
	as_nobody "$recv" receive -f "$tmp/owned" "$tmp/user" > "$tmp/out" 2> "$tmp/err"
	check "ordinary user: received" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
	check "ordinary user: one summary line for owners, with the paths" \
		grep -qF "could not hold 2 owners ('f', 'd')" "$tmp/err"
	check "ordinary user: one summary line for xattrs" grep -qF "could not hold 1 xattrs ('f')" "$tmp/err"
	check "ordinary user: data, mode and user xattr kept" eval '
		[ "$(cat "$tmp/user/u/f")" = user-data ] && [ "$(stat -c %a "$tmp/user/u/f")" = 640 ] &&
		[ "$(getfattr --absolute-names --only-values -n user.ok "$tmp/user/u/f")" = yes ]'
	check "ordinary user: recorded as received" test -f "$tmp/user/.btrfs-stream/u"
	as_nobody "$recv" receive --strict -f "$tmp/owned" "$tmp/user2" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	check "--strict: what cannot be held is an error" \
		eval 'test $rc -ne 0 && grep -q "cannot set xattr .trusted.no.: Operation not permitted" "$tmp/err"'
	check "--strict: nothing recorded" test ! -e "$tmp/user2/.btrfs-stream/u"

	# A device node needs privilege: an empty file stands in for it, so
	# that the commands naming it still apply; immutable needs privilege
	# too (set when the subvolume ends), noatime does not.  -v lists each
	# skipped command.
	"$mkstream" -o "$tmp/devs" <<EOF
stream version=2
subvol path=devs uuid=$U2 ctransid=3
mknod path=o257-3-0 ino=257 rdev=0x107 mode=020644
rename path=o257-3-0 path_to=null
chown path=null uid=0 gid=0
chmod path=null mode=0640
utimes path=null atime=5 mtime=6 ctime=7
mknod path=o258-3-0 ino=258 rdev=0x803 mode=060600
rename path=o258-3-0 path_to=sda3
utimes path=sda3 atime=8 mtime=9 ctime=10
link path=sda3-again path_link=sda3
mkfile path=o259-3-0 ino=259
rename path=o259-3-0 path_to=locked
write path=locked file_offset=0 data=text:locked
fileattr path=locked fileattr=0x240
set_xattr path=locked xattr_name=security.capability xattr_data=hex:0100000200200000000000000000000000000000
end
EOF
	mkdir "$tmp/user3" && chown 65534:65534 "$tmp/user3"
	as_nobody "$recv" receive -v -f "$tmp/devs" "$tmp/user3" > "$tmp/out" 2> "$tmp/err"
	check "ordinary user, device nodes: received" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
	check "ordinary user: an empty file stands in for each device node, with its mode and times" \
		test "$(stat -c '%F %s %a %Y' "$tmp/user3/devs/null" "$tmp/user3/devs/sda3")" = \
		"$(printf 'regular empty file 0 640 6\nregular empty file 0 600 9')"
	check "ordinary user: links to a device node kept" \
		test "$(stat -c %i "$tmp/user3/devs/sda3")" = "$(stat -c %i "$tmp/user3/devs/sda3-again")"
	check "ordinary user: one summary line for device nodes" \
		grep -qF "could not hold 2 device nodes (empty files stand in for them) ('null', 'sda3')" "$tmp/err"
	check "ordinary user: immutable skipped, reported as inode flags" \
		grep -qF "could not hold 1 inode flags ('locked')" "$tmp/err"
	check "ordinary user: noatime held" test "$(flags_of "$tmp/user3/devs/locked")" = A
	skipped() { sed -n "s/^.*: subvolume 'devs': skipped command [0-9]* (\([a-z_]*\)) at offset [0-9]*: '\([^']*\)': .*/\1 \2/p" "$tmp/err" | sort | tr '\n' ' '; }
	check "-v: one line per skipped command" test "$(skipped)" = \
		"chown null fileattr locked mknod null mknod sda3 set_xattr locked " ||
		{ echo "#   got: $(skipped)"; sed 's/^/#   /' "$tmp/err"; }
	check "ordinary user: recorded as received" test -f "$tmp/user3/.btrfs-stream/devs"

	# Modes that keep the owner out (a directory without w or x, a file
	# without r or w), set before the stream is done with the inode: a
	# full stream fills the directory after its CHMOD, an incremental one
	# writes the file, adds to the directory, clones from the file, and
	# copies a parent holding them.  Root never minds; an ordinary user
	# gets the modes exactly all the same (cli/receive/modes.c).
	"$mkstream" -o "$tmp/shut" <<EOF
stream version=1
subvol path=shut uuid=$U3 ctransid=5
mkdir path=o257-5-0 ino=257
rename path=o257-5-0 path_to=d
chmod path=d mode=0500
utimes path=d atime=20 mtime=21 ctime=22
mkfile path=o258-5-0 ino=258
rename path=o258-5-0 path_to=d/f
write path=d/f file_offset=0 data=text:first
chmod path=d/f mode=0000
mkdir path=o259-5-0 ino=259
rename path=o259-5-0 path_to=d/sub
chmod path=d/sub mode=0
mkfile path=o260-5-0 ino=260
rename path=o260-5-0 path_to=ro
write path=ro file_offset=0 data=text:read-only
chmod path=ro mode=0444
utimes path=d atime=20 mtime=21 ctime=22
chmod path= mode=0555
end
EOF
	U6=66666666-0000-4000-8000-000000000006
	"$mkstream" -o "$tmp/shut2" <<EOF
stream version=1
snapshot path=shut2 uuid=$U6 ctransid=6 clone_uuid=$U3 clone_ctransid=5
write path=ro file_offset=0 data=text:READ
mkfile path=o261-6-0 ino=261
rename path=o261-6-0 path_to=d/new
clone file_offset=0 clone_len=5 path=d/new clone_uuid=$U6 clone_ctransid=6 clone_path=d/f clone_offset=0
mkfile path=o262-6-0 ino=262
rename path=o262-6-0 path_to=d/sub/deep
utimes path=d atime=30 mtime=31 ctime=32
end
EOF
	mkdir "$tmp/user4" && chown 65534:65534 "$tmp/user4"
	as_nobody "$recv" receive -f "$tmp/shut" "$tmp/user4" > "$tmp/out" 2> "$tmp/err"
	check "ordinary user, shut modes: full stream received" test $? -eq 0 || sed 's/^/#   /' "$tmp/err"
	modes() { (cd "$1" && stat -c '%n %a' . d d/f d/sub ro "${@:2}" | tr '\n' ' '); }
	check "ordinary user, shut modes: every mode as sent" \
		test "$(modes "$tmp/user4/shut")" = ". 555 d 500 d/f 0 d/sub 0 ro 444 " ||
		echo "#   got: $(modes "$tmp/user4/shut")"
	as_nobody "$recv" receive -f "$tmp/shut2" "$tmp/user4" > "$tmp/out" 2> "$tmp/err"
	check "ordinary user, shut modes: incremental onto a copy of them" test $? -eq 0 ||
		sed 's/^/#   /' "$tmp/err"
	check "ordinary user, shut modes: the copy's modes, new entries in shut directories" \
		test "$(modes "$tmp/user4/shut2" d/new d/sub/deep)" = ". 555 d 500 d/f 0 d/sub 0 ro 444 d/new 600 d/sub/deep 600 " ||
		echo "#   got: $(modes "$tmp/user4/shut2" d/new d/sub/deep)"
	check "ordinary user, shut modes: data written and cloned, times kept" \
		test "$(cat "$tmp/user4/shut2/ro" "$tmp/user4/shut2/d/new"):$(stat -c %Y "$tmp/user4/shut2/d")" = "READ-onlyfirst:31"
	check "ordinary user, shut modes: the parent as it was" \
		test "$(modes "$tmp/user4/shut"):$(cat "$tmp/user4/shut/ro")" = ". 555 d 500 d/f 0 d/sub 0 ro 444 :read-only"
	chmod -R u+rwx "$tmp/user4"

	# setuid and setgid (with group execute) are cleared by the kernel
	# when an owner without CAP_FSETID writes, truncates or clones into
	# the file; an incremental stream does so without a CHMOD, the mode
	# being the parent's: receive puts them back at the end.
	U7=77777777-0000-4000-8000-000000000007
	U8=88888888-0000-4000-8000-000000000008
	"$mkstream" -o "$tmp/setid" <<EOF
stream version=1
subvol path=setid uuid=$U7 ctransid=7
mkfile path=o257-7-0 ino=257
rename path=o257-7-0 path_to=su
write path=su file_offset=0 data=text:setuid
chmod path=su mode=06755
mkfile path=o258-7-0 ino=258
rename path=o258-7-0 path_to=sg
write path=sg file_offset=0 data=text:setgid
chmod path=sg mode=02750
mkfile path=o259-7-0 ino=259
rename path=o259-7-0 path_to=sgnox
write path=sgnox file_offset=0 data=text:setgid-without-x
chmod path=sgnox mode=02640
end
EOF
	"$mkstream" -o "$tmp/setid2" <<EOF
stream version=1
snapshot path=setid2 uuid=$U8 ctransid=8 clone_uuid=$U7 clone_ctransid=7
write path=su file_offset=0 data=text:SETUID
truncate path=sg size=3
clone file_offset=0 clone_len=3 path=sgnox clone_uuid=$U8 clone_ctransid=8 clone_path=su clone_offset=0
end
EOF
	mkdir "$tmp/user5" && chown 65534:65534 "$tmp/user5"
	as_nobody "$recv" receive -f "$tmp/setid" "$tmp/user5" > "$tmp/out" 2> "$tmp/err" &&
		as_nobody "$recv" receive -f "$tmp/setid2" "$tmp/user5" > "$tmp/out" 2> "$tmp/err"
	check "ordinary user, setuid/setgid: full and incremental received" test $? -eq 0 ||
		sed 's/^/#   /' "$tmp/err"
	setid_modes() { (cd "$1" && stat -c '%n %a' su sg sgnox | tr '\n' ' '); }
	check "ordinary user, setuid/setgid: kept through a write, a truncation and a clone" \
		test "$(setid_modes "$tmp/user5/setid2")" = "su 6755 sg 2750 sgnox 2640 " ||
		echo "#   got: $(setid_modes "$tmp/user5/setid2")"
	check "ordinary user, setuid/setgid: the data changed" \
		test "$(cat "$tmp/user5/setid2/su" "$tmp/user5/setid2/sg" "$tmp/user5/setid2/sgnox")" = \
		"SETUIDsetSETgid-without-x"
	check "ordinary user, setuid/setgid: the parent as it was" \
		test "$(setid_modes "$tmp/user5/setid")" = "su 6755 sg 2750 sgnox 2640 "
else

	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - ordinary user receive: run as root, to switch to user nobody"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
