# treecmp: tree comparison tool used by the unit and VM tests.

TREECMP_SRCS := $(sort $(wildcard tests/tools/treecmp*.c))
TREECMP_OBJS := $(patsubst %.c,$(B)/%.o,$(TREECMP_SRCS))
TREECMP_HDRS := $(wildcard tests/tools/treecmp*.h)

$(TREECMP_OBJS): CFLAGS += -Wshadow -Wmissing-prototypes
$(TREECMP_OBJS): $(B)/%.o: %.c $(TREECMP_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/bin/treecmp: $(TREECMP_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

BINS += $(B)/bin/treecmp
UNIT_TESTS += tests/unit/treecmp.t

# fsgen: seeded generator of trees and operations for the randomized
# incremental send test (docs/incremental-tests.md).
$(B)/bin/fsgen: tests/tools/fsgen.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wshadow -Wmissing-prototypes $(LDFLAGS) -o $@ $< $(LDLIBS)

BINS += $(B)/bin/fsgen
