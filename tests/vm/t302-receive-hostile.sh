#!/bin/bash
# Hostile streams (tests/fixtures/hostile/) are refused on btrfs and touch
# nothing outside the destination.
exec "$(dirname "$0")/run" --module stock --disks 1 -- tests/vm/guest/receive-hostile.sh
