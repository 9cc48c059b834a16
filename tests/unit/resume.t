#!/bin/bash
# Resumable receive on the plain backend, on this host: an interrupted
# receive leaves a partial directory with resume state and a token;
# 'send --resume TOKEN --stream FILE' writes the continuation of the
# stored stream, which receive appends; the result equals an
# uninterrupted receive (treecmp) and is recorded as received only at the
# end.  Interruptions: end of input at many offsets (inside a command
# too), SIGTERM, SIGKILL with checkpoints (rolled back), five in one
# transfer.  Every refusal says what differs and changes nothing.
set -u
. "$(dirname "$0")/tap.sh"
treecmp=$B/bin/treecmp
feed=$root/tests/tools/feed-stream.py
U1=11111111-0000-4000-8000-000000000001
U2=22222222-0000-4000-8000-000000000002
U3=33333333-0000-4000-8000-000000000003
U9=99999999-0000-4000-8000-000000000009

# A full stream: NFILES files of random data in two directories, hard
# links, renames, deletions, xattrs, owners and times set on everything.
# $1 output, $2 subvolume uuid, $3 seed offset of the data, $4 name.
make_full() {
	local out=$1 uuid=$2 seed=$3 name=${4:-vol} i ino=257
	{
		echo "stream version=1"
		echo "subvol path=$name uuid=$uuid ctransid=7"
		echo "mkdir path=o$ino-7-0 ino=$ino"
		echo "rename path=o$ino-7-0 path_to=a"
		ino=$((ino + 1))
		echo "mkdir path=o$ino-7-0 ino=$ino"
		echo "rename path=o$ino-7-0 path_to=b"
		for i in $(seq 1 12); do
			ino=$((ino + 1))
			d=a; [ $((i % 2)) = 0 ] && d=b
			echo "mkfile path=o$ino-7-0 ino=$ino"
			echo "rename path=o$ino-7-0 path_to=$d/f$i"
			echo "write path=$d/f$i file_offset=0 data=random:3000:$((i + seed))"
			echo "write path=$d/f$i file_offset=3000 data=random:$((i * 700)):$((i + seed + 100))"
			echo "set_xattr path=$d/f$i xattr_name=user.n xattr_data=text:v$i"
			echo "chown path=$d/f$i uid=$((1000 + i)) gid=100"
			echo "chmod path=$d/f$i mode=0640"
			echo "utimes path=$d/f$i atime=1600000000.5 mtime=$((1600000000 + i)).25 ctime=1600000002"
		done
		echo "link path=a/hard path_link=b/f2"
		echo "rename path=a/f3 path_to=b/moved"
		echo "unlink path=b/f4"
		echo "symlink path=o400-7-0 ino=400 path_link=../a/f1"
		echo "rename path=o400-7-0 path_to=b/sym"
		echo "utimes path=b/sym atime=1500000000 mtime=1500000001 ctime=1500000002"
		echo "chmod path=a mode=0750"
		echo "utimes path=a atime=1500000000 mtime=1500000000 ctime=1500000000"
		echo "utimes path=b atime=1500000000 mtime=1500000003 ctime=1500000000"
		echo "utimes path= atime=1400000000 mtime=1400000000 ctime=1400000000"
		echo "end"
	} | "$mkstream" -o "$out"
}
# An incremental stream on top of it.  $1 output, $2 parent ctransid.
make_incr() {
	{
		echo "stream version=1"
		echo "snapshot path=snap uuid=$U2 ctransid=9 clone_uuid=$U1 clone_ctransid=$2"
		echo "unlink path=a/f5"
		echo "write path=b/f6 file_offset=100 data=random:5000:77"
		echo "rename path=b/f8 path_to=a/f8"
		echo "mkfile path=o500-9-0 ino=500"
		echo "rename path=o500-9-0 path_to=a/new"
		echo "write path=a/new file_offset=0 data=random:7000:78"
		echo "clone file_offset=0 clone_len=4096 path=a/new clone_uuid=$U1 clone_ctransid=$2 clone_path=a/f1 clone_offset=0"
		echo "utimes path=a/new atime=1700000000 mtime=1700000001 ctime=1700000002"
		echo "utimes path=b/f6 atime=1700000000 mtime=1700000005 ctime=1700000002"
		echo "utimes path=a atime=1700000000 mtime=1700000000 ctime=1700000000"
		echo "utimes path=b atime=1700000000 mtime=1700000003 ctime=1700000000"
		echo "end"
	} | "$mkstream" -o "$1"
}

make_full "$tmp/full" $U1 0
make_full "$tmp/other" $U9 0
make_full "$tmp/altered" $U1 1
make_incr "$tmp/incr" 7
make_incr "$tmp/incr-p8" 8
size=$(stat -c %s "$tmp/full")

