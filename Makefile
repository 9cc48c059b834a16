# btrfs send/receive, rebuilt: kernel series, stream library, CLI and tests.
# `make demo` runs the main job, `make check` runs every test.

B := build
CC ?= cc
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE
LDLIBS ?=

# Components append to these from their build.mk fragments.
BINS :=
UNIT_TESTS :=

.PHONY: all deps userspace check check-unit check-vm check-long check-debug check-fstests check-fstests-long demo bench kernel series clean
all: userspace

# Each component owns one fragment; the top level only wires them together.
-include $(sort $(wildcard */build.mk */*/build.mk))

userspace: $(BINS) $(UNIT_TESTS)

deps:
	@scripts/deps.sh

kernel: deps
	@kernel/scripts/build

series: kernel
	@kernel/scripts/export-series

# Long randomized or large-tree VM runs stay out of make check (CI has 90
# minutes in all); make check-long runs them.  The packages test stays out too
# (make check-packages, packaging/build.mk).
VM_TESTS = $(filter-out %-long.sh %-debug.sh $(PACKAGE_TESTS),$(sort $(wildcard tests/vm/t[0-9]*.sh)))
LONG_TESTS = $(sort $(wildcard tests/vm/t[0-9]*-long.sh))
DEBUG_TESTS = $(sort $(wildcard tests/vm/t[0-9]*-debug.sh))
SMOKE_TESTS = $(wildcard tests/fuzz/smoke.t)

check-unit: userspace
	@tests/run-tests --report $(B)/unit.results $(UNIT_TESTS)

# JOBS=N runs N VM tests at once (default 1 here, 2 for check-debug).
check-vm: kernel userspace
	@tests/run-tests --report $(B)/vm.results --jobs $(or $(JOBS),1) $(VM_TESTS)

# make check-long SEEDS=N [SEED0=S] [MODULE=ours|stock] runs only the
# randomized incremental send test, on N seeds from S (a failing seed's
# replay command); without SEEDS, every long test (500 seeds).
RANDOM_LONG = tests/vm/t113-send-random-long.sh
check-long: kernel userspace
	@SEND_LONG=1 SEEDS=$(SEEDS) SEED0=$(SEED0) MODULE=$(MODULE) tests/run-tests \
		--report $(B)/long.results $(if $(SEEDS),$(RANDOM_LONG),$(LONG_TESTS))

# The VM suite and the fault-injection tests on a debug kernel (KASAN,
# lockdep, kmemleak, fail-nth): hours under TCG, so outside make check and
# CI (docs/debug-kernel.md).  make check-debug [TESTS="tests/vm/t102-..."]
# [JOBS=N].  Two tests at a time by default, the longest (fail-nth) first,
# so that the two lanes end together.
check-debug: kernel userspace
	@kernel/scripts/build-debug-kernel
	@VM_KERNEL=$(CURDIR)/$(B)/debug-kernel tests/run-tests --report $(B)/debug.results \
		--jobs $(or $(JOBS),2) $(or $(TESTS),$(DEBUG_TESTS) $(VM_TESTS))

check: deps
	@$(MAKE) --no-print-directory userspace kernel
	@tests/run-tests --report $(B)/all.results $(UNIT_TESTS) $(SMOKE_TESTS) \
		$(VM_TESTS) kernel/scripts/check-series

# fstests' send group in the VM, beside the stock module: hours under TCG,
# so outside make check and CI.  make check-fstests FSTESTS=DIR
# [MODULE=ours|stock|both] [TESTS="btrfs/278 ..."]; -long runs btrfs/187.
FSTESTS_ARGS = --module $(or $(MODULE),ours) $(if $(FRESH),--fresh) $(FSTESTS) $(TESTS)
check-fstests check-fstests-long: deps
	@test -n "$(FSTESTS)" || { echo "make $@: set FSTESTS=DIR, an xfstests source tree (README.md)" >&2; exit 2; }
	@$(MAKE) --no-print-directory userspace kernel
	@tests/fstests/run $(if $(filter %-long,$@),--long) $(FSTESTS_ARGS)

demo: deps
	@$(MAKE) --no-print-directory userspace kernel
	@tests/vm/demo

bench: deps
	@$(MAKE) --no-print-directory userspace kernel
	@bench/run

clean:
	rm -rf $(B)
