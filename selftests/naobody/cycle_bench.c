// SPDX-License-Identifier: GPL-2.0-only
/*
 * make bench, in the VM: naobody.ko's cycle against the emulator.
 *
 *   1. 60 s at 12 ms: missed cycles, the period's jitter (p50, p99, max)
 *      from the ring's OUT submit times, and the latency from a record's
 *      IN completion to a polling reader waking (p50, p99);
 *   2. stop to stiffness 0: frames the board got with stiffness after
 *      NAOBODY_IOC_STOP returned, over 20 stops (target: at most 1);
 *   3. the shortest period the emulated bus sustains: 10 s at each of
 *      several periods, with the share of ticks that found the previous
 *      exchange still running.
 *
 * Figures go out as TAP diagnostics ("# ..."); the benchmark never fails on
 * a figure, only when it cannot measure. BENCH_SECONDS shortens part 1.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nbtest.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(size_t)(p * (n - 1))];
}

static void realtime(void)
{
	struct sched_param sp = { .sched_priority = 40 };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		printf("# (no SCHED_FIFO for the reader: %s)\n", strerror(errno));
	mlockall(MCL_CURRENT | MCL_FUTURE);
}

/* Part 1: the cycle and the reader, for secs seconds at 12 ms. */
static int cycle_and_wake(struct nbt *t, int secs)
{
	size_t cap = (size_t)secs * 100 + 100, nj = 0, nw = 0;
	uint64_t *jitter = calloc(cap, sizeof(uint64_t));
	uint64_t *wake = calloc(cap, sizeof(uint64_t));
	struct pollfd p = { .fd = nb_fd(t->dev), .events = POLLIN };
	struct naobody_record rec, prev = { 0 };
	uint64_t first = 0, last = 0, records = 0, end, period;
	long long overruns0 = nbt_stat("overruns"), skipped0 = nbt_stat("skipped");

	if (!jitter || !wake)
		return -ENOMEM;
	period = nb_info(t->dev)->period_ns;
	end = nbt_now_ns() + (uint64_t)secs * 1000000000ull;
	nbt_skip_to_newest(t->dev);
	while (nbt_now_ns() < end) {
		if (poll(&p, 1, 1000) != 1)
			return -ETIMEDOUT;
		if (read(p.fd, &rec, sizeof(rec)) != sizeof(rec))
			continue;
		if (nw < cap)
			wake[nw++] = nbt_now_ns() - rec.in_complete_ns;
		if (!first)
			first = rec.cycle;
		last = rec.cycle;
		records++;
		if (prev.cycle && rec.cycle == prev.cycle + 1 && nj < cap) {
			int64_t d = (int64_t)(rec.out_submit_ns - prev.out_submit_ns) - (int64_t)period;

			jitter[nj++] = d < 0 ? -d : d;
		}
		prev = rec;
	}
	printf("# cycle: %llu ticks in %d s at %.1f ms; %llu exchanges, %llu missed "
	       "(%lld overruns, %lld skipped in back-off)\n",
	       (unsigned long long)(last - first + 1), secs, period / 1e6,
	       (unsigned long long)records,
	       (unsigned long long)(last - first + 1 - records),
	       nbt_stat("overruns") - overruns0, nbt_stat("skipped") - skipped0);
	printf("# jitter of the period (|OUT submit delta - period|, consecutive ticks): "
	       "p50 %llu us, p99 %llu us, max %llu us over %zu pairs (target p99 <= 500 us)\n",
	       (unsigned long long)pct(jitter, nj, 0.5) / 1000,
	       (unsigned long long)pct(jitter, nj, 0.99) / 1000,
	       (unsigned long long)pct(jitter, nj, 1.0) / 1000, nj);
	printf("# reader wake (IN completion to poll() returning): p50 %llu us, p99 %llu us "
	       "over %zu records (target p99 <= 1000 us)\n",
	       (unsigned long long)pct(wake, nw, 0.5) / 1000,
	       (unsigned long long)pct(wake, nw, 0.99) / 1000, nw);
	free(jitter);
	free(wake);
	return 0;
}

