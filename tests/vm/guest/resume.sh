#!/bin/bash
# Guest: resumable transfers on btrfs (docs/resume.md).  For every seed in
# RESUME_SEEDS, a random tree (fsgen), snapshot A, mutations, snapshot B;
# the full stream of A and the incremental one of B are received with
# --resumable and interrupted at RESUME_POINTS seeded byte offsets each:
# receive killed with SIGKILL (really: status 137 checked) once it has
# taken every byte before the offset, or the pipe cut there (end of
# input, often inside a command).  Each time the token is read and the
# continuation made by 'btrfs-stream send --resume' on the running kernel
# (on our module the kernel starts at the point itself), compared byte
# for byte with the one the userspace path makes (--verify-prefix), and
# received; the result must equal the source (treecmp), be
# marked received only at the end, keep the Parent UUID a plain receive
# gives (a rollback must not leave the checkpoint's there), and leave no
# resume state or checkpoint behind.
#
# RESUME_EXTRA=1 adds, once: five interruptions in one transfer, receive
# killed while data flows, every refusal (the kernel's ESTALE and EINVAL
# too), btrfs-progs refusing a continuation stream, kernel resumes inside
# the WRITE and ENCODED_WRITE runs of one big file with the source disk's
# reads counted, and a round on the stock module (swapped in), where
# send --resume falls back to userspace.
#
# Disks: /dev/vdb source, /dev/vdc destination, /dev/vdd for btrfs-progs.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/receive-lib.sh"

SRC=/tmp/mnt/src DST=/tmp/mnt/dst ST=/tmp/streams
FSGEN=$VM_TOP/build/bin/fsgen
FEED=$VM_TOP/tests/tools/feed-stream.py
SEEDS=${RESUME_SEEDS:-1} POINTS=${RESUME_POINTS:-4}
ENTRIES=${RESUME_ENTRIES:-150} OPS=${RESUME_OPS:-80}
CKPT=${RESUME_CHECKPOINT:-128K}
fresh_btrfs /dev/vdb $SRC || die "mkfs source"
fresh_btrfs /dev/vdc $DST || die "mkfs destination"
mkdir -p $ST

recv() { "$BSTREAM" receive -q --resumable --checkpoint-every $CKPT "$@"; }

# make_source SEED: SRC/sSEED.A and .B, their streams ST/SEED.A and .B.
make_source() {
	local s=$1
	btrfs -q subvolume create $SRC/s$s
	"$FSGEN" --seed "$s" --entries "$ENTRIES" --populate $SRC/s$s > /dev/null
	btrfs -q subvolume snapshot -r $SRC/s$s $SRC/s$s.A
	"$FSGEN" --seed "$s" --ops "$OPS" --mutate $SRC/s$s > /dev/null
	btrfs -q subvolume snapshot -r $SRC/s$s $SRC/s$s.B
	"$BSTREAM" send -q -f $ST/$s.A $SRC/s$s.A
	"$BSTREAM" send -q -p $SRC/s$s.A -f $ST/$s.B $SRC/s$s.B
}

# both_ways TOKEN [SEND OPTIONS] SUBVOL: ST/cont, the continuation send
# --resume writes (on our module the kernel starts at the point itself),
# which must be the same bytes as the one that regenerates the whole
# stream and drops its prefix in userspace (--verify-prefix).
both_ways() {
	local tok=$1
	shift
	"$BSTREAM" send -q --resume "$tok" "$@" > $ST/cont ||
		{ echo "send --resume failed"; return 1; }
	"$BSTREAM" send -q --verify-prefix --resume "$tok" "$@" > $ST/cont.user ||
		{ echo "send --resume --verify-prefix failed"; return 1; }
	cmp $ST/cont $ST/cont.user ||
		{ echo "the continuations of send --resume and --verify-prefix differ"; return 1; }
}

# resume_rest NAME SUBVOL [SEND OPTIONS]: read the token of DST/NAME, send
# the rest of SUBVOL and receive it.
resume_rest() {
	local name=$1 sub=$2 tok
	shift 2
	tok=$("$BSTREAM" receive --resume-token $DST/$name) || return 1
	both_ways "$tok" "$@" "$sub" || return 1
	recv -f $ST/cont $DST
}

