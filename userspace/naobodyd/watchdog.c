// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd: the watchdog (see watchdog.h). */
#include "watchdog.h"

void watchdog_init(struct watchdog *w)
{
	w->armed = false;
	w->stage = 0;
	w->last_heard = 0;
	w->last_check = 0;
}

enum watchdog_change watchdog_heard(struct watchdog *w, uint64_t now)
{
	int was = w->stage;

	w->armed = true;
	w->last_heard = now;
	w->stage = 0;
	return was ? WD_RELEASED : WD_NONE;
}

enum watchdog_change watchdog_check(struct watchdog *w, uint64_t now)
{
	uint64_t quiet;

	/*
	 * Stalled since the last check: the stall beyond WATCHDOG_STALL_NS
	 * is not the controller's silence (watchdog.h). The last message
	 * may fall inside it, read before the freeze or after: either way no
	 * more than the silence since it is forgiven.
	 */
	if (w->last_check && now > w->last_check + WATCHDOG_STALL_NS && now > w->last_heard) {
		uint64_t moved = w->last_heard + (now - w->last_check - WATCHDOG_STALL_NS);

		w->last_heard = moved < now ? moved : now;
	}
	w->last_check = now;

	if (!w->armed || now < w->last_heard)
		return WD_NONE;
	quiet = now - w->last_heard;
	if (w->stage < 2 && quiet >= WATCHDOG_SIT_NS) {
		/* A stall may skip stage 1; stage 2 does all of it. */
		w->stage = 2;
		return WD_SIT;
	}
	if (w->stage < 1 && quiet >= WATCHDOG_STAND_NS) {
		w->stage = 1;
		return WD_STAND;
	}
	return WD_NONE;
}
