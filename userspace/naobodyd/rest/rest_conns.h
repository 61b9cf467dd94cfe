/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: its connections, so that no peer can hold the port
 * and keep the status page and POST /stop from others (provisional
 * figures, Documentation/rest-api.rst, "Limits"):
 *   - at most REST_PER_SOURCE connections at once from one source (an
 *     IPv4 address, an IPv6 /64), REST_CONNECTIONS from all;
 *   - a request's headers must be complete within REST_HEADER_NS of the
 *     connection's start, or of the end of its previous request: a peer
 *     that trickles them (slowloris) is cut off. An answer being sent (an
 *     event stream) is not held to it.
 * libmicrohttpd calls rest_conns_admit() before it takes a connection and
 * the others as connections start, read their headers and end; the REST
 * feeder thread calls rest_conns_reap().
 */
#ifndef NAOBODYD_REST_CONNS_H
#define NAOBODYD_REST_CONNS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define REST_CONNECTIONS	64		/* at once, all peers */
#define REST_PER_SOURCE		12		/* at once, one address or /64 */
#define REST_HEADER_NS		(5000ULL * 1000000ULL)

struct MHD_Connection;

struct rest_conn {
	struct MHD_Connection *c;	/* NULL: a free entry */
	int fd;
	uint8_t key[16];		/* its source (rest_limit.h's key) */
	uint64_t since;			/* started, or its last request ended */
	bool in_request;		/* its headers are in; answering */
	bool shut;			/* cut off, closing */
};

struct rest_conns {
	pthread_mutex_t lock;
	struct rest_conn conn[REST_CONNECTIONS];
	uint64_t refused, reaped;
};

void rest_conns_init(struct rest_conns *rc);
void rest_conns_uninit(struct rest_conns *rc);
/* A new connection from peer may be taken. */
bool rest_conns_admit(struct rest_conns *rc, const struct sockaddr *peer);
void rest_conns_started(struct rest_conns *rc, struct MHD_Connection *c, uint64_t now);
void rest_conns_closed(struct rest_conns *rc, struct MHD_Connection *c);
/* Its headers are complete (in), or its answer is done (!in). */
void rest_conns_request(struct rest_conns *rc, struct MHD_Connection *c, bool in, uint64_t now);
/* Cuts off the connections whose headers are late; how many. */
unsigned int rest_conns_reap(struct rest_conns *rc, uint64_t now);

#endif
