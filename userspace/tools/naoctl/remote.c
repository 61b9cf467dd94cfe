// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoctl --host: naobodyd's REST API with libcurl (HTTP) and jansson (JSON):
 * see remote.h. Every byte from the network is bounded: an answer is kept
 * up to 1 MiB, an SSE line up to 256 KiB; more is an error, not a guess.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "naoctl.h"
#include "remote.h"

#define ANSWER_MAX	(1U << 20)
#define LINE_MAX_SSE	(256U << 10)
#define TOKEN_HEX	64


double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : 0.0;
}

double jidx(json_t *o, const char *key, size_t i)
{
	json_t *v = json_array_get(json_object_get(o, key), i);

	return json_is_number(v) ? json_number_value(v) : 0.0;
}

const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "?";
}

int remote_option(struct remote *r, int opt, const char *arg, bool *on)
{
	char host[256];
	const char *colon;
	unsigned long port = NAOCTL_REST_PORT;

	if (opt == 'T') {
		int fd = open(arg, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, r->token, sizeof(r->token) - 1);

		if (fd >= 0)
			close(fd);
		if (n < TOKEN_HEX || strspn(r->token, "0123456789abcdefABCDEF") < TOKEN_HEX) {
			fprintf(stderr, "%s: --token-file %s: %s\n", naoctl_prog, arg,
				n < 0 ? strerror(errno) : "not a token (64 hex digits)");
			return -1;
		}
		r->token[TOKEN_HEX] = '\0';
		return 1;
	}
	if (opt != 'H')
		return 0;
	/* HOST, HOST:PORT, [V6]:PORT or a bare V6 address. */
	colon = strrchr(arg, ':');
	if (colon && (arg[0] == '[' || strchr(arg, ':') == colon)) {
		char *end;

		port = strtoul(colon + 1, &end, 10);
		if (*end || !port || port > 65535) {
			fprintf(stderr, "%s: --host %s: expected HOST[:PORT]\n", naoctl_prog, arg);
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(colon - arg), arg);
	} else {
		snprintf(host, sizeof(host), strchr(arg, ':') ? "[%s]" : "%s", arg);
	}
	if (!host[0]) {
		fprintf(stderr, "%s: --host %s: expected HOST[:PORT]\n", naoctl_prog, arg);
		return -1;
	}
	snprintf(r->url, sizeof(r->url), "http://%s:%lu", host, port);
	*on = true;
	return 1;
}

static int read_token_file(struct remote *r, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, r->token, sizeof(r->token) - 1);

	if (fd >= 0)
		close(fd);
	if (n < TOKEN_HEX)
		return -1;
	r->token[TOKEN_HEX] = '\0';
	return 0;
}

int remote_ready(struct remote *r)
{
	const char *env = getenv("NAOBODY_TOKEN"), *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char path[4096];

	if (r->token[0])
		return 0;
	if (env && strlen(env) == TOKEN_HEX) {
		snprintf(r->token, sizeof(r->token), "%s", env);
		return 0;
	}
	/* naobodyd's own default for this user (its --state-dir). */
	if (!geteuid())
		snprintf(path, sizeof(path), "/var/lib/naobodyd/rest-token");
	else if (xdg && *xdg == '/')
		snprintf(path, sizeof(path), "%s/naobodyd/rest-token", xdg);
	else
		snprintf(path, sizeof(path), "%s/.local/state/naobodyd/rest-token",
			 home ? home : "");
	if (!read_token_file(r, path))
		return 0;
	fprintf(stderr, "%s: no REST token for %s: --token-file FILE or $NAOBODY_TOKEN "
		"('naoctl token' prints it on the robot; %s is not readable)\n", naoctl_prog,
		r->url, path);
	return 1;
}

struct answer {
	char *data;
	size_t len;
	bool over;
};

static size_t collect(char *p, size_t size, size_t n, void *ctx)
{
	struct answer *a = ctx;
	size_t len = size * n;
	char *d;

	if (a->len + len > ANSWER_MAX) {
		a->over = true;
		return 0;
	}
	d = realloc(a->data, a->len + len + 1);
	if (!d)
		return 0;
	memcpy(d + a->len, p, len);
	a->data = d;
	a->len += len;
	d[a->len] = '\0';
	return len;
}

static CURL *easy(struct remote *r, const char *path, struct curl_slist **hdrs)
{
	CURL *c = curl_easy_init();
	char url[512], auth[128];

	if (!c)
		return NULL;
	snprintf(url, sizeof(url), "%s%s", r->url, path);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", r->token);
	*hdrs = curl_slist_append(NULL, auth);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
	return c;
}

