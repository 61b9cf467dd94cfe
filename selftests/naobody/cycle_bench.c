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
 *      exchange still running;
 *   4. the cycle under SCHED_FIFO load (issue 27): WINDOW_S seconds without
 *      and then with a busy loop on every CPU at the priority just below
 *      the cycle's thread (cycle_priority), RT throttling off for the
 *      window: missed cycles, the period's jitter (p50, p99, max) and, over
 *      STOPS stops from a thread at the cycle's priority, the cycles from a
 *      STOP to the first limp frame the board got. The emulator stands in
 *      for the board, which is hardware on a robot and takes no CPU from
 *      us: it and the kernel threads the emulated bus runs on (softirq
 *      threads, workers) are raised to the cycle's priority for the
 *      window, so that the loops starve what a robot's CPU would run, not
 *      the board; on a robot the USB host controller's interrupt thread
 *      runs at SCHED_FIFO 50.
 *
 * Figures go out as TAP diagnostics ("# ..."); the benchmark never fails on
 * a figure, only when it cannot measure. BENCH_SECONDS shortens part 1.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

static bool limp(const struct nb_emu_frame *x)
{
	if (!x->targets)
		return false;
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		if (x->act.stiffness[j])
			return false;
	return true;
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

/* --- part 4: under SCHED_FIFO load ------------------------------------- */

#define WINDOW_S	8	/* within the ring's 10 s of history */
#define STOPS		5
#define MAX_BOOSTED	256

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int write_str_file(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(v, f) < 0 ? -EIO : 0;
	return fclose(f) ? -errno : ret;
}

static int set_fifo(pid_t pid, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(pid, prio ? SCHED_FIFO : SCHED_OTHER, &sp) ? -errno : 0;
}

/* Threads raised for the window, and what they were. */
static struct boosted {
	pid_t pid;
	int policy;
	struct sched_param sp;
	int nice;
} boosted[MAX_BOOSTED];
static int nboosted;

static void boost(pid_t pid, int prio)
{
	struct boosted *b;

	if (nboosted >= MAX_BOOSTED)
		return;
	b = &boosted[nboosted];
	b->pid = pid;
	b->policy = sched_getscheduler(pid);
	errno = 0;
	b->nice = getpriority(PRIO_PROCESS, pid);
	if (b->policy < 0 || sched_getparam(pid, &b->sp) || errno)
		return;
	if (!set_fifo(pid, prio))
		nboosted++;
}

static void unboost(void)
{
	for (int i = 0; i < nboosted; i++) {
		sched_setscheduler(boosted[i].pid, boosted[i].policy, &boosted[i].sp);
		if (boosted[i].policy == SCHED_OTHER)
			setpriority(PRIO_PROCESS, boosted[i].pid, boosted[i].nice);
	}
	nboosted = 0;
}

/* The emulator's threads, and the kernel threads the emulated bus runs on. */
static void boost_the_board(pid_t emu, int prio)
{
	static const char *const kthreads[] = { "ksoftirqd/", "ktimers/", "kworker/" };
	struct dirent *de;
	char path[300];
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", emu);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (atoi(de->d_name) > 0)
			boost(atoi(de->d_name), prio);
	if (d)
		closedir(d);
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		char comm[64] = "";
		FILE *f;

		if (atoi(de->d_name) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			for (size_t k = 0; k < sizeof(kthreads) / sizeof(kthreads[0]); k++)
				if (!strncmp(comm, kthreads[k], strlen(kthreads[k])))
					boost(atoi(de->d_name), prio);
		fclose(f);
	}
	if (d)
		closedir(d);
}

struct spinner {
	pthread_t th;
	int cpu, prio;
	uint64_t end;
};

static void *spin(void *arg)
{
	struct spinner *sp = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(sp->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	set_fifo(0, sp->prio);
	while (nbt_now_ns() < sp->end)
		;
	return NULL;
}

struct stopper {
	pthread_t th;
	struct nbt *t;
	struct nb_device *ctl;
	int prio;
	uint64_t at[STOPS];
	int done;
};

/* STOPS stops, a second or so apart, each after the body was stiff. */
static void *stopper(void *arg)
{
	struct stopper *st = arg;
	struct naobody_actuators a = { 0 };

	set_fifo(0, st->prio);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		a.stiffness[j] = 1000;
	for (int k = 0; k < STOPS; k++) {
		usleep(700000 + (k * 1700) % 12000);	/* varied phases */
		if (nb_command_counts(st->ctl, &a, NAOBODY_SET_ALL))
			break;
		usleep(200000);
		st->at[k] = nbt_now_ns();
		if (ioctl(nb_fd(st->t->dev), NAOBODY_IOC_STOP_NOW))
			break;
		usleep(200000);
		if (nb_rearm(st->t->dev))
			break;
		st->done++;
	}
	return NULL;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* One window, with the loops (load) or without; prints one line. */
static int fifo_window(struct nbt *t, struct nb_device *ctl, int prio, bool load)
{
	static struct nb_emu_frame f[1024];
	uint64_t jitter[WINDOW_S * 100], late[WINDOW_S * 100], period = nb_info(t->dev)->period_ns;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), limp_in[STOPS], nstops = 0;
	struct spinner sp[16];
	struct stopper st = { .t = t, .ctl = ctl, .prio = prio };
	struct naobody_record rec, prev = { 0 };
	uint64_t first = 0, last = 0, records = 0, f0, start, end, base = UINT64_MAX;
	long long overruns0, skipped0, overruns, skipped;
	struct nb_emu_stats es;
	size_t nj = 0, nl = 0;
	int n, throttled = read_int_file("/proc/sys/kernel/sched_rt_runtime_us");

	if (ncpu > 16)
		ncpu = 16;
	if (nb_emu_stats(&t->emu, &es))
		return -EIO;
	f0 = es.frames;
	nbt_skip_to_newest(t->dev);
	overruns0 = nbt_stat("overruns");
	skipped0 = nbt_stat("skipped");
	start = nbt_now_ns();
	end = start + WINDOW_S * 1000000000ull;
	if (load) {
		boost_the_board(t->emu.pid, prio);
		if (write_str_file("/proc/sys/kernel/sched_rt_runtime_us", "-1"))
			printf("# (RT throttling stays on: cannot write sched_rt_runtime_us)\n");
		for (int c = 0; c < ncpu; c++) {
			sp[c] = (struct spinner){ .cpu = c, .prio = prio - 1, .end = end };
			pthread_create(&sp[c].th, NULL, spin, &sp[c]);
		}
	}
	pthread_create(&st.th, NULL, stopper, &st);
	pthread_join(st.th, NULL);
	while (nbt_now_ns() < end)
		usleep(10000);
	overruns = nbt_stat("overruns") - overruns0;
	skipped = nbt_stat("skipped") - skipped0;
	if (load) {
		for (int c = 0; c < ncpu; c++)
			pthread_join(sp[c].th, NULL);
		if (throttled != -1) {
			char v[32];

			snprintf(v, sizeof(v), "%d", throttled);
			write_str_file("/proc/sys/kernel/sched_rt_runtime_us", v);
		}
		unboost();
	}
	/* The records of the window, by their OUT submit times. */
	while (nb_next(t->dev, &rec, 0) == 1) {
		if (rec.out_submit_ns < start || rec.out_submit_ns > end)
			continue;
		if (!first)
			first = rec.cycle;
		last = rec.cycle;
		records++;
		if (prev.cycle && rec.cycle == prev.cycle + 1 && nj < WINDOW_S * 100) {
			int64_t d = (int64_t)(rec.out_submit_ns - prev.out_submit_ns) -
				    (int64_t)period;

			jitter[nj++] = d < 0 ? -d : d;
		}
		/*
		 * How late this tick's frame went out: ticks are a period
		 * apart from one start, so out_submit - cycle * period less
		 * the window's smallest such value.
		 */
		if (nl < WINDOW_S * 100) {
			late[nl] = rec.out_submit_ns - rec.cycle * period;
			base = late[nl] < base ? late[nl] : base;
			nl++;
		}
		prev = rec;
	}
	for (size_t i = 0; i < nl; i++)
		late[i] -= base;
	/* Each stop: frames the board got from it to its first limp one. */
	n = nb_emu_frames(&t->emu, f0, f, 1024);
	for (int k = 0; k < st.done; k++) {
		int seen = 0, i;

		for (i = 0; i < n; i++) {
			if (f[i].rx_ns <= st.at[k] || !f[i].targets)
				continue;
			seen++;
			if (limp(&f[i]))
				break;
		}
		if (i < n)
			limp_in[nstops++] = seen;
	}
	qsort(limp_in, (size_t)nstops, sizeof(int), cmp_int);
	/*
	 * A tick without a frame found the exchange still running (an
	 * overrun: the bus), was skipped in a back-off, or was taken late
	 * together with the next (the thread woke a period late).
	 */
	printf("# fifo load %s: %llu ticks, %llu missed (%lld overruns, %lld skipped, %lld woken "
	       "late); jitter p50 %llu us, p99 %llu us, max %llu us; tick to OUT p99 %llu us, "
	       "max %llu us; STOP to limp frame: at most %d cycle(s), median %d, over %d of %d "
	       "stops\n",
	       load ? "on" : "off",
	       (unsigned long long)(records ? last - first + 1 : 0),
	       (unsigned long long)(records ? last - first + 1 - records : 0),
	       overruns, skipped,
	       (long long)(records ? last - first + 1 - records : 0) - overruns - skipped,
	       (unsigned long long)pct(jitter, nj, 0.5) / 1000,
	       (unsigned long long)pct(jitter, nj, 0.99) / 1000,
	       (unsigned long long)pct(jitter, nj, 1.0) / 1000,
	       (unsigned long long)pct(late, nl, 0.99) / 1000,
	       (unsigned long long)pct(late, nl, 1.0) / 1000,
	       nstops ? limp_in[nstops - 1] : -1, nstops ? limp_in[nstops / 2] : -1,
	       nstops, STOPS);
	return 0;
}

/* Part 4: both windows, the cycle's priority read from the module. */
static int fifo_load(struct nbt *t)
{
	int prio = read_int_file("/sys/module/naobody/parameters/cycle_priority");
	struct nb_device *ctl = nb_open(NULL, NB_OPEN_CONTROL);
	int err;

	if (!ctl)
		return -errno;
	if (prio < 2) {
		printf("# fifo load: cycle_priority %d leaves no priority below it\n", prio);
		nb_close(ctl);
		return 0;
	}
	printf("# fifo load: %d s windows, the cycle at SCHED_FIFO %d, one busy loop per CPU at "
	       "%d in the second (RT throttling off for it; the emulator and the bus's threads "
	       "at %d)\n", WINDOW_S, prio, prio - 1, prio);
	err = fifo_window(t, ctl, prio, false);
	if (!err)
		err = fifo_window(t, ctl, prio, true);
	nb_close(ctl);
	return err;
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
	if (!err)
		err = fifo_load(&t);
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
