# Helpers for scripts that run inside the test guest; source it.
# Results are TAP lines counted by tests/run-tests.

tap_n=0
tap_failed=0

# check DESCRIPTION COMMAND [ARG...]: run the command, report ok/not ok;
# on failure show its output, indented, as TAP comments.
check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	tap_n=$((tap_n + 1))
	if [ $rc -eq 0 ]; then
		echo "ok $tap_n - $desc"
	else
		echo "not ok $tap_n - $desc (exit $rc)"
		printf '%s\n' "$out" | tail -n 40 | sed 's/^/#   /'
		tap_failed=$((tap_failed + 1))
	fi
	return $rc
}

# check_fails DESCRIPTION COMMAND...: the command must fail, but not crash.
check_fails() {
	local desc=$1 rc
	shift
	"$@" > /tmp/check_fails.out 2>&1
	rc=$?
	tap_n=$((tap_n + 1))
	if [ $rc -ne 0 ] && [ $rc -lt 128 ]; then
		echo "ok $tap_n - $desc"
		return 0
	fi
	echo "not ok $tap_n - $desc (exit $rc)"
	sed 's/^/#   /' /tmp/check_fails.out | tail -n 20
	tap_failed=$((tap_failed + 1))
	return 1
}

# tap_done: the plan, after the last result (tests/run-tests fails a
# program that stops before printing it), and the exit status.
tap_done() {
	echo "1..$tap_n"
	[ $tap_failed -eq 0 ]
	exit
}

# tap_sub COMMAND [ARG...]: run a TAP program as part of this one, so that
# several (guest scripts of one boot, VM runs of one test) make one stream
# with one plan: its results are renumbered after ours, its plan is checked
# and dropped, and a plan that does not match, a non-zero status without a
# failed result, or a crash become failed results here.  Call it as a
# statement of its own (it updates tap_n and tap_failed).
tap_sub() {
	local line n0=$tap_n plan= rc sub_failed=0 out
	# A file, not a process substitution: the guest may have no /dev/fd.
	out=$(mktemp) || return 1
	# (bash's own "Killed" notice of a crashed program is not its output)
	{ "$@" > "$out" 2>&1; } 2> /dev/null
	rc=$?
	while IFS= read -r line; do
		if [[ $line =~ ^(ok|not\ ok)([ ]+[0-9]+)?([[:space:]].*)?$ ]]; then
			tap_n=$((tap_n + 1))
			if [ "${BASH_REMATCH[1]}" = ok ]; then
				echo "ok $tap_n${BASH_REMATCH[3]}"
			else
				echo "not ok $tap_n${BASH_REMATCH[3]}"
				sub_failed=$((sub_failed + 1))
			fi
		elif [[ $line =~ ^1\.\.([0-9]+) ]] && [ -z "$plan" ]; then
			plan=${BASH_REMATCH[1]}
		else
			printf '%s\n' "$line"
		fi
	done < "$out"
	rm -f "$out"
	tap_failed=$((tap_failed + sub_failed))
	if [ -z "$plan" ] || [ "$plan" -ne $((tap_n - n0)) ]; then
		tap_n=$((tap_n + 1)) tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $*: planned ${plan:-nothing}, ran $((tap_n - 1 - n0))"
	fi
	if [ $rc -ge 128 ] || { [ $rc -ne 0 ] && [ $sub_failed -eq 0 ]; }; then
		tap_n=$((tap_n + 1)) tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $* exited with status $rc"
	fi
}

# strictly DESCRIPTION COMMAND [ARG...]: run COMMAND (often a function of
# many steps) stopping at its first failing command, which is named; die
# with DESCRIPTION if one failed.  Bash ignores set -e in a subshell on the
# left of || or inside if, so the status is tested after the subshell, and
# strictly must itself be called as a statement of its own.  Write one
# command per line: set -e also ignores a failure on the left of &&.
strictly() {
	local desc=$1 rc
	shift
	(
		set -eE
		trap 'echo "# $desc: failed (status $?): $BASH_COMMAND" >&2' ERR
		"$@"
	)
	rc=$?
	[ $rc -eq 0 ] || die "$desc (status $rc)"
}

die() {
	echo "not ok - $*"
	exit 1
}

# fresh_btrfs DEV MOUNTPOINT [MOUNT OPTIONS]: new filesystem, mounted.
fresh_btrfs() {
	mkfs.btrfs -q -f "$1" > /dev/null || return 1
	mkdir -p "$2"
	mount ${3:+-o "$3"} "$1" "$2"
}

