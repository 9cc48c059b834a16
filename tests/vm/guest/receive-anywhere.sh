#!/bin/bash
# Guest: receive onto plain directories (the plain backend, chosen by
# itself) on ext4, XFS with reflink and tmpfs, as root and as nobody, of
# the streams the btrfs-destination tests receive:
#   - the roundtrip sources (receive-sources.sh: every file type, ACLs,
#     capabilities, flags, reflinks, zstd/zlib/lzo data; A, B, C and a
#     clone source), protocol 1 and protocol 2 with compressed data;
#   - the incremental scenarios (send-incremental-scenarios.sh): A in
#     full, B from A, C from B where the scenario has one, per protocol
#     mode (v1, v2, enc = v2 --compressed-data, enc for data scenarios);
#   - random trees of fsgen (odd seeds v2 --compressed-data, even v1),
#     A, B from A, C from B;
#   - the crafted streams of receive-features.sh (receive-crafted.sh:
#     paths beyond PATH_MAX, inode flags, incrementals onto immutable
#     inodes, fs-verity), compared with what our receive makes of them on
#     btrfs.
# Each chain is received step by step (all full streams of the chain in
# one receive, then all B, then all C), and every received snapshot must
# be recorded and equal its source by treecmp but for what the
# destination cannot hold (receive-anywhere-lib.sh: explain), each kind
# reported by receive.  Then the parents must not have changed.
#
# Also: a chain of a full and three incremental streams received onto
# XFS shares the data blocks of unchanged files between the received
# snapshots (filefrag), and the hostile corpus is refused with nothing
# changed outside DEST.
#
# Selection (environment):
#   ANYWHERE_FS          destination filesystems (ext4 xfs tmpfs)
#   ANYWHERE_USERS       receiving users (root nobody)
#   ANYWHERE_SCENARIOS   incremental scenarios, or "all"
#   ANYWHERE_MODES       their modes (v1 v2 enc)
#   ANYWHERE_ROUNDTRIP   roundtrip chains: v1 v2c, or empty
#   ANYWHERE_SEEDS       fsgen seeds, or empty
#   ANYWHERE_CRAFTED     1: the crafted streams
#   ANYWHERE_UNCHANGED   1: check that later steps leave the received
#                        snapshots as they were (tests/unit/receive-plain.t
#                        checks it too, for root and for nobody)
#   ANYWHERE_HOSTILE     FS:USER destinations for the hostile corpus
#
# Disks: /dev/vdb source (btrfs), /dev/vdc ext4, /dev/vdd XFS.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/receive-lib.sh"
. "$VM_TOP/tests/vm/guest/send-incremental-lib.sh"
. "$VM_TOP/tests/vm/guest/receive-sources.sh"
. "$VM_TOP/tests/vm/guest/receive-crafted.sh"
. "$VM_TOP/tests/vm/guest/receive-anywhere-lib.sh"

SRC=/tmp/mnt/src ST=/tmp/streams
SRC_OPTS=compress=no
FSGEN=$VM_TOP/build/bin/fsgen
FSES=${ANYWHERE_FS-ext4 xfs tmpfs}
USERS=${ANYWHERE_USERS-root nobody}
MODES=${ANYWHERE_MODES-v1 v2 enc}
ROUNDTRIP=${ANYWHERE_ROUNDTRIP-v1 v2c}
SEEDS=${ANYWHERE_SEEDS-1 2}
HOSTILE=${ANYWHERE_HOSTILE-ext4:root}
CRAFTED=${ANYWHERE_CRAFTED-1}
UNCHANGED=${ANYWHERE_UNCHANGED-1}

NAMES=()
declare -A FLAGS DESC OURS
scenario() { NAMES+=("$1"); FLAGS[$1]=$2; DESC[$1]=$3; }
ours() { OURS[$1]=$2; }
. "$VM_TOP/tests/vm/guest/send-incremental-scenarios.sh"
[ "${ANYWHERE_SCENARIOS-all}" = all ] || NAMES=(${ANYWHERE_SCENARIOS-})

mkdir -p $ST && chmod 755 $ST
fresh_btrfs /dev/vdb $SRC $SRC_OPTS || die "mkfs source"
mount_destinations $FSES || die "destinations"
t0=$SECONDS

# ---------------------------------------------------------------------------
# Sources.  A chain is $ST/chain.NAME: one line per step, "STREAM", then
# lines "check STEP NAME [TREECMP OPTIONS]" for the snapshots it makes.