# interrupt HOW STREAM OFFSET: receive the stream up to OFFSET, then kill
# (KILL) or cut the pipe there (cut).  Fails unless receive ended so.
interrupt() {
	local how=$1 stream=$2 off=$3 st
	if [ "$how" = cut ]; then
		head -c "$off" "$stream" | recv $DST 2> /dev/null
		st=${PIPESTATUS[1]}
		[ "$st" = 1 ] || { echo "cut at $off: receive status $st, not 1"; return 1; }
		return 0
	fi
	st=$(python3 "$FEED" "$stream" "$off" KILL "$BSTREAM" receive -q --resumable \
		--checkpoint-every $CKPT $DST 2> /dev/null)
	[ "$st" = 137 ] || { echo "kill at $off: receive status $st, not 137 (SIGKILL)"; return 1; }
	# Nothing of it survives.
	! pgrep -f "receive -q --resumable --checkpoint-every $CKPT $DST" > /dev/null
}

# one_point SEED A|B HOW OFFSET: interrupt, resume, compare, remove.
one_point() {
	local s=$1 which=$2 how=$3 off=$4 name=s$1.$2 sub=$SRC/s$1.$2 want_parent=-
	interrupt "$how" $ST/$s.$which "$off" || return 1
	[ -d $DST/$name ] || { echo "nothing kept: no $DST/$name"; return 1; }
	not_received $DST/$name || return 1
	if [ "$which" = B ]; then
		resume_rest "$name" "$sub" -p $SRC/s$s.A || return 1
		want_parent=$(subvol_field $DST/s$s.A UUID)
	else
		resume_rest "$name" "$sub" || return 1
	fi
	is_received $DST/$name "$(subvol_field "$sub" UUID)" || return 1
	[ "$(subvol_field $DST/$name 'Parent UUID')" = "$want_parent" ] ||
		{ echo "Parent UUID $(subvol_field $DST/$name 'Parent UUID'), want $want_parent"; return 1; }
	treecmp "$sub" $DST/$name || return 1
	[ -z "$(ls -A $DST/.btrfs-stream-resume)" ] ||
		{ echo "left behind:"; ls -A $DST/.btrfs-stream-resume; return 1; }
	btrfs -q subvolume delete $DST/$name > /dev/null
}

# Seeded offsets in (200, size), past the command that creates the
# subvolume, into the array POINT_OFFSETS.  Not printed from a $(...):
# bash reseeds RANDOM in every subshell, so the offsets would not follow
# from the seed and a failure could not be replayed from it.
points() {
	local size=$1 i
	POINT_OFFSETS=()
	for ((i = 0; i < POINTS; i++)); do
		POINT_OFFSETS+=($(( (RANDOM * 32768 + RANDOM) % (size - 200) + 200 )))
	done
}

# cost SEED: receive times of the full stream without and with --resumable
# (comments, not assertions: speed is measured by make bench).
cost() {
	local s=$1 opts t0 t1
	for opts in "" "--resumable" "--resumable --checkpoint-every 256K"; do
		t0=$(date +%s.%N)
		"$BSTREAM" receive -q $opts -f $ST/$s.A $DST || return 1
		t1=$(date +%s.%N)
		echo "# seed $s: receive ${opts:-(plain)}: $(echo "$t1 - $t0" | bc) s"
		btrfs -q subvolume delete $DST/s$s.A > /dev/null
	done
}

