/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample board's platform_data: what the board code hands the sample
 * widget driver, once in a static struct platform_device, now through the
 * auxdata table given to ovpop_populate() (samples/board/).
 */
#ifndef _OVPOP_SAMPLE_H
#define _OVPOP_SAMPLE_H

#include <linux/types.h>

/**
 * struct ovpop_sample_pdata - configuration of one sample widget
 * @label: the widget's name on the board (e.g. "front-panel")
 * @gain: its gain, 0 to %OVPOP_SAMPLE_MAX_GAIN
 */
struct ovpop_sample_pdata {
	const char *label;
	u32 gain;
};

#define OVPOP_SAMPLE_MAX_GAIN	15

#endif /* _OVPOP_SAMPLE_H */
