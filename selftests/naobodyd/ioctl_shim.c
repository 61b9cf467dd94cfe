// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test stand-in for naobody.ko's NAOBODY_IOC_STOP, preloaded into
 * naoguard by naoguard_test.py (LD_PRELOAD): naobody.ko cannot be loaded on
 * the host, and a regular file answers every ioctl with ENOTTY.
 *
 * ioctl(fd, NAOBODY_IOC_STOP, &stop) on a file whose path is
 * $NBSHIM_DEVICE appends "STOP reason=R path=P t=CLOCK_MONOTONIC_NS" to
 * $NBSHIM_LOG and succeeds, unless $NBSHIM_FAIL names an errno number to
 * fail with. Every other ioctl goes to the C library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/naobody.h>

int ioctl(int fd, unsigned long request, ...);

int ioctl(int fd, unsigned long request, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *dev = getenv("NBSHIM_DEVICE"), *log = getenv("NBSHIM_LOG");
	const char *fail = getenv("NBSHIM_FAIL");
	char link[64], path[4096];
	va_list ap;
	void *arg;
	ssize_t n;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (request != NAOBODY_IOC_STOP || !dev || !log)
		return real(fd, request, arg);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return real(fd, request, arg);
	path[n] = '\0';
	if (strcmp(path, dev))
		return real(fd, request, arg);
	{
		const struct naobody_stop *st = arg;
		struct timespec ts;
		char line[4200];
		int lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(line, sizeof(line), "STOP reason=%u path=%s t=%lld\n", st->reason, path,
			 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
		if (lfd >= 0) {
			if (write(lfd, line, strlen(line)) < 0)
				line[0] = '\0';
			close(lfd);
		}
	}
	if (fail) {
		errno = atoi(fail);
		return -1;
	}
	return 0;
}
