/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API (TCP 7702; Documentation/rest-api.rst, the OpenAPI
 * document Documentation/rest-api.yaml). Its own threads, never the body
 * thread's nor the robot API's:
 *
 *   - libmicrohttpd's, one per connection (bounded by REST_CONNECTIONS):
 *     requests, and each Server-Sent Events stream, which waits on the
 *     hub below and so blocks only itself;
 *   - the feeder: twice per body period it copies the newest state out of
 *     the hand-over (handoff_peek(), the same short copy as the network
 *     thread's), turns what changed into events, and wakes the streams. It
 *     also follows the host's addresses (rest_net.h).
 *
 * POST /stop calls core_stop(), the one body operation safe from any
 * thread; nothing else here writes to the body.
 */
#ifndef NAOBODYD_REST_H
#define NAOBODYD_REST_H

#define REST_DEFAULT_PORT	7702
#define REST_DEFAULT_STATE_DIR	"/var/lib/naobodyd"

struct daemon;
struct rest;

/* NULL with a log line when it cannot start. */
struct rest *rest_create(struct daemon *d);
void rest_destroy(struct rest *r);

#endif
