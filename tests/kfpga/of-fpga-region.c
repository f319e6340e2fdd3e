// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's drivers/fpga/of-fpga-region.c, built as the module of-fpga-region against a
 * kernel without CONFIG_FPGA (see Kbuild).
 */
#include <fpga/of-fpga-region.c>