mkdir "$tmp/ref"
"$bs" receive -q --plain-dirs -f "$tmp/full" "$tmp/ref" &&
	"$bs" receive -q --plain-dirs -f "$tmp/incr" "$tmp/ref"
check "reference receive of the full and the incremental stream" test $? -eq 0

recv() { "$bs" receive -q --plain-dirs --resumable "$@" 2>> "$tmp/err"; }
token() { "$bs" receive --resume-token "$1" 2>> "$tmp/err"; }
# The continuation of stream $2 after token $1, on stdout.
cont() { "$bs" send --resume "$1" --stream "$2" 2>> "$tmp/err"; }
same() { "$treecmp" -q "$1" "$2" > /dev/null; }
# Receive the first $3 bytes of $2 into $1, then the rest by token: no error.
cut_and_resume() {
	local d=$1 s=$2 at=$3 name=$4 t
	head -c "$at" "$s" > "$tmp/cut"
	recv -f "$tmp/cut" "$d" && return 1
	[ ! -e "$d/.btrfs-stream/$name" ] || return 1
	t=$(token "$d/$name") || return 1
	cont "$t" "$s" > "$tmp/cont" || return 1
	recv -f "$tmp/cont" "$d"
}

# --- the token and the state ----------------------------------------------
D=$tmp/d1
mkdir "$D"
head -c 20000 "$tmp/full" > "$tmp/cut"
recv -f "$tmp/cut" "$D"
check "interrupted receive fails" test $? -ne 0
check "the partial directory stays, not recorded as received" \
	eval '[ -d "$D/vol" ] && [ ! -e "$D/.btrfs-stream/vol" ]'
check "its resume state is there" test -f "$D/.btrfs-stream-resume/vol.state"
tok=$(token "$D/vol")
check "the token is one line with every field" \
	eval '[[ $tok =~ ^bsresume1,uuid=$U1,ctransid=7,parent=none,parent_ctransid=0,version=1,flags=0,index=[0-9]+,offset=[0-9]+,prefix=0x[0-9a-f]{8},meta=0x[0-9a-f]{8}$ ]]'
