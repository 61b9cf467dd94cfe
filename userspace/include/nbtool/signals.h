/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The signals that end a tool's work early (<nbtool/serial.h>,
 * <nbtool/pty.h>). Not installed.
 */
#ifndef _NBTOOL_SIGNALS_H
#define _NBTOOL_SIGNALS_H

#include <signal.h>

/*
 * SIGINT, SIGTERM and SIGHUP set *stop to their number: the work that
 * sees it ends early, and a command exits 128 + it, as a shell reports a
 * signal. Not SA_RESTART: a blocking call returns EINTR, and the caller
 * looks at *stop.
 */
void nbtool_catch_signals(volatile sig_atomic_t *stop);

#endif /* _NBTOOL_SIGNALS_H */
