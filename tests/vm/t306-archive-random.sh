#!/bin/bash
# btrfs-stream ls, cat and extract on random trees sent by our module (full
# and two incrementals per seed, compressed and not) against the plain
# backend's receive of the same streams (tests/vm/guest/archive-random.sh).
exec "$(dirname "$0")/run" --module ours --disks 2 --timeout 900 -- \
	env ARCHIVE_SEEDS="1 2 3" tests/vm/guest/archive-random.sh
