# Makefile - cix, one non-recursive GNU Makefile
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   make                      build ./build/cix
#   make check                run every test under prove
#   make check SANITIZE=address,undefined
#   make install PREFIX=DIR   install DIR/bin/cix, DIR/bin/cix-daemon and the man pages
#   make fuzz                 build libFuzzer targets with clang (build-fuzz/)
#   make bench                run the benchmarks
#   make distro-check         build the whole distribution from source (minutes)
#   make check-nix-suite      Nix 2.8's own tests against nix-daemon and cix-daemon
#   DEVELOPER=1               add -Werror

-include config.mk

PREFIX   ?= /usr/local
CC       ?= gcc
PKG_CONFIG ?= pkg-config
VERSION  := 0.1.0
PKGS     := libgcrypt sqlite3 libzstd libcurl libmicrohttpd liblzma

WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wvla \
            -Wno-unused-parameter
ifdef DEVELOPER
WARNINGS += -Werror
endif

# Each configuration builds into its own directory, so switching SANITIZE
# never links stale objects.
ifdef SANITIZE
B ?= build-san
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
else
B ?= build
SANFLAGS :=
endif

OPT      ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Ilib -DCIX_VERSION='"$(VERSION)"'
CFLAGS   += -std=gnu11 $(OPT) $(WARNINGS) $(SANFLAGS) \
            $(shell $(PKG_CONFIG) --cflags $(PKGS))
LDFLAGS  += $(SANFLAGS)
LDLIBS   += $(filter-out -lcurl,$(shell $(PKG_CONFIG) --libs $(PKGS))) -lbz2 -lpthread -ldl

