/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naoctl --host: a daemon's body over its REST API (Documentation/rest-api.rst)
 * instead of /dev/naobody, so watch, dump, status and record work against
 * naobodyd --sim and a robot from a laptop, read-only: nothing here takes
 * the controller role.
 *
 * The token: --token-file FILE, else $NAOBODY_TOKEN, else the rest-token
 * file in naobodyd's default state directory for this user (root's
 * /var/lib/naobodyd, another user's $XDG_STATE_HOME/naobodyd), which is
 * there when the daemon runs here as the same user (naobodyd --sim).
 */
#ifndef NAOCTL_REMOTE_H
#define NAOCTL_REMOTE_H

#include <stdbool.h>

#include <jansson.h>

#define NAOCTL_REST_PORT	7702

struct remote {
	char url[300];		/* http://host:port */
	char token[72];
};

/*
 * The common options: --host HOST[:PORT] (-H), --token-file FILE. Returns
 * 1 when opt was one of them (taken), 0 when not, -1 (with a message) when
 * its argument is bad.
 */
int remote_option(struct remote *r, int opt, const char *arg, bool *on);
#define REMOTE_LONG_OPTIONS \
	{ "host", required_argument, NULL, 'H' }, \
	{ "token-file", required_argument, NULL, 'T' }
#define REMOTE_HELP \
	"  -H, --host HOST[:PORT]  read naobodyd there over its REST API (port 7702)\n" \
	"                          instead of /dev/naobody: naobodyd --sim, a robot\n" \
	"      --token-file FILE   its REST token (else $NAOBODY_TOKEN, else this\n" \
	"                          user's naobodyd state directory's rest-token)\n"

/* The token, when --token-file gave none. 0, or 1 with a message. */
int remote_ready(struct remote *r);

/* GET path: its JSON (json_decref() it), or NULL with a message printed. */
json_t *remote_get(struct remote *r, const char *path);

/*
 * GET /events?rate=HZ: cb(kind, data, ctx) for each event ("state",
 * "touch", "fall", ...) until cb returns above 0 (returned); -1 with a
 * message when the stream fails or ends. data is borrowed.
 */
int remote_events(struct remote *r, double rate, int (*cb)(const char *kind, json_t *data,
							    void *ctx), void *ctx);

/* The robot API's 26 joints, in its order, as the REST API sends them. */
#include <naobody/client.h>
#define remote_joint_name(j)	nbc_joint_name(j)

/* A number or an array's element, 0 when missing. */
double jnum(json_t *o, const char *key);
double jidx(json_t *o, const char *key, size_t i);
const char *jstr(json_t *o, const char *key);

#endif
