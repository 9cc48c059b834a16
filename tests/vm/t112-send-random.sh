#!/bin/bash
# Randomized differential test of incremental send, a fixed handful of
# seeds on our module (make check-long runs hundreds: t113).
exec "$(dirname "$0")/run" --module ours --disks 2 --timeout 900 -- \
	env RANDOM_SEEDS="1 2 3 4 5 6" RANDOM_MODULE=ours tests/vm/guest/send-random.sh