treecmp() {
	"$VM_TOP/build/bin/treecmp" "$@"
}

# make_every_file_type DIR: one of each inode type and the metadata send
# must carry: regular (empty, small, sparse, large, inline), hard links,
# symlink, fifo, socket, char and block devices, xattrs, ACLs, setuid/setgid.
make_every_file_type() {
	local d=$1
	mkdir -p "$d/dir/sub" "$d/empty-dir"
	: > "$d/empty"
	echo hello > "$d/small"
	head -c 3000 /dev/urandom > "$d/inline"
	head -c 3000000 /dev/urandom > "$d/large"
	truncate -s 64M "$d/sparse"
	echo middle | dd of="$d/sparse" bs=1M seek=20 conv=notrunc status=none
	echo tail | dd of="$d/sparse" bs=1M seek=63 conv=notrunc status=none
	echo linked > "$d/dir/link1"
	ln "$d/dir/link1" "$d/dir/sub/link2"
	ln "$d/dir/link1" "$d/link3"
	ln -s ../small "$d/dir/symlink"
	ln -s /nonexistent/target "$d/dangling"
	mkfifo "$d/fifo"
	python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$d/socket"
	mknod "$d/chardev" c 1 7
	mknod "$d/blockdev" b 8 3
	echo xattrs > "$d/xattrs"
	setfattr -n user.one -v first "$d/xattrs"
	setfattr -n user.empty "$d/xattrs"
	setfattr -n user.binary -v 0x00ff10 "$d/xattrs"
	setfattr -n trusted.t -v trusted "$d/xattrs"
	setfacl -m u:1000:rwx,g:100:r-x "$d/xattrs"
	setfacl -d -m u:1000:rwx "$d/dir"
	echo suid > "$d/setuid"
	chown 1000:100 "$d/setuid"
	chmod 4755 "$d/setuid"
	echo sgid > "$d/setgid"
	chown 1001:101 "$d/setgid"
	chmod 2750 "$d/setgid"
	mkdir "$d/sticky" && chmod 1777 "$d/sticky"
	chown -h 123:456 "$d/dir/symlink"
	touch -h -d '2001-02-03 04:05:06.123456789' "$d/dir/symlink"
	touch -d '1999-12-31 23:59:59.5' "$d/small"
}

# use_module ours|stock: swap the loaded btrfs module (every btrfs must be
# unmounted first).  Lets one boot compare both implementations.  VM_OURS_KO
# names another build of ours (make bench measures a copy of its own).
use_module() {
	local cur
	cur=$([ -e /sys/fs/btrfs/features/send_impl ] && echo ours || echo stock)
	[ "$cur" = "$1" ] && return 0
	rmmod btrfs || return 1
	case $1 in
	stock) modprobe btrfs ;;
	ours) insmod "${VM_OURS_KO:-$VM_TOP/build/kernel/btrfs.ko}" \
		${VM_SEND_ZERO_COPY:+send_zero_copy=$VM_SEND_ZERO_COPY} ;;
	*) return 1 ;;
	esac
}

# Calls of a function of our module, counted by a kprobe (to tell which
# data path a send took).  probe_add NAME FUNCTION starts counting,
# probe_hits NAME prints the calls so far, probe_del NAME ends it (before
# the module is unloaded).
TRACEFS=/sys/kernel/tracing
probe_add() {
	[ -e $TRACEFS/kprobe_events ] || mount -t tracefs nodev $TRACEFS || return 1
	echo "p:btrfs_stream/$1 btrfs:$2" >> $TRACEFS/kprobe_events &&
		echo 1 > $TRACEFS/events/btrfs_stream/$1/enable
}
probe_hits() {
	awk -v n="$1" '$1 == n { print $2; f = 1 } END { exit !f }' \
		$TRACEFS/kprobe_profile
}
probe_del() {
	echo 0 > $TRACEFS/events/btrfs_stream/$1/enable &&
		echo "-:btrfs_stream/$1" >> $TRACEFS/kprobe_events
}

# send_ioctl_seconds CMD...: run CMD (a btrfs send) under strace -T and print
# the seconds its BTRFS_IOC_SEND took, nothing if CMD failed or issued none.
# Tells the kernel's share of a send from the process's own start-up.
send_ioctl_seconds() {
	local trace
	trace=$(mktemp) || return 1
	strace -T -e trace=ioctl -o "$trace" "$@" > /dev/null &&
		sed -n 's/.*BTRFS_IOC_SEND.*<\([0-9.]*\)>$/\1/p' "$trace"
	rm -f "$trace"
}