k=${tok#*index=}; k=${k%%,*}; o=${tok#*offset=}; o=${o%%,*}
check "the resume point ends before the cut (offset $o <= 20000, command $k)" \
	eval '[ "$o" -le 20000 ] && [ "$o" -gt 8000 ] && [ "$k" -gt 5 ]'
check "--list-partial lists it" \
	eval '[ "$("$bs" receive --list-partial "$D")" = "$D/vol index=$k offset=$o from=subvol" ]'
cont "$tok" "$tmp/full" > "$tmp/cont"
check "send --resume --stream writes a continuation" test $? -eq 0
# A token from before the metadata checksum (no meta field) still works.
cont "${tok%,meta=*}" "$tmp/full" | cmp -s - "$tmp/cont"
check "a token without its meta field gives the same continuation" test $? -eq 0
m=${tok##*,meta=}
bad_meta=$(printf '%#010x' $(( (m + 1) & 0xffffffff )))
cont "${tok%,meta=*},meta=$bad_meta" "$tmp/full" > "$tmp/out"
rc=$?
check "a token whose meta field does not fit its stream is refused, writing nothing" \
	eval '[ $rc -ne 0 ] && [ ! -s "$tmp/out" ] && grep -q "metadata checksum $bad_meta differs" "$tmp/err"'
# What a crash between a checkpoint and its state file leaves: swept.
mkdir "$D/.btrfs-stream-resume/vol.ckpt-99"
touch "$D/.btrfs-stream-resume/vol.ckpt-99/f" "$D/.btrfs-stream-resume/.vol.state.tmp"
check "the continuation is the rest of the stream plus a header and one command" \
	eval '[ $(( $(stat -c %s "$tmp/cont") - (size - o) )) -gt 17 ] && [ $(( $(stat -c %s "$tmp/cont") - (size - o) )) -lt 200 ]'
check "its header marks a continuation (version 0x10001: other receivers refuse it)" \
	test "$(od -An -tx1 -j13 -N4 "$tmp/cont" | tr -d ' ')" = 01000100
recv -f "$tmp/cont" "$D"
check "the continuation is received" test $? -eq 0
check "the result equals an uninterrupted receive" same "$tmp/ref/vol" "$D/vol"
check "recorded as received at the end" grep -qx "uuid=$U1 ctransid=7" "$D/.btrfs-stream/vol"
check "no resume state left, nor a checkpoint or state file a crash left" \
	eval '[ -z "$(ls -A "$D/.btrfs-stream-resume")" ]'

# --- end of input at many offsets -------------------------------------------
# Seeded offsets across the stream: inside the stream header, inside a
# command header, inside data, and exactly on a command boundary.
bad=
for at in 5 17 20 27 33 300 1234 4000 5555 7000 9999 13000 17777 21000 24444 28000 \
	$((size - 60)) $((size - 11)) $((size - 10)) $((size - 1)); do
	[ "$at" -lt "$size" ] || continue
	d=$tmp/eof-$at
	mkdir "$d"
	if [ "$at" -lt 60 ]; then
		# Before the subvolume's first command ends nothing is kept:
		# the whole stream is received again.
		head -c "$at" "$tmp/full" > "$tmp/cut"
		recv -f "$tmp/cut" "$d"
		[ ! -e "$d/.btrfs-stream-resume/vol.state" ] || [ -d "$d/vol" ] || bad="$bad $at"
		rm -rf "$d"/vol "$d"/.btrfs-stream-resume
		recv -f "$tmp/full" "$d" || bad="$bad $at"
	else
		cut_and_resume "$d" "$tmp/full" "$at" vol || bad="$bad $at"
	fi
	same "$tmp/ref/vol" "$d/vol" || bad="$bad $at"
done
check "end of input at 20 offsets, then resumed: equal to the reference${bad:+ (failed at$bad)}" test -z "$bad"

# --- incremental --------------------------------------------------------------
bad=
isize=$(stat -c %s "$tmp/incr")
for at in 100 150 300 1000 5000 9000 12000 $((isize - 20)); do
	d=$tmp/inc-$at
	mkdir "$d"
	recv -f "$tmp/full" "$d" || bad="$bad full@$at"
	cut_and_resume "$d" "$tmp/incr" "$at" snap || bad="$bad $at"
	same "$tmp/ref/snap" "$d/snap" || bad="$bad $at"
	grep -qx "uuid=$U2 ctransid=9" "$d/.btrfs-stream/snap" || bad="$bad rec@$at"
done
check "incremental stream cut at 8 offsets, then resumed: equal${bad:+ (failed at$bad)}" test -z "$bad"
check "incremental token names the parent" \
	eval '[[ $(head -c 400 "$tmp/incr" > "$tmp/cut"; d=$tmp/inc-tok; mkdir $d; recv -f "$tmp/full" $d; recv -f "$tmp/cut" $d; token $d/snap) == *,parent=$U1,parent_ctransid=7,* ]]'

# --- five interruptions in one transfer --------------------------------------
D=$tmp/five
mkdir "$D"
cp "$tmp/full" "$tmp/piece"
ok5=true
for round in 1 2 3 4 5; do
	head -c 4500 "$tmp/piece" > "$tmp/cut"
	recv -f "$tmp/cut" "$D" && ok5=false
	[ ! -e "$D/.btrfs-stream/vol" ] || ok5=false
	t=$(token "$D/vol") || ok5=false
	cont "$t" "$tmp/full" > "$tmp/piece" || ok5=false
done
recv -f "$tmp/piece" "$D" || ok5=false
check "five interruptions in one transfer, then complete" $ok5
check "five interruptions: equal to the reference" same "$tmp/ref/vol" "$D/vol"

# --- signals ------------------------------------------------------------------
D=$tmp/term
mkdir "$D"
st=$(python3 "$feed" "$tmp/full" 15000 TERM "$bs" receive -q --plain-dirs --resumable "$D" 2>> "$tmp/err")
check "SIGTERM: receive stops (status $st)" test "$st" = 1
check "SIGTERM: resumable from the subvolume itself" \
	eval '"$bs" receive --list-partial "$D" | grep -q "from=subvol"'
t=$(token "$D/vol") && cont "$t" "$tmp/full" > "$tmp/cont" && recv -f "$tmp/cont" "$D"
check "SIGTERM: resumed, equal to the reference" same "$tmp/ref/vol" "$D/vol"

bad=
for at in 3000 9000 16000 23000; do
	D=$tmp/kill-$at
	mkdir "$D"
	st=$(python3 "$feed" "$tmp/full" "$at" KILL "$bs" receive -q --plain-dirs --resumable \
		--checkpoint-every 5K "$D" 2>> "$tmp/err")
	[ "$st" = 137 ] || bad="$bad status=$st@$at"
	grep -q "from=checkpoint\|from=start" <("$bs" receive --list-partial "$D") || bad="$bad state@$at"
	t=$(token "$D/vol") && cont "$t" "$tmp/full" > "$tmp/cont" && recv -f "$tmp/cont" "$D" ||
		bad="$bad resume@$at"
	same "$tmp/ref/vol" "$D/vol" || bad="$bad tree@$at"
	[ -z "$(ls -A "$D/.btrfs-stream-resume")" ] || bad="$bad left@$at"
done
check "SIGKILL (status 137) at 4 points with checkpoints: rolled back, resumed, equal${bad:+ ($bad)}" test -z "$bad"

# --- refusals -------------------------------------------------------------------
D=$tmp/refuse
mkdir "$D"
head -c 16000 "$tmp/full" > "$tmp/cut"
recv -f "$tmp/cut" "$D"
tok=$(token "$D/vol")
digest() { "$treecmp" --digest "$1"; }

cont "$tok" "$tmp/other" > "$tmp/out"
check "a token for another snapshot is refused by send" test $? -ne 0
check "... saying which subvolume, writing nothing" \
	eval 'grep -q "the token is for subvolume $U1 transid 7, this stream sends subvolume $U9" "$tmp/err" && [ ! -s "$tmp/out" ]'
cont "$tok" "$tmp/altered" > "$tmp/out"
check "a stream whose prefix differs is refused by send" test $? -ne 0
check "... naming the prefix checksum, writing nothing" \
	eval 'grep -q "the stream differs from the one received: .*prefix checksum" "$tmp/err" && [ ! -s "$tmp/out" ]'
check "a token that is no token is refused" eval '! cont "bsresume1,uuid=x" "$tmp/full" > /dev/null'

cont "$tok" "$tmp/full" > "$tmp/cont"
chmod 600 "$D/vol/a/f1"
before=$(digest "$D/vol")
recv -f "$tmp/cont" "$D"
check "a partial directory changed since the interruption is refused" test $? -ne 0
check "... saying so" grep -q "was changed since the receive stopped" "$tmp/err"
check "... and nothing changed by the refusal, access times included" test "$(digest "$D/vol")" = "$before"
# The chmod moved the ctime for good: this one stays refused; --abort removes it.
"$bs" receive --abort "$D/vol" 2>> "$tmp/err"
check "--abort removes the partial directory and its state" \
	eval '[ ! -e "$D/vol" ] && [ -z "$(ls -A "$D/.btrfs-stream-resume")" ]'

recv -f "$tmp/cut" "$D"
tok=$(token "$D/vol")
cat "$D/vol/a/f1" "$D"/vol/b/* > /dev/null 2>&1
: > "$tmp/err"
cont "$tok" "$tmp/full" > "$tmp/cont"
head -c 20000 "$tmp/cont" > "$tmp/cut2"
recv -f "$tmp/cut2" "$D"
check "reading the partial directory (atime) is no change: resumed" \
	eval '! grep -q "was changed" "$tmp/err" && [ "$("$bs" receive --resume-token "$D/vol")" != "$tok" ]'
: > "$tmp/err"
recv -f "$tmp/cont" "$D"
check "a stale continuation (an older resume point) is refused" test $? -ne 0
check "... naming both points" grep -q "the continuation resumes after command .*, the partial subvolume holds the stream up to command" "$tmp/err"
mkdir "$tmp/empty"
recv -f "$tmp/cont" "$tmp/empty"
check "a continuation where there is no partial subvolume is refused" \
	eval 'grep -q "no partial subvolume in .* was received from subvolume $U1 transid 7" "$tmp/err" && [ -z "$(ls "$tmp/empty")" ]'

D=$tmp/parent
mkdir "$D"
recv -f "$tmp/full" "$D"
head -c 3000 "$tmp/incr" > "$tmp/cut"
recv -f "$tmp/cut" "$D"
tok=$(token "$D/snap")
cont "$tok" "$tmp/incr-p8" > "$tmp/out"
check "a changed parent is refused by send, writing nothing" \
	eval 'grep -q "the parent differs: the token is for parent $U1 transid 7, this stream is from parent $U1 transid 8" "$tmp/err" && [ ! -s "$tmp/out" ]'
cont "$tok" "$tmp/full" > "$tmp/out"
check "a full stream for an incremental token is refused" grep -q "this stream sends subvolume\|is a full one" "$tmp/err"

"$bs" receive --abort "$D/vol" 2>> "$tmp/err"
st=$?
check "--abort refuses a directory that is no partial one" \
	eval '[ $st -ne 0 ] && [ -d "$D/vol" ] && grep -q "is not a partial subvolume" "$tmp/err"'

# --- usage ------------------------------------------------------------------------
check "--checkpoint-every takes a size" \
	eval '! "$bs" receive --checkpoint-every 0 "$tmp" 2> /dev/null && ! "$bs" receive --checkpoint-every 1X "$tmp" 2> /dev/null'
check "--list-partial of a destination without partial subvolumes lists nothing" \
	eval '[ -z "$("$bs" receive --list-partial "$tmp/empty")" ]'
check "--resume-token and --abort do not go together" \
	eval '! "$bs" receive --abort "$tmp/empty/x" --resume-token "$tmp/empty/x" 2> /dev/null'
check "send --stream needs --resume" eval '! "$bs" send --stream "$tmp/full" 2> /dev/null'

if [ "$failed" -ne 0 ]; then sed 's/^/# /' "$tmp/err" | tail -40; fi
finish
