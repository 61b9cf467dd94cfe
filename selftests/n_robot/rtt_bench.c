// SPDX-License-Identifier: GPL-2.0-only
/*
 * PAROL6 command-to-telemetry round trip: an Idle frame every 10 ms cycle,
 * timed from the write to the telemetry it answers, through the line
 * discipline (or the userspace framers). Prints p50, p99 and the worst, in
 * microseconds, as TAP diagnostics.
 *
 *   n_robot_rtt_bench DEVICE [CYCLES] [yes|no|auto]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <parol6/parol6.h>

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 500, i, got = 0, lost = 0, m;
	struct timespec next;
	struct parol6_cmd c;
	struct parol6 p;
	int64_t *rtt, t0;

	if (argc < 2) {
		/* run alone by the VM harness: link_bench.sh gives it a device */
		printf("1..1\nok 1 round trip # SKIP run by link_bench.sh, with a device\n");
		return 0;
	}
	m = argc > 3 ? nr_link_parse_mode(argv[3]) : NR_LINK_AUTO;
	if (n < 10 || m < 0) {
		fprintf(stderr, "usage: n_robot_rtt_bench DEVICE [CYCLES >= 10] [yes|no|auto]\n");
		return 2;
	}
	rtt = calloc((size_t)n, sizeof(*rtt));
	if (!rtt || parol6_open(&p, argv[1], m)) {
		fprintf(stderr, "n_robot_rtt_bench: cannot open %s\n", argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < n; i++) {
		parol6_idle_cmd(&p, &c);
		t0 = now_us();
		if (parol6_send(&p, &c) == 0 && parol6_poll(&p, 100) == 0)
			rtt[got++] = now_us() - t0;
		else
			lost++;
		next.tv_nsec += 10000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	parol6_close(&p);
	if (!got) {
		printf("not ok 1 no telemetry\n");
		return 1;
	}
	qsort(rtt, (size_t)got, sizeof(*rtt), cmp);
	printf("# parol6 round trip (%s), %d cycles at 10 ms: p50 %lld us, p99 %lld us, max %lld us, %d lost\n",
	       p.link.ldisc ? "n_robot line discipline" : "userspace framing",
	       n, (long long)rtt[got / 2], (long long)rtt[got * 99 / 100],
	       (long long)rtt[got - 1], lost);
	free(rtt);
	return 0;
}
