// SPDX-License-Identifier: GPL-2.0-only
/*
 * The framers' throughput against a plain memchr() scan of the same
 * stream: one line per measurement, "name bytes seconds items". Under
 * callgrind (bench.sh) each measurement is also dumped on its own, so the
 * instructions per byte can be read from the dump named after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <valgrind/callgrind.h>

#include <n_robot/cm5.h>
#include <n_robot/parol6.h>

static size_t frames;

static void count(void *ctx, const u8 *frame, size_t len)
{
	frames++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A CM-5 session: a DATA per read of 18 servos x 8 bytes, a STATUS per
 * write, as a humanoid's 10 Hz loop would get them.
 */
static size_t make_cm5(u8 *s, size_t cap, u32 data_len)
{
	size_t n = 0, i;
	u32 seed = 1;

	while (n + 7 + data_len + 7 <= cap) {
		s[n] = N_ROBOT_CM5_DATA;
		for (i = 1; i < 6 + data_len; i++) {
			seed = seed * 1103515245 + 12345;
			s[n + i] = (u8)(seed >> 16);
		}
		s[n + 6 + data_len] = cm5_checksum(s + n, 6 + data_len);
		n += 7 + data_len;
		s[n] = N_ROBOT_CM5_STATUS;
		memset(s + n + 1, 0, 5);
		s[n + 6] = cm5_checksum(s + n, 6);
		n += 7;
	}
	return n;
}

static size_t make_parol6(u8 *s, size_t cap)
{
	size_t n = 0, i;
	u32 seed = 7;

	while (n + 60 <= cap) {
		s[n] = s[n + 1] = s[n + 2] = 0xFF;
		s[n + 3] = 56;
		for (i = 4; i < 58; i++) {
			seed = seed * 1103515245 + 12345;
			s[n + i] = (u8)(seed >> 16);
		}
		s[n + 58] = 1;
		s[n + 59] = 2;
		n += 60;
	}
	return n;
}

static size_t scan_memchr(const u8 *s, size_t n, u8 c)
{
	const u8 *p = s, *end = s + n;
	size_t hits = 0;

	while ((p = memchr(p, c, end - p))) {
		hits++;
		p++;
	}
	return hits;
}

static void measure(const char *name, const u8 *s, size_t n, int reps,
		    const struct nrf_proto *proto, u32 data_len, u8 start)
{
	static struct nrf f;
	size_t items = 0;
	double t0, t1;
	int r;

	CALLGRIND_ZERO_STATS;
	t0 = now();
	for (r = 0; r < reps; r++) {
		if (proto) {
			nrf_init(&f, proto, count, NULL);
			f.cm5.data_len = data_len;
			frames = 0;
			nrf_feed(&f, s, NULL, n);
			items = frames;
		} else {
			items = scan_memchr(s, n, start);
		}
	}
	t1 = now();
	CALLGRIND_DUMP_STATS_AT(name);
	printf("%s %zu %.6f %zu\n", name, n * reps, t1 - t0, items);
}

int main(int argc, char **argv)
{
	size_t cap = argc > 1 ? strtoul(argv[1], NULL, 0) : 32u << 20;
	int reps = argc > 2 ? atoi(argv[2]) : 4;
	u8 *s = malloc(cap);
	size_t n;

	if (!s)
		return 1;
	n = make_cm5(s, cap, 18 * 8);
	measure("cm5-framer", s, n, reps, &cm5_proto, 18 * 8, 0);
	measure("cm5-memchr", s, n, reps, NULL, 0, N_ROBOT_CM5_DATA);
	n = make_parol6(s, cap);
	measure("parol6-framer", s, n, reps, &parol6_proto, 0, 0);
	measure("parol6-memchr", s, n, reps, NULL, 0, 0xFF);
	free(s);
	return 0;
}
