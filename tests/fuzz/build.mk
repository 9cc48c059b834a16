# Fuzzing of the stream reader and of btrfs-stream dump (libFuzzer).
#
#   make fuzz              each target for FUZZ_SECONDS/2 (default 600 s in all)
#   make fuzz-smoke        the same for 60 s in all
#
# New inputs go to $(B)/fuzz/corpus-*/, crashes to $(B)/fuzz/; turn a crash
# into a seed in tests/fuzz/corpus/ with a name saying where it came from.
# The seed corpus is replayed by the unit tests (tests/unit/stream-fuzz.t)
# with gcc and ASan/UBSan, so no clang is needed there.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := reader dump
FUZZ_LIB := $(filter-out lib/src/gen-crc32c.c,$(wildcard lib/src/*.c))
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-Ilib/include -Ilib/src -I$(B)/lib
FUZZ_SRC_reader := tests/fuzz/fuzz-reader.c
FUZZ_SRC_dump := tests/fuzz/fuzz-dump.c cli/cli.c cli/json.c cli/uuid.c cli/cmd-dump.c

$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz-common.h $(FUZZ_LIB) \
		$(wildcard cli/*.c cli/*.h lib/include/btrfs-stream/*.h) $(B)/lib/crc32c-tables.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ \
		$(FUZZ_SRC_$*) $(FUZZ_LIB)

# Replay drivers: the same targets with a plain main(), built by $(CC).
$(B)/tests/fuzz/replay-%: tests/fuzz/fuzz-%.c tests/fuzz/replay.c tests/fuzz/fuzz-common.h \
		$(FUZZ_LIB) $(wildcard cli/*.c cli/*.h lib/include/btrfs-stream/*.h) \
		$(B)/lib/crc32c-tables.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -O1 $(ASAN_FLAGS) -Ilib/include -Ilib/src -I$(B)/lib -o $@ \
		tests/fuzz/replay.c $(FUZZ_SRC_$*) $(FUZZ_LIB)

.PHONY: fuzz fuzz-smoke fuzz-build
fuzz-build: $(addprefix $(B)/fuzz/fuzz-,$(FUZZ_TARGETS))

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/fuzz/corpus-$$t && \
		echo "== fuzz-$$t for $$(($(FUZZ_SECONDS) / 2)) s" && \
		$(B)/fuzz/fuzz-$$t -max_total_time=$$(($(FUZZ_SECONDS) / 2)) \
			-dict=tests/fuzz/stream.dict -artifact_prefix=$(B)/fuzz/ \
			-close_fd_mask=2 -print_final_stats=1 \
			$(B)/fuzz/corpus-$$t tests/fuzz/corpus || exit 1; \
	done

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=60

userspace: $(B)/tests/fuzz/replay-reader $(B)/tests/fuzz/replay-dump
UNIT_TESTS += tests/unit/stream-fuzz.t
