// SPDX-License-Identifier: GPL-2.0-only
/*
 * nb-walk-bench: the walking engine on the physical model, measured by the
 * model's own torso and motors (walk_harness.h), faster than real time,
 * each figure beside its goal where issue 33 sets one ("goal ...: met" or
 * "NOT MET"), so that it says where the gait stands until it gets there:
 *
 *   - forward speed at Slow, Normal and Fast (WalkToward (1, 0), 10 s after
 *     2 s of speeding up; WalkToward has no backward or sideways), and the
 *     worst torque a position error asked of any motor meanwhile (above 1,
 *     the motor saturates; the model gives at most its maximum), the most
 *     loaded motor's share averaged over the walk (the goal's; and, a bound
 *     above it, each moment's most loaded motor's, whichever it is), and
 *     how far a foot slipped on the floor while in contact (slip_cycle());
 *   - the turning rate on the spot at Fast (WalkToward (0, 1));
 *   - WalkTo turning on the spot at Normal, 1.5 and 3 rad each way: how
 *     far the torso ended from where it started, and how far the
 *     odometry's turn was from the model's (the provisional corrections
 *     for both: walk.c's turn_back() and odometry.c's TURN_SCALE);
 *   - 100 WalkTo targets at random within 2 m and +-180 degrees at Normal
 *     and at Fast: how many arrive within 10 cm and 10 degrees, how many
 *     fall, the median time, and the odometry's error at the end against
 *     the model's torso (walk_test holds Normal's to its bar);
 *   - the body loop stalled once mid-walk at Normal and Fast, 50 to 250 ms
 *     at twenty moments of two steps (robot_stall()), and at twenty others
 *     and in a turning walk: how many walks fall;
 *   - getting up: 20 pushes each way (getup_test's, from the same seeds),
 *     how many end standing, the median time from the push to Stand and
 *     from upright on its feet to Stand, the worst torque asked, how far
 *     from Stand's pose the legs were when State first said Stand, and how
 *     many fall walking 0.2 s after it;
 *   - Normal's forward walk (its slip), WalkTo (20 targets a speed) and
 *     the get-ups again at the sliding friction other NAO simulators use,
 *     0.5, and a carpet's 0.8 (the model's 1.0 is a convention, not a
 *     measurement);
 *   - the CPU a walking cycle costs here (the motion layer, the engine and
 *     the physics), as a ratio to the 12 ms it simulates.
 *
 * Anchors, printed beside: B-Human's configured walking limits on a real
 * NAO (their code release's Config/Robots/Default/walkingEngine.cfg): 250
 * mm/s forward (350 in competition), 150 mm/s backward (250), 200 mm/s
 * sideways (270), 120 deg/s turning. Limits they set, not speeds measured.
 * Figures only, measured in one run: nothing passes or fails here.
 *
 * Usage: nb-walk-bench [WalkTo targets]   (default 100, at each speed)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <motion/joints.h>

#include "walk_harness.h"

#define RUN_UP_S	2.0f
#define MEASURE_S	10.0f

/* Issue 33's goals, printed beside the figures. */
#define GOAL_FAST	0.27f	/* m/s forward at Fast: B-Human's fastest-walk figure */
#define GOAL_PEAK	1.0f	/* of a motor's maximum torque */
#define GOAL_MEAN	0.8f	/* ... a motor's, averaged over a walk: the most loaded one's */
#define GOAL_SLIP	0.01f	/* m, a foot in contact, its worst (ours, provisional) */
#define GOAL_ARRIVED	0.99f	/* of the WalkTo targets, 0 falls */
#define GOAL_FRONT_S	5.0f	/* median, from the push to Stand */
#define GOAL_BACK_S	7.0f
#define WALK_AFTER_S	0.2f	/* a walk asked this long after Stand */

static const float stall_s[] = { 0.05f, 0.10f, 0.15f, 0.20f, 0.25f };
static const float spot_turns[] = { 1.5f, 3.0f };	/* rad, WalkTo's turn_to */

/*
 * The contact's sliding friction is other simulators' convention, 1.0 (the
 * model's), not a measured figure (nao6-model.rst, Contact): WalkTo and
 * the get-ups again at the other figures in use, each with its source.
 */
