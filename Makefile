# SPDX-License-Identifier: GPL-2.0
#
# tracebuf top-level Makefile.  The module's object list lives in Kbuild and
# module/Kbuild; this file only drives kbuild, the selftests and the checks.
#
#   make [KDIR=<build tree>]  build libtracebuf, libposixtrace, tracebufctl,
#                             module/tracebuf.ko and the selftests
#   make userlib              libtracebuf only (userlib/lib; needs no KDIR)
#   make libposixtrace        the POSIX Trace API (userlib/posixtrace)
#   make tracebufctl          the command-line manager (userlib/ctl)
#   make module               the module only
#   make selftests            the selftests only (selftests/tracebuf)
#   make check                THE test suite: libtracebuf's host unit tests,
#                             then Debian's 6.1 x86-64 kernel in QEMU
#   make check TARGET=NAME    the suite on another target: x86_64-6.12 (Debian's
#                             6.12 kernel), arm64-6.1 (Debian's arm64 kernel in
#                             qemu-system-aarch64, arm64 and armhf programs),
#                             x86_64-6.1-rt (Debian's PREEMPT_RT kernel; not
#                             in check-all)
#   make check-debug          the same suite on a debug kernel, with kmemleak
#                             (DEBUG_KERNEL= and DEBUG_KDIR=: see below)
#   make check-all            check on every target, then check-debug (its
#                             variables too); the last line sums them
#   make fault                every operation with each of its allocations
#                             failing in turn (faultinj), on the debug kernel
#   make fuzz                 the state-machine fuzzer, FUZZ_OPS (default
#                             1000000) operations in each of its 64-bit and
#                             32-bit builds, then the state-directed one:
#                             each (state, request) pair of the uapi's state
#                             table FUZZ_STATE_MIN (default 100) times, the
#                             module's answers checked against the table, a
#                             table of counts; on the debug kernel (~13 min;
#                             FUZZ_MODE=random or =states runs one of them)
#   make soak                 the kill soak, SOAK_CYCLES (default 1000)
#                             cycles, on the debug kernel (~1 hour)
#   make lint                 W=1 build, sparse, checkpatch --strict
#   make model                the model of the provider protocol
#                             (scripts/model/tracebuf.pml) checked with spin,
#                             exhaustively, against the uapi header's state
#                             table: one line per property (~2 min, host
#                             only; scripts/model.sh)
#   make coverage             line and branch coverage of the module (the guest
#                             suite on a coverage kernel: COVERAGE_KERNEL= and
#                             COVERAGE_KDIR=, or COVERAGE_KERNELS=<dir>) and
#                             of libtracebuf, libposixtrace and tracebufctl
#                             (host and guest tests): a table per file here,
#                             HTML in .build/coverage/html (scripts/coverage.sh;
#                             COVERAGE_PROGRAMS="..." runs only those; with
#                             DEBUG_KERNELS=, make fault's injected
#                             allocation failures per function beside the
#                             lines no test reached; not part of check)
#   make demo                 the example traced in QEMU: trace.fxt and trace.json
#                             here (scripts/demo.sh)
#   make run CMD="./app ARGS" [FILES="data ..."] [RECORD="-m streaming ..."]
#            [OUT=trace.fxt] [TIMEOUT=300]
#                             your program traced in QEMU: CMD under
#                             tracebufctl record RECORD, FILES copied in
#                             beside it; the trace (OUT), CMD's output and
#                             every file new or changed in the guest's
#                             working directory here (scripts/run.sh --help)
#   make shell [FILES="data ..."] [TIMEOUT=3600]
#                             the same guest with a shell on this terminal:
#                             the module loaded, tracebufctl, the examples
#                             and FILES; what the session wrote comes back
#   make bench                libtracebuf's cost per event vs a floor and LTTng-UST
#                             (~1 min on the host), then the POSIX reader's
#                             wake-up latency in the guest (~1.5 min;
#                             scripts/bench.sh)
#   make bench-sched          the kernel provider's cost per context switch,
#                             sched on and off, next to ftrace's sched_switch,
#                             in the guest (~5 min; scripts/bench-sched.sh)
#   make bench-stream         the highest lossless streaming rate, as a fraction
#                             of the oneshot one, for 3 buffer sizes and 1 and
#                             4 providers and 16 MiB for 1, the manager's CPU
#                             per MiB and the save round trips, in the guest
#                             (~8 min; scripts/bench-stream.sh)
#   make bench TARGET=arm64-6.1  the same cross-built, under qemu-aarch64: a
#                             check that it works, the timings mean nothing
#   make install              everything below, installed (needs KDIR): the
#                             module into /lib/modules/KVER/updates (then
#                             depmod, unless DESTDIR is set), libtracebuf
#                             (shared, static, pkg-config) and its headers
#                             with the uapi header, libposixtrace the same
#                             way with trace.h, tracebufctl, the examples'
#                             sources, the man pages, the udev rule, the
#                             modprobe.d file, the bash completion
#   make install-user         the same without the module (no KDIR needed)
#   make install-module       the module only
#   make uninstall            removes exactly what install installed (the
#                             same variables); uninstall-user, -module
#   make install-dkms         the module's sources and dkms.conf into
#                             /usr/src/tracebuf-VERSION, then "dkms add" and
#                             "dkms install" for KVER (not with DESTDIR);
#                             make uninstall-dkms undoes it
#   make deb                  the Debian packages tracebuf-dkms, libtracebuf1,
#                             libtracebuf-dev, libposixtrace1,
#                             libposixtrace-dev and tracebufctl, here
#                             (dpkg-buildpackage in .build/deb; scripts/deb.sh)
#   make deb DEB_HOST_ARCH=arm64  the same cross-built for a board
#                             ("dpkg-buildpackage -a arm64"; armhf too), in
#                             .build/deb-arm64; the .deb files here replace
#                             those of any architecture
#   make clean
#
# make install [DESTDIR=] [PREFIX=/usr/local] [LIBDIR=] [BINDIR=] [MANDIR=]
#               [KVER=<release>] [KDIR=<build tree>] [UDEVRULESDIR=/etc/udev/rules.d]
#               [MODPROBEDIR=/etc/modprobe.d]
#
# make check    [TARGET=<name>] [KERNEL=<image> KDIR=<build tree> MODDIR=</lib/modules/ver>]
# make check-debug DEBUG_KERNEL=<image> DEBUG_KDIR=<its build tree>
#               or DEBUG_KERNELS=<dir>: its newest *.bzImage, the build tree
#               from the *-build.tar.xz beside it (README, "make check-debug")
# make fuzz [FUZZ_OPS=N] [FUZZ_SEED=S] [FUZZ_STATE_MIN=N] [FUZZ_MODE=random|states]
# make soak [SOAK_CYCLES=N]
#               (check-debug's variables too; check-debug itself runs
#               short versions of all three)
# VM_ARGS=-v shows the whole guest console.  See scripts/check.sh.