# One check per source that could not be made, so that the rest runs.
made() { check "source: $1" "${@:2}"; }

# scen_step STEP NAME: pop, mut or mut2 of scenario NAME, if it has one.
scen_step() {
	declare -F $1_$2 > /dev/null || return 0
	$1_$2 $SRC/$2
}

scenario_sources() {
	local s
	for s in "${NAMES[@]}"; do
		src_compress "${FLAGS[$s]}" && btrfs -q subvolume create $SRC/$s > /dev/null &&
			scen_step pop $s > $ST/$s.step 2>&1 && btrfs -q subvolume snapshot -r $SRC/$s $SRC/$s.A > /dev/null ||
			{ cat $ST/$s.step; echo "$s: populate failed"; return 1; }
	done
	for s in "${NAMES[@]}"; do
		src_compress "${FLAGS[$s]}" && scen_step mut $s > $ST/$s.step 2>&1 ||
			{ cat $ST/$s.step; echo "$s: mutate failed"; return 1; }
	done
	for s in "${NAMES[@]}"; do
		btrfs -q subvolume snapshot -r $SRC/$s $SRC/$s.B > /dev/null || return 1
	done
	for s in "${NAMES[@]}"; do
		declare -F mut2_$s > /dev/null || continue
		src_compress "${FLAGS[$s]}" && scen_step mut2 $s > $ST/$s.step 2>&1 &&
			btrfs -q subvolume snapshot -r $SRC/$s $SRC/$s.C > /dev/null ||
			{ cat $ST/$s.step; echo "$s: second mutation failed"; return 1; }
	done
	for s in $ST/*.hold.ready; do
		[ -e "$s" ] && { release "${s%.ready}" || return 1; }
	done
	return 0
}

mode_opts() {
	case $1 in
	v1) echo --proto 1 ;;
	v2) echo --proto 2 ;;
	enc|v2c) echo --proto 2 --compressed-data ;;
	esac
}

# scenario_chain MODE: the scenarios' streams in MODE (enc: the data
# scenarios only), compared as send-incremental.sh compares them: without
# flags for chattr and data scenarios (-i flags; btrfs receive has none).
scenario_chain() {
	local m=$1 c=$ST/chain.scen-$1 s snaps=() opts cs
	: > $c.A; : > $c.B; : > $c.C; : > $c.checks
	for s in "${NAMES[@]}"; do
		[ $m = enc ] && [[ ${FLAGS[$s]} != *d* ]] && continue
		opts=
		[[ ${FLAGS[$s]} == *[fd]* ]] && opts="-i flags"
		[ -d $SRC/$s.CS ] && snaps+=($SRC/$s.CS) && echo "check 1 $s.CS $SRC/$s.CS $opts" >> $c.checks
		snaps+=($SRC/$s.A)
		echo "check 1 $s.A $SRC/$s.A $opts" >> $c.checks
		cs=
		[ -d $SRC/$s.CS ] && cs="-c $SRC/$s.CS"
		btrfs -q send $(mode_opts $m) -p $SRC/$s.A $cs -f $ST/$s.$m.B $SRC/$s.B || return 1
		cat $ST/$s.$m.B >> $c.B
		echo "check 2 $s.B $SRC/$s.B $opts" >> $c.checks
		[ -d $SRC/$s.C ] || continue
		btrfs -q send $(mode_opts $m) -p $SRC/$s.B $cs -f $ST/$s.$m.C $SRC/$s.C || return 1
		cat $ST/$s.$m.C >> $c.C
		echo "check 3 $s.C $SRC/$s.C $opts" >> $c.checks
	done
	[ ${#snaps[@]} -gt 0 ] || return 0
	btrfs -q send $(mode_opts $m) -f $c.A "${snaps[@]}" || return 1
	printf '%s\n' $c.A $c.B > $c
	[ -s $c.C ] && echo $c.C >> $c
	return 0
}

# roundtrip_sources: receive-roundtrip.sh's trees, named LINEAGE.SNAP.
roundtrip_sources() {
	btrfs -q subvolume create $SRC/vol > /dev/null &&
	populate_vol $SRC/vol &&
	btrfs -q subvolume snapshot -r $SRC/vol $SRC/vol.A > /dev/null &&
	mutate_vol_b $SRC/vol &&
	btrfs -q subvolume snapshot -r $SRC/vol $SRC/vol.B > /dev/null &&
	mutate_vol_c $SRC/vol &&
	btrfs -q subvolume snapshot -r $SRC/vol $SRC/vol.C > /dev/null &&
	btrfs -q subvolume create $SRC/cvol > /dev/null &&
	populate_cvol $SRC/cvol &&
	btrfs -q subvolume snapshot -r $SRC/cvol $SRC/cvol.A > /dev/null &&
	mutate_cvol_b $SRC/cvol &&
	btrfs -q subvolume snapshot -r $SRC/cvol $SRC/cvol.B > /dev/null &&
	btrfs -q subvolume create $SRC/base > /dev/null &&
	head -c 2000000 /dev/urandom > $SRC/base/big &&
	btrfs -q subvolume snapshot -r $SRC/base $SRC/base.BASE > /dev/null &&
	btrfs -q subvolume create $SRC/m > /dev/null &&
	echo M1 > $SRC/m/file &&
	btrfs -q subvolume snapshot -r $SRC/m $SRC/m.M1 > /dev/null &&
	cp --reflink=always $SRC/base.BASE/big $SRC/m/copy &&
	echo own > $SRC/m/own &&
	btrfs -q subvolume snapshot -r $SRC/m $SRC/m.R > /dev/null
}

# roundtrip_chain V: V = v1 or v2c; v1 has no FILEATTR, so B and C (which
# have chattr +A, +i) are compared without flags.
roundtrip_chain() {
	local v=$1 c=$ST/chain.rt-$1 o
	o=$(mode_opts $v)
	btrfs -q send $o -f $c.A $SRC/vol.A $SRC/cvol.A $SRC/base.BASE $SRC/m.M1 &&
	btrfs -q send $o -p $SRC/vol.A -f $ST/rt.$v.vol.B $SRC/vol.B &&
	btrfs -q send $o -p $SRC/cvol.A -f $ST/rt.$v.cvol.B $SRC/cvol.B &&
	btrfs -q send $o -p $SRC/m.M1 -c $SRC/base.BASE -f $ST/rt.$v.m.R $SRC/m.R &&
	btrfs -q send $o -p $SRC/vol.B -f $c.C $SRC/vol.C &&
	cat $ST/rt.$v.vol.B $ST/rt.$v.cvol.B $ST/rt.$v.m.R > $c.B || return 1
	local fl=
	[ $v = v1 ] && fl="-i flags"
	printf '%s\n' $c.A $c.B $c.C > $c
	cat > $c.checks <<-EOF
	check 1 vol.A $SRC/vol.A
	check 1 cvol.A $SRC/cvol.A
	check 1 base.BASE $SRC/base.BASE
	check 1 m.M1 $SRC/m.M1
	check 2 vol.B $SRC/vol.B $fl
	check 2 cvol.B $SRC/cvol.B
	check 2 m.R $SRC/m.R
	check 3 vol.C $SRC/vol.C $fl
	EOF
}

# random_chain: fsgen trees, each seed A, B, C; odd seeds compressed.
# Even seeds (v1, which has no FILEATTR) are compared without flags: the
# NOCOMPRESS flag btrfs sets on data it could not compress is in the
# source but not in the stream, so no receive could know of it.
random_chain() {
	local s c=$ST/chain.rand o fl
	src_compress d || return 1
	: > $c.A; : > $c.B; : > $c.C; : > $c.checks
	for s in $SEEDS; do
		o="--proto 1" fl="-i flags"
		[ $((s % 2)) = 1 ] && o="--proto 2 --compressed-data" fl=
		btrfs -q subvolume create $SRC/r$s > /dev/null &&
		$FSGEN --seed $s --populate $SRC/r$s --entries 150 > /dev/null &&
		btrfs -q subvolume snapshot -r $SRC/r$s $SRC/r$s.A > /dev/null &&
		$FSGEN --seed $s --mutate $SRC/r$s --ops 80 > /dev/null &&
		btrfs -q subvolume snapshot -r $SRC/r$s $SRC/r$s.B > /dev/null &&
		$FSGEN --seed $((s + 1000)) --mutate $SRC/r$s --ops 80 > /dev/null &&
		btrfs -q subvolume snapshot -r $SRC/r$s $SRC/r$s.C > /dev/null &&
		btrfs -q send $o -f $ST/r$s.A $SRC/r$s.A &&
		btrfs -q send $o -p $SRC/r$s.A -f $ST/r$s.B $SRC/r$s.B &&
		btrfs -q send $o -p $SRC/r$s.B -f $ST/r$s.C $SRC/r$s.C || return 1
		cat $ST/r$s.A >> $c.A && cat $ST/r$s.B >> $c.B && cat $ST/r$s.C >> $c.C || return 1
		printf 'check %s r%s.%s %s %s\n' 1 $s A $SRC/r$s.A "$fl" 2 $s B $SRC/r$s.B "$fl" \
			3 $s C $SRC/r$s.C "$fl" >> $c.checks
	done
	printf '%s\n' $c.A $c.B $c.C > $c
}

# crafted_chain: receive-features.sh's streams, one step each, compared
# with our receive of them onto btrfs ($SRC/cref), without times or
# owners: they set the times of a few inodes only (receive-features.sh
# checks those), the others have the time of each receive, and they never
# set an owner, so inodes belong to whoever receives.  SHA-512 (verity) is
# a module the guest cannot autoload.
crafted_chain() {
	local c=$ST/chain.crafted s n=0 st=$ST
	modprobe sha512_generic && crafted_streams || return 1
	mkdir -p $SRC/cref && : > $c && : > $c.checks
	for s in long flags locked unlocked verity; do
		n=$((n + 1))
		"$BSTREAM" receive -q -f $ST/$s $SRC/cref || return 1
		echo $ST/$s >> $c
		echo "check $n $s $SRC/cref/$s -i times,uid,gid" >> $c.checks
	done
}
LINEAGE[unlocked]=locked

CHAINS=()
if [ ${#NAMES[@]} -gt 0 ]; then
	made "incremental scenarios: ${NAMES[*]}" scenario_sources &&
	for m in $MODES; do
		made "scenario streams $m" scenario_chain $m && [ -s $ST/chain.scen-$m ] && CHAINS+=(scen-$m)
	done
fi
if [ -n "$ROUNDTRIP" ]; then
	made "roundtrip trees" roundtrip_sources &&
	for v in $ROUNDTRIP; do made "roundtrip streams $v" roundtrip_chain $v && CHAINS+=(rt-$v); done
fi
[ -n "$SEEDS" ] && made "random trees, seeds $SEEDS" random_chain && CHAINS+=(rand)
[ "$CRAFTED" = 1 ] && made "crafted streams, received onto btrfs" crafted_chain && CHAINS+=(crafted)
# btrfs send -f makes its files 0600: nobody reads them too.
chmod 644 $ST/*
echo "# sources and streams made in $((SECONDS - t0)) s; chains: ${CHAINS[*]}"

# ---------------------------------------------------------------------------
# Receiving the chains

# run_chain FS USER CHAIN: each step received, then its snapshots checked;
# at the end, every snapshot must still be what it was when checked.
run_chain() {
	local fs=$1 user=$2 chain=$3 step=0 stream dest=$MNT/$1/$2/$3 word name src opts
	while read -r stream; do
		step=$((step + 1))
		receive_step $fs $user $chain $stream
		while read -r word n name src opts; do
			[ $n = $step ] || continue
			check "$fs $user $chain: $name" received_as $fs $user $chain $name $src $opts &&
				[ "$UNCHANGED" = 1 ] &&
				treecmp --digest -i atime $dest/$name > $ST/digest.$fs.$user.$chain.$name
		done < $ST/chain.$chain.checks
	done < $ST/chain.$chain
	[ "$UNCHANGED" = 1 ] &&
		check "$fs $user $chain: received snapshots unchanged by the later steps" \
			unchanged $dest $ST/digest.$fs.$user.$chain.
}

# unchanged DEST PREFIX: every snapshot's digest as it was.
unchanged() {
	local f name bad=0
	for f in $2*; do
		[ -e "$f" ] || continue
		name=${f#$2}
		[ "$(treecmp --digest -i atime $1/$name)" = "$(cat $f)" ] ||
			{ echo "$name changed"; bad=1; }
	done
	return $bad
}

said_plain() {
	grep -q "is not on btrfs: receiving into plain directories" $ST/log.$1.$2.$3 ||
		{ head -n 5 $ST/log.$1.$2.$3; return 1; }
}

for fs in $FSES; do
	for user in $USERS; do
		t1=$SECONDS
		for chain in "${CHAINS[@]}"; do
			run_chain $fs $user $chain
		done
		[ ${#CHAINS[@]} -gt 0 ] &&
			check "$fs $user: receive said it uses plain directories" said_plain $fs $user ${CHAINS[0]}
		kinds_seen $fs $user
		echo "# $fs as $user: $((SECONDS - t1)) s"
	done
done

# ---------------------------------------------------------------------------
# XFS: a chain of a full and three incremental streams shares data blocks

# extents FILE: "LOGICAL PHYSICAL LENGTH" of each extent, in blocks.
extents() {
	filefrag -v "$1" | awk -F'[:.[:space:]]+' '/^ *[0-9]+: / { print $3, $5, $7 }'
}

# shared_blocks FILE1 FILE2: how many of FILE2's physical blocks FILE1 has.
shared_blocks() {
	{ extents "$1" | sed 's/^/a /'; extents "$2" | sed 's/^/b /'; } | awk '
		{ for (i = 0; i < $4; i++) if ($1 == "a") a[$3 + i] = 1; else b[$3 + i] = 1 }
		END { for (k in b) if (k in a) n++; print n + 0 }'
}

blocks_of() { echo $(( ($(stat -c %s "$1") + 4095) / 4096 )); }

# xfs_sharing: big files in A; B overwrites 64 KiB of one, C appends to
# another, D renames the first; all sent v2, received as root onto XFS.
xfs_sharing() {
	local d=$MNT/xfs/root/share s
	btrfs -q subvolume create $SRC/share > /dev/null &&
	head -c 4194304 /dev/urandom > $SRC/share/keep &&
	head -c 4194304 /dev/urandom > $SRC/share/poke &&
	head -c 2097152 /dev/urandom > $SRC/share/grow &&
	btrfs -q subvolume snapshot -r $SRC/share $SRC/share.A > /dev/null &&
	write_random $SRC/share/poke 1048576 65536 &&
	btrfs -q subvolume snapshot -r $SRC/share $SRC/share.B > /dev/null &&
	head -c 1048576 /dev/urandom >> $SRC/share/grow &&
	btrfs -q subvolume snapshot -r $SRC/share $SRC/share.C > /dev/null &&
	mv $SRC/share/keep $SRC/share/kept &&
	btrfs -q subvolume snapshot -r $SRC/share $SRC/share.D > /dev/null &&
	btrfs -q send --proto 2 -f $ST/share.A $SRC/share.A &&
	btrfs -q send --proto 2 -p $SRC/share.A -f $ST/share.B $SRC/share.B &&
	btrfs -q send --proto 2 -p $SRC/share.B -f $ST/share.C $SRC/share.C &&
	btrfs -q send --proto 2 -p $SRC/share.C -f $ST/share.D $SRC/share.D || return 1
	mkdir -p $d
	for s in A B C D; do
		"$BSTREAM" receive -q -f $ST/share.$s $d > /dev/null || return 1
		treecmp $SRC/share.$s $d/share.$s || return 1
	done
	sync
}

# same_blocks WANT FILE1 FILE2: FILE2 shares WANT blocks with FILE1.
same_blocks() {
	local n
	n=$(shared_blocks "$2" "$3")
	[ "$n" = "$1" ] && return 0
	echo "$3 shares $n blocks with $2, wanted $1"
	filefrag -v "$2" "$3"
	return 1
}

# keeps_sharing WANT FILE COPY...: each COPY shares WANT blocks with FILE.
keeps_sharing() {
	local want=$1 f=$2 c
	shift 2
	for c in "$@"; do same_blocks $want $f $c || return 1; done
}

if [[ " $FSES " == *" xfs "* ]]; then
	d=$MNT/xfs/root/share
	if check "xfs: full and three incremental streams received, equal to the sources" xfs_sharing; then
		k=$(blocks_of $d/share.A/keep) g=$(blocks_of $d/share.A/grow)
		check "xfs: unchanged file shares all its $k blocks in A, B, C and D (renamed)" \
			keeps_sharing $k $d/share.A/keep $d/share.B/keep $d/share.C/keep $d/share.D/kept
		check "xfs: file with 64 KiB overwritten shares the other $((k - 16)) blocks" \
			same_blocks $((k - 16)) $d/share.A/poke $d/share.B/poke
		check "xfs: appended file shares its first $g blocks" \
			same_blocks $g $d/share.A/grow $d/share.C/grow
		check "xfs: filefrag marks the extents shared" \
			sh -c "filefrag -v $d/share.D/kept | grep -q shared"
		echo "# xfs_bmap of share.A/keep and share.D/kept:"
		xfs_bmap $d/share.A/keep $d/share.D/kept | sed 's/^/#   /'
	fi
fi

# ---------------------------------------------------------------------------
# The hostile corpus on plain directories

# hostile_plain FS USER: receive-hostile.sh's layout (box/ beside
# outside/, with a received subvolume outside/secret), all of it owned by
# USER, so that only receive's confinement keeps the streams in box.
# Each stream must be refused with its message and leave nothing beside
# box; after all of them, outside/ must be as it was (digest) and nothing
# on the whole filesystem but box may have changed since the first
# (find -newer, -cnewer).  Few programs per stream: they cost under TCG.
hostile_plain() {
	local fs=$1 user=$2 h=$MNT/$1/$2/hostile src name want args before line harmless
	local fixtures=$VM_TOP/tests/fixtures/hostile
	as $user mkdir -p $h/outside/dir $h/box || return 1
	as $user sh -c "echo target > $h/outside/target && setfattr -n user.keep -v 1 $h/outside/target" 2> /dev/null ||
		as $user sh -c "echo target > $h/outside/target" || return 1
	"$MKSTREAM" -o $ST/secret $fixtures/secret-subvol.setup &&
		as $user "$BSTREAM" receive -q -f $ST/secret $h/outside || return 1
	before=$(treecmp --digest -i atime $h/outside)
	touch $ST/stamp && sleep 0.1 || return 1
	for src in $fixtures/*.txt; do
		name=${src##*/} name=${name%.txt} want= args=() harmless=
		while IFS= read -r line; do
			case $line in
			"# unprivileged: "*) harmless=${line#"# unprivileged: "} ;;
			"# error: "*) [ -n "$want" ] || want=${line#"# error: "} ;;
			"# plain-error: "*) want=${line#"# plain-error: "} ;;
			"# args: "*) read -ra args <<< "${line#"# args: "}" ;;
			esac
		done < "$src"
		rm -rf $h/box && as $user mkdir $h/box || return 1
		"$MKSTREAM" -o $ST/stream "$src" || { check "$fs $user hostile $name: mkstream" false; continue; }
		if [ $user != root ] && [ -n "$harmless" ]; then
			check "$fs $user hostile $name: harmless unprivileged, received: $harmless" \
				received_saying "$harmless" as $user "$BSTREAM" receive "${args[@]}" -f $ST/stream $h/box
		else
			check "$fs $user hostile $name: refused: $want" \
				fails_with "$want" as $user "$BSTREAM" receive "${args[@]}" -f $ST/stream $h/box
		fi
		check "$fs $user hostile $name: nothing new beside box" only_box_and_outside $h
	done
	check "$fs $user hostile: outside unchanged by all of them" \
		test "$before" = "$(treecmp --digest -i atime $h/outside)"
	check "$fs $user hostile: nothing on $fs but box written by any of them" \
		written_outside $MNT/$fs $h/box $h
}

