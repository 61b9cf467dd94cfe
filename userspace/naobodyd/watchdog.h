/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the watchdog. The controller (a robot API client or a LoLA
 * client) must be heard at least every 100 ms. When it goes quiet the
 * watchdog takes over: after WATCHDOG_STAND_NS the robot stands still,
 * after WATCHDOG_SIT_NS it sits down and goes limp. Each change is an
 * event: Watchdog {active: true} at both stages, {active: false} when the
 * controller is heard again.
 *
 * Silence is counted while the daemon listens: a cycle that comes more
 * than WATCHDOG_STALL_NS after the last one means the daemon itself was
 * not running (the machine froze, the process was not scheduled), and a
 * controller that spoke meanwhile is still unread in its socket. That
 * time, beyond WATCHDOG_STALL_NS, is the daemon's deafness, not the
 * controller's silence. The stall's own clock cannot say when within it the
 * last message came (a body thread that alone stalled while the network
 * thread listened), so a watchdog can come late by at most the stall. A
 * daemon that stops altogether is the driver's to catch (naobody.ko's
 * controller_timeout_ms).
 */
#ifndef NAOBODYD_WATCHDOG_H
#define NAOBODYD_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#define WATCHDOG_STAND_NS	(500ULL * 1000000ULL)
#define WATCHDOG_SIT_NS		(3000ULL * 1000000ULL)
/* Four body cycles: later than that, the daemon was stalled. */
#define WATCHDOG_STALL_NS	(48ULL * 1000000ULL)

struct watchdog {
	bool armed;		/* a controller has been heard since start */
	int stage;		/* 0 quiet, 1 standing still, 2 sitting down */
	uint64_t last_heard;	/* moved on by the daemon's own stalls since */
	uint64_t last_check;	/* 0: none yet */
};

enum watchdog_change { WD_NONE, WD_RELEASED, WD_STAND, WD_SIT };

void watchdog_init(struct watchdog *w);
/* The controller spoke; WD_RELEASED when that ends a takeover. */
enum watchdog_change watchdog_heard(struct watchdog *w, uint64_t now);
/* Called every cycle; now is the body frame's time. */
enum watchdog_change watchdog_check(struct watchdog *w, uint64_t now);

#endif
