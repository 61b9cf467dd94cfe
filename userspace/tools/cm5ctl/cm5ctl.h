/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cm5ctl's commands, shared between cm5ctl.c (one-shot commands) and
 * everyday.c (loop, poses, servos, attach).
 */
#ifndef _CM5CTL_H
#define _CM5CTL_H

#include <stdbool.h>

#include <cm5/cm5.h>
#include <nbtool/serial.h>

#define EXIT_USAGE	NBTOOL_EXIT_USAGE
#define EXIT_STATUS	3	/* the CM-5 answered with an error status */

extern bool raw_units;
extern long loop_count;		/* loop: cycles, 0 until Ctrl-C */
extern bool verbose;		/* loop: every cycle's line, even on a terminal */

void explain(const char *what, int err);
/* Report a status word; 0 if it says ok, else the exit status. */
int report(const char *what, int st);
/* "ID:REG[:N]" or "ID:REG=V,V": fill e, return the text after '=' or "". */
const char *parse_spec(struct cm5 *c, char *spec, struct cm5_fmt_entry *e);

/* The commands on the CM-5 (dev): struct cm5 *, opened (<nbtool/serial.h>). */
int cmd_attach(void *dev, int argc, char **argv);
int cmd_servos(void *dev, int argc, char **argv);
int cmd_loop(void *dev, int argc, char **argv);
int cmd_pose(void *dev, int argc, char **argv);

#endif /* _CM5CTL_H */
