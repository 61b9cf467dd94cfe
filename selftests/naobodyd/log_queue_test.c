// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd's log queue (userspace/naobodyd/log.h): with a log reader that
 * reads nothing, logging never blocks; what does not fit is dropped and
 * counted; once the reader reads again every line that was kept comes out
 * whole and in order, and a line says how many were dropped. Counts only:
 * no timing.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "log.h"

#define LINES	2000

struct reader {
	int fd;
	char *buf;
	size_t len, cap;
};

static void *read_all(void *arg)
{
	struct reader *r = arg;

	for (;;) {
		ssize_t n;

		if (r->len + 4096 > r->cap) {
			r->cap = r->cap ? 2 * r->cap : 1 << 20;
			r->buf = realloc(r->buf, r->cap + 1);
		}
		n = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (n <= 0)
			break;
		r->len += (size_t)n;
	}
	r->buf[r->len] = '\0';
	return NULL;
}

TEST(a_reader_that_reads_nothing_blocks_no_one)
{
	struct reader r = { 0 };
	int p[2], saved = dup(STDERR_FILENO), last = -1, kept = 0, in_order = 1;
	unsigned long long told = 0;
	pthread_t t;
	char *s;

	/* A hang, not a slow machine, reaches this. */
	alarm(120);
	ASSERT_EQ(0, pipe(p));
	fcntl(p[1], F_SETPIPE_SZ, 4096);
	ASSERT_EQ(STDERR_FILENO, dup2(p[1], STDERR_FILENO));
	close(p[1]);
	ASSERT_EQ(0, log_start());
	/* Far more than the pipe and the queue hold: each returns at once. */
	for (int i = 0; i < LINES; i++)
		log_info("line %d of the test", i);
	EXPECT_GT(log_dropped(), 0);
	EXPECT_LT(log_dropped(), LINES);

	/* The reader reads again: the rest comes out, then the thread ends. */
	r.fd = p[0];
	ASSERT_EQ(0, pthread_create(&t, NULL, read_all, &r));
	log_stop();
	dup2(saved, STDERR_FILENO);	/* the pipe's last writer closes */
	close(saved);
	pthread_join(t, NULL);
	close(p[0]);

	for (s = r.buf; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		int n;
		unsigned long long d;

		if (sscanf(s, "naobodyd: line %d of the test\n", &n) == 1) {
			in_order &= n > last;
			last = n;
			kept++;
		} else if (sscanf(s, "naobodyd: warning: %llu log lines dropped", &d) == 1) {
			told += d;
		}
	}
	EXPECT_TRUE(in_order);
	EXPECT_EQ(log_dropped(), told);
	EXPECT_EQ(LINES, kept + (int)told);
	free(r.buf);
}

TEST(rate_limit_says_how_many_it_suppressed)
{
	struct ratelimit rl = { .burst = 3 };
	int ok = 0;

	for (int i = 0; i < 100; i++)
		ok += ratelimit_ok_as(&rl, "kind");
	EXPECT_EQ(3, ok);
	EXPECT_EQ(97, atomic_load(&rl.suppressed));
}

TEST_HARNESS_MAIN