static const struct {
	float sliding;
	const char *source;
} frictions[] = {
	{ 0.5f, "Aldebaran's URDF for Gazebo, 0.5; HULKs' Webots worlds, 0.45" },
	{ 0.8f, "a carpet's 0.82, Brandao et al., arXiv:1706.08685" },
};
#define FRICTION_TARGETS	20	/* WalkTo targets at each, at most */

/* Printed after a figure's name: the friction it was measured at, if not the model's. */
static char at_friction[32];
#define STALL_PHASES	20	/* over two steps, each foot's */

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *mark(bool met)
{
	return met ? "met" : "NOT MET";
}

struct gait_figure {
	float forward, left, turn;	/* m/s, m/s, rad/s, by the physics */
	struct sim_physics_worst load;	/* over the measure */
	float slip_median, slip_worst;	/* m, a foot's, over its contacts (slip_cycle()) */
	int stances;			/* contacts counted */
	bool fell;
	double cpu_per_cycle;		/* s */
};

/*
 * A foot's slip on the floor: a foot is in contact while its FSRs carry at
 * least STANCE_SHARE of the robot's weight; its sole's place in the world
 * (the model's) when that began, and the furthest it moved from there
 * (x, y) before it ended, is that contact's slip.
 */
#define STANCE_SHARE	0.1f
struct slip_watch {
	bool stance[2];
	float from[2][3], worst[2];
	float slips[4096];
	int n;
};

static void slip_cycle(struct slip_watch *w, struct robot *r, float weight)
{
	for (int f = 0; f < 2; f++) {
		float kg = 0.0f, at[3];
		bool on;

		for (int i = 0; i < NAOBODY_FSRS / 2; i++)
			kg += r->f.s.fsr[f * NAOBODY_FSRS / 2 + i];
		on = kg >= weight * STANCE_SHARE;
		sim_physics_sole_world(r->p, f, at);
		if (on && !w->stance[f]) {
			memcpy(w->from[f], at, sizeof(at));
			w->worst[f] = 0.0f;
		} else if (on) {
			w->worst[f] = fmaxf(w->worst[f], hypotf(at[0] - w->from[f][0],
								 at[1] - w->from[f][1]));
		} else if (w->stance[f] && w->n < (int)(sizeof(w->slips) / sizeof(w->slips[0]))) {
			w->slips[w->n++] = w->worst[f];
		}
		w->stance[f] = on;
	}
}

/* GETUP_TRIALS pushes one way, getup_test's; printed. */
static void getups(bool front)
{
	unsigned int seed = GETUP_SEED + (front ? 0 : 1);
	float times[GETUP_TRIALS], rises[GETUP_TRIALS], asked = 0.0f, leg = 0.0f;
	float goal = front ? GOAL_FRONT_S : GOAL_BACK_S, median;
	int stood = 0, up = 0, fell = 0, walk_fell = 0;

	for (int i = 0; i < GETUP_TRIALS; i++) {
		struct getup_result res;
		float force, angle;

		getup_push(&seed, &force, &angle);
		getup_walk_trial(front, force, angle, WALK_AFTER_S, &res);
		fell += res.down;
		walk_fell += res.walk_fell;
		up += res.up;
		/* One that never stood counts as the limit: the median is of all. */
		times[i] = fminf(res.seconds, GETUP_LIMIT_S);
		if (res.seconds < GETUP_LIMIT_S) {
			rises[stood] = res.upright_s;
			stood++;
			leg = fmaxf(leg, res.stand_leg_error);
		}
		asked = fmaxf(asked, res.worst.asked);
	}
	qsort(times, GETUP_TRIALS, sizeof(times[0]), float_order);
	median = times[GETUP_TRIALS / 2];
	printf("get-up%s, %d pushes %s (25 to 45 N): %d fell, %d said Stand within %.0f s, %d of "
	       "them walked off 0.2 s later (goal %d: %s); median %.1f s from the push to Stand "
	       "(goal %.0f s: %s); worst torque asked %.1f times a motor's maximum (goal %.1f: "
	       "%s)\n", at_friction, GETUP_TRIALS, front ? "forwards" : "backwards", fell, stood,
	       GETUP_LIMIT_S, up, GETUP_TRIALS, mark(up == GETUP_TRIALS), median, goal,
	       mark(median <= goal), asked, GOAL_PEAK, mark(asked <= GOAL_PEAK));
	if (!stood)
		return;
	qsort(rises, stood, sizeof(rises[0]), float_order);
	printf("get-up%s, %s, from upright on its feet to Stand (the sit, the rise, settling): "
	       "median %.1f s, at most %.1f s\n", at_friction, front ? "forwards" : "backwards",
	       rises[stood / 2], rises[stood - 1]);
	printf("get-up%s, %s, at the first Stand State: a leg joint up to %.2f rad from Stand's "
	       "pose; a WalkToward %.1f s after it fell %d times of %d (goal 0: %s)\n",
	       at_friction, front ? "forwards" : "backwards", leg, WALK_AFTER_S, walk_fell,
	       GETUP_TRIALS, mark(!walk_fell));
}

