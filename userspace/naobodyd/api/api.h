/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the robot API on TCP (Documentation/robot-api.rst): framing, the
 * handshake, sessions, subscriptions and their bounded output queues. The
 * network thread's (see naobodyd.h).
 */
#ifndef NAOBODYD_API_H
#define NAOBODYD_API_H

#include <stdint.h>

#include <motion/motion.h>

#include "body.h"

#define API_MAX_FRAME		(8U << 20)	/* 8 MiB */
#define API_MAX_VALUES		(256U * 1024)	/* per frame */
#define API_MAX_SESSIONS	16
#define API_PENDING_PER_HOST	8		/* connections without Hello, per address */
#define API_PRE_HELLO_FRAME	1024U		/* the largest frame before Hello */
/* Unfinished frames, all sessions: one 8 MiB frame and every session's first KiB. */
#define API_MAX_HELD		(API_MAX_FRAME + API_MAX_SESSIONS * API_PRE_HELLO_FRAME)
#define API_HELLO_NS		(2000ULL * 1000000ULL)
#define API_LINGER_NS		(1000ULL * 1000000ULL)
#define API_QUEUE_MAX		(256U * 1024)	/* committed bytes per client */
#define API_SNDBUF		(16 * 1024)	/* the kernel doubles it */
#define API_STATE_HZ		20.0f

struct daemon;
struct api;

/* Listens; NULL with a log line when it cannot. */
struct api *api_create(struct daemon *d);
void api_destroy(struct api *api);

/* Hello timeouts and lingering closes (the network thread's housekeeping). */
void api_housekeeping(struct api *api, uint64_t now);

#endif
