// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: log lines on stderr (the journal adds time stamps under
 * systemd), through a queue to a logging thread (see log.h), and rate
 * limits for lines that a peer can cause at will.
 *
 * The queue is a bounded multi-producer, single-consumer ring of
 * fixed-size lines, each slot with a sequence number (D. Vyukov's bounded
 * queue): a producer claims a position with one compare-and-swap, fills
 * the slot, and publishes it by its sequence number; it never waits for
 * the consumer or another producer. A full ring drops the line and counts
 * it. The logging thread sleeps on an eventfd that producers write to
 * (never blocks: the counter saturates long after anyone reads it).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"

#define LOG_THREAD_STACK	(64 * 1024)	/* it only writes */

enum log_level log_level = LOG_LVL_INFO;

static const char *const level_name[] = {
	[LOG_LVL_ERR] = "error: ",
	[LOG_LVL_WARN] = "warning: ",
	[LOG_LVL_INFO] = "",
	[LOG_LVL_DEBUG] = "debug: ",
};

struct log_slot {
	_Atomic size_t seq;		/* pos: free for pos; pos + 1: holds pos's line */
	unsigned int len;
	char line[LOG_LINE_MAX];
};

static struct {
	struct log_slot slot[LOG_QUEUE_LINES];
	_Atomic size_t head;		/* the next position a producer claims */
	size_t tail;			/* the consumer's */
	_Atomic size_t written;		/* tail, for log_progress() */
	_Atomic bool running;		/* lines go through the queue */
	_Atomic bool quit;
	_Atomic uint64_t dropped;
	uint64_t dropped_told;
	int wake_fd;
	pthread_t thread;
} q = { .wake_fd = -1 };