/* 100 WalkTo at a speed: arrivals, falls, median time, the odometry's error. */
static void walk_tos(int n, enum walk_speed speed, const char *name, float *times, float *odo)
{
	unsigned int seed = 2026;
	int arrived = 0, falls = 0, beyond = 0;
	float worst_share = 0.0f;

	for (int i = 0; i < n; i++) {
		struct walk_to_result res;
		float x, y, turn;

		walk_to_target(&seed, &x, &y, &turn);
		walk_to_trial(x, y, turn, speed, &res);
		times[i] = res.seconds;
		odo[i] = res.odometry_error;
		worst_share = fmaxf(worst_share, res.odometry_error / fmaxf(res.uncertainty, 1e-6f));
		beyond += res.odometry_error > res.uncertainty;
		falls += res.fell;
		arrived += walk_to_arrived(&res);
	}
	qsort(times, n, sizeof(*times), float_order);
	qsort(odo, n, sizeof(*odo), float_order);
	printf("walk%s, WalkTo at %s, %d targets within 2 m and +-180 deg: %d arrived within "
	       "10 cm and 10 deg, %d fell (goal %.0f %%, 0 falls: %s); median %.1f s; the "
	       "odometry's error at the end, by the model: median %.3f m, worst %.3f m\n",
	       at_friction, name, n, arrived, falls, GOAL_ARRIVED * 100.0f,
	       mark(arrived >= GOAL_ARRIVED * n && !falls), times[n / 2], odo[n / 2], odo[n - 1]);
	printf("walk%s, WalkTo at %s: the odometry's error beyond State's odometry_uncertainty "
	       "%d times of %d (goal 0: %s); at most %.2f of it\n", at_friction, name, beyond, n,
	       mark(!beyond), worst_share);
}

/*
 * WalkToward (x, y) at speed, stalled once for seconds at STALL_PHASES
 * moments of two steps (the first `offset` of a moment's spacing after
 * RUN_UP_S): how many fell; -1, the model did not stand.
 */
static int stalled_walks(float x, float y, enum walk_speed speed, float seconds, float offset)
{
	int fell = 0;

	for (int p = 0; p < STALL_PHASES; p++) {
		struct robot r;

		if (!robot_up(&r))
			return -1;
		robot_request(&r, MOTION_WALK_TOWARD, x, y, false, 0.0f, speed);
		robot_run(&r, RUN_UP_S + (p + offset) * 2.0f * walk_step_seconds() / STALL_PHASES);
		robot_stall(&r, seconds);
		robot_run(&r, RUN_UP_S);
		fell += r.fell;
		robot_down(&r);
	}
	return fell;
}

/*
 * A walk stalled once, each length at each moment of two steps; then, so
 * that those moments are not the only ones counted, half a moment later
 * and in a walk that turns (WalkToward (1, 0.5)).
 */
static void stalls(enum walk_speed speed, const char *name)
{
	for (size_t d = 0; d < sizeof(stall_s) / sizeof(stall_s[0]); d++) {
		int fell = stalled_walks(1.0f, 0.0f, speed, stall_s[d], 0.0f);
		int later = stalled_walks(1.0f, 0.0f, speed, stall_s[d], 0.5f);
		int turning = stalled_walks(1.0f, 0.5f, speed, stall_s[d], 0.0f);
		int more = later + turning;

		if (fell < 0 || later < 0 || turning < 0) {
			printf("walk, stalled at %s: not run: the model did not stand\n", name);
			return;
		}
		printf("walk, the body loop stalled %.0f ms once mid-walk at %s, at %d moments "
		       "of two steps: %d fell (goal 0 to 200 ms: %s); half a moment later and "
		       "turning, %d of %d more\n", stall_s[d] * 1000.0f, name, STALL_PHASES, fell,
		       stall_s[d] > 0.201f ? "not a goal" : mark(!fell), more, 2 * STALL_PHASES);
	}
}