for s in $SEEDS; do
	strictly "seed $s: source and streams" make_source $s
	[ "${RESUME_COST:-0}" = 1 ] && cost $s
	for which in A B; do
		RANDOM=$((s * 100 + ${#which}))
		[ $which = B ] && RANDOM=$((s * 100 + 7))
		size=$(stat -c %s $ST/$s.$which)
		[ $which = B ] && { recv -f $ST/$s.A $DST || die "seed $s: receive A"; }
		k=0
		points "$size"
		for off in "${POINT_OFFSETS[@]}"; do
			k=$((k + 1))
			how=KILL
			[ $((k % 2)) = 0 ] && how=cut
			check "seed $s, stream $which ($size bytes): $how at $off, resumed, equal" \
				one_point $s $which $how $off
		done
	done
	btrfs -q subvolume delete $DST/s$s.A > /dev/null
done

[ "${RESUME_EXTRA:-0}" = 1 ] || tap_done

# ---------------------------------------------------------------------------
s=${SEEDS%% *}
btrfs -q subvolume create $SRC/other
echo other > $SRC/other/f
btrfs -q subvolume snapshot -r $SRC/other $SRC/other.A
sizeA=$(stat -c %s $ST/$s.A)

five() {
	local i tok
	head -c $((sizeA / 6)) $ST/$s.A | recv $DST 2> /dev/null
	for i in 1 2 3 4; do
		tok=$("$BSTREAM" receive --resume-token $DST/s$s.A) || return 1
		"$BSTREAM" send -q --resume "$tok" $SRC/s$s.A | head -c $((sizeA / 6)) |
			recv $DST 2> /dev/null
		not_received $DST/s$s.A || return 1
	done
	resume_rest s$s.A $SRC/s$s.A || return 1
	is_received $DST/s$s.A "$(subvol_field $SRC/s$s.A UUID)" &&
		treecmp $SRC/s$s.A $DST/s$s.A
}
check "five interruptions in one transfer (cut pipes), then complete and equal" five
btrfs -q subvolume delete $DST/s$s.A > /dev/null

# Killed once it has taken its second checkpoint, in the middle of the flow.
flowing() {
	local pid state=$DST/.btrfs-stream-resume/s$s.A.state
	"$BSTREAM" send -q $SRC/s$s.A | throttle 2> /dev/null |
		"$BSTREAM" receive -q --resumable --checkpoint-every 64K $DST &
	pid=$!
	wait_second_checkpoint $state 1200 > /dev/null
	pkill -KILL -f "receive -q --resumable --checkpoint-every 64K $DST"
	wait $pid
	[ $? = 137 ] || { echo "receive was not killed"; return 1; }
	resume_rest s$s.A $SRC/s$s.A &&
		treecmp $SRC/s$s.A $DST/s$s.A &&
		is_received $DST/s$s.A "$(subvol_field $SRC/s$s.A UUID)"
}
check "receive killed while data flows, resumed, equal" flowing
btrfs -q subvolume delete $DST/s$s.A > /dev/null

# Refusals: each names what differs and changes nothing.
head -c $((sizeA / 2)) $ST/$s.A | recv $DST 2> /dev/null
tok=$("$BSTREAM" receive --resume-token $DST/s$s.A)
before=$(treecmp --digest $DST/s$s.A)
check "refused: a token for another snapshot" \
	fails_with "the token is for subvolume" "$BSTREAM" send -q --resume "$tok" $SRC/other.A
check "refused: a token for a full stream with -p" \
	fails_with "this stream is incremental" "$BSTREAM" send -q --resume "$tok" -p $SRC/other.A $SRC/s$s.A
check "our module: send --resume starts in the kernel" \
	sh -c '"$@" 2>&1 >/dev/null | grep -q "resuming in the kernel after command"' - \
	"$BSTREAM" send -v -v --resume "$tok" $SRC/s$s.A
pre=${tok#*prefix=}; pre=${pre%%,*}
badtok=${tok%%prefix=*}prefix=$(printf %#010x $(( pre ^ 1 )))${tok#*prefix=$pre}
check "refused: a prefix checksum that differs (--verify-prefix)" \
	fails_with "the stream differs from the one received" \
	"$BSTREAM" send -q --verify-prefix --resume "$badtok" $SRC/s$s.A
# The kernel cannot check the prefix checksum without reading the data; it
# echoes it, and receive refuses a point its partial subvolume is not at.
"$BSTREAM" send -q --resume "$badtok" $SRC/s$s.A > $ST/cont
check "refused by receive: a kernel continuation with that prefix checksum" \
	fails_with "the continuation resumes after" recv -f $ST/cont $DST
meta=${tok##*meta=}
badtok=${tok%,meta=*},meta=$(printf %#010x $(( meta ^ 1 )))
check "refused by the kernel (ESTALE): a metadata checksum that differs" \
	fails_with "with metadata checksum $(printf %#010x $(( meta ^ 1 ))), as the token says" \
	"$BSTREAM" send -q --resume "$badtok" $SRC/s$s.A
off=${tok#*offset=}; off=${off%%,*}
badtok=${tok%%offset=*}offset=$((off + 1))${tok#*offset=$off}
check "refused by the kernel (ESTALE): an offset that differs" \
	fails_with "do not end at offset $((off + 1)) with metadata checksum" \
	"$BSTREAM" send -q --resume "$badtok" $SRC/s$s.A
idx=${tok#*index=}; idx=${idx%%,*}
badtok=${tok%%index=*}index=$((idx + 100000))${tok#*index=$idx}
badtok=${badtok%%offset=*}offset=$((off + 10000000))${tok#*offset=$off}
check "refused by the kernel (EINVAL): a point past the end of the stream" \
	fails_with "refused the resume point" "$BSTREAM" send -q --resume "$badtok" $SRC/s$s.A
"$BSTREAM" send -q --resume "$tok" $SRC/s$s.A > $ST/cont
fresh_btrfs /dev/vdd /tmp/mnt/progs || die "mkfs progs"
check "btrfs-progs receive refuses the continuation" \
	fails_with "not supported" btrfs receive -f $ST/cont /tmp/mnt/progs
check "  and creates nothing" test -z "$(ls -A /tmp/mnt/progs)"
sed -n 's/^/#   progs: /p' /tmp/fails_with.err | head -3
check "  the refusals changed nothing" test "$(treecmp --digest $DST/s$s.A)" = "$before"
chmod 0 "$(find $DST/s$s.A -type f | head -1)"
before=$(treecmp --digest $DST/s$s.A)
check "refused: the partial subvolume changed" \
	fails_with "was changed since the receive stopped" recv -f $ST/cont $DST
check "  nothing changed by the refusal" test "$(treecmp --digest $DST/s$s.A)" = "$before"
"$BSTREAM" receive -q --abort $DST/s$s.A
check "--abort removed it" test ! -e $DST/s$s.A

# The incremental stream's parent changed: a token from B (parent A) with
# another parent given.
recv -f $ST/$s.A $DST
head -c 5000 $ST/$s.B | recv $DST 2> /dev/null
tok=$("$BSTREAM" receive --resume-token $DST/s$s.B)
check "refused: another parent" \
	fails_with "the parent differs" "$BSTREAM" send -q --resume "$tok" -p $SRC/other.A $SRC/s$s.B
"$BSTREAM" receive -q --abort $DST/s$s.B
btrfs -q subvolume delete $DST/s$s.A > /dev/null

# One big file: the kernel resumes inside its run of WRITE commands (full
# stream, 90%), of ENCODED_WRITE commands (compressed extents sent as they
# are, 50%) and of an incremental stream (50%), with the same bytes as
# userspace; and it reads far less of the source disk than a full send.
sectors_read() { awk '{ print $3 }' /sys/block/vdb/stat; }
cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# cut_at STREAM OFFSET NAME: receive STREAM up to OFFSET, print the token.
cut_at() {
	head -c "$2" "$1" | recv $DST 2> /dev/null
	not_received $DST/"$3" > /dev/null || return 1
	"$BSTREAM" receive --resume-token $DST/"$3"
}
# mid_cmd STREAM CMD: an offset in the middle of the middle command CMD.
mid_cmd() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
pos, found = 17, []
while pos < len(d):
    n, c = struct.unpack_from("<IH", d, pos)
    if c == int(sys.argv[2]):
        found.append(pos + (10 + n) // 2)
    pos += 10 + n
print(found[len(found) // 2] if found else 0)
PY
}
big_file() {
	local tok r0 r1 r2 full kern size off i
	btrfs -q subvolume create $SRC/big
	head -c 32M /dev/urandom > $SRC/big/data
	mkdir $SRC/big/z
	btrfs property set $SRC/big/z compression zstd
	for i in 1 2 3; do head -c 3M /dev/urandom | base64 > $SRC/big/z/c$i; done
	btrfs -q subvolume snapshot -r $SRC/big $SRC/big.A
	dd if=/dev/urandom of=$SRC/big/data bs=1M seek=20 count=8 conv=notrunc status=none
	btrfs -q subvolume snapshot -r $SRC/big $SRC/big.B
	"$BSTREAM" send -q -f $ST/big.A $SRC/big.A || return 1
	size=$(stat -c %s $ST/big.A)
	tok=$(cut_at $ST/big.A $((size * 9 / 10)) big.A) || return 1
	cold; r0=$(sectors_read)
	"$BSTREAM" send -q -f /dev/null $SRC/big.A || return 1
	cold; r1=$(sectors_read)
	"$BSTREAM" send -q --resume "$tok" $SRC/big.A > $ST/cont || return 1
	r2=$(sectors_read)
	full=$((r1 - r0)) kern=$((r2 - r1))
	echo "source sectors read: full send $full, kernel-resumed send at 90% $kern;" \
		"stream $size bytes, continuation $(stat -c %s $ST/cont) bytes" > /tmp/big.measured
	[ $((kern * 2)) -lt "$full" ] ||
		{ echo "the resumed send read $kern sectors, the full one $full"; return 1; }
	both_ways "$tok" $SRC/big.A || return 1
	recv -f $ST/cont $DST && treecmp $SRC/big.A $DST/big.A || return 1

	"$BSTREAM" send -q --compressed-data -f $ST/big.C $SRC/big.A || return 1
	off=$(mid_cmd $ST/big.C 25)
	[ "$off" -gt 0 ] || { echo "no ENCODED_WRITE in the compressed stream"; return 1; }
	btrfs -q subvolume delete $DST/big.A > /dev/null
	tok=$(cut_at $ST/big.C "$off" big.A) || return 1
	both_ways "$tok" $SRC/big.A || return 1
	recv -f $ST/cont $DST && treecmp $SRC/big.A $DST/big.A || return 1

	"$BSTREAM" send -q -p $SRC/big.A -f $ST/big.B $SRC/big.B || return 1
	tok=$(cut_at $ST/big.B "$(mid_cmd $ST/big.B 15)" big.B) || return 1
	both_ways "$tok" -p $SRC/big.A $SRC/big.B || return 1
	recv -f $ST/cont $DST && treecmp $SRC/big.B $DST/big.B || return 1
	btrfs -q subvolume delete $DST/big.A $DST/big.B > /dev/null
	rm -f $ST/big.* $ST/cont $ST/cont.user
}
check "one big file: kernel resume inside WRITE, ENCODED_WRITE and incremental runs, same bytes, fewer reads" big_file
sed 's/^/# /' /tmp/big.measured 2> /dev/null

# The stock module: send --resume regenerates the stream in userspace.
stock_round() {
	umount $SRC $DST /tmp/mnt/progs || return 1
	use_module stock || return 1
	mount /dev/vdb $SRC && mount /dev/vdc $DST || return 1
	"$BSTREAM" send -q -f $ST/stock.A $SRC/s$s.A || return 1
	python3 "$FEED" $ST/stock.A $(( $(stat -c %s $ST/stock.A) / 3 )) KILL \
		"$BSTREAM" receive -q --resumable --checkpoint-every $CKPT $DST > $ST/status 2> /dev/null
	[ "$(cat $ST/status)" = 137 ] || return 1
	"$BSTREAM" send -v -v --resume "$("$BSTREAM" receive --resume-token $DST/s$s.A)" \
		$SRC/s$s.A 2>&1 > /dev/null | grep -q "resuming in userspace: the kernel cannot" ||
		{ echo "send --resume did not take the userspace path"; return 1; }
	resume_rest s$s.A $SRC/s$s.A &&
		treecmp $SRC/s$s.A $DST/s$s.A &&
		is_received $DST/s$s.A "$(subvol_field $SRC/s$s.A UUID)"
}
check "stock module: SIGKILL, send --resume on the stock kernel, equal" stock_round
tap_done