/* What a failed answer says: the REST API's {"error", "message"}, or curl's. */
static void failed(struct remote *r, const char *path, CURLcode rc, long status,
		   const struct answer *a)
{
	json_t *j = a->data ? json_loads(a->data, 0, NULL) : NULL;

	if (rc != CURLE_OK)
		fprintf(stderr, "%s: %s%s: %s%s\n", naoctl_prog, r->url, path,
			curl_easy_strerror(rc), rc == CURLE_COULDNT_CONNECT ?
			" (is naobodyd running there with its REST API?)" : "");
	else
		fprintf(stderr, "%s: %s%s: HTTP %ld: %s\n", naoctl_prog, r->url, path, status,
			j ? jstr(j, "message") : "no message");
	json_decref(j);
}

json_t *remote_get(struct remote *r, const char *path)
{
	struct answer a = { 0 };
	struct curl_slist *hdrs = NULL;
	CURL *c = easy(r, path, &hdrs);
	json_t *j = NULL;
	json_error_t err;
	long status = 0;
	CURLcode rc;

	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &a);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK || status != 200)
		failed(r, path, a.over ? CURLE_FILESIZE_EXCEEDED : rc, status, &a);
	else if (!(j = json_loads(a.data ? a.data : "", 0, &err)))
		fprintf(stderr, "%s: %s%s: not JSON: %s\n", naoctl_prog, r->url, path, err.text);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	free(a.data);
	return j;
}

struct sse {
	char *line;		/* the line being read */
	size_t len;
	char kind[32];
	json_t *data;
	int (*cb)(const char *kind, json_t *data, void *ctx);
	void *ctx;
	int stop;		/* cb's nonzero answer */
	long status;
	struct answer err;	/* an error's body */
	CURL *c;
};

/* One whole line of the stream (without its newline). */
static void sse_line(struct sse *s, const char *line)
{
	if (!strncmp(line, "event: ", 7)) {
		snprintf(s->kind, sizeof(s->kind), "%s", line + 7);
	} else if (!strncmp(line, "data: ", 6)) {
		json_decref(s->data);
		s->data = json_loads(line + 6, 0, NULL);
	} else if (!*line) {
		if (s->kind[0] && s->data)
			s->stop = s->cb(s->kind, s->data, s->ctx);
		s->kind[0] = '\0';
		json_decref(s->data);
		s->data = NULL;
	}
}

static size_t sse_bytes(char *p, size_t size, size_t n, void *ctx)
{
	struct sse *s = ctx;
	size_t len = size * n;

	if (!s->status)
		curl_easy_getinfo(s->c, CURLINFO_RESPONSE_CODE, &s->status);
	if (s->status != 200)
		return collect(p, size, n, &s->err);
	for (size_t i = 0; i < len && !s->stop; i++) {
		if (p[i] == '\n') {
			s->line[s->len] = '\0';
			if (s->len && s->line[s->len - 1] == '\r')
				s->line[s->len - 1] = '\0';
			sse_line(s, s->line);
			s->len = 0;
		} else if (s->len + 1 < LINE_MAX_SSE) {
			s->line[s->len++] = p[i];
		} else {
			s->stop = -EMSGSIZE;
		}
	}
	return s->stop ? 0 : len;
}

int remote_events(struct remote *r, double rate, int (*cb)(const char *kind, json_t *data,
							    void *ctx), void *ctx)
{
	struct sse s = { .cb = cb, .ctx = ctx };
	struct curl_slist *hdrs = NULL;
	char path[64];
	CURLcode rc;

	snprintf(path, sizeof(path), "/events?rate=%g", rate);
	s.line = malloc(LINE_MAX_SSE);
	s.c = easy(r, path, &hdrs);
	if (!s.line || !s.c) {
		free(s.line);
		return 1;
	}
	curl_easy_setopt(s.c, CURLOPT_WRITEFUNCTION, sse_bytes);
	curl_easy_setopt(s.c, CURLOPT_WRITEDATA, &s);
	/* Nothing for 5 s (states come at the rate asked) is a dead stream. */
	curl_easy_setopt(s.c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(s.c, CURLOPT_LOW_SPEED_TIME, 5L);
	rc = curl_easy_perform(s.c);
	if (s.stop == -EMSGSIZE)
		fprintf(stderr, "%s: %s%s: a line over %u bytes\n", naoctl_prog, r->url, path,
			LINE_MAX_SSE);
	else if (!s.stop && s.status != 200)
		failed(r, path, rc == CURLE_WRITE_ERROR ? CURLE_OK : rc, s.status, &s.err);
	else if (!s.stop)
		fprintf(stderr, "%s: %s%s: the stream ended: %s\n", naoctl_prog, r->url, path,
			rc == CURLE_OK ? "closed by naobodyd" : curl_easy_strerror(rc));
	json_decref(s.data);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(s.c);
	free(s.err.data);
	free(s.line);
	return s.stop > 0 ? s.stop : -1;
}
