#!/bin/bash
# The same incremental scenarios with the stock module's incremental send:
# the 6.1 code is known-good for incremental sends, so this validates the
# scenarios and their checks.  The full sends of A are ours (t101), made
# before the stock module is swapped in, so that A is received exactly.
exec "$(dirname "$0")/run" --module ours --disks 2 --timeout 1200 -- \
	env INCR_MODULE=stock tests/vm/guest/send-incremental.sh
