#!/bin/bash
# Resumable transfers (docs/resume.md): receive killed (SIGKILL) or its
# pipe cut at seeded points of a full and an incremental stream, resumed
# with send --resume (the kernel starting at the point, its bytes equal to
# the userspace path's), equal to the source; five interruptions in one
# transfer; every refusal; btrfs-progs refusing a continuation; kernel
# resumes inside one big file's writes, reading far less than a full send;
# the stock module.  make check-long runs more seeds and points (t311).
exec "$(dirname "$0")/run" --module ours --disks 3 --timeout 900 -- \
	env RESUME_SEEDS=1 RESUME_POINTS=4 RESUME_ENTRIES=100 RESUME_EXTRA=1 \
	tests/vm/guest/resume.sh
