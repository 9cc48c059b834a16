#!/bin/bash
# Streams of the stock btrfs module (v1, and v2 with compressed data),
# received by btrfs-stream receive and by btrfs-progs: equal trees, marked
# received.
exec "$(dirname "$0")/run" --module stock --disks 3 -- tests/vm/guest/receive-roundtrip.sh
