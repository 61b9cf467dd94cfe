/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: a LoLA-compatible socket, so that RoboCup team code written
 * for SoftBank's LoLA runs unchanged. A Unix stream socket (/tmp/robocup by
 * default). Every cycle the client gets one MessagePack map with LoLA's
 * keys, types and orders, padded to LOLA_PACKET bytes; it answers with
 * actuator maps, which may leave keys out (each keeps its last value).
 *
 * A LoLA client is the controller, like a robot API client: connecting
 * replaces the previous controller on either socket, and the watchdog
 * watches its actuator maps.
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

struct daemon;
struct lola;

struct lola *lola_create(struct daemon *d, const char *path, mode_t mode);
void lola_destroy(struct lola *l);
void lola_drop(struct lola *l, void *who, const char *why);
void lola_publish(struct lola *l, const struct body_frame *f);

/* Pack the sensor map into out[LOLA_PACKET]; -1 if it does not fit. */
int lola_pack(uint8_t *out, const struct body_info *info, const struct nb_sensors *s);

/*
 * Apply one actuator map to a; keys left out keep their values. Returns
 * the number of keys applied; problems (unknown keys, wrong lengths) are
 * described in err, and those keys are skipped.
 */
int lola_apply(const msgpack_object *o, struct nb_actuators *a, char *err, size_t errlen);

#endif