/* One write per line, so lines from a forked test never interleave. */
static void write_line(const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(STDERR_FILENO, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

/* False when the ring is full. */
static bool enqueue(const char *line, size_t len)
{
	size_t pos = atomic_load_explicit(&q.head, memory_order_relaxed);
	struct log_slot *s;
	uint64_t one = 1;

	for (;;) {
		size_t seq;
		intptr_t diff;

		s = &q.slot[pos % LOG_QUEUE_LINES];
		/* Acquire: the consumer is done with the slot it freed. */
		seq = atomic_load_explicit(&s->seq, memory_order_acquire);
		diff = (intptr_t)seq - (intptr_t)pos;
		if (diff == 0) {
			/* Relaxed: the slot's seq, not head, orders its contents. */
			if (atomic_compare_exchange_weak_explicit(&q.head, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if (diff < 0) {
			return false;	/* full: the consumer has not freed it yet */
		} else {
			pos = atomic_load_explicit(&q.head, memory_order_relaxed);
		}
	}
	memcpy(s->line, line, len);
	s->len = (unsigned int)len;
	/* Release: the line before the sequence number that hands it over. */
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
	if (write(q.wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return true;
	return true;
}

void nb_log(enum log_level level, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	va_list ap;
	int n;

	if (level > log_level)
		return;
	n = snprintf(line, sizeof(line), "naobodyd: %s", level_name[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	if (!atomic_load_explicit(&q.running, memory_order_acquire))
		write_line(line, (size_t)n);
	else if (!enqueue(line, (size_t)n))
		atomic_fetch_add_explicit(&q.dropped, 1, memory_order_relaxed);
}

/* The consumer: what is queued, in order; false when nothing was. */
static bool drain(void)
{
	bool any = false;

	for (;;) {
		struct log_slot *s = &q.slot[q.tail % LOG_QUEUE_LINES];
		/* Acquire: pairs with enqueue()'s release; the line is whole. */
		size_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);

		if (seq != q.tail + 1)
			break;
		write_line(s->line, s->len);
		/* Release: the line is written out before producers reuse the slot. */
		atomic_store_explicit(&s->seq, q.tail + LOG_QUEUE_LINES, memory_order_release);
		q.tail++;
		atomic_store_explicit(&q.written, q.tail, memory_order_release);
		any = true;
	}
	return any;
}

/* How many lines were dropped since the last time it said so. */
static void tell_dropped(void)
{
	uint64_t dropped = atomic_load_explicit(&q.dropped, memory_order_relaxed);
	char line[160];
	int n;

	if (dropped == q.dropped_told)
		return;
	n = snprintf(line, sizeof(line), "naobodyd: warning: %llu log lines dropped: the log's "
		     "reader was too slow (the queue holds %d)\n",
		     (unsigned long long)(dropped - q.dropped_told), LOG_QUEUE_LINES);
	q.dropped_told = dropped;
	write_line(line, (size_t)n);
}

static void *log_thread(void *arg)
{
	struct pollfd p = { .fd = q.wake_fd, .events = POLLIN };
	uint64_t v;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "naobodyd-log");
	while (!atomic_load(&q.quit)) {
		/* Woken by each line; the timeout only bounds a lost wake-up. */
		poll(&p, 1, 1000);
		if (read(q.wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			v = 0;
		drain();
		tell_dropped();
	}
	/* Lines queued before log_stop() returned stay in order, none lost. */
	while (drain())
		;
	tell_dropped();
	return NULL;
}

int log_start(void)
{
	pthread_attr_t attr;
	int err;

	if (atomic_load(&q.running))
		return 0;
	for (size_t i = 0; i < LOG_QUEUE_LINES; i++)
		atomic_init(&q.slot[i].seq, i);
	atomic_init(&q.head, 0);
	atomic_init(&q.written, 0);
	q.tail = 0;
	atomic_store(&q.quit, false);
	q.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q.wake_fd < 0)
		return -errno;
	/* A small stack: with --priority every page of it is locked in. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, LOG_THREAD_STACK);
	err = pthread_create(&q.thread, &attr, log_thread, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		close(q.wake_fd);
		q.wake_fd = -1;
		return -err;
	}
	/* Release: the ring is ready before any producer sees running. */
	atomic_store_explicit(&q.running, true, memory_order_release);
	return 0;
}

void log_stop(void)
{
	uint64_t one = 1;

	if (!atomic_load(&q.running))
		return;
	atomic_store(&q.quit, true);
	if (write(q.wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		one = 0;
	pthread_join(q.thread, NULL);
	/* Lines from now on go out at once; one racing in here may be lost. */
	atomic_store(&q.running, false);
	drain();
	close(q.wake_fd);
	q.wake_fd = -1;
}

void log_progress(uint64_t *queued, uint64_t *written)
{
	*queued = atomic_load_explicit(&q.head, memory_order_acquire);
	*written = atomic_load_explicit(&q.written, memory_order_acquire);
	/* Not running: every line is written as it is logged. */
	if (!atomic_load(&q.running))
		*queued = *written;
}

uint64_t log_dropped(void)
{
	return atomic_load_explicit(&q.dropped, memory_order_relaxed);
}

bool ratelimit_ok_as(struct ratelimit *rl, const char *kind)
{
	uint64_t now = mono_ns(), start;
	unsigned int burst = rl->burst ? rl->burst : RATELIMIT_BURST;

	start = atomic_load_explicit(&rl->window_start, memory_order_relaxed);
	if (!start || now - start >= RATELIMIT_WINDOW_NS) {
		/* One thread opens the new window and reports the old one's count. */
		if (atomic_compare_exchange_strong(&rl->window_start, &start, now ? now : 1)) {
			unsigned int n = atomic_exchange(&rl->suppressed, 0);

			atomic_store(&rl->printed, 0);
			if (n && kind)
				log_warn("suppressed %u lines in %llu s like: %.200s", n,
					 (unsigned long long)((now - start) / NSEC_PER_SEC), kind);
			else if (n)
				log_warn("(%u similar lines suppressed)", n);
		}
	}
	if (atomic_fetch_add_explicit(&rl->printed, 1, memory_order_relaxed) < burst)
		return true;
	/* Not counted on: never wraps into a burst of lines. */
	atomic_store_explicit(&rl->printed, burst, memory_order_relaxed);
	atomic_fetch_add_explicit(&rl->suppressed, 1, memory_order_relaxed);
	return false;
}

bool ratelimit_ok(struct ratelimit *rl)
{
	return ratelimit_ok_as(rl, NULL);
}

void sanitize(char *out, size_t n, const char *s, size_t len)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < len && i + 1 < n; i++) {
		unsigned char c = (unsigned char)s[i];

		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	out[i] = '\0';
}
