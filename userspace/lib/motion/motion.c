// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the motion layer (see motion.h).
 *
 * Requests (Power, Motion, the watchdog's stages, taking over from a LoLA
 * client) are noted when they arrive and applied at the next cycle, so
 * every transition is timed by the body's own clock.
 *
 * Phases:
 *   LIMP       stiffness 0; the command follows the measured positions, so
 *              stiffening never jumps
 *   STIFFEN    Wake: stiffness ramps up while the measured pose is held
 *   MOVE       a keyframe: smooth interpolation to a pose, then `after`
 *   HOLD       the pose is held; the head follows its mode; walking:
 *              from Stand, the walking engine (walk.h) moves the legs, and
 *              a keyframe asked for meanwhile waits until its steps end
 *   UNSTIFFEN  stiffness ramps down, then LIMP
 *   FALL       falling: the protective pose where the body allows it
 *              (poses.h), else soft joints, until the body lies still
 *   GETUP_KEYS fallen, on a body that can get up: the get-up's keys
 *              (getup.h; poses.c has them and says why), from the front
 *              or, lying on the back, rolling over first
 *   GETUP_SIT  fold into the sit pose
 *   GETUP_WAIT wait for the torso to come upright, then stand; a get-up
 *              that leaves it down tries again, GETUP_TRIES in all
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <motion/care.h>
#include <motion/getup.h>
#include <motion/joints.h>
#include <motion/leg_kinematics.h>
#include <motion/motion.h>
#include <motion/odometry.h>
#include <motion/poses.h>
#include <motion/walk.h>

#define NJ NAOBODY_JOINTS
#define MS(x) ((uint64_t)(x) * 1000000ULL)

enum phase {
	PH_LIMP, PH_STIFFEN, PH_MOVE, PH_SETTLE, PH_HOLD, PH_UNSTIFFEN, PH_FALL,
	PH_GETUP_KEYS, PH_GETUP_SIT, PH_GETUP_WAIT,
};


static const char *const pose_name[] = {
	[POSE_STAND] = "Stand", [POSE_SIT] = "SitDown", [POSE_ARMS_UP] = "ArmsUp",
	[POSE_SQUAT] = "Squat", [POSE_CURRENT] = "Stand",
};

const char *const primary_state_name[] = {
	[PRIMARY_UNSTIFF] = "Unstiff",
	[PRIMARY_ANIMATION] = "Animation",
	[PRIMARY_INITIAL] = "Initial",
	[PRIMARY_PLAYING] = "Playing",
	[PRIMARY_FINISHED] = "Finished",
};

/* Stiffness while stiff: legs carry the body; head, arms, hands less. */
static const float stiff_on[NJ] = {
	0.6f, 0.6f, 0.7f, 0.7f, 0.7f, 0.7f, 0.7f,
	1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
	0.7f, 0.7f, 0.7f, 0.7f, 0.7f, 0.5f, 0.5f,
};

#define STIFF_FALLING	0.2f	/* soft joints while falling */
#define MOVE_SPEED	1.5f	/* rad/s, the fastest joint of a keyframe */
/*
 * rad/s, a knee straightening: it lifts the whole body. At MOVE_SPEED the
 * physical model's knees ask for 0.96 to 1.07 of their maximum torque
 * standing up from the crouch; at half of it, 0.74.
 */
#define RISE_SPEED	0.75f
#define MOVE_MIN_NS	MS(600)
#define MOVE_MAX_NS	MS(3000)
#define STIFFEN_NS	MS(500)
#define UNSTIFFEN_NS	MS(500)
#define FALL_SOFT_NS	MS(100)
#define PROTECT_NS	MS(60)	/* into the protective pose: a fall lasts about 0.6 s */
#define GETUP_WAIT_NS	MS(4000)
#define LIE_STILL_NS	MS(500)	/* lying still this long before getting up */
#define GETUP_TRIES	3	/* get-ups in a row before it gives up, limp */
#define GETUP_FACE_DOWN	0.8f	/* rad, pitch: the roll from the back is done */
#define GETUP_SETTLED_RATE 0.5f	/* rad/s: upright, and turning slower, it sits */
/*
 * Stand is held (State: Initial or Playing, and a walk may start) once the
 * body stands there, not when the keyframe's time is up: every leg joint
 * within SETTLE_LEG_RAD of Stand's pose as the body measures it, the torso
 * upright and turning slower than SETTLE_RATE, for SETTLE_NS. Until then
 * (SETTLE), State says it is getting there. A body that cannot close that
 * gap (a hot joint's lower stiffness, a blocked one) is held after
 * SETTLE_MAX_NS, with a warning naming the joint. Provisional: the physical
 * model's legs close to within 0.04 rad; no figure from a real NAO.
 */
#define SETTLE_LEG_RAD	0.10f
#define SETTLE_RATE	0.3f	/* rad/s */
#define SETTLE_NS	MS(100)
#define SETTLE_MAX_NS	MS(6000)
/*
 * A late cycle: more than LATE_S since the last, seven periods (the body
 * loop stalled; the boards held the last command meanwhile). The gait then
 * steps on by one body period (PERIOD_S, the chest board's 12 ms), holding
 * its phase rather than jumping to where the clock says, sets the swing
 * foot down where it catches the sway the stall left (walk_late()), and
 * closes its feet in the next step; then it stands until the torso is
 * still (as SETTLE: slower than SETTLE_RATE for SETTLE_NS, or
 * LATE_STAND_MAX_NS at most) before it walks on, since the stall left it
 * swaying. On the physical model, stalled at 20 moments of two steps (each
 * foot's), 100 ms: walking on at once from the closed feet, 7 of 20 fell
 * at Fast and Normal; standing still first, none. 200 ms: 4 and 2 fell
 * at Normal and Fast, none with the catch. A cycle late by less keeps its
 * real time. The odometry's turn takes the real time (up to ODO_DT_MAX_S:
 * longer is a stopped daemon).
 */