/* Part 2: frames with stiffness that reached the board after STOP returned. */
static int stop_latency(struct nbt *t, int rounds)
{
	static struct nb_emu_frame f[64];
	struct naobody_actuators a = { 0 };
	struct nb_device *ctl = nb_open(NULL, NB_OPEN_CONTROL);
	int worst = 0, total = 0;

	if (!ctl)
		return -errno;
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		a.stiffness[j] = 1000;
	for (int r = 0; r < rounds; r++) {
		struct nb_emu_stats st;
		uint64_t from, stop_ns;
		int late = 0, n;

		if (nb_command_counts(ctl, &a, NAOBODY_SET_ALL))
			return -EIO;
		usleep(60000 + (r * 1700) % 12000);	/* stop at varied phases */
		nb_emu_stats(&t->emu, &st);
		from = st.frames;
		if (nb_stop(t->dev, NAOBODY_STOP_TOOL))
			return -EIO;
		stop_ns = nbt_now_ns();
		nb_emu_wait_frames(&t->emu, from + 6, 2000);
		n = nb_emu_frames(&t->emu, from, f, 64);
		for (int i = 0; i < n; i++)
			if (f[i].targets && f[i].rx_ns > stop_ns && f[i].act.stiffness[0])
				late++;
		worst = late > worst ? late : worst;
		total += late;
		if (nb_rearm(t->dev))
			return -EIO;
	}
	nb_close(ctl);
	printf("# stop to stiffness 0: at most %d frame(s) with stiffness after STOP "
	       "returned, %d in %d stops (target <= 1 cycle)\n", worst, total, rounds);
	return 0;
}

/* Part 3: overruns at each period. */
static int shortest_period(void)
{
	static const unsigned int periods_us[] = { 8000, 10000, 12000, 16000, 20000 };

	for (size_t i = 0; i < sizeof(periods_us) / sizeof(periods_us[0]); i++) {
		struct naobody_record rec;
		long long c0, o0;
		struct nbt t;
		char args[64];
		int err;

		snprintf(args, sizeof(args), "period_us=%u", periods_us[i]);
		err = nbt_up(&t, args, NULL);
		if (err) {
			nbt_down(&t);
			return err;
		}
		nb_next(t.dev, &rec, 3000);
		c0 = nbt_stat("cycles");
		o0 = nbt_stat("overruns");
		sleep(10);
		printf("# period %5.1f ms: %lld exchanges, %lld overruns (%.1f %% of ticks), "
		       "%lld timeouts\n", periods_us[i] / 1000.0, nbt_stat("cycles") - c0,
		       nbt_stat("overruns") - o0,
		       100.0 * (nbt_stat("overruns") - o0) /
		       ((nbt_stat("cycles") - c0) + (nbt_stat("overruns") - o0) + 0.001),
		       nbt_stat("timeouts"));
		nbt_down(&t);
	}
	return 0;
}

int main(void)
{
	int secs = getenv("BENCH_SECONDS") ? atoi(getenv("BENCH_SECONDS")) : 60;
	struct naobody_record rec;
	struct nbt t;
	int err;

	printf("TAP version 13\n1..1\n");
	realtime();
	err = nbt_up(&t, NULL, NULL);
	if (!err)
		err = nbt_wait_boards(&t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 20000);
	if (!err)
		err = nb_next(t.dev, &rec, 3000) == 1 ? 0 : -ETIMEDOUT;
	if (!err)
		err = cycle_and_wake(&t, secs);
	if (!err)
		err = stop_latency(&t, 20);
	nbt_down(&t);
	if (!err)
		err = shortest_period();
	if (err) {
		printf("not ok 1 cycle benchmark: %s\n", strerror(-err));
		return 1;
	}
	printf("ok 1 cycle benchmark\n");
	return 0;
}
