#!/bin/bash
# Seeds of the randomized incremental test with more operations on larger
# trees that once failed: 106 and 125 cloned an unaligned end-of-file tail
# into a file the receiver still had longer (it shrank with the final
# TRUNCATE), which clone refuses.
exec "$(dirname "$0")/run" --module ours --disks 2 --timeout 900 -- \
	env RANDOM_SEEDS="106 125" RANDOM_OPS=300 RANDOM_ENTRIES=200 RANDOM_ORPHANS=0 RANDOM_MODULE=ours \
	tests/vm/guest/send-random.sh
