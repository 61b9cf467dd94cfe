/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: the token (the limit on wrong ones is rest_limit.h).
 *
 * The token is 32 bytes from getrandom(), written as 64 hex digits and a
 * newline to STATE_DIR/rest-token (0600, the directory 0700) at the first
 * start. Rotating it needs no restart: each check compares the file's
 * inode, size and mtime with the ones read last, and reads it again when
 * they changed (a new token written and renamed over it, or rewritten in
 * place). Compared in constant time.
 */
#ifndef NAOBODYD_REST_TOKEN_H
#define NAOBODYD_REST_TOKEN_H

#include <stdbool.h>
#include <stdint.h>

#define REST_TOKEN_FILE		"rest-token"
#define REST_TOKEN_HEX		64

struct rest_token;

/* Creates the directory and the token when missing; NULL with a log line on failure. */
struct rest_token *rest_token_open(const char *state_dir);
void rest_token_close(struct rest_token *t);
const char *rest_token_path(const struct rest_token *t);

/* The candidate matches the current token (re-read when the file changed). */
bool rest_token_check(struct rest_token *t, const char *candidate);

#endif
