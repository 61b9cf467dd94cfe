// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the get-up motions' key poses played back (see getup.h).
 *
 * A key is a move and a hold. The move interpolates from the last command
 * to the key's pose with the keyframes' smooth step (motion.c), with the
 * key's stiffness from its start: a get-up needs all the torque the
 * motors have, and a limp arm must be limp at once. The hold keeps the
 * pose until the key's condition holds (GETUP_STILL: the torso turns
 * slower than GETUP_STILL_RATE for GETUP_STILL_NS, so a body that is
 * still settling is not pushed on) or its wait is over, whichever is
 * first.
 */
#include <math.h>
#include <string.h>

#include <motion/getup.h>

#define NJ NAOBODY_JOINTS
#define MS(x) ((uint64_t)(x) * 1000000ULL)

#define GETUP_STILL_RATE	0.3f	/* rad/s, the gyroscope's x and y */
#define GETUP_STILL_NS		MS(100)

static bool is_arm(int j)
{
	return j <= NAOBODY_L_WRIST_YAW || j >= NAOBODY_R_SHOULDER_PITCH;
}

static bool limp(const struct getup_key *key, int j)
{
	return key->limp == GETUP_LIMP || (key->limp == GETUP_ARMS_LIMP && is_arm(j));
}

static void key_command(const struct getup_key *key, float stiff[NJ])
{
	for (int j = 0; j < NJ; j++)
		stiff[j] = limp(key, j) ? 0.0f : 1.0f;
}

void getup_start(struct getup *g, const struct getup_key *keys, int n,
		 const float pos[NJ], uint64_t now)
{
	memset(g, 0, sizeof(*g));
	g->keys = keys;
	g->n = n;
	g->since = now;
	memcpy(g->from, pos, sizeof(g->from));
}

static float smooth(float t)
{
	return t * t * (3.0f - 2.0f * t);
}

static bool still(struct getup *g, const struct nb_sensors *s, uint64_t now)
{
	if (hypotf(s->gyroscope[0], s->gyroscope[1]) >= GETUP_STILL_RATE) {
		g->still_since = 0;
		return false;
	}
	if (!g->still_since)
		g->still_since = now;
	return now - g->still_since >= GETUP_STILL_NS;
}

bool getup_step(struct getup *g, const struct nb_sensors *s, uint64_t now,
		float pos[NJ], float stiff[NJ])
{
	const struct getup_key *key = &g->keys[g->k];
	float secs = (float)(now - g->since) / 1e9f;

	if (!g->holding && secs >= key->move_s) {
		g->holding = true;
		g->since = now;
		g->still_since = 0;
		secs = 0.0f;
	}
	if (g->holding) {
		bool done = secs >= key->wait_s ||
			    (key->until == GETUP_STILL && still(g, s, now));

		if (done && g->k + 1 < g->n) {
			/* A limp joint moves on from where it came to rest. */
			for (int j = 0; j < NJ; j++)
				g->from[j] = limp(key, j) ? s->position[j] : key->pose[j];
			g->k++;
			g->holding = false;
			g->since = now;
			key = &g->keys[g->k];
			secs = 0.0f;
		} else if (done) {
			for (int j = 0; j < NJ; j++)
				pos[j] = limp(key, j) ? s->position[j] : key->pose[j];
			key_command(key, stiff);
			return false;
		}
	}
	if (g->holding) {
		memcpy(pos, key->pose, sizeof(float) * NJ);
	} else if (key->move_s <= 0.0f) {
		memcpy(pos, key->pose, sizeof(float) * NJ);
	} else {
		float t = smooth(fminf(1.0f, secs / key->move_s));

		for (int j = 0; j < NJ; j++)
			pos[j] = g->from[j] + (key->pose[j] - g->from[j]) * t;
	}
	for (int j = 0; j < NJ; j++)
		if (limp(key, j))
			pos[j] = s->position[j];
	key_command(key, stiff);
	return true;
}
