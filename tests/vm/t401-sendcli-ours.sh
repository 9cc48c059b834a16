#!/bin/bash
# btrfs-stream send on our module: streams byte-identical to btrfs-progs'
# `btrfs send` on the same kernel for every option, and the same refusals.
# (Progress, the estimate and diff are kernel-independent: t400.)
cd "$(dirname "$0")/../.." || exit 1
exec tests/vm/run --module ours -- env SENDCLI_PARTS="streams refusals" \
	tests/vm/guest/sendcli-compare.sh
