// SPDX-License-Identifier: GPL-2.0-only
/*
 * How fast the emulator answers, measured from a usbfs host in the VM that
 * runs the driver's three steps with the spec's 20 ms timeouts, against a
 * started body (every board's data: answers of about 300 bytes).
 *
 *   floor          a control transfer dummy_hcd answers by itself
 *   back to back   cycle time: p50, p99, max, and per step
 *   at a period    cycles that failed or overran, and the start jitter,
 *                  for 12 ms down to 4 ms
 *
 * Figures only (make bench); it fails only if the emulator can't be
 * driven at all.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

#define CYCLES	500

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* CPU time a process used so far, in ms (utime + stime of /proc/PID/stat). */
static long cpu_ms(pid_t pid)
{
	unsigned long ut = 0, st = 0;
	char path[64], buf[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;	/* the name may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *v, int n, int p)
{
	return v[(n - 1) * p / 100];
}

FIXTURE(bench) {
	struct nb_emu emu;
	struct host h;
	uint8_t frame[NB_FRAME_MAX];
	int len;
	uint32_t crc;
};

FIXTURE_SETUP(bench)
{
	static const char *const args[] = { "--quiet", NULL };
	const struct nb_out_plan start = { .start = ALL_BOARDS };
	struct host_cycle c;
	uint8_t v[4];

	ASSERT_EQ(0, nb_gadget_load_modules());
	ASSERT_EQ(0, emu_up(&self->emu, &self->h, args));
	ASSERT_EQ(0, host_startup(&self->h, v));
	ASSERT_EQ(0, cycle_plan(&self->h, NULL, &start, &c, &self->crc));
	self->len = plain_frame(self->frame, &self->crc);
	ASSERT_LT(0, self->len);
	self->h.timeout_ms = self->h.in_timeout_ms = HOST_TIMEOUT_MS;
}

FIXTURE_TEARDOWN(bench)
{
	emu_down(&self->emu, &self->h);
}

TEST_F_TIMEOUT(bench, cycle_time, 600)
{
	static uint64_t t[CYCLES], d[CYCLES];
	static const int periods_ms[] = { 12, 10, 8, 6, 4 };
	struct nb_emu_stats st;
	struct host_cycle c;
	int ok = 0, in = 0;
	long cpu0 = cpu_ms(self->emu.pid), me0 = cpu_ms(getpid());

	sleep(3);
	TH_LOG("idle: emulator %ld ms of CPU in 3 s", cpu_ms(self->emu.pid) - cpu0);

	/* the floor: a control transfer dummy_hcd answers by itself */
	for (int i = 0; i < CYCLES; i++) {
		uint8_t status[2];
		uint64_t t0 = now_ns();

		ASSERT_EQ(2, host_control(&self->h, 0x80, 0x00 /* GET_STATUS */, 0, 2,
					  status, HOST_PATIENT_MS));
		t[i] = now_ns() - t0;
	}
	qsort(t, CYCLES, sizeof(t[0]), cmp);
	TH_LOG("GET_STATUS (no emulator involved): p50 %llu us, p99 %llu us",
	       (unsigned long long)pct(t, CYCLES, 50) / 1000,
	       (unsigned long long)pct(t, CYCLES, 99) / 1000);
	cpu0 = cpu_ms(self->emu.pid);

	static uint64_t step[3][CYCLES];
	static const char *const step_name[3] = { "bulk OUT", "0x14", "bulk IN" };

	for (int i = 0; i < CYCLES; i++) {
		if (host_cycle(&self->h, self->frame, (size_t)self->len, &c) == 0) {
			for (int k = 0; k < 3; k++)
				step[k][ok] = c.step_ns[k];
			t[ok++] = c.ns;
		}
		in = c.in;
	}
	ASSERT_LT(CYCLES * 9 / 10, ok);
	qsort(t, (size_t)ok, sizeof(t[0]), cmp);
	TH_LOG("back to back: emulator %ld ms CPU, host %ld ms CPU", cpu_ms(self->emu.pid) - cpu0,
	       cpu_ms(getpid()) - me0);
	TH_LOG("back to back: %d of %d cycles, answer %d bytes: p50 %llu us, p99 %llu us, max %llu us",
	       ok, CYCLES, in, (unsigned long long)pct(t, ok, 50) / 1000,
	       (unsigned long long)pct(t, ok, 99) / 1000, (unsigned long long)t[ok - 1] / 1000);
	cpu0 = cpu_ms(self->emu.pid);
	sleep(3);
	TH_LOG("idle after: emulator %ld ms of CPU in 3 s", cpu_ms(self->emu.pid) - cpu0);
	for (int k = 0; k < 3; k++) {
		qsort(step[k], (size_t)ok, sizeof(step[k][0]), cmp);
		TH_LOG("  %-8s p50 %llu us, p99 %llu us", step_name[k],
		       (unsigned long long)pct(step[k], ok, 50) / 1000,
		       (unsigned long long)pct(step[k], ok, 99) / 1000);
	}

	for (unsigned int p = 0; p < sizeof(periods_ms) / sizeof(periods_ms[0]); p++) {
		uint64_t period = (uint64_t)periods_ms[p] * 1000000, next = now_ns() + period;
		int failed = 0, overran = 0, n = 0, m = 0;

		for (int i = 0; i < CYCLES; i++) {
			struct timespec ts = { (time_t)(next / 1000000000), (long)(next % 1000000000) };
			uint64_t start;

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			start = now_ns();
			t[n++] = start - next;		/* how late it started */
			if (host_cycle(&self->h, self->frame, (size_t)self->len, &c)) {
				failed++;
			} else {
				if (c.ns > period)
					overran++;
				for (int k = 0; k < 3; k++)
					step[k][m] = c.step_ns[k];
				d[m++] = c.ns;
			}
			next += period;
			while (next < now_ns())		/* skip what an overrun took */
				next += period;
		}
		qsort(t, (size_t)n, sizeof(t[0]), cmp);
		TH_LOG("period %2d ms: %d cycles, %d failed, %d overran; start late p50 %llu us, p99 %llu us",
		       periods_ms[p], n, failed, overran,
		       (unsigned long long)pct(t, n, 50) / 1000,
		       (unsigned long long)pct(t, n, 99) / 1000);
		if (!m)
			continue;
		qsort(d, (size_t)m, sizeof(d[0]), cmp);
		for (int k = 0; k < 3; k++)
			qsort(step[k], (size_t)m, sizeof(step[k][0]), cmp);
		TH_LOG("  cycle p50 %llu us, p99 %llu us; p50 of OUT %llu, 0x14 %llu, IN %llu us",
		       (unsigned long long)pct(d, m, 50) / 1000,
		       (unsigned long long)pct(d, m, 99) / 1000,
		       (unsigned long long)pct(step[0], m, 50) / 1000,
		       (unsigned long long)pct(step[1], m, 50) / 1000,
		       (unsigned long long)pct(step[2], m, 50) / 1000);
	}
	ASSERT_EQ(0, nb_emu_stats(&self->emu, &st));
	TH_LOG("emulator: %ld ms of CPU for %llu frames, %llu us a frame",
	       cpu_ms(self->emu.pid) - cpu0, (unsigned long long)st.frames,
	       (unsigned long long)((cpu_ms(self->emu.pid) - cpu0) * 1000 /
				    (long)(st.frames ? st.frames : 1)));
	TH_LOG("emulator: %llu frames, %llu acks, %llu came before their data "
	       "(longest wait %llu us), %llu stalled, %llu answers dropped",
	       (unsigned long long)st.frames, (unsigned long long)st.acks,
	       (unsigned long long)st.ack_waits, (unsigned long long)st.ack_wait_max_us,
	       (unsigned long long)st.ack_timeouts, (unsigned long long)st.answers_dropped);
}

TEST_HARNESS_MAIN
