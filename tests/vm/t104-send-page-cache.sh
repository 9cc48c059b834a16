#!/bin/bash
# A full send reads file data through the page cache; pages it brought in
# are dropped again, pages that were cached before stay (ours and stock).
exec "$(dirname "$0")/run" --module ours --disks 1 --timeout 900 -- \
	tests/vm/guest/send-page-cache.sh
