#!/bin/bash
# btrfs-stream receive onto plain directories on ext4, XFS (reflink) and
# tmpfs, as root and as nobody (tests/vm/guest/receive-anywhere.sh): the
# roundtrip trees (protocol 2, compressed data), two incremental
# scenarios, a random tree and the crafted streams, each chain received
# step by step and every snapshot equal to its source but for what the
# destination cannot hold, reported; data shared on XFS along a chain of
# four; the hostile corpus on ext4.  Every scenario, mode and seed, and
# the hostile corpus everywhere: t308-receive-anywhere-long.sh.
# Measured: 229 checks, 857 s on a host running five TCG guests on two
# cores (load ~10); the guest's own account: sources 138 s, each
# filesystem and user 43-107 s, hostile corpus 173 s.
exec "$(dirname "$0")/run" --module ours --disks 3 --mem 3072 --timeout 1800 -- \
	env ANYWHERE_SCENARIOS="data_clone links_swapped" ANYWHERE_MODES=v2 \
	ANYWHERE_ROUNDTRIP=v2c ANYWHERE_SEEDS=1 ANYWHERE_CRAFTED=1 ANYWHERE_UNCHANGED=0 ANYWHERE_HOSTILE=ext4:root \
	tests/vm/guest/receive-anywhere.sh
