#!/bin/bash
# Guest, two boots on the same disks (tests/vm/t312-resume-poweroff.sh):
#
#   before: a source subvolume (fsgen) and its snapshot A on /dev/vdb,
#           synced; A sent and received with --resumable onto /dev/vdc,
#           slowly, until receive has taken its second checkpoint; then
#           $VM_OUT/poweroff asks tests/vm/run to kill QEMU: nothing of
#           the guest's page cache reaches the disks after that.
#   after:  both filesystems mounted again (log replay); the partial
#           subvolume is there, writable, not received, resumable from a
#           checkpoint; send --resume and receive complete it, equal to
#           A, received, Parent UUID as a plain receive gives, nothing
#           left in .btrfs-stream-resume.
. "$VM_TOP/tests/vm/lib-guest.sh"
. "$VM_TOP/tests/vm/guest/receive-lib.sh"

SRC=/tmp/mnt/src DST=/tmp/mnt/dst
FSGEN=$VM_TOP/build/bin/fsgen
state=$DST/.btrfs-stream-resume/p.A.state

before() {
	local ck
	fresh_btrfs /dev/vdb $SRC || die "mkfs source"
	fresh_btrfs /dev/vdc $DST || die "mkfs destination"
	btrfs -q subvolume create $SRC/p
	"$FSGEN" --seed 42 --entries 200 --populate $SRC/p > /dev/null
	btrfs -q subvolume snapshot -r $SRC/p $SRC/p.A
	sync
	"$BSTREAM" send -q $SRC/p.A | throttle |
		"$BSTREAM" receive -q --resumable --checkpoint-every 64K $DST &
	ck=$(wait_second_checkpoint $state 3000)
	echo "# powering off after $ck"
	# Let the receive write on past the checkpoint, then pull the plug.
	sleep 1
	touch "$VM_OUT/poweroff"
	sleep 600
	die "still running after the power-off request"
}

after() {
	mkdir -p $SRC $DST
	mount /dev/vdb $SRC || die "mount source"
	mount /dev/vdc $DST || die "mount destination"
	tap_n=1
	check "the partial subvolume survived, writable, not received" not_received $DST/p.A
	"$BSTREAM" receive --list-partial $DST > /tmp/partial
	check "it is resumable from a checkpoint" \
		grep -q "^$DST/p.A index=[0-9]* offset=[0-9]* from=checkpoint\$" /tmp/partial
	sed 's/^/# /' /tmp/partial
	ls -A $DST/.btrfs-stream-resume | sed 's/^/# after the power cut: /'
	tok=$("$BSTREAM" receive --resume-token $DST/p.A)
	check "send --resume and receive complete it" \
		sh -c '"$1" send -q --resume "$2" "$3" | "$1" receive -q --resumable "$4"' sh \
		"$BSTREAM" "$tok" $SRC/p.A $DST
	check "  equal to the source" treecmp $SRC/p.A $DST/p.A
	check "  marked received" is_received $DST/p.A "$(subvol_field $SRC/p.A UUID)"
	check "  Parent UUID is none, as for a plain full receive" \
		test "$(subvol_field $DST/p.A 'Parent UUID')" = -
	check "  no resume state or checkpoint left" sh -c 'ls -A "$1"; test -z "$(ls -A "$1")"' sh \
		$DST/.btrfs-stream-resume
	umount $SRC $DST
	tap_done
}

case ${1:-} in
before) before ;;
after) after ;;
*) die "usage: resume-poweroff.sh before|after" ;;
esac
