#!/bin/bash
# Send cases fstests' send group found wrong, rebuilt as our own checks
# (tests/vm/guest/send-regressions.sh), with our module.
exec "$(dirname "$0")/run" --module ours --disks 2 --timeout 900 -- tests/vm/guest/send-regressions.sh
