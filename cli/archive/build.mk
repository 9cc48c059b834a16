# btrfs-stream ls, cat, extract (cli/cmd-{ls,cat,extract}.c and
# cli/archive/*.c, listed in cli/build.mk's CLI_CMDS): private header and
# host-side tests.  Decompression is cli/decompress.c, receive's.

ARCHIVE_SRCS := cli/cmd-ls.c cli/cmd-cat.c cli/cmd-extract.c $(wildcard cli/archive/*.c)
$(patsubst cli/%.c,$(B)/cli/%.o,$(ARCHIVE_SRCS)) \
$(patsubst cli/%.c,$(B)/asan/cli/%.o,$(ARCHIVE_SRCS)): cli/archive/archive.h cli/receive/receive.h

UNIT_TESTS += tests/unit/archive.t
