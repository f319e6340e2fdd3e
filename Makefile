# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of ovpop.ko. The Kbuild file says what is built; this
# wrapper only calls the kernel's build system:
#
#   make                          ovpop.ko for the running kernel
#   make KDIR=/path/to/build      for another kernel build tree
#   make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KDIR=...
#   make install                  the module and the ovl tool (with its
#                                 parameter engine, tools/ovl-params, built
#                                 with the system's libfdt: libfdt-dev)
#   make ovl-params               that engine alone
#   make modules_install          the module only
#   make uninstall                removes what make install installed
#   make demo / make test         the QEMU demo and the whole test suite
#   make check                    checkpatch, W=1 and sparse on the rig kernel
#
# The module goes to $(INSTALL_MOD_PATH)/lib/modules/<release>/$(INSTALL_MOD_DIR)/
# (default "updates", which depmod searches before the kernel's own
# modules; the kernel's default differs between versions), followed by
# depmod; ovl to $(DESTDIR)$(PREFIX)/sbin (default /usr/local/sbin).
# The test modules are built only with OVPOP_TESTS=y and never installed.
#
# Without ARCH, the architecture is the one KDIR's .config was made for; if
# that kernel was built by a cross compiler (its CONFIG_CC_VERSION_TEXT names
# <triplet>-gcc) other than the host's, and CROSS_COMPILE is not given,
# <triplet>- is used when that compiler is installed. So
# `make KDIR=<arm64 tree>` works on an x86 host, and so does DKMS, which
# passes neither.

KDIR ?= /lib/modules/$(shell uname -r)/build
INSTALL_MOD_DIR ?= updates
PREFIX ?= /usr/local

kconfig := $(wildcard $(KDIR)/.config)
ifeq ($(origin ARCH),undefined)
ifneq ($(kconfig),)
ARCH := $(shell sed -n -e 's/^CONFIG_ARM64=y/arm64/p' -e 's/^CONFIG_ARM=y/arm/p' \
	-e 's/^CONFIG_X86=y/x86/p' -e 's/^CONFIG_RISCV=y/riscv/p' \
	-e 's/^CONFIG_PPC=y/powerpc/p' -e 's/^CONFIG_MIPS=y/mips/p' \
	-e 's/^CONFIG_LOONGARCH=y/loongarch/p' -e 's/^CONFIG_S390=y/s390/p' \
	$(kconfig) | head -n 1)
endif
endif
ifeq ($(origin CROSS_COMPILE),undefined)
ifneq ($(kconfig),)
kcc-triplet := $(shell sed -n \
	's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\)-gcc\(-[0-9.]*\)\{0,1\} .*/\1/p' $(kconfig))
ifneq ($(kcc-triplet),)
ifneq ($(kcc-triplet),$(shell $(CC) -dumpmachine 2>/dev/null))
ifneq ($(shell command -v $(kcc-triplet)-gcc),)
CROSS_COMPILE := $(kcc-triplet)-
$(info ovpop: cross build for $(ARCH) with CROSS_COMPILE=$(CROSS_COMPILE) (from $(kconfig)))
endif
endif
endif
endif
endif

kargs = -C $(KDIR) M=$(CURDIR) $(if $(ARCH),ARCH=$(ARCH)) \
	$(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE))
krelease = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
moddir = $(INSTALL_MOD_PATH)/lib/modules/$(krelease)
# The kernel's modules_install skips depmod without $(KDIR)/System.map,
# which distributions' headers packages lack: ovpop runs it itself.
depmod = if [ -d $(moddir) ]; then depmod -b $(or $(INSTALL_MOD_PATH),/) $(krelease); fi
need-krelease = @test -n "$(krelease)" || \
	{ echo "ovpop: no $(KDIR)/include/config/kernel.release"; exit 1; }

all: modules

modules:
	$(MAKE) $(kargs) modules

# Builds first: modules_install installs what modules.order lists, which
# must be this build's (an earlier OVPOP_TESTS=y build lists the test
# modules too).
modules_install: modules
	$(need-krelease)
	$(MAKE) $(kargs) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) modules_install
	$(depmod)

install: modules_install install-ovl

# ovl's engine for where ovl runs: the host's, built with the system's
# libfdt; for a cross build (CROSS_COMPILE, given or found above) a static
# one built with the kernel tree's own libfdt sources
engine = tools/ovl-params/ovl-params
ifneq ($(CROSS_COMPILE),)
kfdt := $(firstword $(wildcard $(KDIR)/source/scripts/dtc/libfdt/libfdt.h \
	$(KDIR)/scripts/dtc/libfdt/libfdt.h))
engine = tools/ovl-params/ovl-params-$(ARCH)
engine-args = CC=$(CROSS_COMPILE)gcc LDFLAGS=-static OUT=$(CURDIR)/$(engine) \
	LIBFDT_SRC=$(abspath $(dir $(kfdt)))
endif

ovl-params:
ifneq ($(CROSS_COMPILE),)
	@test -n "$(kfdt)" || { echo "ovpop: no scripts/dtc/libfdt in $(KDIR) for a $(ARCH) ovl-params"; exit 1; }
endif
	$(MAKE) -C tools/ovl-params $(engine-args)

install-ovl: ovl-params
ifneq ($(wildcard tools/ovl),)
	install -D -m 0755 tools/ovl $(DESTDIR)$(PREFIX)/sbin/ovl
	install -D -m 0755 $(engine) $(DESTDIR)$(PREFIX)/sbin/ovl-params
else
	@echo "ovpop: no tools/ovl in this tree; ovl not installed"
endif

uninstall:
	$(need-krelease)
	rm -f $(foreach z,.ko .ko.gz .ko.xz .ko.zst,$(moddir)/$(INSTALL_MOD_DIR)/ovpop$(z))
	$(depmod)
	rm -f $(DESTDIR)$(PREFIX)/sbin/ovl $(DESTDIR)$(PREFIX)/sbin/ovl-params

clean:
	$(MAKE) $(kargs) clean
	$(MAKE) -C tools/ovl-params clean
	rm -f tools/ovl-params/ovl-params-*

demo:
	sh scripts/demo.sh

test:
	sh scripts/test.sh

check:
	sh scripts/check.sh

.PHONY: all modules modules_install install install-ovl ovl-params uninstall clean \
	demo test check
