# btrfs-stream send (cli/cmd-send.c and cli/send/*.c, listed in cli/build.mk's
# CLI_CMDS): private header, threads, host-side tests.

SEND_SRCS := cli/cmd-send.c cli/cmd-diff.c $(wildcard cli/send/*.c)
$(patsubst cli/%.c,$(B)/cli/%.o,$(SEND_SRCS)) \
$(patsubst cli/%.c,$(B)/asan/cli/%.o,$(SEND_SRCS)): cli/send/send.h

# The send ioctl runs in a thread of its own (cli/send/pump.c).
$(B)/bin/btrfs-stream $(B)/asan/bin/btrfs-stream: LDLIBS += -pthread

UNIT_TESTS += tests/unit/send.t
