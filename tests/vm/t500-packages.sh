#!/bin/bash
# The packages of make deb, used as a user would (make check-packages).
#
# btrfs-send-dkms: dkms adds and builds it on this machine against the
# packaged headers and linux-source-6.1, as the package's postinst would
# (building only: the module is loaded in the guest, never here), and
# dkms status shows it built.  dkms works in a private tree under build/
# (--sourcetree, --dkmstree), so /usr/src and /var/lib/dkms get no module;
# the one thing dkms writes outside it is its signing key,
# /var/lib/dkms/mok.{key,pub}, made on its first build on a machine: when
# this test made them, it removes them again, and dkms remove --all undoes
# the add.  The guest then loads that module instead of the stock one
# (send_impl reads btrfs-stream) and btrfs-stream, unpacked from its .deb
# with dpkg -x (the guest sees this machine's root read-only, so nothing
# is installed), sends and receives on it.
cd "$(dirname "$0")/../.." || exit 1
. kernel/scripts/common.sh
n=0 failed=0
report() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

version=$(cat VERSION)
debs=$top/build/deb
work=$top/build/packages-test
tree=(--sourcetree "$work/root/usr/src" --dkmstree "$work/dkms")
mod=(-m btrfs-send -v "$version")
mok=/var/lib/dkms/mok.key
mok_made=1
[ -e "$mok" ] && mok_made=0
cleanup() {
	[ -d "$work/dkms/btrfs-send" ] && dkms remove "${mod[@]}" --all "${tree[@]}" > /dev/null
	[ $mok_made = 1 ] && rm -f "$mok" /var/lib/dkms/mok.pub
}
trap cleanup EXIT

rm -rf "$work"
mkdir -p "$work/root" "$work/dkms"
for p in btrfs-stream_${version}_amd64 btrfs-send-dkms_${version}_all; do
	dpkg -x "$debs/$p.deb" "$work/root"
	report $? "dpkg -x $p.deb"
done
[ $failed = 0 ] || { echo "# run make deb first"; exit 1; }

dkms add "${mod[@]}" "${tree[@]}" > "$work/dkms-add.log" 2>&1
report $? "dkms add btrfs-send/$version"
dkms build "${mod[@]}" -k "$KREL" "${tree[@]}" > "$work/dkms-build.log" 2>&1
rc=$?
[ $rc = 0 ] || tail -n 30 "$work/dkms-build.log" | sed 's/^/#   /'
report $rc "dkms build btrfs-send/$version for $KREL (log: build/packages-test/dkms-build.log)"
status=$(dkms status "${mod[@]}" "${tree[@]}")
[ "$status" = "btrfs-send/$version, $KREL, x86_64: built" ]
report $? "dkms status shows it built (got '$status')"
[ ! -e "/usr/src/btrfs-send-$version" ] && [ ! -e /var/lib/dkms/btrfs-send ]
report $? "dkms left /usr/src and /var/lib/dkms without btrfs-send"
ko=$work/dkms/btrfs-send/$version/$KREL/x86_64/module/btrfs.ko
[ "$(modinfo -F vermagic "$ko")" = "$(modinfo -F vermagic "$KMODDIR/kernel/fs/btrfs/btrfs.ko")" ]
report $? "the dkms-built module's vermagic is the packaged kernel's"

out=$(tests/vm/run --module stock --disks 2 -- \
	env PKG_ROOT="$work/root" VM_OURS_KO="$ko" tests/vm/guest/packages.sh)
rc=$?
# The guest's results become ours; its plan is checked, not passed on.
echo "$out" | grep -v '^\(\(not \)\?ok \|1\.\.[0-9]\)'
guest_plan= guest_n=0
while read -r line; do
	case $line in
	"ok "*) guest_n=$((guest_n + 1)); report 0 "guest: ${line#ok * - }" ;;
	"not ok "*) guest_n=$((guest_n + 1)); report 1 "guest: ${line#not ok * - }" ;;
	1..[0-9]*) guest_plan=${line#1..} ;;
	esac
done <<< "$out"
report $rc "the guest run ends well (exit $rc)"
[ "$guest_plan" = "$guest_n" ]
report $? "the guest ran its plan (planned ${guest_plan:-none}, ran $guest_n)"
echo "1..$n"
exit $failed
