#!/bin/bash
# Every file type survives btrfs send | btrfs receive with the stock module.
exec "$(dirname "$0")/run" --module stock -- tests/vm/guest/roundtrip-every-type.sh
