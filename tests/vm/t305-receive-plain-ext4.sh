#!/bin/bash
# btrfs-stream receive onto ext4: full and incremental streams into plain
# directories (tests/vm/guest/receive-plain.sh), our module sending.
exec "$(dirname "$0")/run" --module ours --disks 2 -- tests/vm/guest/receive-plain.sh
