#!/bin/bash
# Every file type survives btrfs send | btrfs receive with the ours module.
exec "$(dirname "$0")/run" --module ours -- tests/vm/guest/roundtrip-every-type.sh