KDIR ?= /lib/modules/$(shell uname -r)/build
SELFTESTS := selftests/tracebuf

KERNEL ?=
MODDIR ?=
DEBUG_KERNELS ?=
DEBUG_KERNEL ?=
DEBUG_KDIR ?=
DEBUG_MODDIR ?=
COVERAGE_KERNELS ?=
COVERAGE_KERNEL ?=
COVERAGE_KDIR ?=
COVERAGE_PROGRAMS ?=
VM_ARGS ?=
TARGET ?=
# the targets' one home is scripts/lib.sh
TARGETS = $(shell bash -c '. scripts/lib.sh && echo $$TB_TARGETS')
FUZZ_OPS ?= 1000000
FUZZ_SEED ?=
FUZZ_STATE_MIN ?= 100
FUZZ_MODE ?=
FUZZ_PROGRAMS = $(if $(filter-out random,$(FUZZ_MODE)),,fuzz fuzz_32) \
	$(if $(filter-out states,$(FUZZ_MODE)),,fuzz_states fuzz_states_32)
SOAK_CYCLES ?= 1000

# check and lint build against Debian's 6.1 headers unless KDIR is given on
# the command line (an exported KDIR is meant for "make", not for them).
ifeq ($(origin KDIR),command line)
CHECK_KDIR := --kdir $(KDIR)
endif

