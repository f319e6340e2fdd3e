// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's drivers/fpga/zynq-fpga.c (the Zynq-7000 devcfg FPGA
 * manager), built as the module zynq-fpga against a kernel with
 * CONFIG_ARCH_ZYNQ and without CONFIG_FPGA (see Kbuild).
 */
#include <fpga/zynq-fpga.c>
