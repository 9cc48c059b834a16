#!/bin/bash
# Guest: every stream of tests/fixtures/hostile/ received into box/ on
# btrfs must be refused with its message, leave the subvolume it made
# writable and not marked received, and change nothing outside box/.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/receive-lib.sh"
h=/tmp/mnt/h fixtures=$VM_TOP/tests/fixtures/hostile
fresh_btrfs /dev/vdb $h || die "mkfs"
cd $h || die "cd"
mkdir -p outside/dir
echo target > outside/target
setfattr -n user.keep -v 1 outside/target
"$MKSTREAM" -o /tmp/secret $fixtures/secret-subvol.setup &&
"$BSTREAM" receive -q -f /tmp/secret outside || die "receive the secret subvolume"
check "secret subvolume outside is marked received" \
	is_received outside/secret 5ec2e75e-0000-4000-8000-000000000001

directive() { sed -n "s/^# $2: //p" "$1"; }
clear_box() {
	local s
	for s in box/*; do
		[ -e "$s" ] || continue
		if [ "$(stat -c %i "$s")" = 256 ]; then
			btrfs -q subvolume delete "$s" || return 1
		else
			rm -rf "$s" || return 1
		fi
	done
	rmdir box 2> /dev/null
	mkdir box
}

before=$(treecmp --digest -i atime outside)
for src in $fixtures/*.txt; do
	name=$(basename "$src" .txt)
	clear_box || die "clear box"
	"$MKSTREAM" -o /tmp/stream "$src" || { check "$name: mkstream" false; continue; }
	read -ra args <<< "$(directive "$src" args)"
	check "$name: refused: $(directive "$src" error)" \
		fails_with "$(directive "$src" error)" "$BSTREAM" receive "${args[@]}" -f /tmp/stream box
	check "$name: nothing changed outside" test "$before" = "$(treecmp --digest -i atime outside)"
	check "$name: nothing new next to box" test "$(ls -A)" = "$(printf 'box\noutside')"
	for s in box/*; do
		[ -e "$s" ] || continue
		check "$name: $s left writable, not marked received" not_received "$s"
	done
done
tap_done
