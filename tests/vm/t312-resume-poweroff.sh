#!/bin/bash
# Resumable receive after a power cut: the first boot receives slowly and
# has tests/vm/run kill QEMU after the second checkpoint; the second boot,
# on the same disks, resumes and checks (tests/vm/guest/resume-poweroff.sh).
here=$(dirname "$0")
top=$(cd "$here/../.." && pwd)
mkdir -p "$top/build/vm"
disks=$(mktemp -d "$top/build/vm/poweroff.XXXXXX") || exit 1
trap 'rm -rf "$disks"' EXIT
if "$here/run" --module ours --disks 2 --disk-dir "$disks" --kill-when poweroff --timeout 900 \
	-- tests/vm/guest/resume-poweroff.sh before > "$disks/before.log" 2>&1 &&
	grep -q "powered off as asked" "$disks/before.log"; then
	echo "ok 1 - first boot: receive running, then powered off hard"
else
	echo "not ok 1 - first boot did not end in the power-off"
	sed 's/^/#   /' "$disks/before.log" | tail -n 30
	echo "1..1"
	exit 1
fi
"$here/run" --module ours --disks 2 --disk-dir "$disks" --timeout 900 \
	-- tests/vm/guest/resume-poweroff.sh after
