#!/bin/bash
# Receives that must fail cleanly: missing, changed or unreachable parent,
# existing subvolume, damaged real streams, a full filesystem.
exec "$(dirname "$0")/run" --module stock --disks 3 -- tests/vm/guest/receive-failures.sh
