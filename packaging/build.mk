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

.PHONY: man install
man: $(MAN_PAGES)

install: $(B)/bin/btrfs-stream $(LIBBSTREAM) $(LIBBSTREAM_SO) $(MAN_PAGES)
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
