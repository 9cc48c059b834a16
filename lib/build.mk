# libbtrfs-stream: the stream reader/writer library.
#
# Built twice: $(B)/lib/ normally, and $(B)/asan/lib/ with AddressSanitizer
# and UBSan for the unit tests that feed it hostile input.

LIB_SRCS := $(addprefix lib/src/,crc32c.c prefetch.c proto.c reader.c residency.c writer.c)
LIB_HDRS := $(wildcard lib/include/btrfs-stream/*.h)
LIB_CPPFLAGS := -Ilib/include -Ilib/src -I$(B)/lib
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

LIBBSTREAM := $(B)/lib/libbtrfs-stream.a
LIBBSTREAM_ASAN := $(B)/asan/lib/libbtrfs-stream.a
LIB_OBJS := $(patsubst lib/src/%.c,$(B)/lib/%.o,$(LIB_SRCS))
LIB_OBJS_ASAN := $(patsubst lib/src/%.c,$(B)/asan/lib/%.o,$(LIB_SRCS))

# The CRC tables are generated at build time (no run-time initialisation).
$(B)/lib/gen-crc32c: lib/src/gen-crc32c.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) -o $@ $<

$(B)/lib/crc32c-tables.h: $(B)/lib/gen-crc32c
	$< > $@.tmp && mv $@.tmp $@

$(B)/lib/%.o: lib/src/%.c $(LIB_HDRS) $(wildcard lib/src/*.h) $(B)/lib/crc32c-tables.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LIB_CPPFLAGS) -c -o $@ $<

$(B)/asan/lib/%.o: lib/src/%.c $(LIB_HDRS) $(wildcard lib/src/*.h) $(B)/lib/crc32c-tables.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(LIB_CPPFLAGS) -c -o $@ $<

$(LIBBSTREAM): $(LIB_OBJS)
	$(AR) rcs $@ $^

$(LIBBSTREAM_ASAN): $(LIB_OBJS_ASAN)
	$(AR) rcs $@ $^

.PHONY: lib
lib: $(LIBBSTREAM)
userspace: $(LIBBSTREAM)

# Tests of the library, the dump command and mkstream.
userspace: $(B)/asan/bin/btrfs-stream
UNIT_TESTS += tests/unit/stream-dump.t tests/unit/stream-kernel-fixtures.t tests/unit/stream-readahead.t

# The library's C unit tests (TAP), each built plain and with ASan and
# UBSan: test-stream (reader and writer), test-skip (the data filter and
# seeking, bstream_reader_set_data_filter(), _seek()), and of internal
# parts (lib/src): test-prefetch (the read-ahead advice while passing over
# data) and test-residency (page cache residency, which picks O_DIRECT
# reads).
LIB_C_TESTS := test-stream test-skip test-prefetch test-residency
LIB_TEST_DEPS := $(LIB_HDRS) $(wildcard lib/src/*.h) tests/unit/lib/tap.h

$(B)/tests/unit/test-%-asan: tests/unit/lib/test-%.c $(LIBBSTREAM_ASAN) $(LIB_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Ilib/include -Ilib/src -o $@ $< $(LIBBSTREAM_ASAN) $(LDLIBS)

$(B)/tests/unit/test-%: tests/unit/lib/test-%.c $(LIBBSTREAM) $(LIB_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ilib/include -Ilib/src -o $@ $< $(LIBBSTREAM) $(LDLIBS)

UNIT_TESTS += $(foreach t,$(LIB_C_TESTS),$(B)/tests/unit/$(t) $(B)/tests/unit/$(t)-asan)

# Throughput against cat and btrfs receive --dump, as ratios (host side).
.PHONY: bench bench-stream
bench: bench-stream
bench-stream: $(B)/bin/btrfs-stream $(B)/bin/mkstream
	@B=$(abspath $(B)) bench/stream-parse.sh $(BENCH_MIB)

# Shared library, for programs outside this tree (make install, the
# libbtrfs-stream0 package): the same sources built as PIC, exporting only
# the public API (lib/libbtrfs-stream.map).  The release number comes from
# VERSION; its first field is the soname's, so 0.9.0 gives
# libbtrfs-stream.so.0.9.0 with the soname libbtrfs-stream.so.0.  Our own
# btrfs-stream links the static library: see packaging/build.mk.
LIB_VERSION := $(strip $(file < VERSION))
LIB_SOMAJOR := $(firstword $(subst ., ,$(LIB_VERSION)))
LIB_SONAME := libbtrfs-stream.so.$(LIB_SOMAJOR)
LIBBSTREAM_SO := $(B)/lib/libbtrfs-stream.so.$(LIB_VERSION)
LIB_OBJS_PIC := $(patsubst lib/src/%.c,$(B)/lib/pic/%.o,$(LIB_SRCS))

$(B)/lib/pic/%.o: lib/src/%.c $(LIB_HDRS) $(wildcard lib/src/*.h) $(B)/lib/crc32c-tables.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CPPFLAGS) -fPIC $(LIB_CPPFLAGS) -c -o $@ $<

# The links beside it are what ldconfig and the linker look for.
$(LIBBSTREAM_SO): $(LIB_OBJS_PIC) lib/libbtrfs-stream.map VERSION
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=lib/libbtrfs-stream.map -Wl,--no-undefined \
		-o $@ $(LIB_OBJS_PIC) -pthread
	ln -sf $(@F) $(B)/lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(B)/lib/libbtrfs-stream.so

.PHONY: lib-shared
lib-shared: $(LIBBSTREAM_SO)
userspace: $(LIBBSTREAM_SO)
