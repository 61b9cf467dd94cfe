/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The motion tests' test double, its sensors at the start: a body still on
 * its feet in a pose (LoLA's order), the accelerometer reading gravity and
 * its 5.4 kg shared by the eight FSRs.
 */
#ifndef SELFTESTS_MOTION_BODY_DOUBLE_H
#define SELFTESTS_MOTION_BODY_DOUBLE_H

#include <string.h>

#include <motion/poses.h>

static inline void body_double_sensors(struct nb_sensors *s, enum pose p)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->position, motion_poses[p], sizeof(s->position));
	s->accelerometer[2] = -9.81f;
	for (int i = 0; i < NAOBODY_FSRS; i++)
		s->fsr[i] = 5.4f / NAOBODY_FSRS;
}

#endif
