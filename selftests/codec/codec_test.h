/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the codec's unit tests, fuzzers and benchmark.
 */
#ifndef CODEC_TEST_H
#define CODEC_TEST_H

#include <stdint.h>
#include <string.h>

#include "nb_codec.h"

/* A small deterministic generator, so failures replay. */
static inline uint32_t ct_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (uint32_t)(*state >> 16);
}

static inline int32_t ct_range(uint64_t *st, int32_t lo, int32_t hi)
{
	return lo + (int32_t)(ct_rand(st) % (uint32_t)(hi - lo + 1));
}

/*
 * Counts within what the (provisional) wire carries, so that encoding then
 * decoding gives them back exactly.
 */
static inline void ct_random_sensors(struct naobody_sensors *s, uint64_t *st)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 3; i++) {
		s->accelerometer[i] = ct_range(st, -32768, 32767);
		s->gyroscope[i] = ct_range(st, -32768, 32767);
	}
	for (i = 0; i < 2; i++) {
		s->angles[i] = ct_range(st, -32768, 32767);
		s->sonar[i] = ct_range(st, 0, 65535);
	}
	s->battery_charge = ct_range(st, 0, 65535);
	s->battery_status = ct_range(st, -32768, 32767);
	s->battery_current = ct_range(st, -32768, 32767);
	s->battery_temperature = ct_range(st, -32768, 32767);
	for (i = 0; i < NAOBODY_FSRS; i++)
		s->fsr[i] = ct_range(st, 0, 65535);
	for (i = 0; i < NAOBODY_JOINTS; i++) {
		s->joint_position[i] = ct_range(st, -32768, 32767);
		s->joint_current[i] = ct_range(st, -32768, 32767);
		s->joint_temperature[i] = ct_range(st, 0, 255);
		s->joint_status[i] = ct_range(st, 0, 3);
	}
	/* the chest board's touches: not the head's (bits 1..3) */
	s->touch = ct_rand(st) & (BIT(NAOBODY_TOUCHES) - 1) & ~0xeU;
}

static inline void ct_random_actuators(struct naobody_actuators *a,
				       uint64_t *st)
{
	unsigned int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < NAOBODY_JOINTS; i++) {
		a->position[i] = ct_range(st, -32768, 32767);
		a->stiffness[i] = ct_range(st, 0, NAOBODY_STIFFNESS_MAX);
	}
	for (i = 0; i < 3; i++) {
		a->chest_led[i] = ct_rand(st);
		a->l_foot_led[i] = ct_rand(st);
		a->r_foot_led[i] = ct_rand(st);
	}
	a->sonar = ct_rand(st) & (NAOBODY_SONAR_LEFT | NAOBODY_SONAR_RIGHT);
}

#define CT_ALL_BOARDS	(BIT_ULL(NB_BOARDS) - 1)

#endif
