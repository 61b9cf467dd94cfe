/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: the token, and the per-peer limit on wrong ones.
 *
 * The token is 32 bytes from getrandom(), written as 64 hex digits and a
 * newline to STATE_DIR/rest-token (0600, the directory 0700) at the first
 * start. Rotating it needs no restart: each check compares the file's
 * inode, size and mtime with the ones read last, and reads it again when
 * they changed (a new token written and renamed over it, or rewritten in
 * place). Compared in constant time.
 *
 * Failures are counted per peer address (provisional figures in
 * rest_token.c): too many within a window and that peer gets 429 until the
 * window ends, whatever it sends.
 */
#ifndef NAOBODYD_REST_TOKEN_H
#define NAOBODYD_REST_TOKEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define REST_TOKEN_FILE		"rest-token"
#define REST_TOKEN_HEX		64

struct rest_token;

/* Creates the directory and the token when missing; NULL with a log line on failure. */
struct rest_token *rest_token_open(const char *state_dir);
void rest_token_close(struct rest_token *t);
const char *rest_token_path(const struct rest_token *t);

/* The candidate matches the current token (re-read when the file changed). */
bool rest_token_check(struct rest_token *t, const char *candidate);

/* Seconds the peer must wait (0: it may try). */
unsigned int rest_token_locked(struct rest_token *t, const struct sockaddr *peer, uint64_t now);
/* A wrong or missing token from peer; returns the seconds it must now wait, or 0. */
unsigned int rest_token_failed(struct rest_token *t, const struct sockaddr *peer, uint64_t now);

#endif
