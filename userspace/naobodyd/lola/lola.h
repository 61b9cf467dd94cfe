/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: a LoLA-compatible socket, so that RoboCup team code written
 * for SoftBank's LoLA runs unchanged. A Unix stream socket (/tmp/robocup by
 * default). Every cycle every client gets one MessagePack map with LoLA's
 * keys, types and orders, exactly LOLA_PACKET bytes, as LoLA sends it; the
 * controller answers with actuator maps, which may leave keys out (each
 * keeps its last value).
 *
 * A client reads until it sends its first actuator map; from then on it
 * wants to be the controller, like a robot API client after Hello. Who is
 * the controller is the daemon's to decide (core.c): it asks for the
 * newest map each cycle (lola_take()) and says who drives when it
 * publishes (lola_publish()); this module knows nothing of the daemon.
 * Readers (up to LOLA_MAX_CLIENTS with the controller) may connect beside it.
 *
 * No client can delay the body loop or keep another out
 * (Documentation/naobodyd.rst, "LoLA"): the clients are read and their maps
 * validated on the LoLA thread, within a budget per wake-up, and only the
 * newest validated command reaches the body thread (lola_slots.h); a reader's
 * backlog is about two packets (LOLA_SNDBUF); a reader that reads nothing
 * for LOLA_IDLE_CYCLES goes; a new client always gets a slot, the oldest
 * idle reader's first, never the controller's.
 */
#ifndef NAOBODYD_LOLA_H
#define NAOBODYD_LOLA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <naobody/body.h>
#include <msgpack.h>

#include "body.h"

#define LOLA_PACKET	896
#define LOLA_IN_MAX	(64 * 1024)	/* one actuator map is about 1 KB */
#define LOLA_MAX_CLIENTS	16		/* the controller and readers */
#define LOLA_SNDBUF		(2 * LOLA_PACKET)	/* asked; the kernel doubles it */
#define LOLA_IDLE_CYCLES	250		/* 3 s of nothing read: the reader goes */
/* The LoLA thread's budget per client and wake-up, as the robot API's. */
#define LOLA_MSGS_PER_WAKE	16
#define LOLA_BYTES_PER_WAKE	(64 * 1024)
#define LOLA_NS_PER_WAKE	(2ULL * 1000000ULL)
/*
 * With --priority the LoLA thread is real-time too, one below the body
 * thread, so a map reaches the next cycle on a busy machine; its CPU is
 * capped at LOLA_BUSY_NS per LOLA_PACE_NS (a quarter of each 12 ms), so a
 * flood cannot take a core from the normal-priority threads.
 */
#define LOLA_PACE_NS		(12ULL * 1000000ULL)
#define LOLA_BUSY_NS		(3ULL * 1000000ULL)
#define LOLA_THREAD_STACK	(256 * 1024)	/* locked in with --priority */

/* RobotConfig's placeholders for what is not known (provisional). */
#define LOLA_VERSION_LEN	5
#define LOLA_UNKNOWN_BODY_ID	"UNKNOWN-BODY-ID-0000"
#define LOLA_UNKNOWN_HEAD_ID	"UNKNOWN-HEAD-ID-0000"
#define LOLA_UNKNOWN_VERSION	"0.0.0"

struct lola;

/*
 * Listens and starts the LoLA thread (main thread); NULL with a log line.
 * info is the body's, for the sensor packet (it must outlive l); priority
 * is the body thread's SCHED_FIFO priority (0: none), the LoLA thread's one
 * below it.
 */
struct lola *lola_create(const char *path, mode_t mode, const struct body_info *info,
			 int priority);
/* Body thread: every client is let go, nothing more is sent (shutting down). */
void lola_stop(struct lola *l);
/* Main thread, after the body thread: the LoLA thread ends, the socket goes. */
void lola_destroy(struct lola *l);

/* A LoLA client's "who", as the daemon's controller knows it (naobodyd.h). */
static inline void *lola_who(uint64_t id)
{
	return (void *)(uintptr_t)id;
}

/* Body thread: the LoLA client who is let go (replaced, released), with why. */
void lola_drop(struct lola *l, void *who, const char *why);
/*
 * Body thread, each cycle before the body's command: a newer actuator map
 * than the last one taken, from a client still connected? Then true, with
 * the client's "who" and when its map was read (CLOCK_MONOTONIC), and
 * lola_command() is that client's command now.
 */
bool lola_take(struct lola *l, void **who, uint64_t *heard_ns);
/* Body thread: the last command taken, every key a client ever sent retained. */
const struct nb_actuators *lola_command(const struct lola *l);
/*
 * Body thread, each cycle after the write: the sensor packet to every
 * client. controller is the LoLA client that drives (its "who"), or NULL;
 * cmd is the body's command this cycle, where a client that starts to
 * drive starts from. False when that controller is not connected any more
 * (it went, or was let go): the daemon then releases it.
 */
bool lola_publish(struct lola *l, const struct body_frame *f, void *controller,
		  const struct nb_actuators *cmd);

/*
 * Pack the sensor map into out[LOLA_PACKET]: exactly LOLA_PACKET bytes,
 * whatever the ids and values; -1 if it would not be (never, by
 * construction: a check, not a path).
 */
int lola_pack(uint8_t *out, const struct body_info *info, const struct nb_sensors *s);

/*
 * Apply one actuator map to a; keys left out keep their values. Returns
 * the number of keys applied; problems (unknown keys, wrong lengths) are
 * described in err, and those keys are skipped.
 */
int lola_apply(const msgpack_object *o, struct nb_actuators *a, char *err, size_t errlen);

#endif
