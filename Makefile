# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of ovpop.ko. The Kbuild file says what is built; this
# wrapper only calls the kernel's build system:
#
#   make                          for the running kernel
#   make KDIR=/path/to/build      for another kernel build tree
#   make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KDIR=...
#   make install                  modules_install into that kernel's tree
#   make demo / make test         the QEMU demo and the whole test suite
#   make check                    checkpatch, W=1 and sparse on the rig kernel

KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

install modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

demo:
	sh scripts/demo.sh

test:
	sh scripts/test.sh

check:
	sh scripts/check.sh

.PHONY: all modules install modules_install clean demo test check
