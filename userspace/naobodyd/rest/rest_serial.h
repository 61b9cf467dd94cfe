/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The REST API's serial bodies: the CM-5s and PAROL6 arms on n_robot links
 * (Documentation/rest-api.rst, "Serial bodies"). Which ones: --serial
 * KIND:PATH, the serdev nodes the device tree made (/sys/class/misc/
 * n_robot*, their compatible), and the ttys a udev rule named (N_ROBOT=cm5
 * or parol6, as 71-n_robot.rules expects).
 *
 * Nothing here runs on the body thread or touches the NAO's body. A CM-5
 * exchange runs on the asking connection's thread, one at a time per CM-5,
 * each wait bounded; a PAROL6 command runs on a thread of its own per arm
 * (libparol6's 100 Hz loop, which ends every way with Idle at zero speed),
 * and its request waits for it only a bounded time.
 */
#ifndef NAOBODYD_REST_SERIAL_H
#define NAOBODYD_REST_SERIAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>
#include <microhttpd.h>

struct config;
struct rest_serial;

/* "cm5:PATH" or "parol6:PATH" (--serial): true if it is one. */
bool rest_serial_arg_ok(const char *arg);

struct rest_serial *rest_serial_create(const struct config *cfg);
/* Stops every arm's command (Idle at zero speed) and waits for it. */
void rest_serial_destroy(struct rest_serial *s);
/* POST /stop: every arm's command ends now, with Idle at zero speed. */
void rest_serial_stop_all(struct rest_serial *s);

/*
 * One request under /serial: the answer's JSON and *status. body is the
 * request's (len bytes; too_big when it was over the limit).
 */
json_t *rest_serial_answer(struct rest_serial *s, struct MHD_Connection *c,
			   const char *method, const char *url, const char *body,
			   size_t len, bool too_big, const char *peer,
			   unsigned int *status);

#endif
