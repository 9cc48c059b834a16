#!/bin/bash
# The same as t300 with streams made by our send (--module ours).
exec "$(dirname "$0")/run" --module ours --disks 3 -- tests/vm/guest/receive-roundtrip.sh
