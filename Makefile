# SPDX-License-Identifier: GPL-2.0
#
# tracebuf top-level Makefile.  The module's object list lives in Kbuild and
# module/Kbuild; this file only drives kbuild, the selftests and the checks.
#
#   make [KDIR=<build tree>]  build libtracebuf, module/tracebuf.ko and the
#                             selftests
#   make userlib              libtracebuf only (userlib/; needs no KDIR)
#   make tracebufctl          the command-line manager (tools/tracebufctl)
#   make module               the module only
#   make selftests            the selftests only (selftests/tracebuf)
#   make check                THE test suite: libtracebuf's host unit tests,
#                             then Debian's 6.1 kernel in QEMU
#   make check-debug          the same suite on the debug kernel, with kmemleak
#   make lint                 W=1 build, sparse, checkpatch --strict
#   make demo                 the example traced in QEMU: trace.fxt and trace.json
#                             here (scripts/demo.sh)
#   make bench                libtracebuf's cost per event vs a floor and LTTng-UST
#                             (host only, ~1 min; scripts/bench.sh)
#   make clean
#
# make check    [KERNEL=<image> KDIR=<build tree> MODDIR=</lib/modules/ver>]
# make check-debug [DEBUG_KERNEL=<image> DEBUG_KDIR=<build tree>]
#               [SHARED_KERNELS=<dir with *.bzImage and *-build.tar.xz>]
# VM_ARGS=-v shows the whole guest console.  See scripts/check.sh.

KDIR ?= /lib/modules/$(shell uname -r)/build
SELFTESTS := selftests/tracebuf

KERNEL ?=
MODDIR ?=
SHARED_KERNELS ?= $(CURDIR)/../shared/kernels
DEBUG_KERNEL ?=
DEBUG_KDIR ?=
DEBUG_MODDIR ?=
VM_ARGS ?=

# check and lint build against Debian's 6.1 headers unless KDIR is given on
# the command line (an exported KDIR is meant for "make", not for them).
ifeq ($(origin KDIR),command line)
CHECK_KDIR := --kdir $(KDIR)
endif

# userlib first: it builds even where the module cannot (no KDIR).
all: userlib tracebufctl module selftests

userlib:
	$(MAKE) -C userlib

tracebufctl: userlib
	$(MAKE) -C tools/tracebufctl

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
	@VM_ARGS="$(VM_ARGS)" scripts/check.sh $(CHECK_KDIR) \
		$(if $(KERNEL),--kernel $(KERNEL)) $(if $(MODDIR),--moddir $(MODDIR))

check-debug:
	@SHARED_KERNELS="$(SHARED_KERNELS)" VM_ARGS="$(VM_ARGS)" scripts/check.sh --debug \
		$(if $(DEBUG_KERNEL),--kernel $(DEBUG_KERNEL)) \
		$(if $(DEBUG_KDIR),--kdir $(DEBUG_KDIR)) \
		$(if $(DEBUG_MODDIR),--moddir $(DEBUG_MODDIR))

lint:
	@scripts/lint.sh $(CHECK_KDIR)

bench:
	@scripts/bench.sh

demo:
	@VM_ARGS="$(VM_ARGS)" scripts/demo.sh --dest "$(CURDIR)"

clean:
	@if [ -f "$(KDIR)/Makefile" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -f module/*.o module/*.ko module/*.mod module/*.mod.c module/.*.cmd \
		module/modules.order Module.symvers modules.order .*.cmd .module-common.o
	@if [ -f $(SELFTESTS)/Makefile ]; then $(MAKE) -C $(SELFTESTS) clean; fi
	$(MAKE) -C userlib clean
	$(MAKE) -C tools/tracebufctl clean
	rm -rf .build

.PHONY: all userlib tracebufctl module selftests check check-debug lint bench demo clean
