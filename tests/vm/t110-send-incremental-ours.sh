#!/bin/bash
# Incremental send scenarios of issue 5 with our module, received by
# btrfs receive and compared with the source (tests/vm/guest/send-incremental.sh).
exec "$(dirname "$0")/run" --module ours --disks 2 --timeout 1200 -- tests/vm/guest/send-incremental.sh
