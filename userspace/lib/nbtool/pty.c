// SPDX-License-Identifier: GPL-2.0-only
/* The serial emulators' pseudo-terminal (see <nbtool/pty.h>). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <nbtool/pty.h>

int nbtool_pty_open(struct nbtool_pty *t, const char *prog, const char *link,
		    volatile sig_atomic_t *stop)
{
	struct termios tio;

	t->link = NULL;
	t->fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->fd < 0 || grantpt(t->fd) || unlockpt(t->fd)) {
		fprintf(stderr, "%s: cannot open a pseudo-terminal: %s\n", prog, strerror(errno));
		return 1;
	}
	if (tcgetattr(t->fd, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(t->fd, TCSANOW, &tio);
	}
	if (link) {
		unlink(link);
		if (symlink(ptsname(t->fd), link)) {
			fprintf(stderr, "%s: cannot link %s: %s\n", prog, link, strerror(errno));
			return 1;
		}
		t->link = link;
	}
	nbtool_catch_signals(stop);
	/* Its own writes fail with EIO, not SIGPIPE; this is for stdout. */
	signal(SIGPIPE, SIG_IGN);
	printf("%s\n", ptsname(t->fd));
	fflush(stdout);
	return 0;
}

void nbtool_pty_close(struct nbtool_pty *t)
{
	if (t->link)
		unlink(t->link);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->link = NULL;
}

void nbtool_pty_write(const struct nbtool_pty *t, const uint8_t *p, size_t n,
		      volatile sig_atomic_t *stop)
{
	const struct timespec wait = { 0, 5 * 1000000L };

	while (n && !*stop) {
		ssize_t w = write(t->fd, p, n);

		if (w < 0) {
			if (errno != EINTR && errno != EAGAIN && errno != EIO)
				return;
			nanosleep(&wait, NULL);
			continue;
		}
		p += w;
		n -= (size_t)w;
	}
}