#define LATE_S		0.09f
#define LATE_STAND_MAX_NS MS(2000)
#define PERIOD_S	0.012f
#define ODO_DT_MAX_S	0.5f
#define HEAD_SPEED	1.5f	/* rad/s */
#define CAMERA_HEIGHT	0.5f	/* m, standing */
#define WALK_DONE_M	0.02f
#define WALK_DONE_RAD	0.03f
#define WALK_NEAR_M	0.30f	/* WalkTo: omnidirectional from this near */
#define WALK_FACING_RAD	0.35f	/* WalkTo: walks forward only within this of its bearing */
/*
 * WalkTo: a target further aside than this (137 degrees) is backed to, not
 * faced: it turns at most 43 degrees, at 0.16 m/s (backward's limit)
 * instead of 0.20 at Normal. It was chosen when turning on the spot was the
 * walk's least sure motion (the odometry read a half turn 5 degrees short,
 * and the torso crept). With both fixed (odometry.c's TURN_SCALE, walk.c's
 * turn_back()), facing every target also brought 100 of 100 within 10 cm
 * at Normal and Fast, in a median 10.9 and 8.9 s against 11.2 and 9.2;
 * backing is kept, as it turns less: a change of WalkTo left for later.
 */
#define WALK_BACK_RAD	2.4f

static const float walk_speed[] = { 0.10f, 0.20f, 0.30f };	/* m/s */
static const float turn_speed[] = { 0.40f, 0.80f, 1.20f };	/* rad/s */

struct segment {
	float from_pos[NJ], from_stiff[NJ], to_pos[NJ], to_stiff[NJ];
	uint64_t start, dur;
};

struct motion {
	struct motion_body info;
	motion_note_fn *note;
	struct fall fall;
	enum fall_state fall_state;
	enum phase phase;
	enum phase after;		/* when MOVE is done */
	enum pose goal;			/* of MOVE and HOLD */
	struct segment seg;
	float pos[NJ], stiff[NJ];	/* the command */
	float hold[NJ];			/* POSE_CURRENT */
	bool power_on;			/* the client wants it stiff */
	bool stopped;
	const char *limp_why;		/* motion_hold_limp() */
	struct motion_req req;
	bool req_from_client;		/* else the daemon chose it */
	bool getup_front;
	bool getup_rolled;		/* from the back, and now face down */
	bool from_getup;		/* MOVE and SETTLE to Stand end a get-up */
	bool settled;			/* SETTLE: within its bounds ... */
	uint64_t settled_since;		/* ... since then */
	struct getup getup;
	int getup_tries;		/* since the fall */
	uint64_t fallen_since;
	uint64_t phase_since;
	uint64_t now;
	/* walking */
	struct walk *walk;		/* NULL: the body cannot walk */
	bool stepping;			/* the engine moves the legs */
	bool late_standing;		/* a late cycle closed the feet: still first */
	uint64_t late_since, late_still_since;
	bool deferred;			/* a keyframe waits for the steps to end */
	enum pose deferred_pose;
	enum phase deferred_after;
	bool target_valid;
	float target[3];
	float start_heading;
	bool near;			/* WalkTo's last stretch */
	bool backward;			/* WalkTo's target is behind: backs to it */
	bool walking;
	bool warned_walk;
	struct odometry odo;
	unsigned int refused;		/* enum motion_refusal, since the last take */
	struct care care;		/* hot joints, a low battery (care.h) */
	/* head */
	float head[2];
	/* requests noted since the last cycle */
	bool pend_power;
	enum power_req power_req;
	bool pend_motion;
	struct motion_req motion_req;
	int pend_watchdog;
	bool pend_adopt;
	struct nb_actuators adopt;
};

/* A note for the motion layer's user, one line (motion_note_fn). */
__attribute__((format(printf, 3, 4)))
static void note(const struct motion *m, bool warn, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!m->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	m->note(warn, line);
}

#define note_info(m, ...) note(m, false, __VA_ARGS__)
#define note_warn(m, ...) note(m, true, __VA_ARGS__)

struct motion *motion_create(const struct motion_body *body, motion_note_fn *fn)
{
	struct motion *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->info = *body;
	m->note = fn;
	odometry_reset(&m->odo);
	if (body->can_walk) {
		m->walk = walk_create();
		if (!m->walk) {
			free(m);
			return NULL;
		}
	}
	fall_init(&m->fall);
	m->phase = PH_LIMP;
	m->req.kind = MOTION_STAND;
	m->req.head = HEAD_CENTER;
	m->req.speed = SPEED_NORMAL;
	return m;
}

void motion_destroy(struct motion *m)
{
	if (m)
		walk_destroy(m->walk);
	free(m);
}

void motion_power(struct motion *m, enum power_req req, uint64_t now)
{
	m->pend_power = true;
	m->power_req = req;
}

void motion_request(struct motion *m, const struct motion_req *req, uint64_t now)
{
	m->pend_motion = true;
	m->motion_req = *req;
}

unsigned int motion_take_refusals(struct motion *m)
{
	unsigned int r = m->refused;

	m->refused = 0;
	return r;
}

void motion_watchdog(struct motion *m, int stage, uint64_t now)
{
	if (stage > m->pend_watchdog)
		m->pend_watchdog = stage;
}

void motion_hold_limp(struct motion *m, const char *why)
{
	m->limp_why = why;
}

void motion_adopt(struct motion *m, const struct nb_actuators *cmd, uint64_t now)
{
	m->pend_adopt = true;
	m->adopt = *cmd;
}

static float smooth(float t)
{
	return t * t * (3.0f - 2.0f * t);
}

static float max_stiffness(const float *stiff)
{
	float v = 0.0f;

	for (int j = 0; j < NJ; j++)
		v = fmaxf(v, stiff[j]);
	return v;
}

