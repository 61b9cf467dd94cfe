/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: a LoLA-compatible socket, so that RoboCup team code written
 * for SoftBank's LoLA runs unchanged. A Unix stream socket (/tmp/robocup by
 * default). Every cycle every client gets one MessagePack map with LoLA's
 * keys, types and orders, exactly LOLA_PACKET bytes, as LoLA sends it; the
 * controller answers with actuator maps, which may leave keys out (each
 * keeps its last value).
 *
 * A client reads until it sends its first actuator map; from then on it is
 * the controller, like a robot API client after Hello: it replaces the
 * previous controller on either socket, and the watchdog watches its maps.
 * Any number of readers (up to LOLA_MAX_CLIENTS) may connect beside it.
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

/* RobotConfig's placeholders for what is not known (provisional). */
#define LOLA_VERSION_LEN	5
#define LOLA_UNKNOWN_BODY_ID	"UNKNOWN-BODY-ID-0000"
#define LOLA_UNKNOWN_HEAD_ID	"UNKNOWN-HEAD-ID-0000"
#define LOLA_UNKNOWN_VERSION	"0.0.0"

struct daemon;
struct lola;

struct lola *lola_create(struct daemon *d, const char *path, mode_t mode);
void lola_destroy(struct lola *l);
void lola_drop(struct lola *l, void *who, const char *why);
void lola_publish(struct lola *l, const struct body_frame *f);

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
