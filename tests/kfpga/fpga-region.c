// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's drivers/fpga/fpga-region.c, built as the module fpga-region against a
 * kernel without CONFIG_FPGA (see Kbuild).
 */
#include <fpga/fpga-region.c>