static void set_phase(struct motion *m, enum phase p)
{
	/* Only HOLD steps; whatever else (a fall, limp, a keyframe) ends it. */
	if (p != PH_HOLD) {
		m->stepping = false;
		m->deferred = false;
		m->late_standing = false;
	}
	/* A get-up ends standing (HOLD), limp, or in another fall. */
	if (p == PH_HOLD || p == PH_LIMP || p == PH_UNSTIFFEN || p == PH_FALL)
		m->from_getup = false;
	m->settled = false;
	m->phase = p;
	m->phase_since = m->now;
}

static const float *pose_of(const struct motion *m, enum pose p)
{
	return p == POSE_CURRENT ? m->hold : motion_poses[p];
}

static enum pose req_pose(const struct motion_req *r)
{
	switch (r->kind) {
	case MOTION_SIT_DOWN:
		return POSE_SIT;
	case MOTION_ARMS_UP:
		return POSE_ARMS_UP;
	case MOTION_SQUAT:
		return POSE_SQUAT;
	default:
		return POSE_STAND;
	}
}

/* A segment from the current command to (to_pos, to_stiff). */
static void segment(struct motion *m, const float *to_pos, const float *to_stiff,
		    uint64_t dur)
{
	memcpy(m->seg.from_pos, m->pos, sizeof(m->pos));
	memcpy(m->seg.from_stiff, m->stiff, sizeof(m->stiff));
	memcpy(m->seg.to_pos, to_pos, sizeof(m->seg.to_pos));
	memcpy(m->seg.to_stiff, to_stiff, sizeof(m->seg.to_stiff));
	m->seg.start = m->now;
	m->seg.dur = dur ? dur : 1;
}

/* Interpolate; true when the segment is done. */
static bool segment_step(struct motion *m)
{
	float t = (float)(m->now - m->seg.start) / (float)m->seg.dur;
	float s;

	if (t > 1.0f)
		t = 1.0f;
	s = smooth(t);
	for (int j = 0; j < NJ; j++) {
		m->pos[j] = m->seg.from_pos[j] + (m->seg.to_pos[j] - m->seg.from_pos[j]) * s;
		m->stiff[j] = m->seg.from_stiff[j] +
			      (m->seg.to_stiff[j] - m->seg.from_stiff[j]) * s;
	}
	return t >= 1.0f;
}

/* To pose p at stiff_on over dur ns, in phase `phase`, then `after`. */
static void move_in(struct motion *m, enum pose p, enum phase after, uint64_t dur,
		    enum phase phase)
{
	segment(m, pose_of(m, p), stiff_on, dur);
	m->goal = p;
	m->after = after;
	set_phase(m, phase);
}

/* A keyframe to pose p at stiff_on, then `after`. */
static void start_move(struct motion *m, enum pose p, enum phase after)
{
	const float *to = pose_of(m, p);
	float secs = 0.0f;
	uint64_t dur;

	if (m->stepping) {
		/* Not from mid-step: once the feet are together (hold_step()). */
		m->deferred = true;
		m->deferred_pose = p;
		m->deferred_after = after;
		walk_stop(m->walk);
		return;
	}
	for (int j = 0; j < NJ; j++) {
		bool rising = (j == NAOBODY_L_KNEE_PITCH || j == NAOBODY_R_KNEE_PITCH) &&
			      to[j] < m->pos[j];

		secs = fmaxf(secs, fabsf(to[j] - m->pos[j]) / (rising ? RISE_SPEED : MOVE_SPEED));
	}
	dur = (uint64_t)(secs * 1e9f);
	dur = dur < MOVE_MIN_NS ? MOVE_MIN_NS : dur > MOVE_MAX_NS ? MOVE_MAX_NS : dur;
	move_in(m, p, after, dur, PH_MOVE);
}

static void start_unstiffen(struct motion *m)
{
	static const float zero[NJ];

	segment(m, m->pos, zero, UNSTIFFEN_NS);
	set_phase(m, PH_UNSTIFFEN);
}

/* Which way the torso goes: the larger of its tilts, and that tilt's sign. */
static enum fall_way fall_way(const struct nb_sensors *s)
{
	if (fabsf(s->angles[0]) > fabsf(s->angles[1]))
		return FALL_WAY_SIDE;
	return s->angles[1] > 0.0f ? FALL_WAY_FRONT : FALL_WAY_BACK;
}

/* Face down or up, by the torso's pitch; the keys from the joints' positions. */
static void start_getup(struct motion *m, const struct nb_sensors *s)
{
	m->getup_front = s->angles[1] > 0.0f;
	m->getup_rolled = false;
	m->from_getup = true;
	m->getup_tries++;
	memcpy(m->pos, s->position, sizeof(m->pos));
	if (m->getup_front)
		getup_start(&m->getup, getup_front, getup_front_keys, s->position, m->now);
	else
		getup_start(&m->getup, getup_back, getup_back_keys, s->position, m->now);
	set_phase(m, PH_GETUP_KEYS);
}

/*
 * The quickest move from `from` to `to` the motors can follow on the
 * keyframes' smooth step, whose fastest point is 1.5 times its mean speed.
 */
static uint64_t quickest_ns(const float from[NJ], const float to[NJ])
{
	float secs = PERIOD_S;

	for (int j = 0; j < NJ; j++)
		secs = fmaxf(secs, 1.5f * fabsf(to[j] - from[j]) / joint_max_speed[j]);
	return (uint64_t)(secs * 1e9f);
}

/*
 * The keys are done, or the torso came upright before: sit, then stand.
 * Upright, the sit is a drop, as quick as the motors turn: the legs folding
 * fast lighten the feet for a moment, and the hip rolls draw in the feet
 * that the last key set wide apart (the rolls at their stops). Folded at
 * MOVE_SPEED, the feet stayed where they were: the body rose between them
 * and the rolls dragged them in along the floor, at their limit, for
 * seconds of SETTLE (on the physical model 3.6 s, asking 9 times their
 * torque). Still lying (a second try's start), it folds at MOVE_SPEED.
 */
