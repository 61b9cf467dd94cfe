// SPDX-License-Identifier: GPL-2.0-only
/*
 * nb-physics-bench: what the physical simulated body (naobodyd
 * --sim-physics) costs per 12 ms body cycle on this machine, as a ratio to
 * real time: the CPU one cycle of the model takes (sim_physics_cycle() and
 * sim_physics_sense(), the daemon's calls, through MuJoCo loaded at run
 * time as the daemon loads it) over the 12 ms it simulates.
 *
 * Four phases, because contacts are what costs: standing still in Stand
 * (two soles on the floor), going from Stand to Squat and back (the legs
 * working), and falling limp after a push and lying (the whole body on the
 * floor); and standing with the model's obstacle in both sonars'
 * reach, so that their rays are cast (elsewhere it is parked and they are
 * not). Each prints the per-cycle CPU's median, 99th percentile and
 * maximum, and its mean as a ratio to the cycle (1.0: a core spends all
 * its time on the physics; the body loop has the rest of the 12 ms).
 * Figures only, measured in one run: nothing passes or fails on time.
 *
 * Usage: nb-physics-bench [seconds per phase]   (default 10)
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <motion/poses.h>
#include <physics/sim_physics.h>

#define CYCLE_S		0.012f

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Linear from a to b at t in 0..1. */
static void blend(float *out, const float *a, const float *b, float t)
{
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		out[j] = a[j] + (b[j] - a[j]) * t;
}

enum phase { STANDING, SQUATTING, FALLEN, SONAR, PHASES };

static const char *const phase_names[PHASES] = {
	[STANDING] = "standing still (Stand)",
	[SQUATTING] = "Stand to Squat and back, 2 s each way",
	[FALLEN] = "pushed, limp, falling and lying",
	[SONAR] = "standing, the obstacle 1 m ahead (both sonars cast their rays)",
};

static void phase_targets(enum phase ph, int cycle, float *target, float *stiff)
{
	float t = cycle * CYCLE_S, k = 1.0f;

	switch (ph) {
	case STANDING:
	case SONAR:
		memcpy(target, motion_poses[POSE_STAND], sizeof(float) * NAOBODY_JOINTS);
		break;
	case SQUATTING: {
		float u = t / 2.0f - 2.0f * (int)(t / 4.0f);	/* 0..2 over 4 s */

		blend(target, motion_poses[POSE_STAND], motion_poses[POSE_SQUAT],
		      u <= 1.0f ? u : 2.0f - u);
		break;
	}
	case FALLEN:
		memcpy(target, motion_poses[POSE_STAND], sizeof(float) * NAOBODY_JOINTS);
		k = 0.0f;
		break;
	default:
		break;
	}
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		stiff[j] = k;
}

int main(int argc, char **argv)
{
	char here[] = __FILE__, model[512], err[512];
	float target[NAOBODY_JOINTS], stiff[NAOBODY_JOINTS];
	double seconds = argc > 1 ? strtod(argv[1], NULL) : 10.0;
	struct sim_physics_sense sense;
	int cycles = (int)(seconds / CYCLE_S);
	double *cost;

	if (argc > 2 || seconds < CYCLE_S || seconds > 3600) {
		fprintf(stderr, "usage: %s [seconds per phase, 0.012..3600]\n", argv[0]);
		return 2;
	}
	cost = calloc(cycles, sizeof(*cost));
	if (!cost) {
		perror("nb-physics-bench");
		return 1;
	}
	snprintf(model, sizeof(model), "%s/../../userspace/sim/nao6/nao6.xml", dirname(here));
	printf("# the model: %s; %.0f s per phase, %d cycles of %.0f ms\n",
	       model, seconds, cycles, CYCLE_S * 1e3);
	for (enum phase ph = 0; ph < PHASES; ph++) {
		/* Each phase from the same start: the robot settled in Stand. */
		struct sim_physics *p = sim_physics_create(model, motion_poses[POSE_STAND],
							   err, sizeof(err));
		double sum = 0;

		if (!p) {
			printf("not run: %s\n", err);
			free(cost);
			return 1;
		}
		if (ph == FALLEN)
			sim_physics_push(p, 30.0f, 0.0f, 0.1f);
		/* Elsewhere it is parked, out of reach: no ray is cast. */
		if (ph == SONAR)
			sim_physics_obstacle(p, true, 1.0f, 0.0f);
		for (int c = 0; c < cycles; c++) {
			double t0;

			phase_targets(ph, c, target, stiff);
			t0 = cpu_ns();
			sim_physics_cycle(p, CYCLE_S, target, stiff);
			sim_physics_sense(p, &sense);
			cost[c] = cpu_ns() - t0;
			sum += cost[c];
		}
		qsort(cost, cycles, sizeof(*cost), by_value);
		printf("physics, %s: per cycle p50 %.3f ms, p99 %.3f ms, max %.3f ms CPU; "
		       "ratio to real time %.3f (torso ends %.2f m up)\n",
		       phase_names[ph], cost[cycles / 2] / 1e6, cost[cycles * 99 / 100] / 1e6,
		       cost[cycles - 1] / 1e6, sum / 1e9 / (cycles * CYCLE_S), sense.torso_height);
		sim_physics_destroy(p);
	}
	free(cost);
	return 0;
}
