# btrfs-stream receive (cli/cmd-receive.c and cli/receive/*.c, listed in
# cli/build.mk's CLI_CMDS): private header, decompression libraries and
# host-side tests.

RECV_SRCS := cli/cmd-receive.c $(wildcard cli/receive/*.c)
$(patsubst cli/%.c,$(B)/cli/%.o,$(RECV_SRCS)) \
$(patsubst cli/%.c,$(B)/asan/cli/%.o,$(RECV_SRCS)): cli/receive/receive.h

# zlib, zstd and lzo for the decompressing fallback; a worker thread (jobs.c).
$(B)/bin/btrfs-stream $(B)/asan/bin/btrfs-stream: LDLIBS += -lz -lzstd -llzo2 -pthread


UNIT_TESTS += tests/unit/receive.t tests/unit/receive-layers.t tests/unit/receive-plain.t
# Resumable receive and send --resume, on the plain backend (docs/resume.md).
UNIT_TESTS += tests/unit/resume.t