static void getup_sit(struct motion *m, const struct nb_sensors *s)
{
	if (fall_tilt(s) < FALL_TILT_UPRIGHT) {
		move_in(m, POSE_SIT, PH_GETUP_WAIT,
			quickest_ns(m->pos, motion_poses[POSE_SIT]), PH_GETUP_SIT);
		return;
	}
	start_move(m, POSE_SIT, PH_GETUP_WAIT);
	set_phase(m, PH_GETUP_SIT);
}

/*
 * GETUP_WAIT: lying still as the fall detector means it (tilted past
 * FALL_TILT_FALLING and turning slower than FALL_RATE_STILL) for
 * FALL_STILL_NS since the sit pose was reached. A body that sits up does
 * so as its legs fold; one that lies still after them stays down, and
 * waiting out GETUP_WAIT_NS cost each failed try 4 s.
 */
static bool lying_still(const struct motion *m)
{
	uint64_t since = m->fall.still_since;

	if (!since)
		return false;
	if (since < m->phase_since)
		since = m->phase_since;
	return m->now - since >= FALL_STILL_NS;
}

/* Still down: again from where it lies, or, the tries spent, limp. */
static void getup_failed(struct motion *m, const struct nb_sensors *s)
{
	if (m->getup_tries < GETUP_TRIES) {
		note_warn(m, "motion: could not get up; trying again");
		start_getup(m, s);
		return;
	}
	note_warn(m, "motion: could not get up (%d tries); going limp", m->getup_tries);
	m->power_on = false;
	start_unstiffen(m);
}

static bool fallen(enum fall_state f)
{
	return f == FALL_FALLING || f == FALL_FALLEN;
}

static void do_wake(struct motion *m, const struct nb_sensors *s)
{
	if (m->stopped) {
		note_warn(m, "motion: Wake ignored: the death switch is latched (rearm first)");
		m->refused |= MREF_STOPPED;
		return;
	}
	if (m->power_on && m->phase != PH_UNSTIFFEN)
		return;
	if (fallen(m->fall_state)) {
		if (!m->info.can_stand_up) {
			note_warn(m, "motion: Wake ignored: the robot is down and this body has no safe get-up motion yet");
			m->refused |= MREF_FALLEN;
			return;
		}
		m->power_on = true;
		m->getup_tries = 0;
		start_getup(m, s);
		return;
	}
	m->power_on = true;
	if (m->phase == PH_LIMP)
		memcpy(m->pos, s->position, sizeof(m->pos));
	segment(m, m->pos, stiff_on, STIFFEN_NS);
	set_phase(m, PH_STIFFEN);
}

static void do_rest(struct motion *m)
{
	m->power_on = false;
	switch (m->phase) {
	case PH_LIMP:
	case PH_UNSTIFFEN:
		return;
	case PH_FALL:
	case PH_GETUP_KEYS:
	case PH_GETUP_SIT:
	case PH_GETUP_WAIT:
	case PH_STIFFEN:
		start_unstiffen(m);
		return;
	case PH_MOVE:
	case PH_SETTLE:
	case PH_HOLD:
		/* Only a sitting robot goes limp where it is. */
		if (m->fall_state == FALL_SITTING && m->goal == POSE_SIT && m->phase == PH_HOLD)
			start_unstiffen(m);
		else
			start_move(m, POSE_SIT, PH_UNSTIFFEN);
		return;
	}
}

static void apply_motion_req(struct motion *m)
{
	enum pose p = req_pose(&m->motion_req);

	m->req = m->motion_req;
	m->req_from_client = true;
	m->target_valid = false;
	/* A keyframe still waiting for the steps to end is overtaken. */
	m->deferred = false;
	if (m->req.kind == MOTION_WALK_TO || m->req.kind == MOTION_WALK_TOWARD) {
		if (!m->info.can_walk)
			m->refused |= m->req.kind == MOTION_WALK_TO ? MREF_WALK_TO : MREF_WALK_TOWARD;
		if (!m->info.can_walk && !m->warned_walk) {
			note_warn(m, "motion: walking is off on this body (the chest board's layout is not verified on a robot): %s is tracked, and the robot stands",
				  m->req.kind == MOTION_WALK_TO ? "WalkTo" : "WalkToward");
			m->warned_walk = true;
		}
	}
	if (!m->power_on)
		return;	/* remembered for the next Wake */
	/* Settling into Stand, a walk waits for it (SETTLE, then HOLD). */
	if ((m->phase == PH_HOLD || m->phase == PH_MOVE || m->phase == PH_SETTLE) &&
	    (m->goal != p || m->phase == PH_MOVE))
		start_move(m, p, PH_HOLD);
}

static void apply_adopt(struct motion *m)
{
	for (int j = 0; j < NJ; j++) {
		m->pos[j] = joint_clamp(j, m->adopt.position[j]);
		m->stiff[j] = fminf(fmaxf(m->adopt.stiffness[j], 0.0f), 1.0f);
	}
	memcpy(m->hold, m->pos, sizeof(m->hold));
	m->req.kind = MOTION_STAND;
	m->req.head = HEAD_CENTER;
	m->req_from_client = false;
	m->target_valid = false;
	/*
	 * Whatever the motion layer stepped while the other client drove was
	 * never the body's: a walk left running would defer every keyframe
	 * after this for good (HOLD on the current pose steps no further).
	 */
	m->stepping = false;
	m->deferred = false;
	m->late_standing = false;
	if (m->fall_state == FALL_FALLING || m->fall_state == FALL_FALLEN) {
		/*
		 * Down, or going down, with nobody driving: soft, then limp
		 * once it lies still (fall_step), never held stiff in the
		 * client's last pose on the floor. Wake gets it up again.
		 */
		for (int j = 0; j < NJ; j++)
			m->stiff[j] = fminf(m->stiff[j], STIFF_FALLING);
		m->power_on = false;
		segment(m, m->pos, m->stiff, FALL_SOFT_NS);
		set_phase(m, PH_FALL);
		m->fallen_since = 0;
		m->getup_tries = 0;
		note_info(m, "motion: the other client let go of a robot that is down: joints soft, then limp");
		return;
	}
	if (max_stiffness(m->stiff) < 0.05f) {
		m->power_on = false;
		set_phase(m, PH_LIMP);
	} else {
		m->power_on = true;
		m->goal = POSE_CURRENT;
		set_phase(m, PH_HOLD);
	}
}

