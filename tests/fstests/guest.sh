#!/bin/bash
# Runs inside the test guest (tests/vm/run): fstests' check, one test at a
# time, on the xfstests tree that tests/fstests/build made on the host.
#
# The host's root is read-only here, so the tree is copied into the guest's
# tmpfs.  Each test's record is written to $VM_OUT/records/ the moment the
# test ends, so a guest that is killed keeps what finished; the host turns
# a test that started but left no record into a failure.
#
# Usage: guest.sh TEST...   (e.g. btrfs/278)
# Environment: FSTESTS_TEST_TIMEOUT (seconds for one test, default 3600),
# FSTESTS_LABEL (prefix of the progress lines).
set -u
[ $# -gt 0 ] || { echo "fstests: no test given"; exit 2; }

src=$VM_TOP/build/fstests/xfstests
tree=/tmp/xfstests
work=/tmp/fstests
records=$VM_OUT/records
logs=$VM_OUT/logs
artifacts=$VM_OUT/artifacts
test_timeout=${FSTESTS_TEST_TIMEOUT:-3600}
label=${FSTESTS_LABEL:-$VM_MODULE}

say() { echo "[$label] $*"; }
fatal() { say "$*"; exit 1; }

mkdir -p "$records" "$logs" "$artifacts" || fatal "cannot write to $VM_OUT"
[ -x "$src/check" ] || fatal "no built xfstests at $src"
cp -a "$src" "$tree" || fatal "cannot copy xfstests into the guest's tmpfs"
mkdir -p "$work/test" "$work/scratch" || fatal "cannot make mount points"

# The send group's btrfs/339 runs commands as the unprivileged user fsgqa.
# /etc is the host's, read-only: give the guest copies with that user added.
add_fsgqa() {
	getent passwd fsgqa > /dev/null && return 0
	local uid=61234 f
	getent passwd "$uid" > /dev/null && return 1
	mkdir -p "$work/etc" "$work/home/fsgqa" || return 1
	for f in passwd group shadow; do
		cp "/etc/$f" "$work/etc/$f" || return 1
	done
	echo "fsgqa:x:$uid:$uid::$work/home/fsgqa:/bin/bash" >> "$work/etc/passwd" &&
	echo "fsgqa:x:$uid:" >> "$work/etc/group" &&
	echo "fsgqa:!:19000:0:99999:7:::" >> "$work/etc/shadow" &&
	chown "$uid:$uid" "$work/home/fsgqa" || return 1
	for f in passwd group shadow; do
		mount --bind "$work/etc/$f" "/etc/$f" || return 1
	done
}
add_fsgqa || fatal "cannot add the fsgqa user"

# TEST_DEV carries a filesystem across tests; the scratch pool is made
# anew by the tests that use it.  A pool of two lets tests that want two
# devices get as far as their own requirements.
cat > "$tree/local.config" <<CONFIG || fatal "cannot write local.config"
export FSTYP=btrfs
export TEST_DEV=/dev/vdb
export TEST_DIR=$work/test
export SCRATCH_DEV_POOL="/dev/vdc /dev/vdd"
export SCRATCH_MNT=$work/scratch
CONFIG
mkfs.btrfs -f -q /dev/vdb > /dev/null || fatal "mkfs.btrfs on TEST_DEV failed"

# write_record NAME KEY=VALUE...: the test's record, replaced atomically.
write_record() {
	local name=$1 tmp
	shift
	tmp="$records/.$name.tmp"
	printf '%s\n' "$@" > "$tmp" && mv "$tmp" "$records/$name"
}

# verdict LOG: pass, notrun or fail, from check's closing summary.
verdict() {
	if grep -q '^Passed all 1 tests' "$1"; then echo pass
	elif grep -q '^Not run:' "$1"; then echo notrun
	else echo fail
	fi
}

# failure_note LOG TEST: fstests' verdict on one line: what failed, the
# first lines the output got wrong, and fstests' hint of a missing fix.
failure_note() {
	sed -n "\\|^$2 |,/^Ran:/p" "$1" | awk '
		NR == 1 { sub(/^[^ ]+ +([0-9]+s \.\.\. +)?(- )?/, ""); sub(/ *\(see [^)]*\)/, ""); verdict = $0; next }
		/^    [-+][^-+]/ && changed < 2 { sub(/^    /, ""); diff = diff " `" $0 "`"; changed++; next }
		/^HINT:|wants .* fix:/ { hint = 1; sub(/^HINT: */, ""); note = note " " $0; next }
		hint && /^ +[0-9a-f]+ / { sub(/^ +/, ""); note = note " " $0; hint = 0; next }
		END { printf "%s%s%s", verdict, (diff ? ":" diff : ""), (note ? "; fstests:" note : "") }'
}

# unmount_all: after a test that was killed, free the devices for the next.
unmount_all() {
	local m
	for m in "$work/scratch" "$work/test"; do
		mountpoint -q "$m" && umount -l "$m"
	done
	return 0
}

total=$#
n=0
start_all=$(date +%s)
for t in "$@"; do
	n=$((n + 1))
	name=${t//\//-}
	[ -f "$tree/tests/$t" ] || {
		write_record "$name" "result=fail" "seconds=0" "note=no such test in this xfstests tree"
		continue
	}
	rm -f "$tree/results/$t".*
	elapsed=$(($(date +%s) - start_all))
	say "[$n/$total] $t started, elapsed $((elapsed / 60))m$((elapsed % 60))s"
	: > "$records/.$name.started"
	echo "fstests-run: begin $t" > /dev/kmsg
	start=$(date +%s)
	(cd "$tree" && exec timeout -k 60 "$test_timeout" ./check "$t") > "$logs/$name.log" 2>&1
	rc=$?
	seconds=$(($(date +%s) - start))
	echo "fstests-run: end $t" > /dev/kmsg

	result=$(verdict "$logs/$name.log")
	note=
	case $result in
	notrun) note=$(tr '\n' ' ' < "$tree/results/$t.notrun" 2>/dev/null) ;;
	fail) note=$(failure_note "$logs/$name.log" "$t") ;;
	esac
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		result=fail note="killed after ${test_timeout}s (FSTESTS_TEST_TIMEOUT)"
		unmount_all
	fi
	# The kernel's log for this test alone, checked like tests/vm/run does.
	dmesg | sed -n "\\|fstests-run: begin $t\$|,\\|fstests-run: end $t\$|p" > "$logs/$name.dmesg"
	if ! "$VM_TOP/tests/vm/check-klog" "$logs/$name.dmesg" 2> "$logs/$name.klog"; then
		result=fail note="kernel warning: $(sed -n '1s/^klog: [^:]*:[0-9]*://p' "$logs/$name.klog") $note"
	fi
	if [ "$result" = fail ]; then
		mkdir -p "$artifacts/$name"
		cp "$tree/results/$t".* "$artifacts/$name/" 2>/dev/null
	fi
	write_record "$name" "result=$result" "seconds=$seconds" "note=${note% }" ||
		fatal "cannot write the record of $t"
	rm -f "$records/.$name.started"
	say "[$n/$total] $t $result ${seconds}s${note:+: ${note:0:150}}"
done
elapsed=$(($(date +%s) - start_all))
say "done: $total tests in $((elapsed / 60))m$((elapsed % 60))s"