/*
 * WalkTo (0, 0) turning turn rad at Normal (walk_to_trial()): how far the
 * torso ended from where it started (m) and the odometry's turn against
 * the model's (its share off, signed; turns within half a circle). False:
 * it fell.
 */
static bool turn_on_the_spot(float turn, float *moved, float *turn_off)
{
	struct walk_to_result res;

	walk_to_trial(0.0f, 0.0f, turn, SPEED_NORMAL, &res);
	*moved = res.miss_m;
	*turn_off = angle_wrap(res.odometry[2] - res.at[2]) / res.at[2];
	return !res.fell;
}

/* WalkToward (x, y) at speed: the torso's rates, the motors' load and the feet's slip over MEASURE_S. */
static bool measure(float x, float y, enum walk_speed speed, struct gait_figure *g)
{
	static struct slip_watch slip;
	struct robot r;
	float a[3], b[3], turned = 0.0f, prev, weight;
	int cycles = (int)(MEASURE_S / CYCLE_S);
	double t0;

	memset(g, 0, sizeof(*g));
	if (!robot_up(&r))
		return false;
	robot_request(&r, MOTION_WALK_TOWARD, x, y, false, 0.0f, speed);
	robot_run(&r, RUN_UP_S);
	robot_where(&r, a);
	prev = a[2];
	weight = sim_physics_mass(r.p);
	memset(&slip, 0, sizeof(slip));
	sim_physics_torque_reset(r.p);
	t0 = cpu_s();
	for (int i = 0; i < cycles; i++) {
		robot_cycle(&r);
		robot_where(&r, b);
		turned += angle_wrap(b[2] - prev);
		prev = b[2];
		slip_cycle(&slip, &r, weight);
	}
	g->cpu_per_cycle = (cpu_s() - t0) / cycles;
	g->stances = slip.n;
	if (slip.n) {
		qsort(slip.slips, slip.n, sizeof(slip.slips[0]), float_order);
		g->slip_median = slip.slips[slip.n / 2];
		g->slip_worst = slip.slips[slip.n - 1];
	}
	/* The way in the heading it had at the start of the measure. */
	g->forward = (cosf(a[2]) * (b[0] - a[0]) + sinf(a[2]) * (b[1] - a[1])) / MEASURE_S;
	g->left = (-sinf(a[2]) * (b[0] - a[0]) + cosf(a[2]) * (b[1] - a[1])) / MEASURE_S;
	g->turn = turned / MEASURE_S;
	sim_physics_torque_ratio(r.p, &g->load);
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
	int n = argc > 1 ? atoi(argv[1]) : 100;
	double worst_cpu = 0.0;
	float *times, *odo;

	if (argc > 2 || n < 1 || n > 1000) {
		fprintf(stderr, "usage: %s [WalkTo targets, 1..1000]\n", argv[0]);
		return 2;
	}
	times = calloc(n, sizeof(*times));
	odo = calloc(n, sizeof(*odo));
	if (!times || !odo) {
		perror("nb-walk-bench");
		free(times);
		free(odo);
		return 1;
	}
	for (size_t i = 0; i < sizeof(gaits) / sizeof(gaits[0]); i++) {
		struct gait_figure g;

		if (!measure(gaits[i].x, gaits[i].y, gaits[i].speed, &g)) {
			printf("not run: the model did not load or stand\n");
			free(times);
			free(odo);
			return 1;
		}
		worst_cpu = fmax(worst_cpu, g.cpu_per_cycle);
		printf("walk, %s: %.3f m/s forward, %+.3f m/s left, %+.3f rad/s%s; worst torque "
		       "asked %.2f of a motor's maximum (%s; goal %.1f: %s); %.3f ms CPU a cycle\n",
		       gaits[i].what, g.forward, g.left, g.turn, g.fell ? " (FELL)" : "",
		       g.load.asked, g.load.asked_joint >= 0 ? joint_name[g.load.asked_joint] : "-",
		       GOAL_PEAK, mark(g.load.asked <= GOAL_PEAK), g.cpu_per_cycle * 1e3);
		printf("walk, %s: the most loaded motor asked %.2f of its maximum on average "
		       "(%s; goal %.1f: %s), each moment's most loaded, whichever, %.2f; a foot in "
		       "contact slipped %.1f mm at the median, %.1f mm at worst, over %d contacts "
		       "(goal %.0f mm: %s)\n", gaits[i].what, g.load.motor_mean,
		       g.load.motor_mean_joint >= 0 ? joint_name[g.load.motor_mean_joint] : "-",
		       GOAL_MEAN, mark(g.load.motor_mean <= GOAL_MEAN), g.load.mean_asked,
		       g.slip_median * 1e3f, g.slip_worst * 1e3f, g.stances, GOAL_SLIP * 1e3f,
		       mark(g.stances && g.slip_worst <= GOAL_SLIP));
		if (gaits[i].speed == SPEED_FAST && gaits[i].x > 0.0f)
			printf("walk, forward at Fast: %.3f m/s (goal %.2f m/s: %s)\n", g.forward,
			       GOAL_FAST, mark(g.forward >= GOAL_FAST));
	}
	for (size_t i = 0; i < sizeof(spot_turns) / sizeof(spot_turns[0]); i++) {
		float moved[2], off[2];

		if (!turn_on_the_spot(spot_turns[i], &moved[0], &off[0]) ||
		    !turn_on_the_spot(-spot_turns[i], &moved[1], &off[1])) {
			printf("walk, WalkTo turning %.1f rad on the spot: not run: the model did "
			       "not stand, or it fell\n", spot_turns[i]);
			continue;
		}
		printf("walk, WalkTo turning %.1f rad on the spot at Normal, left and right: the "
		       "torso ended %.1f and %.1f cm from where it started; the odometry's turn "
		       "%+.1f %% and %+.1f %% off the model's\n", spot_turns[i], moved[0] * 100.0f,
		       moved[1] * 100.0f, off[0] * 100.0f, off[1] * 100.0f);
	}
	walk_tos(n, SPEED_NORMAL, "Normal", times, odo);
	walk_tos(n, SPEED_FAST, "Fast", times, odo);
	stalls(SPEED_NORMAL, "Normal");
	stalls(SPEED_FAST, "Fast");
	getups(true);
	getups(false);
	for (size_t i = 0; i < sizeof(frictions) / sizeof(frictions[0]); i++) {
		int m = n < FRICTION_TARGETS ? n : FRICTION_TARGETS;
		struct gait_figure g;

		harness_friction = frictions[i].sliding;
		snprintf(at_friction, sizeof(at_friction), " (friction %.1f)", frictions[i].sliding);
		printf("friction %.1f (the model's: 1.0), as %s:\n", frictions[i].sliding,
		       frictions[i].source);
		if (measure(1.0f, 0.0f, SPEED_NORMAL, &g))
			printf("walk%s, forward, Normal: %.3f m/s%s; a foot in contact slipped %.1f "
			       "mm at the median, %.1f mm at worst (goal %.0f mm: %s)\n", at_friction,
			       g.forward, g.fell ? " (FELL)" : "", g.slip_median * 1e3f,
			       g.slip_worst * 1e3f, GOAL_SLIP * 1e3f,
			       mark(g.stances && g.slip_worst <= GOAL_SLIP));
		else
			printf("walk%s, forward, Normal: not run: the model did not stand\n",
			       at_friction);
		walk_tos(m, SPEED_NORMAL, "Normal", times, odo);
		walk_tos(m, SPEED_FAST, "Fast", times, odo);
		getups(true);
		getups(false);
	}
	harness_friction = 0.0f;
	at_friction[0] = '\0';
	printf("walk, CPU a walking cycle: at most %.3f ms of the 12 ms, ratio %.3f to real time\n",
	       worst_cpu * 1e3, worst_cpu / CYCLE_S);
	printf("anchors (B-Human's configured limits on a real NAO): forward 0.25 m/s "
	       "(0.35 in competition), backward 0.15 (0.25), sideways 0.20 (0.27), "
	       "turning 2.09 rad/s (120 deg/s)\n");
	free(times);
	free(odo);
	return 0;
}