static void apply_watchdog(struct motion *m, int stage)
{
	if (stage >= 2) {
		do_rest(m);
		return;
	}
	/* Stand still: stop walking, head centred; a sitting robot stays. */
	m->deferred = false;
	m->req.kind = MOTION_STAND;
	m->req.head = HEAD_CENTER;
	m->req_from_client = false;
	m->target_valid = false;
	if (!m->power_on || m->fall_state != FALL_UPRIGHT)
		return;
	if ((m->phase == PH_HOLD || m->phase == PH_MOVE || m->phase == PH_SETTLE) &&
	    m->goal != POSE_STAND &&
	    m->goal != POSE_SIT)
		start_move(m, POSE_STAND, PH_HOLD);
}

static float approach(float cur, float target, float step)
{
	if (target > cur + step)
		return cur + step;
	if (target < cur - step)
		return cur - step;
	return target;
}

static void head_step(struct motion *m, float dt)
{
	float yaw = 0.0f, pitch = 0.0f;

	switch (m->req.head) {
	case HEAD_CENTER:
		break;
	case HEAD_LOOK_AROUND: {
		float t = (float)(m->now % MS(5000)) / 5e9f;

		yaw = 1.0f * sinf(2.0f * (float)M_PI * t);
		pitch = 0.25f;
		break;
	}
	case HEAD_LOOK_AT: {
		float d = hypotf(m->req.look_x, m->req.look_y);

		yaw = atan2f(m->req.look_y, m->req.look_x);
		pitch = atan2f(CAMERA_HEIGHT, d);	/* positive looks down */
		break;
	}
	}
	yaw = joint_clamp(NAOBODY_HEAD_YAW, yaw);
	pitch = joint_clamp(NAOBODY_HEAD_PITCH, pitch);
	m->head[0] = approach(m->head[0], yaw, HEAD_SPEED * dt);
	m->head[1] = approach(m->head[1], pitch, HEAD_SPEED * dt);
	m->pos[NAOBODY_HEAD_YAW] = m->head[0];
	m->pos[NAOBODY_HEAD_PITCH] = m->head[1];
}

static float wrap(float a)
{
	while (a > (float)M_PI)
		a -= 2.0f * (float)M_PI;
	while (a < -(float)M_PI)
		a += 2.0f * (float)M_PI;
	return a;
}

/* Walking velocity toward the request; false when WalkTo has arrived. */
static bool walk_velocity(struct motion *m, float walk[3])
{
	const float *o = m->odo.pose;
	/* Hot legs walk Slow (care.h). */
	enum walk_speed pace = care_legs_hot(&m->care) ? SPEED_SLOW : m->req.speed;
	float v = walk_speed[pace], w = turn_speed[pace];

	if (m->req.kind == MOTION_WALK_TOWARD) {
		float a = atan2f(m->req.y, m->req.x);
		float mag = fminf(1.0f, hypotf(m->req.x, m->req.y));

		walk[0] = v * mag * fmaxf(0.0f, cosf(a));
		walk[1] = 0.0f;
		walk[2] = w * fmaxf(-1.0f, fminf(1.0f, a / ((float)M_PI / 2.0f)));
		return true;
	}
	if (!m->target_valid) {
		float c = cosf(o[2]), s = sinf(o[2]);

		m->target[0] = o[0] + c * m->req.x - s * m->req.y;
		m->target[1] = o[1] + s * m->req.x + c * m->req.y;
		m->target[2] = o[2] + (m->req.has_turn ? m->req.turn_to : 0.0f);
		m->start_heading = o[2];
		m->near = false;
		m->target_valid = true;
		m->backward = fabsf(atan2f(m->req.y, m->req.x)) > WALK_BACK_RAD;
	}
	float dx = m->target[0] - o[0], dy = m->target[1] - o[1];
	float dist = hypotf(dx, dy);

	if (dist > WALK_NEAR_M && !m->near) {
		/*
		 * Far: face the target and walk forward, the gait's fastest and
		 * surest way (or, behind, turn the back to it and walk
		 * backward); turning on the spot first when it is well aside.
		 */
		float back = m->backward ? (float)M_PI : 0.0f;
		float bearing = wrap(atan2f(dy, dx) - o[2] + back);
		float fwd = m->backward ? -v : v;

		walk[0] = fabsf(bearing) < WALK_FACING_RAD ? fwd * cosf(bearing) : 0.0f;
		walk[1] = 0.0f;
		walk[2] = fmaxf(-w, fminf(w, 2.0f * bearing));
		return true;
	}
	if (dist > WALK_DONE_M) {
		float c = cosf(o[2]), s = sinf(o[2]);
		float rx = c * dx + s * dy, ry = -s * dx + c * dy;
		float speed = fminf(v, dist * 2.0f);

		/* Near: straight at it, keeping the heading it came with. */
		if (!m->near) {
			m->near = true;
			m->start_heading = o[2];
		}
		walk[0] = speed * rx / dist;
		walk[1] = speed * ry / dist;
		walk[2] = fmaxf(-w, fminf(w, 2.0f * wrap(m->start_heading - o[2])));
		return true;
	}
	if (m->req.has_turn) {
		float err = wrap(m->target[2] - o[2]);

		if (fabsf(err) > WALK_DONE_RAD) {
			walk[2] = fmaxf(-w, fminf(w, 2.0f * err));
			return true;
		}
	}
	return false;
}

