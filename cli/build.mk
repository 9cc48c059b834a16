# btrfs-stream command line tool and the mkstream test helper.
#
# (lib/build.mk is included after this file: name its outputs literally.)
# A new subcommand: add cli/cmd-NAME.c to CLI_CMDS and one line to the
# table in cli/main.c.

CLI_CMDS := cli/cmd-dump.c cli/cmd-receive.c $(wildcard cli/receive/*.c) cli/cmd-send.c cli/cmd-diff.c $(wildcard cli/send/*.c cli/diff/*.c) \
	cli/cmd-ls.c cli/cmd-cat.c cli/cmd-extract.c $(wildcard cli/archive/*.c)
CLI_SRCS := cli/main.c cli/cli.c cli/json.c cli/version.c cli/decompress.c cli/resume-token.c cli/uuid.c $(CLI_CMDS)
CLI_OBJS := $(patsubst cli/%.c,$(B)/cli/%.o,$(CLI_SRCS))
CLI_OBJS_ASAN := $(patsubst cli/%.c,$(B)/asan/cli/%.o,$(CLI_SRCS))

$(B)/cli/%.o: cli/%.c cli/cli.h cli/json.h cli/decompress.h cli/resume-token.h cli/uuid.h $(wildcard lib/include/btrfs-stream/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CPPFLAGS) -Ilib/include -c -o $@ $<

$(B)/asan/cli/%.o: cli/%.c cli/cli.h cli/json.h cli/decompress.h cli/resume-token.h cli/uuid.h $(wildcard lib/include/btrfs-stream/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Ilib/include -c -o $@ $<

$(B)/bin/btrfs-stream: $(CLI_OBJS) $(B)/lib/libbtrfs-stream.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Sanitized build used by the hostile-input tests.
$(B)/asan/bin/btrfs-stream: $(CLI_OBJS_ASAN) $(B)/asan/lib/libbtrfs-stream.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -o $@ $^ $(LDLIBS)

$(B)/bin/mkstream: tests/tools/mkstream.c $(B)/lib/libbtrfs-stream.a $(wildcard lib/include/btrfs-stream/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ilib/include -o $@ $< $(B)/lib/libbtrfs-stream.a $(LDLIBS)

BINS += $(B)/bin/btrfs-stream $(B)/bin/mkstream

# --version prints the release number of the top-level VERSION file, the
# one place it is kept (cli/version.c).
CLI_VERSION := $(strip $(file < VERSION))
$(B)/cli/version.o $(B)/asan/cli/version.o: VERSION
$(B)/cli/version.o $(B)/asan/cli/version.o: override CFLAGS += -DBTRFS_STREAM_VERSION='"$(CLI_VERSION)"'
UNIT_TESTS += tests/unit/cli-version.t