LIB_SRCS  := $(sort $(wildcard lib/*.c))
# The client's package layer (lowering, the index, profiles, pull...):
# linked into cix, never into the daemon.
PKG_SRCS  := $(sort $(wildcard pkg/*.c))
CLI_SRCS  := $(sort $(wildcard cli/*.c)) $(sort $(wildcard scheme/*.c))
DAEMON_SRCS := $(sort $(wildcard daemon/*.c))
UNIT_SRCS := $(sort $(wildcard t/unit/*.c))
FUZZ_SRCS := $(sort $(wildcard t/fuzz/*.c))
BENCH_SRCS := $(sort $(wildcard bench/*.c))

LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/%.o)
PKG_OBJS  := $(PKG_SRCS:%.c=$(B)/%.o)

# Guile: only scheme/*.c include libguile.h; only cix links it (the
# daemon and the builder never do). Its modules are compiled at make time.
GUILE_CFLAGS := $(shell $(PKG_CONFIG) --cflags guile-3.0)
GUILE_LIBS   := $(shell $(PKG_CONFIG) --libs guile-3.0)
GUILD        ?= $(shell command -v guild-3.0 2>/dev/null || echo guild)
DATADIR      ?= $(PREFIX)/share/cix
GODIR        ?= $(PREFIX)/lib/cix/scheme/go
SYSCONFDIR   ?= /etc
SCM_SRCS  := $(sort $(shell find scheme/modules distro -name '*.scm' 2>/dev/null))
SCM_GOS   := $(patsubst scheme/modules/%.scm,$(B)/scheme/go/%.go,$(filter scheme/modules/%,$(SCM_SRCS))) \
             $(patsubst distro/%.scm,$(B)/scheme/go/%.go,$(filter distro/%,$(SCM_SRCS)))
CLI_OBJS  := $(CLI_SRCS:%.c=$(B)/%.o)
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(B)/%.o)
UNIT_BINS := $(UNIT_SRCS:%.c=$(B)/%.t)
BENCH_BINS := $(BENCH_SRCS:%.c=$(B)/%)
SHELL_TESTS := $(sort $(wildcard t/t[0-9]*.sh))

all: $(B)/cix $(B)/cix-daemon $(B)/cix-builtin $(UNIT_BINS) $(BENCH_BINS) $(SCM_GOS) $(B)/builder/gnu-build \
     $(B)/t/mkpkg

# gnu-build: libc only, from builder/ alone, as the store builds it (no
# CPPFLAGS, no -Ilib: it cannot include the library's headers).
BUILDER_SRCS := $(sort $(wildcard builder/*.c))
$(B)/builder/gnu-build: $(BUILDER_SRCS) builder/builder.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(OPT) $(WARNINGS) $(SANFLAGS) -o $@ $(BUILDER_SRCS)

$(B)/scheme/%.o: scheme/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ipkg -Ischeme -DCIX_DATA_DIR='"$(DATADIR)"' -DCIX_GO_DIR='"$(GODIR)"' $(CFLAGS) $(GUILE_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/cli/%.o: cli/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ipkg -Ischeme $(CFLAGS) -MMD -MP -c -o $@ $<

# guild compiles each module with the others on its load path. A module's
# .go may hold code of the modules it uses (macros such as `package', record
# accessors, small procedures Guile inlines across modules), so every .go
# is compiled again when any module changes.
$(B)/scheme/go/%.go: scheme/modules/%.scm $(SCM_SRCS)
	@mkdir -p $(dir $@)
	GUILE_AUTO_COMPILE=0 $(GUILD) compile -W0 -L scheme/modules -L distro -L build-aux/guild -o $@ $< >/dev/null
$(B)/scheme/go/%.go: distro/%.scm $(SCM_SRCS)
	@mkdir -p $(dir $@)
	GUILE_AUTO_COMPILE=0 $(GUILD) compile -W0 -L scheme/modules -L distro -L build-aux/guild -o $@ $< >/dev/null

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# The package layer, its tests and the benchmarks see its headers; the
# daemon does not.
$(B)/pkg/%.o $(B)/t/%.o $(B)/bench/%.o: CPPFLAGS += -Ipkg

$(B)/libcix-pkg.a: $(PKG_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/libcix.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/cix: $(CLI_OBJS) $(B)/libcix-pkg.a $(B)/libcix.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(GUILE_LIBS)

$(B)/cix-daemon: $(DAEMON_OBJS) $(B)/libcix.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The builtins that fetch, run by builds in their sandbox (lib/build.c
# finds it beside the running program, or in ../libexec/cix).
$(B)/cix-builtin: $(B)/builtins/cix-builtin.o $(B)/libcix.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/t/unit/%.t: $(B)/t/unit/%.o $(B)/libcix-pkg.a $(B)/libcix.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Unit tests of the daemon's tables link its objects (all but main).
DAEMON_UNITS := $(B)/t/unit/worker-ops.t
$(DAEMON_UNITS:%.t=%.o): CPPFLAGS += -Idaemon
$(DAEMON_UNITS): %.t: %.o $(filter-out $(B)/daemon/main.o,$(DAEMON_OBJS)) $(B)/libcix.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/bench/%: $(B)/bench/%.o $(B)/libcix-pkg.a $(B)/libcix.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The builder of the tests' small packages: static (a build has no libc of
# the host's), so never with the sanitizers. Without a static libc it is
# left out, and the tests that need it skip.
$(B)/t/mkpkg: t/data/mkpkg.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 $(WARNINGS) -c -o $@.o $<
	$(CC) -static -o $@ $@.o || { rm -f $@; echo "$@: no static libc: tests that need it skip"; }
	@rm -f $@.o

# prove runs unit binaries and shell scripts alike; the scripts find the
# binaries through CIX_BUILD_DIR.
PROVE ?= prove
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
check: all
	CIX_BUILD_DIR=$(abspath $(B)) CIX_SRC_DIR=$(CURDIR) \
	  $(PROVE) -j$(JOBS) --exec '' $(UNIT_BINS) $(SHELL_TESTS)

# libFuzzer targets: the library is rebuilt with clang and coverage.
FUZZ_CC    ?= clang
FB         ?= build-fuzz
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined
FUZZ_LIB_OBJS := $(PKG_SRCS:%.c=$(FB)/%.o) $(LIB_SRCS:%.c=$(FB)/%.o)
FUZZ_BINS  := $(FUZZ_SRCS:t/fuzz/%.c=$(FB)/fuzz-%)

$(FB)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -Ipkg -std=gnu11 $(FUZZ_FLAGS) \
	  $(shell $(PKG_CONFIG) --cflags $(PKGS)) -c -o $@ $<

$(FB)/fuzz-%: $(FB)/t/fuzz/%.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

fuzz: $(FUZZ_BINS)

# Short run of every fuzz target, seeded from t/fuzz/corpus/NAME.
FUZZ_SECONDS ?= 30
fuzz-smoke: fuzz
	@set -e; for f in $(FUZZ_BINS); do \
	  n=$${f##*/fuzz-}; mkdir -p $(FB)/corpus-$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $(FB)/corpus-$$n t/fuzz/corpus/$$n \
	    2>$(FB)/fuzz-$$n.log || { tail -40 $(FB)/fuzz-$$n.log; exit 1; }; \
	done

# The whole distribution built from source with its tests, and a closure
# check of each package; a table of the results (scripts/distro-check -h).
distro-check: all
	CIX_BUILD_DIR=$(abspath $(B)) scripts/distro-check -r -d $(abspath $(B))/distro-check

# Nix 2.8's functional tests (from Debian's source package) against
# nix-daemon and cix-daemon: a table of the results (doc/nix-suite.md).
# NIX_SUITE_FLAGS: options of t/nix-suite/run (-j N, --mode cix, -k, tests).
NIX_SUITE_FLAGS ?=
check-nix-suite: all
	CIX_BUILD_DIR=$(abspath $(B)) t/nix-suite/run $(NIX_SUITE_FLAGS)

bench: all
	CIX_BUILD_DIR=$(abspath $(B)) bench/nar-hash
	CIX_BUILD_DIR=$(abspath $(B)) bench/store-add
	CIX_BUILD_DIR=$(abspath $(B)) bench/store-query
	CIX_BUILD_DIR=$(abspath $(B)) bench/scale
	CIX_BUILD_DIR=$(abspath $(B)) bench/build
	CIX_BUILD_DIR=$(abspath $(B)) bench/distro-eval
	$(B)/bench/refscan

MAN1 := $(sort $(wildcard doc/man/*.1))
install: $(B)/cix $(B)/cix-daemon $(B)/cix-builtin $(SCM_GOS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/libexec/cix
	install -m 755 $(B)/cix-builtin $(DESTDIR)$(PREFIX)/libexec/cix/cix-builtin
	install -m 755 $(B)/cix $(DESTDIR)$(PREFIX)/bin/cix
	install -m 755 $(B)/cix-daemon $(DESTDIR)$(PREFIX)/bin/cix-daemon
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/)
	install -d $(DESTDIR)$(DATADIR) $(DESTDIR)$(GODIR)
	cp -R scheme/modules $(DESTDIR)$(DATADIR)/scheme.new && rm -rf $(DESTDIR)$(DATADIR)/scheme && \
	  mv $(DESTDIR)$(DATADIR)/scheme.new $(DESTDIR)$(DATADIR)/scheme
	rm -rf $(DESTDIR)$(DATADIR)/distro $(DESTDIR)$(DATADIR)/builder
	cp -R distro $(DESTDIR)$(DATADIR)/distro
	# cix's own source, for (gnu packages package-management)'s cix
	# package when no checkout is beside the modules.
	if [ -e .git ] && command -v git >/dev/null; then \
	  git archive --format=tar.gz --prefix=cix-$(VERSION)/ HEAD \
	    >$(DESTDIR)$(DATADIR)/cix-$(VERSION).tar.gz.new && \
	  mv $(DESTDIR)$(DATADIR)/cix-$(VERSION).tar.gz.new $(DESTDIR)$(DATADIR)/cix-$(VERSION).tar.gz; fi
	install -d $(DESTDIR)$(DATADIR)/builder
	install -m 644 builder/*.c builder/*.h $(DESTDIR)$(DATADIR)/builder/
	cp -R $(B)/scheme/go/. $(DESTDIR)$(GODIR)/
	install -d $(DESTDIR)$(SYSCONFDIR)/cix
	[ -e $(DESTDIR)$(SYSCONFDIR)/cix/mirrors ] || install -m 644 etc/mirrors $(DESTDIR)$(SYSCONFDIR)/cix/mirrors
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|/usr/local|$(PREFIX)|' etc/cix-daemon.service >$(DESTDIR)$(PREFIX)/lib/systemd/system/cix-daemon.service

# The main job (README): deps, cix, the daemon, the bootstrap, GNU Hello.
run:
	scripts/run

clean:
	rm -rf build build-san build-fuzz t/trash.*

.PHONY: all check fuzz fuzz-smoke bench install clean run distro-check check-nix-suite
.SUFFIXES:
.SECONDARY:

-include $(shell find $(B) $(FB) -name '*.d' -type f -not -path '*/distro-check/*' -not -path '*/nix-suite/*' 2>/dev/null)
