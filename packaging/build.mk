# Installing and packaging: make install, make deb, make check-packages.
#
# make install [PREFIX=/usr/local] [DESTDIR=] [LIBDIR=...] installs the
# command, the library (static, and shared with its soname links), its
# headers and pkg-config file, a man page per command (packaging/man/*.scd,
# turned into roff by scdoc here) and the bash completion.
#
# btrfs-stream itself links the static library, not the shared one: the
# binary installed is then the very file that make check and the VM tests
# run from build/bin (a shared link would need an rpath there, which
# Debian forbids, or a second link for installing), it needs no library
# package beside it on a rescue system, and the library's ABI is still 0.x.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL ?= install

MAN_PAGES := $(patsubst packaging/man/%.scd,$(B)/man/%,$(wildcard packaging/man/*.scd))

$(B)/man/%: packaging/man/%.scd
	@mkdir -p $(@D)
	scdoc < $< > $@.tmp
	mv $@.tmp $@

.PHONY: man install install-build install-dkms deb
man: $(MAN_PAGES)

# What make install installs, built (debian/rules builds only this).
install-build: $(B)/bin/btrfs-stream $(LIBBSTREAM) $(LIBBSTREAM_SO) $(MAN_PAGES)

install: install-build
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/btrfs-stream $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(B)/bin/btrfs-stream $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 $(LIBBSTREAM) $(LIBBSTREAM_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBBSTREAM_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libbtrfs-stream.so
	$(INSTALL) -m 644 $(LIB_HDRS) $(DESTDIR)$(INCLUDEDIR)/btrfs-stream/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(LIB_VERSION)|' \
		packaging/libbtrfs-stream.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/libbtrfs-stream.pc
	$(INSTALL) -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 packaging/completion/btrfs-stream $(DESTDIR)$(BASHCOMPDIR)/btrfs-stream
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

UNIT_TESTS += tests/unit/install.t

# The source of the btrfs-send-dkms package, /usr/src/btrfs-send-VERSION:
# dkms.conf, packaging/dkms/dkms-build, and what kernel/scripts/pristine
# and apply-series need (the series, its patches and new files, the
# scripts), in the repository's layout so that those scripts run unchanged.
DKMS_SRC = $(DESTDIR)/usr/src/btrfs-send-$(LIB_VERSION)
install-dkms:
	rm -rf $(DKMS_SRC)
	$(INSTALL) -d $(DKMS_SRC)
	files=$$(sed -e '/^#/d' -e '/^[[:space:]]*$$/d' -e 's|^|kernel/patches/|' kernel/series) && \
	cp -p --parents $$files kernel/series kernel/scripts/common.sh \
		kernel/scripts/pristine kernel/scripts/apply-series $(DKMS_SRC)/
	chmod 644 $(DKMS_SRC)/kernel/scripts/common.sh
	$(INSTALL) -m 755 packaging/dkms/dkms-build $(DKMS_SRC)/
	sed 's/#MODULE_VERSION#/$(LIB_VERSION)/' packaging/dkms/dkms.conf > $(DKMS_SRC)/dkms.conf

# make deb: Debian packages in build/deb/, checked by lintian.
deb: deps
	@packaging/make-deb

# make check-packages: the packages in use (tests/vm/t500-packages.sh: dkms
# builds the module here, the guest loads it and runs the packaged CLI).
# It takes minutes more than any VM test (dkms compiles btrfs), so make
# check leaves it out.
PACKAGE_TESTS := tests/vm/t500-packages.sh
.PHONY: check-packages
check-packages: deps
	@$(MAKE) --no-print-directory userspace deb
	@tests/run-tests --report $(B)/packages.results $(PACKAGE_TESTS)