/* The torso pitching and rolling slower than SETTLE_RATE (the gyroscope's x and y). */
static bool torso_still(const struct nb_sensors *s)
{
	return hypotf(s->gyroscope[0], s->gyroscope[1]) < SETTLE_RATE;
}

/*
 * After a late cycle closed the feet (LATE_S): still enough to walk on?
 * The torso turning slower than SETTLE_RATE for SETTLE_NS, or standing
 * LATE_STAND_MAX_NS whatever it does.
 */
static bool still_after_late(struct motion *m, const struct nb_sensors *s)
{
	if (m->now - m->late_since >= LATE_STAND_MAX_NS) {
		m->late_standing = false;
		return true;
	}
	if (!torso_still(s)) {
		m->late_still_since = 0;
		return false;
	}
	if (!m->late_still_since)
		m->late_still_since = m->now;
	if (m->now - m->late_still_since < SETTLE_NS)
		return false;
	m->late_standing = false;
	return true;
}

/* Hold the goal's pose; from Stand, walk as asked. moved: the steps' motion. */
static void hold_step(struct motion *m, const struct nb_sensors *s, float dt, float moved[3])
{
	float v[3] = { 0.0f, 0.0f, 0.0f };

	memcpy(m->pos, pose_of(m, m->goal), sizeof(m->pos));
	if (m->goal != POSE_CURRENT)
		memcpy(m->stiff, stiff_on, sizeof(m->stiff));
	m->walking = false;
	if (m->goal == POSE_SIT || m->goal == POSE_CURRENT)
		return;
	head_step(m, dt);
	if (m->goal != POSE_STAND)
		return;
	if ((m->req.kind == MOTION_WALK_TO || m->req.kind == MOTION_WALK_TOWARD) &&
	    m->walk && !walk_velocity(m, v)) {
		/* Arrived: stand, keep the head. */
		m->req.kind = MOTION_STAND;
	}
	if (!m->walk || (!m->stepping && !v[0] && !v[1] && !v[2]))
		return;
	if (!m->stepping && m->late_standing && !still_after_late(m, s))
		return;
	walk_set_velocity(m->walk, v[0], v[1], v[2]);
	if (!m->stepping) {
		walk_start(m->walk);
		m->stepping = true;
	}
	/* The engine's legs over the pose's; the odometry takes its steps. */
	m->stepping = walk_update(m->walk, dt, s->gyroscope, m->pos, moved);
	m->walking = true;
	if (!m->stepping && m->deferred) {
		m->deferred = false;
		start_move(m, m->deferred_pose, m->deferred_after);
	}
}

static void enter_hold(struct motion *m)
{
	m->head[0] = m->pos[NAOBODY_HEAD_YAW];
	m->head[1] = m->pos[NAOBODY_HEAD_PITCH];
	set_phase(m, PH_HOLD);
}

/* The death switch and motion_hold_limp(): both hold the body limp. */
static void apply_limp(struct motion *m, bool stopped)
{
	if (stopped) {
		if (!m->stopped)
			note_warn(m, "motion: the death switch is latched: limp until rearmed, then Wake");
		m->stopped = true;
		m->power_on = false;
		if (m->pend_power && m->power_req == POWER_WAKE) {
			note_warn(m, "motion: Wake ignored: the death switch is latched (rearm first)");
			m->refused |= MREF_STOPPED;
		}
		m->pend_power = false;
		m->pend_watchdog = 0;
		m->pend_adopt = false;
		set_phase(m, PH_LIMP);
	} else if (m->stopped) {
		note_info(m, "motion: the death switch was released; the robot stays limp until Wake");
		m->stopped = false;
	}
	if (m->limp_why) {
		if (m->pend_power && m->power_req == POWER_WAKE) {
			note_warn(m, "motion: Wake refused: %s", m->limp_why);
			m->refused |= MREF_UNCALIBRATED;
		}
		m->power_on = false;
		m->pend_power = false;
		m->pend_adopt = false;
		if (m->phase != PH_LIMP)
			set_phase(m, PH_LIMP);
	}
}

/*
 * A low battery (care.h): Wake is refused, and an awake robot sits down and
 * goes limp while it still can.
 */
static void apply_care(struct motion *m, const struct nb_sensors *s)
{
	care_update(&m->care, s);
	if (!m->care.battery_low)
		return;
	if (m->pend_power && m->power_req == POWER_WAKE) {
		note_warn(m, "motion: Wake refused: the battery is low (%.0f %%): charge it above %.0f %% or put it on the charger",
			  100.0 * s->battery[0], 100.0 * CARE_BATTERY_OK);
		m->refused |= MREF_BATTERY;
		m->pend_power = false;
	}
	if (m->power_on) {
		note_warn(m, "motion: the battery is low (%.0f %%): sitting down, then limp, before it is empty",
			  100.0 * s->battery[0]);
		do_rest(m);
	}
}

/* The requests noted since the last cycle, in the order they overrule. */
static void apply_pending(struct motion *m, const struct nb_sensors *s)
{
	if (m->pend_adopt) {
		m->pend_adopt = false;
		apply_adopt(m);
	}
	if (m->pend_watchdog) {
		apply_watchdog(m, m->pend_watchdog);
		m->pend_watchdog = 0;
	}
	if (m->pend_motion) {
		m->pend_motion = false;
		apply_motion_req(m);
	}
	if (m->pend_power) {
		m->pend_power = false;
		if (m->power_req == POWER_WAKE)
			do_wake(m, s);
		else
			do_rest(m);
	}
}

