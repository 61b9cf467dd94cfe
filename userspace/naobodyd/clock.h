/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef NAOBODYD_CLOCK_H
#define NAOBODYD_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Seconds since the Unix epoch of a CLOCK_MONOTONIC time stamp. */
static inline double mono_to_epoch(uint64_t mono)
{
	uint64_t real = clock_ns(CLOCK_REALTIME), now = clock_ns(CLOCK_MONOTONIC);

	return ((double)real - (double)(now - mono)) / 1e9;
}

#endif
