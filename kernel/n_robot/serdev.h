/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The serdev driver (serdev.c): registered by the module beside the line
 * discipline. Kbuild leaves serdev.c out for a kernel without the serial
 * device bus (CONFIG_SERIAL_DEV_BUS), and these become no-ops.
 */
#ifndef _N_ROBOT_SERDEV_H
#define _N_ROBOT_SERDEV_H

#ifdef NR_HAVE_SERDEV
int nr_serdev_register(void);
void nr_serdev_unregister(void);
#else
static inline int nr_serdev_register(void) { return 0; }
static inline void nr_serdev_unregister(void) { }
#endif

#endif /* _N_ROBOT_SERDEV_H */