/*
 * Falling always wins: soft joints, whatever was going on; unless another
 * client drives (motion_input's elsewhere: falls are a LoLA client's own).
 */
static void catch_fall(struct motion *m, const struct nb_sensors *s, bool getting_up)
{
	if (m->fall_state != FALL_FALLING || m->phase == PH_LIMP ||
	    m->phase == PH_FALL || getting_up || max_stiffness(m->stiff) <= 0.05f)
		return;
	memcpy(m->pos, s->position, sizeof(m->pos));
	/*
	 * Only for a robot its client wants awake: one being put to
	 * rest (Rest, the watchdog's sit, a lost controller) never
	 * stiffens again, it only goes softer.
	 */
	if (m->info.can_protect && m->power_on) {
		enum fall_way way = fall_way(s);

		segment(m, protect_poses[way], protect_stiffness[way], PROTECT_NS);
		note_info(m, "motion: falling %s: protective pose",
			  way == FALL_WAY_FRONT ? "forwards" :
			  way == FALL_WAY_BACK ? "backwards" : "sideways");
	} else {
		float soft[NJ];

		for (int j = 0; j < NJ; j++)
			soft[j] = fminf(m->stiff[j], STIFF_FALLING);
		segment(m, m->pos, soft, FALL_SOFT_NS);
		note_info(m, "motion: falling: joints soft");
	}
	set_phase(m, PH_FALL);
	m->fallen_since = 0;
	m->getup_tries = 0;
}

/* FALL: lie still, then get up (or go limp); or it caught itself. */
static void fall_step(struct motion *m, const struct nb_sensors *s)
{
	segment_step(m);
	if (m->fall_state != FALL_FALLEN)
		m->fallen_since = 0;
	else if (!m->fallen_since)
		m->fallen_since = m->now;
	if (m->fall_state == FALL_FALLEN && m->now - m->fallen_since >= LIE_STILL_NS) {
		if (m->power_on && m->info.can_stand_up) {
			note_info(m, "motion: fallen: getting up");
			start_getup(m, s);
		} else {
			if (m->power_on)
				note_warn(m, "motion: fallen: this body has no safe get-up motion yet; staying limp");
			m->power_on = false;
			start_unstiffen(m);
		}
	} else if (m->fall_state == FALL_UPRIGHT || m->fall_state == FALL_SITTING) {
		/* Caught itself. */
		if (m->power_on)
			start_move(m, req_pose(&m->req), PH_HOLD);
		else
			start_unstiffen(m);
	}
}

/* GETUP_KEYS: the get-up's keys, then the sit pose. */
static void getup_keys_step(struct motion *m, const struct nb_sensors *s)
{
	/*
	 * Upright and settled (the last key's roll onto the feet, or a
	 * body that rights itself, the kinematic one, at any key): on
	 * to the sit pose. Not while the torso swings: the roll onto
	 * the feet passes upright on its way, and can carry on over the
	 * heels.
	 */
	if (fall_tilt(s) < FALL_TILT_UPRIGHT &&
	    hypotf(s->gyroscope[0], s->gyroscope[1]) < GETUP_SETTLED_RATE) {
		getup_sit(m, s);
	} else if (!getup_step(&m->getup, s, m->now, m->pos, m->stiff)) {
		if (m->getup_front || m->getup_rolled) {
			getup_sit(m, s);
		} else if (s->angles[1] > GETUP_FACE_DOWN) {
			/* Rolled over: on as from the front. */
			m->getup_rolled = true;
			getup_start(&m->getup, getup_front, getup_front_keys, m->pos, m->now);
		} else {
			/*
			 * Still on the back: the sit pose, where a body that
			 * rights itself (the kinematic one) does; on the
			 * physics it stays down, and GETUP_WAIT tries again.
			 */
			getup_sit(m, s);
		}
	}
}

/* The leg joint furthest from the goal's pose, and how far (rad). */
static float leg_error(const struct motion *m, const struct nb_sensors *s, int *joint)
{
	const float *to = pose_of(m, m->goal);
	float worst = 0.0f;

	*joint = LEG_FIRST;
	for (int j = LEG_FIRST; j < LEG_FIRST + LEG_JOINTS; j++) {
		float e = fabsf(s->position[j] - to[j]);

		if (e > worst) {
			worst = e;
			*joint = j;
		}
	}
	return worst;
}

/* SETTLE: Stand's pose held until the body stands in it (SETTLE_LEG_RAD). */
static void settle_step(struct motion *m, const struct nb_sensors *s)
{
	int joint;
	float err = leg_error(m, s, &joint);
	bool still = fall_tilt(s) < FALL_TILT_UPRIGHT && torso_still(s);

	if (err > SETTLE_LEG_RAD || !still) {
		m->settled = false;
	} else if (!m->settled) {
		m->settled = true;
		m->settled_since = m->now;
	}
	if (m->settled && m->now - m->settled_since >= SETTLE_NS) {
		enter_hold(m);
	} else if (m->now - m->phase_since >= SETTLE_MAX_NS) {
		note_warn(m, "motion: %s is still %.2f rad from Stand's pose after %.0f s%s: standing as it is",
			  joint_name[joint], err, SETTLE_MAX_NS / 1e9,
			  still ? "" : ", the torso not still");
		enter_hold(m);
	}
}

