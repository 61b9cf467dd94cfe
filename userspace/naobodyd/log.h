/* SPDX-License-Identifier: GPL-2.0-only */
/* naobodyd: log lines on stderr, and rate limits for lines a peer can cause. */
#ifndef NAOBODYD_LOG_H
#define NAOBODYD_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

extern enum log_level log_level;

void nb_log(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...)	nb_log(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)	nb_log(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)	nb_log(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)	nb_log(LOG_LVL_DEBUG, __VA_ARGS__)

/*
 * At most RATELIMIT_BURST lines per RATELIMIT_WINDOW_NS; the first line
 * after a window that suppressed some says how many.
 */
#define RATELIMIT_BURST		5
#define RATELIMIT_WINDOW_NS	(10ULL * 1000000000ULL)

struct ratelimit {
	unsigned int burst;		/* lines per window; 0: RATELIMIT_BURST */
	uint64_t window_start;
	unsigned int printed;
	unsigned int suppressed;
};

/* True when a line may be printed now. */
bool ratelimit_ok(struct ratelimit *rl);

/* Copy at most n - 1 bytes of s into out, replacing unprintable bytes. */
void sanitize(char *out, size_t n, const char *s, size_t len);

#endif