# --- where "make install" puts things ----------------------------------------
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/tracebuf
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# configuration, local to this machine: /etc (a package uses /lib/udev/rules.d)
UDEVRULESDIR ?= /etc/udev/rules.d
MODPROBEDIR ?= /etc/modprobe.d
# the release KDIR builds for, else the running kernel's
KVER ?= $(or $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null),$(shell uname -r))
MODULE_DIR := /lib/modules/$(KVER)/updates
# what install-user installs besides the library (source -> destination)
TB_USER_FILES := \
	userlib/ctl/tracebufctl:$(BINDIR)/tracebufctl:755 \
	userlib/man/tracebufctl.1:$(MANDIR)/man1/tracebufctl.1:644 \
	userlib/man/libtracebuf.3:$(MANDIR)/man3/libtracebuf.3:644 \
	userlib/man/tracebuf.4:$(MANDIR)/man4/tracebuf.4:644 \
	userlib/man/posix_trace.7:$(MANDIR)/man7/posix_trace.7:644 \
	userlib/examples/tracebuf-example.c:$(DOCDIR)/examples/tracebuf-example.c:644 \
	userlib/examples/posix-trace-example.c:$(DOCDIR)/examples/posix-trace-example.c:644 \
	userlib/ctl/tracebufctl.bash:$(BASHCOMPDIR)/tracebufctl:644 \
	module/60-tracebuf.rules:$(UDEVRULESDIR)/60-tracebuf.rules:644 \
	module/tracebuf.conf:$(MODPROBEDIR)/tracebuf.conf:644
