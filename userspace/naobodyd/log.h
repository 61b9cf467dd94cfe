/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: log lines on stderr, and rate limits for lines a peer can cause.
 *
 * Between log_start() and log_stop() no thread writes stderr itself: a
 * line goes into a bounded lock-free queue (log.c) and the logging thread
 * writes it. A thread that logs never blocks, whatever the log's reader
 * does (journald busy, a pipe nobody reads): when the queue is full the
 * line is dropped and counted, and the logging thread says how many once
 * it can write again. Before log_start() and after log_stop() (options,
 * start-up errors, the unit tests and the fuzzer) lines are written at once.
 */
#ifndef NAOBODYD_LOG_H
#define NAOBODYD_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

extern enum log_level log_level;

void nb_log(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...)	nb_log(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)	nb_log(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...)	nb_log(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)	nb_log(LOG_LVL_DEBUG, __VA_ARGS__)

/* Lines the queue holds; past that they are dropped and counted. */
#define LOG_QUEUE_LINES	256
#define LOG_LINE_MAX	512

/* The logging thread; 0 or -errno (lines are then written at once, as before). */
int log_start(void);
/* Writes what is queued, then ends the thread. */
void log_stop(void);
/*
 * Lines queued so far, and lines the logging thread has written (or found
 * dropped): once written reaches a queued read earlier, every line logged
 * before that read is out (the tests' way to read the log in step).
 */
void log_progress(uint64_t *queued, uint64_t *written);
/* Lines dropped because the queue was full, since the start. */
uint64_t log_dropped(void);

/*
 * At most RATELIMIT_BURST lines per RATELIMIT_WINDOW_NS; the first line
 * after a window that suppressed some is preceded by one that says how
 * many, and of which kind. Lock-free: one may be shared by threads.
 */
#define RATELIMIT_BURST		5
#define RATELIMIT_WINDOW_NS	(10ULL * 1000000000ULL)

struct ratelimit {
	unsigned int burst;		/* lines per window; 0: RATELIMIT_BURST */
	_Atomic uint64_t window_start;
	_Atomic unsigned int printed;
	_Atomic unsigned int suppressed;
};

/* True when a line may be printed now. */
bool ratelimit_ok(struct ratelimit *rl);
/* The same; the "suppressed" line names kind (a format string will do). */
bool ratelimit_ok_as(struct ratelimit *rl, const char *kind);

/*
 * A line a peer can cause at will (a Hello, a connection, a Power, a
 * Stop): rate-limited per call site, RATELIMIT_KIND_BURST lines per window,
 * whichever peer causes it, so a flood of one kind neither floods the log
 * nor hides the others. A peer's own limit (its struct ratelimit) may come
 * before it.
 */
#define RATELIMIT_KIND_BURST	20

#define nb_log_limited(level, fmt, ...) do { \
		static struct ratelimit rl_ = { .burst = RATELIMIT_KIND_BURST }; \
		if ((level) <= log_level && ratelimit_ok_as(&rl_, fmt)) \
			nb_log((level), fmt, ##__VA_ARGS__); \
	} while (0)

#define log_err_limited(fmt, ...)	nb_log_limited(LOG_LVL_ERR, fmt, ##__VA_ARGS__)
#define log_warn_limited(fmt, ...)	nb_log_limited(LOG_LVL_WARN, fmt, ##__VA_ARGS__)
#define log_info_limited(fmt, ...)	nb_log_limited(LOG_LVL_INFO, fmt, ##__VA_ARGS__)

/* Copy at most n - 1 bytes of s into out, replacing unprintable bytes. */
void sanitize(char *out, size_t n, const char *s, size_t len);

#endif
