# Helpers for the receive tests that run inside the guest; source it after
# tests/vm/lib-guest.sh.

BSTREAM=$VM_TOP/build/bin/btrfs-stream
MKSTREAM=$VM_TOP/build/bin/mkstream

# subvol_field SUBVOL FIELD: one field of `btrfs subvolume show`.
subvol_field() {
	btrfs subvolume show "$1" | sed -n "s/^[[:space:]]*$2:[[:space:]]*//p"
}

# is_received SUBVOL UUID: marked received from UUID with both transids
# set, and read-only.
is_received() {
	local show
	show=$(btrfs subvolume show "$1") || return 1
	if ! printf '%s\n' "$show" | grep -Eq "Received UUID:[[:space:]]+$2\$" ||
	   ! printf '%s\n' "$show" | grep -Eq 'Flags:[[:space:]]+readonly' ||
	   ! printf '%s\n' "$show" | grep -Eq 'Send transid:[[:space:]]+[1-9]' ||
	   ! printf '%s\n' "$show" | grep -Eq 'Receive transid:[[:space:]]+[1-9]'; then
		printf '%s\n' "$show"
		return 1
	fi
}

# not_received SUBVOL: exists, no received UUID, writable.
not_received() {
	local show
	show=$(btrfs subvolume show "$1") || return 1
	if ! printf '%s\n' "$show" | grep -Eq 'Received UUID:[[:space:]]+-$' ||
	   printf '%s\n' "$show" | grep -Eq 'Flags:[[:space:]]+readonly'; then
		printf '%s\n' "$show"
		return 1
	fi
}

# fails_with TEXT COMMAND...: the command fails (status 1, not a crash)
# and its stderr contains TEXT.
fails_with() {
	local text=$1 rc
	shift
	"$@" > /tmp/fails_with.out 2> /tmp/fails_with.err
	rc=$?
	if [ $rc -ne 1 ] || ! grep -qF -- "$text" /tmp/fails_with.err; then
		echo "exit $rc, wanted 1 and '$text' on stderr:"
		cat /tmp/fails_with.err
		return 1
	fi
}

# ours_received STREAM DEST [OPTIONS...]: our receive succeeds (-v for the
# statistics line, kept in /tmp/ours.err).
ours_received() {
	local stream=$1 dest=$2
	shift 2
	mkdir -p "$dest"
	"$BSTREAM" receive -v "$@" -f "$stream" "$dest" 2> /tmp/ours.err
	local rc=$?
	[ $rc -eq 0 ] || cat /tmp/ours.err
	return $rc
}

progs_received() {
	mkdir -p "$2"
	btrfs receive -f "$1" "$2"
}

# encoded_counts: "IOCTL DECOMPRESSED" of the last ours_received (the
# counts are totals of the run, printed after each subvolume).
encoded_counts() {
	sed -n 's/.*encoded writes: \([0-9]*\) by ioctl, \([0-9]*\) decompressed.*/\1 \2/p' /tmp/ours.err |
		tail -n 1
}

# like_progs PROGS OURS: btrfs-progs' tree equals ours but for its known
# shortcomings, shown as comments: it leaves the root directory's times at
# the time of receive when the stream only passed orphans through it, and
# lets chown clear setuid/setgid when no chmod follows (ours keeps the
# source's mode: the roundtrip checks compare ours with the source).
# Inode flags are not compared: btrfs-progs ignores FILEATTR.
like_progs() {
	local out rc
	out=$(treecmp -i flags "$1" "$2")
	rc=$?
	[ $rc -eq 0 ] && return 0
	[ $rc -eq 1 ] || { printf '%s\n' "$out"; return 1; }
	if printf '%s\n' "$out" | grep -Ev '^\.: (mtime|atime): |^[^:]*: mode: [0-7]+ != [0-7]+$' | grep -q .; then
		printf '%s\n' "$out"
		return 1
	fi
	printf '%s\n' "$out" | sed 's/^/# known btrfs-progs difference: /' >&3
}

# throttle: copy stdin to stdout in 8 KiB pieces, 20 ms apart, so data keeps
# flowing while a test interrupts the receive at its other end.
throttle() {
	python3 -c '
import sys, time
while True:
    b = sys.stdin.buffer.read(8192)
    if not b:
        break
    sys.stdout.buffer.write(b)
    sys.stdout.buffer.flush()
    time.sleep(0.02)'
}

# wait_second_checkpoint STATE TRIES: poll a resumable receive's state file
# every 0.1 s until it names its second checkpoint (so the receive is in the
# middle of the flow, past a checkpoint it can roll back to), at most TRIES
# times; print the checkpoint last seen.
wait_second_checkpoint() {
	local i ck first=
	for ((i = 0; i < $2; i++)); do
		ck=$(sed -n 's/^checkpoint=//p' "$1" 2> /dev/null)
		case $ck in
		*ckpt*) [ -n "$first" ] || first=$ck
			[ "$ck" = "$first" ] || break ;;
		esac
		sleep 0.1
	done
	echo "$ck"
}
