/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the serial emulators (cm5-emu, parol6-emu) share: the pseudo-
 * terminal they play the robot on. Its master side is raw; its slave's
 * path is printed on stdout, one line, for the test or tool to open (and
 * linked from a path of the caller's choosing); SIGINT, SIGTERM and SIGHUP
 * end the emulation (nbtool_catch_signals()). Not installed.
 */
#ifndef _NBTOOL_PTY_H
#define _NBTOOL_PTY_H

#include <stddef.h>
#include <stdint.h>

#include <nbtool/signals.h>

struct nbtool_pty {
	int fd;			/* the master side: the robot's end */
	const char *link;	/* a symlink to the slave, or NULL */
};

/*
 * Open the terminal, link it (link may be NULL), catch the signals into
 * *stop, then print its path. 0, or the exit status (1) once the reason
 * is said on stderr as "prog: ...".
 */
int nbtool_pty_open(struct nbtool_pty *t, const char *prog, const char *link,
		    volatile sig_atomic_t *stop);
/* The link removed, the terminal closed. */
void nbtool_pty_close(struct nbtool_pty *t);

/*
 * Every byte of p to the host, until *stop. A write with no tool on the
 * other side (EIO), or interrupted, is tried again 5 ms later.
 */
void nbtool_pty_write(const struct nbtool_pty *t, const uint8_t *p, size_t n,
		      volatile sig_atomic_t *stop);

#endif /* _NBTOOL_PTY_H */