# the project's version has one home: debian/changelog's first line
TB_VERSION := $(shell head -n 1 debian/changelog | cut -d' ' -f2 | tr -d '()')
DKMS_SRCDIR := /usr/src/tracebuf-$(TB_VERSION)
# what DKMS builds the module from, beside dkms.conf
TB_DKMS_FILES := Kbuild module/Kbuild $(sort $(wildcard module/*.c module/*.h)) \
	uapi/linux/tracebuf.h
TB_LIB_VARS = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" LIBDIR="$(LIBDIR)" \
	INCLUDEDIR="$(INCLUDEDIR)"

# A path with a space is two words to make, and kbuild refuses it: in such
# a checkout only userlib and tracebufctl build, and every other target
# is refused here in one line, not halfway through with make's or kbuild's
# errors (scripts/tests/space_test.sh).
ifneq ($(word 2,$(CURDIR)),)
ifneq ($(filter-out userlib tracebufctl,$(or $(MAKECMDGOALS),all)),)
$(error '$(CURDIR)' has a space: make and kbuild cannot build in such a path; clone or move the tree to one without (only 'make userlib' and 'make tracebufctl' work here))
endif
endif

# userlib first: it builds even where the module cannot (no KDIR).
all: userlib libposixtrace tracebufctl module selftests

userlib:
	$(MAKE) -C userlib/lib

libposixtrace: userlib
	$(MAKE) -C userlib/posixtrace

tracebufctl: userlib
	$(MAKE) -C userlib/ctl

module:
	@test -f "$(KDIR)/Makefile" || { \
		echo "KDIR=$(KDIR) is not a kernel build tree." >&2; \
		echo "Install the headers of the running kernel, or pass KDIR=, e.g.:" >&2; \
		ls -d /lib/modules/*/build 2>/dev/null | sed 's/^/    make KDIR=/' >&2; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

selftests:
	$(MAKE) -C $(SELFTESTS)

check:
	@VM_ARGS="$(VM_ARGS)" scripts/check.sh $(CHECK_KDIR) $(if $(TARGET),--target $(TARGET)) \
		$(if $(KERNEL),--kernel $(KERNEL)) $(if $(MODDIR),--moddir $(MODDIR))

# Each run prints its summary; the last line is their sum.
check-all:
	@mkdir -p .build; p=0; f=0; for t in $(TARGETS) debug; do \
		echo "=== $$t ==="; \
		if [ $$t = debug ]; then $(MAKE) -s --no-print-directory check-debug; \
		else $(MAKE) -s --no-print-directory check TARGET=$$t; fi \
			2>&1 | tee .build/check-all-$$t.log; \
		set -- $$(grep -aE '^[0-9]+ passed, [0-9]+ failed$$' .build/check-all-$$t.log | tail -n 1) 0 passed, 1 failed; \
		p=$$((p + $$1)); f=$$((f + $$3)); \
	done; echo "$$p passed, $$f failed"; [ $$f = 0 ]

# The debug kernel is the caller's to give: without one, a line that says
# what to pass (the runs below need it).
CHECK_DEBUG = $(if $(DEBUG_KERNEL)$(DEBUG_KERNELS),,$(error no debug kernel: pass \
	DEBUG_KERNEL=<bzImage> DEBUG_KDIR=<its build tree>, or DEBUG_KERNELS=<dir of \
	*.bzImage, each with its *-build.tar.xz> (README, "make check-debug")))\
	DEBUG_KERNELS="$(DEBUG_KERNELS)" VM_ARGS="$(VM_ARGS)" scripts/check.sh --debug \
	$(if $(DEBUG_KERNEL),--kernel $(DEBUG_KERNEL)) \
	$(if $(DEBUG_KDIR),--kdir $(DEBUG_KDIR)) \
	$(if $(DEBUG_MODDIR),--moddir $(DEBUG_MODDIR))

check-debug:
	@$(CHECK_DEBUG)

fault:
	@$(CHECK_DEBUG) --programs "faultinj faultinj_32"

# timeouts in seconds before the debug kernel's multiplier (4): generous
# for ~4000 fuzz operations, ~100 (state, request) pairs and ~0.5 soak
# cycles a second
FUZZ_SECS = $$(( $(FUZZ_OPS) / 1000 + $(FUZZ_STATE_MIN) + 180 ))
fuzz:
	@$(if $(filter-out random states,$(FUZZ_MODE)),$(error FUZZ_MODE=$(FUZZ_MODE): random, states or nothing (both)))\
	$(CHECK_DEBUG) --programs "$(strip $(FUZZ_PROGRAMS))" --env TB_FUZZ_OPS=$(FUZZ_OPS) \
		--env TB_FUZZ_STATE_MIN=$(FUZZ_STATE_MIN) \
		$(if $(FUZZ_SEED),--env TB_FUZZ_SEED=$(FUZZ_SEED)) \
		--timeout $(FUZZ_SECS) --watchdog $$(( 8 * $(FUZZ_SECS) + 1200 ))

soak:
	@$(CHECK_DEBUG) --programs soak_vmtest --env TB_SOAK_CYCLES=$(SOAK_CYCLES) \
		--timeout $$(( $(SOAK_CYCLES) + 300 )) \
		--watchdog $$(( 4 * ($(SOAK_CYCLES) + 300) + 1200 ))

# Like the debug kernel, the coverage kernel is the caller's to give.
coverage:
	@$(if $(COVERAGE_KERNEL)$(COVERAGE_KERNELS),,$(error no coverage kernel: pass \
	COVERAGE_KERNEL=<bzImage> COVERAGE_KDIR=<its build tree>, or COVERAGE_KERNELS=<dir \
	of *.bzImage, each with its *-build.tar.xz> (README, "make coverage")))\
	COVERAGE_KERNELS="$(COVERAGE_KERNELS)" DEBUG_KERNELS="$(DEBUG_KERNELS)" \
	VM_ARGS="$(VM_ARGS)" scripts/coverage.sh \
	$(if $(COVERAGE_KERNEL),--kernel $(COVERAGE_KERNEL)) \
	$(if $(COVERAGE_KDIR),--kdir $(COVERAGE_KDIR)) \
	$(if $(COVERAGE_PROGRAMS),--programs "$(COVERAGE_PROGRAMS)")

lint:
	@scripts/lint.sh $(CHECK_KDIR)

model:
	@scripts/model.sh

bench:
	@scripts/bench.sh $(if $(filter arm64%,$(TARGET)),--arch arm64)

bench-sched:
	@scripts/bench-sched.sh $(if $(TARGET),--target $(TARGET))

bench-stream:
	@scripts/bench-stream.sh $(if $(TARGET),--target $(TARGET))

demo:
	@VM_ARGS="$(VM_ARGS)" scripts/demo.sh --dest "$(CURDIR)"

CMD ?=
FILES ?=
RECORD ?=
OUT ?= trace.fxt
TIMEOUT ?=
RUN_ARGS = --dest "$(CURDIR)" $(foreach f,$(FILES),--file "$(f)") \
	$(if $(TIMEOUT),--timeout "$(TIMEOUT)") \
	$(if $(KERNEL),--kernel $(KERNEL) --kdir $(KDIR)) $(if $(MODDIR),--moddir $(MODDIR))
# CMD and RECORD reach run.sh through the environment, quotes and all.
# make fails with its own status, 2, when record's is not 0 ("Error N").
run: export TB_RUN_CMD = $(CMD)
run: export TB_RUN_RECORD = $(RECORD)
run:
	@VM_ARGS="$(VM_ARGS)" scripts/run.sh $(RUN_ARGS) --out "$(OUT)" \
		--record "$$TB_RUN_RECORD" --cmd "$$TB_RUN_CMD"

shell:
	@VM_ARGS="$(VM_ARGS)" scripts/run.sh --shell $(RUN_ARGS)

clean:
	@if [ -f "$(KDIR)/Makefile" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -f module/*.o module/*.ko module/*.mod module/*.mod.c module/.*.cmd \
		module/modules.order Module.symvers modules.order .*.cmd .module-common.o
	@if [ -f $(SELFTESTS)/Makefile ]; then $(MAKE) -C $(SELFTESTS) clean; fi
	$(MAKE) -C userlib/lib clean
	$(MAKE) -C userlib/posixtrace clean
	$(MAKE) -C userlib/ctl clean
	$(MAKE) -C userlib/examples clean
	rm -rf .build

install: install-user install-module

install-user: userlib libposixtrace tracebufctl
	$(MAKE) -C userlib/lib install $(TB_LIB_VARS)
	$(MAKE) -C userlib/posixtrace install $(TB_LIB_VARS)
	@set -e; for f in $(TB_USER_FILES); do \
		src=$${f%%:*}; rest=$${f#*:}; dst=$${rest%:*}; mode=$${rest##*:}; \
		echo "  INSTALL $(DESTDIR)$$dst"; \
		install -D -m $$mode $$src "$(DESTDIR)$$dst"; \
	done

install-module: module
	install -D -m 644 module/tracebuf.ko $(DESTDIR)$(MODULE_DIR)/tracebuf.ko
	$(if $(DESTDIR),@echo "  (DESTDIR set: depmod not run)",depmod -a $(KVER))

# dkms.conf's version comes from debian/changelog, as dh_dkms -V does it.
install-dkms-src:
	@set -e; for f in $(TB_DKMS_FILES); do \
		echo "  INSTALL $(DESTDIR)$(DKMS_SRCDIR)/$$f"; \
		install -D -m 644 $$f "$(DESTDIR)$(DKMS_SRCDIR)/$$f"; \
	done

install-dkms: install-dkms-src
	sed 's/#MODULE_VERSION#/$(TB_VERSION)/' dkms.conf > "$(DESTDIR)$(DKMS_SRCDIR)/dkms.conf"
	$(if $(DESTDIR),@echo "  (DESTDIR set: dkms not run)",\
		dkms status -m tracebuf -v $(TB_VERSION) | grep -q . || \
		dkms add -m tracebuf -v $(TB_VERSION); \
		dkms install -m tracebuf -v $(TB_VERSION) -k $(KVER))

uninstall-dkms:
	$(if $(DESTDIR),@echo "  (DESTDIR set: dkms not run)",\
		! dkms status -m tracebuf -v $(TB_VERSION) | grep -q . || \
		dkms remove -m tracebuf -v $(TB_VERSION) --all)
	rm -rf "$(DESTDIR)$(DKMS_SRCDIR)"

deb:
	@scripts/deb.sh --out "$(CURDIR)" $(if $(DEB_HOST_ARCH),--arch "$(DEB_HOST_ARCH)")

uninstall: uninstall-user uninstall-module

uninstall-user:
	$(MAKE) -C userlib/lib uninstall $(TB_LIB_VARS)
	$(MAKE) -C userlib/posixtrace uninstall $(TB_LIB_VARS)
	@for f in $(TB_USER_FILES); do \
		rest=$${f#*:}; dst=$${rest%:*}; \
		rm -f "$(DESTDIR)$$dst"; \
	done
	-@rmdir "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(DOCDIR)" 2>/dev/null

uninstall-module:
	rm -f $(DESTDIR)$(MODULE_DIR)/tracebuf.ko
	$(if $(DESTDIR),@echo "  (DESTDIR set: depmod not run)",depmod -a $(KVER))

.PHONY: all userlib libposixtrace tracebufctl module selftests check check-all check-debug coverage fault \
	fuzz soak lint model bench bench-sched bench-stream demo run shell clean install install-user install-module uninstall \
	uninstall-user uninstall-module install-dkms-src install-dkms uninstall-dkms deb
