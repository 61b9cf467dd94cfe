/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: the limit on wrong tokens (provisional figures,
 * Documentation/rest-api.rst, "The token"). Failures are counted per
 * source (an IPv4 address, an IPv6 /64: one host has a whole /64 to pick
 * from) and for all sources together. Too many from a source within
 * FAIL_WINDOW_NS and that source gets 429 until its window ends; too many
 * from all and every request without the right token does. Memory is
 * bounded: FAIL_SOURCES sources are remembered, the one whose window
 * started first is forgotten first, and the global count still holds for
 * the forgotten. A request with the right token is never refused by the
 * limit (rest.c checks the token first), so it cannot lock out a stop.
 */
#ifndef NAOBODYD_REST_LIMIT_H
#define NAOBODYD_REST_LIMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define FAIL_BURST		5	/* per source and window */
#define FAIL_GLOBAL_BURST	30	/* all sources together, per window */
#define FAIL_WINDOW_NS		(60ULL * 1000000000ULL)
#define FAIL_SOURCES		64

struct fail_source {
	uint8_t key[16];		/* IPv4 as ::ffff:a.b.c.d; IPv6 its /64 */
	uint64_t window_start;
	unsigned int fails;
	bool used;
};

struct fail_limit {
	pthread_mutex_t lock;
	struct fail_source src[FAIL_SOURCES];
	uint64_t global_start;
	unsigned int global_fails;
};

void fail_limit_init(struct fail_limit *fl);
void fail_limit_uninit(struct fail_limit *fl);
/* The source a peer counts as (its /64 for IPv6). */
void fail_limit_key(const struct sockaddr *peer, uint8_t key[16]);
/* Seconds a request without the right token from peer must wait (0: none). */
unsigned int fail_limit_wait(struct fail_limit *fl, const struct sockaddr *peer, uint64_t now);
/* A wrong or missing token from peer: counted; the seconds it must now wait, or 0. */
unsigned int fail_limit_failed(struct fail_limit *fl, const struct sockaddr *peer, uint64_t now);

#endif
