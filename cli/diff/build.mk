# btrfs-stream diff (cli/cmd-diff.c and cli/diff/*.c, listed in cli/build.mk's
# CLI_CMDS): private header and host-side tests.

DIFF_SRCS := cli/cmd-diff.c $(wildcard cli/diff/*.c)
$(patsubst cli/%.c,$(B)/cli/%.o,$(DIFF_SRCS)) \
$(patsubst cli/%.c,$(B)/asan/cli/%.o,$(DIFF_SRCS)): cli/diff/diff.h

UNIT_TESTS += tests/unit/diff.t
