/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbmotion: the get-up motions' key poses played back (getup.c). A motion
 * is a table of keys (poses.c): each is moved to, smoothly, and then held
 * until the torso is still or its wait is over, so the next key starts
 * from where the body came to rest, not from where a clock guessed it.
 */
#ifndef NBMOTION_GETUP_H
#define NBMOTION_GETUP_H

#include <stdbool.h>
#include <stdint.h>

#include <naobody/body.h>

#include <motion/poses.h>

struct getup {
	const struct getup_key *keys;
	int n, k;			/* the table, and the key played */
	bool holding;			/* moved: waiting for the key's condition */
	uint64_t since;			/* the move's or the hold's start */
	uint64_t still_since;		/* the torso still since, or 0 */
	float from[NAOBODY_JOINTS];	/* the move's start */
};

/* Play keys[0..n-1] from the joints' positions pos. */
void getup_start(struct getup *g, const struct getup_key *keys, int n,
		 const float pos[NAOBODY_JOINTS], uint64_t now);
/*
 * This cycle's command. True while a key is played; false once the last
 * key's hold is over (the command is then its pose).
 */
bool getup_step(struct getup *g, const struct nb_sensors *s, uint64_t now,
		float pos[NAOBODY_JOINTS], float stiff[NAOBODY_JOINTS]);

#endif
