// SPDX-License-Identifier: GPL-2.0-only
/*
 * nb-walk-bench: the walking engine on the physical model, measured by the
 * model's own torso (walk_harness.h), faster than real time:
 *
 *   - forward speed at Slow, Normal and Fast (WalkToward (1, 0), 10 s after
 *     2 s of speeding up; WalkToward has no backward or sideways);
 *   - the turning rate on the spot at Fast (WalkToward (0, 1));
 *   - 100 WalkTo targets at random within 2 m and +-180 degrees at Fast:
 *     how many arrive within 10 cm and 10 degrees, how many fall, the
 *     median time (walk_test holds Normal's to its bar);
 *   - getting up: 20 pushes each way (getup_test's, from the same seeds),
 *     how many end standing, the median time from the push to Stand, and
 *     the worst torque the position errors asked (above 1: saturated);
 *   - the CPU a walking cycle costs here (the motion layer, the engine and
 *     the physics), as a ratio to the 12 ms it simulates.
 *
 * Anchors, printed beside: B-Human's configured walking limits on a real
 * NAO (their code release's Config/Robots/Default/walkingEngine.cfg): 250
 * mm/s forward (350 in competition), 150 mm/s backward (250), 200 mm/s
 * sideways (270), 120 deg/s turning. Limits they set, not speeds measured.
 * Figures only, measured in one run: nothing passes or fails here.
 *
 * Usage: nb-walk-bench [WalkTo targets]   (default 100)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "walk_harness.h"

#define RUN_UP_S	2.0f
#define MEASURE_S	10.0f

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct gait_figure {
	float forward, left, turn;	/* m/s, m/s, rad/s, by the physics */
	bool fell;
	double cpu_per_cycle;		/* s */
};

/* WalkToward (x, y) at speed: the torso's rates over MEASURE_S. */
/* GETUP_TRIALS pushes one way, getup_test's; printed. */
static void getups(bool front)
{
	unsigned int seed = GETUP_SEED + (front ? 0 : 1);
	float times[GETUP_TRIALS], asked = 0.0f;
	int up = 0, fell = 0;

	for (int i = 0; i < GETUP_TRIALS; i++) {
		struct getup_result res;
		float force, angle;

		getup_push(&seed, &force, &angle);
		getup_trial(front, force, angle, &res);
		fell += res.down;
		if (res.up)
			times[up++] = res.seconds;
		asked = fmaxf(asked, res.worst.asked);
	}
	qsort(times, up, sizeof(times[0]), float_order);
	printf("get-up, %d pushes %s (25 to 45 N): %d fell, %d stood up again (%.0f %%); "
	       "median %.1f s from the push to Stand; worst torque asked %.1f times a motor's "
	       "maximum\n", GETUP_TRIALS, front ? "forwards" : "backwards", fell, up,
	       100.0 * up / GETUP_TRIALS, up ? times[up / 2] : 0.0f, asked);
}

static bool measure(float x, float y, enum walk_speed speed, struct gait_figure *g)
{
	struct robot r;
	float a[3], b[3], turned = 0.0f, prev;
	int cycles = (int)(MEASURE_S / CYCLE_S);
	double t0;

	memset(g, 0, sizeof(*g));
	if (!robot_up(&r))
		return false;
	robot_request(&r, MOTION_WALK_TOWARD, x, y, false, 0.0f, speed);
	robot_run(&r, RUN_UP_S);
	robot_where(&r, a);
	prev = a[2];
	t0 = cpu_s();
	for (int i = 0; i < cycles; i++) {
		robot_cycle(&r);
		robot_where(&r, b);
		turned += angle_wrap(b[2] - prev);
		prev = b[2];
	}
	g->cpu_per_cycle = (cpu_s() - t0) / cycles;
	/* The way in the heading it had at the start of the measure. */
	g->forward = (cosf(a[2]) * (b[0] - a[0]) + sinf(a[2]) * (b[1] - a[1])) / MEASURE_S;
	g->left = (-sinf(a[2]) * (b[0] - a[0]) + cosf(a[2]) * (b[1] - a[1])) / MEASURE_S;
	g->turn = turned / MEASURE_S;
	g->fell = r.fell;
	robot_down(&r);
	return true;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *what;
		float x, y;
		enum walk_speed speed;
	} gaits[] = {
		{ "forward, Slow (asks 0.10 m/s)", 1.0f, 0.0f, SPEED_SLOW },
		{ "forward, Normal (asks 0.20 m/s)", 1.0f, 0.0f, SPEED_NORMAL },
		{ "forward, Fast (asks 0.30 m/s)", 1.0f, 0.0f, SPEED_FAST },
		{ "turning on the spot, Fast (asks 1.2 rad/s)", 0.0f, 1.0f, SPEED_FAST },
	};
	int n = argc > 1 ? atoi(argv[1]) : 100, arrived = 0, falls = 0;
	unsigned int seed = 2026;
	double worst_cpu = 0.0;
	float *times;

	if (argc > 2 || n < 1 || n > 1000) {
		fprintf(stderr, "usage: %s [WalkTo targets, 1..1000]\n", argv[0]);
		return 2;
	}
	times = calloc(n, sizeof(*times));
	if (!times) {
		perror("nb-walk-bench");
		return 1;
	}
	for (size_t i = 0; i < sizeof(gaits) / sizeof(gaits[0]); i++) {
		struct gait_figure g;

		if (!measure(gaits[i].x, gaits[i].y, gaits[i].speed, &g)) {
			printf("not run: the model did not load or stand\n");
			free(times);
			return 1;
		}
		worst_cpu = fmax(worst_cpu, g.cpu_per_cycle);
		printf("walk, %s: %.3f m/s forward, %+.3f m/s left, %+.3f rad/s%s; "
		       "%.3f ms CPU a cycle\n", gaits[i].what, g.forward, g.left, g.turn,
		       g.fell ? " (FELL)" : "", g.cpu_per_cycle * 1e3);
	}
	for (int i = 0; i < n; i++) {
		struct walk_to_result res;
		float x, y, turn;

		walk_to_target(&seed, &x, &y, &turn);
		walk_to_trial(x, y, turn, SPEED_FAST, &res);
		times[i] = res.seconds;
		falls += res.fell;
		arrived += walk_to_arrived(&res);
	}
	qsort(times, n, sizeof(*times), float_order);
	printf("walk, WalkTo at Fast, %d targets within 2 m and +-180 deg: %d arrived within "
	       "10 cm and 10 deg, %d fell; median %.1f s\n", n, arrived, falls, times[n / 2]);
	getups(true);
	getups(false);
	printf("walk, CPU a walking cycle: at most %.3f ms of the 12 ms, ratio %.3f to real time\n",
	       worst_cpu * 1e3, worst_cpu / CYCLE_S);
	printf("anchors (B-Human's configured limits on a real NAO): forward 0.25 m/s "
	       "(0.35 in competition), backward 0.15 (0.25), sideways 0.20 (0.27), "
	       "turning 2.09 rad/s (120 deg/s)\n");
	free(times);
	return 0;
}
