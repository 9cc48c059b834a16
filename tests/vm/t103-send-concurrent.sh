#!/bin/bash
# Full send with our module while balance relocates the snapshot's extents
# and new snapshots of it are taken: the received tree equals the source.
exec "$(dirname "$0")/run" --module ours --disks 2 --mem 2048 --timeout 1200 -- \
	tests/vm/guest/send-concurrent.sh
