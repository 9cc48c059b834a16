#!/bin/bash
# Resumable transfers at 20 seeded points of the full and the incremental
# stream of three seeds (t310 runs a few of them in make check), with the
# receive times with and without checkpoints as comments.
exec "$(dirname "$0")/run" --module ours --disks 3 --timeout 7200 -- \
	env RESUME_SEEDS="1 2 3" RESUME_POINTS=20 RESUME_ENTRIES=100 RESUME_COST=1 \
	tests/vm/guest/resume.sh
