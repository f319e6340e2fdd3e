// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's drivers/fpga/fpga-mgr.c, built as the module fpga-mgr against a
 * kernel without CONFIG_FPGA (see Kbuild).
 */
#include <fpga/fpga-mgr.c>
