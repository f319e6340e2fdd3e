// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's drivers/fpga/fpga-bridge.c, built as the module fpga-bridge against a
 * kernel without CONFIG_FPGA (see Kbuild).
 */
#include <fpga/fpga-bridge.c>
