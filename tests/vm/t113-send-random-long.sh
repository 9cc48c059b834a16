#!/bin/bash
# Randomized differential test of incremental send over many seeds, run by
# make check-long: SEEDS consecutive seeds (default 500) from SEED0
# (default 1) on MODULE (ours, default, or stock), in batches of BATCH
# seeds (default 100) per VM boot.  Ends with every failing seed and the
# command that replays it.
if [ "${SEND_LONG:-0}" != 1 ]; then
	echo "1..0 # skip randomized incremental send: set SEND_LONG=1 to run it"
	exit 0
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
# Each boot's results join one TAP stream with one plan (tap_sub).
. "$top/tests/vm/lib-guest.sh"
seeds=${SEEDS:-500} seed0=${SEED0:-1} module=${MODULE:-ours} batch=${BATCH:-100}
case $module in
ours) swap= ;;
stock) swap=INCR_MODULE=stock ;;	# A is sent by ours, see send-random.sh
*) echo "not ok 1 - MODULE must be ours or stock"; echo "1..1"; exit 1 ;;
esac
mkdir -p "$top/build/vm"
out=$(mktemp -d "$top/build/vm/random.XXXXXX")
for ((first = seed0; first < seed0 + seeds; first += batch)); do
	last=$((first + batch - 1))
	[ $last -lt $((seed0 + seeds - 1)) ] || last=$((seed0 + seeds - 1))
	echo "# seeds $first to $last on $module"
	tap_sub "$top/tests/vm/run" --module ours --disks 2 --out "$out" \
		--timeout $((600 + 30 * (last - first + 1))) -- \
		env RANDOM_SEEDS="$(seq -s ' ' $first $last)" RANDOM_MODULE=$module $swap \
		tests/vm/guest/send-random.sh
done
if [ -s "$out/failed-seeds" ]; then
	echo "# failing seeds on $module, each replayed alone by:"
	sed "s/.*/#   make check-long SEEDS=1 SEED0=& MODULE=$module/" "$out/failed-seeds"
fi
rm -rf "$out"
tap_done