/* This cycle's command for the phase; moved: the walk's steps, if any. */
static void phase_step(struct motion *m, const struct nb_sensors *s, float dt, float moved[3])
{
	switch (m->phase) {
	case PH_LIMP:
		memcpy(m->pos, s->position, sizeof(m->pos));
		memset(m->stiff, 0, sizeof(m->stiff));
		break;
	case PH_STIFFEN:
		if (segment_step(m))
			start_move(m, req_pose(&m->req), PH_HOLD);
		break;
	case PH_MOVE:
	case PH_GETUP_SIT:
		if (segment_step(m)) {
			if (m->phase == PH_GETUP_SIT || m->after == PH_GETUP_WAIT)
				set_phase(m, PH_GETUP_WAIT);
			else if (m->after == PH_UNSTIFFEN)
				start_unstiffen(m);
			else if (m->goal == POSE_STAND)
				set_phase(m, PH_SETTLE);
			else
				enter_hold(m);
		}
		break;
	case PH_SETTLE:
		settle_step(m, s);
		break;
	case PH_HOLD:
		hold_step(m, s, dt, moved);
		break;
	case PH_UNSTIFFEN:
		if (segment_step(m))
			set_phase(m, PH_LIMP);
		break;
	case PH_FALL:
		fall_step(m, s);
		break;
	case PH_GETUP_KEYS:
		getup_keys_step(m, s);
		break;
	case PH_GETUP_WAIT:
		memcpy(m->pos, motion_poses[POSE_SIT], sizeof(m->pos));
		memcpy(m->stiff, stiff_on, sizeof(m->stiff));
		if (fall_tilt(s) < FALL_TILT_UPRIGHT) {
			note_info(m, "motion: up again");
			start_move(m, req_pose(&m->req), PH_HOLD);
		} else if (m->now - m->phase_since > GETUP_WAIT_NS || lying_still(m)) {
			getup_failed(m, s);
		}
		break;
	}
}

void motion_update(struct motion *m, const struct motion_input *in, struct nb_actuators *out)
{
	const struct nb_sensors *s = in->s;
	float dt = m->now ? (float)(in->time_ns - m->now) / 1e9f : 0.0f, odo_dt;
	float moved[3] = { 0.0f, 0.0f, 0.0f };
	bool getting_up = m->phase == PH_GETUP_KEYS || m->phase == PH_GETUP_SIT ||
			  m->phase == PH_GETUP_WAIT;

	m->now = in->time_ns;
	if (dt < 0.0f)
		dt = 0.0f;
	odo_dt = fminf(dt, ODO_DT_MAX_S);
	if (dt > LATE_S) {
		dt = PERIOD_S;
		if (m->walk && m->stepping) {
			walk_late(m->walk, s->gyroscope);
			m->late_standing = true;
			m->late_since = m->now;
			m->late_still_since = 0;
		}
	}
	m->walking = false;
	m->fall_state = fall_update(&m->fall, s, getting_up, m->now);

	apply_limp(m, in->stopped);
	apply_care(m, s);
	apply_pending(m, s);
	if (!in->elsewhere)
		catch_fall(m, s, getting_up);
	phase_step(m, s, dt, moved);
	/* Steps computed while another client drives were never the body's. */
	if (in->elsewhere)
		memset(moved, 0, sizeof(moved));

	/*
	 * The odometry: the steps as the engine made them, the turn as the
	 * gyroscope measured it (the gait's own turn misses the feet's slip).
	 */
	if (m->walk)
		odometry_step(&m->odo, moved, walk_yaw_rate(s->angles, s->gyroscope),
			      m->fall_state == FALL_UPRIGHT, odo_dt);

	for (int j = 0; j < NJ; j++) {
		out->position[j] = joint_clamp(j, m->pos[j]);
		out->stiffness[j] = fminf(fmaxf(m->stiff[j], 0.0f), 1.0f);
	}
	care_limit(&m->care, out->stiffness);
}

void motion_limit(const struct motion *m, struct nb_actuators *out)
{
	care_limit(&m->care, out->stiffness);
}

uint32_t motion_take_hot_changes(struct motion *m)
{
	return care_take_changes(&m->care);
}

bool motion_limp(const struct motion *m)
{
	return m->phase == PH_LIMP;
}

void motion_status(const struct motion *m, struct motion_status *st)
{
	st->hot = m->care.hot;
	st->has_odometry = m->walk != NULL;
	memcpy(st->odometry, m->odo.pose, sizeof(st->odometry));
	st->odometry_uncertainty = odometry_uncertainty(&m->odo);
	st->fall = m->fall_state;
	if (m->phase == PH_GETUP_KEYS || m->phase == PH_GETUP_SIT || m->phase == PH_GETUP_WAIT)
		st->fall = FALL_STANDING_UP;
	if (max_stiffness(m->stiff) < 0.05f)
		st->primary = PRIMARY_UNSTIFF;
	else if (m->phase != PH_HOLD)
		st->primary = PRIMARY_ANIMATION;
	else
		st->primary = m->req_from_client ? PRIMARY_PLAYING : PRIMARY_INITIAL;

	switch (m->phase) {
	case PH_LIMP:
		st->motion = "Unstiff";
		break;
	case PH_UNSTIFFEN:
		st->motion = m->goal == POSE_SIT ? "SitDown" : "Unstiff";
		break;
	case PH_FALL:
		st->motion = "FallProtection";
		break;
	case PH_GETUP_KEYS:
	case PH_GETUP_SIT:
	case PH_GETUP_WAIT:
		st->motion = m->getup_front ? "StandUpFront" : "StandUpBack";
		break;
	case PH_STIFFEN:
		st->motion = pose_name[req_pose(&m->req)];
		break;
	case PH_MOVE:
	case PH_SETTLE:
		/* The get-up goes on until it stands (fall_state: StandingUp). */
		if (m->from_getup && m->goal == POSE_STAND) {
			st->motion = m->getup_front ? "StandUpFront" : "StandUpBack";
			if (st->fall == FALL_UPRIGHT)
				st->fall = FALL_STANDING_UP;
			break;
		}
		/* fall through */
	case PH_HOLD:
		if (m->walking)
			st->motion = "Walk";
		else if (!m->info.can_walk && (m->req.kind == MOTION_WALK_TO ||
					       m->req.kind == MOTION_WALK_TOWARD))
			st->motion = "WalkDisabled";	/* standing instead, and saying so */
		else
			st->motion = pose_name[m->goal];
		break;
	}
}