# received_saying TEXT COMMAND...: the command succeeds, TEXT on stderr.
received_saying() {
	local text=$1
	shift
	"$@" > /tmp/received.out 2>&1 && grep -qF -- "$text" /tmp/received.out && return 0
	cat /tmp/received.out
	return 1
}

# only_box_and_outside DIR: DIR holds box and outside, nothing else.
only_box_and_outside() {
	local e
	e=$(shopt -s dotglob nullglob; cd "$1" && echo *)
	[ "$e" = "box outside" ] || { echo "beside box: $e"; return 1; }
}

# written_outside MOUNT BOX BOXDIR: nothing under MOUNT but BOX (remade
# for each stream, which also changes BOXDIR, checked on its own by
# only_box_and_outside) changed since $ST/stamp, data or inode.  By the
# change time only: every write changes it and no stream can set it,
# while a received mtime is the source's, which fsgen sets in the future
# for some files.
written_outside() {
	local out
	out=$(find $1 \( -path $2 -o -path "$2/*" \) -prune -o ! -path $3 \
		-cnewer $ST/stamp -print)
	[ -z "$out" ] && return 0
	echo "changed since the first stream:"
	echo "$out" | head -n 10
	return 1
}

for d in $HOSTILE; do
	fs=${d%:*} user=${d#*:}
	t1=$SECONDS
	hostile_plain $fs $user || check "$fs $user hostile: layout" false
	echo "# hostile corpus on $fs as $user: $((SECONDS - t1)) s"
done

echo "# total $((SECONDS - t0)) s"
tap_done
