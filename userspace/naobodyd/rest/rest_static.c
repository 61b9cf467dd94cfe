// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd's REST API: the status page's static files (see rest_static.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "log.h"
#include "rest_static.h"

#define STATIC_NAME_MAX	64

/* What may be served, and as what: one table. */
static const struct static_type {
	const char *ext;
	const char *type;
} static_types[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".txt", "text/plain; charset=utf-8" },
};

/*
 * The page talks to this daemon only; nothing inline, nothing from
 * elsewhere (no CDN), never in another site's frame (the stop button).
 */
static const char static_csp[] =
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/* url's file name and its type, or NULL when url cannot name a file. */
static const struct static_type *static_name(const char *url, char *name, size_t n)
{
	const char *p = url + 1, *dot;
	size_t len;

	if (url[0] != '/')
		return NULL;
	if (!*p)
		p = "index.html";
	len = strlen(p);
	if (len >= n || len >= STATIC_NAME_MAX || p[0] == '.' || p[0] == '-')
		return NULL;
	for (size_t i = 0; i < len; i++) {
		char ch = p[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			return NULL;
	}
	dot = strrchr(p, '.');
	if (!dot)
		return NULL;
	for (size_t i = 0; i < sizeof(static_types) / sizeof(static_types[0]); i++) {
		if (!strcmp(dot, static_types[i].ext)) {
			memcpy(name, p, len + 1);
			return &static_types[i];
		}
	}
	return NULL;
}

/* The file, opened without following a link; -1 unless a regular file. */
static int static_open(const char *dir, const char *name, struct stat *st, bool *no_dir)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd;

	*no_dir = dfd < 0;
	if (dfd < 0)
		return -1;
	/* O_NONBLOCK: a FIFO put there must not hold the thread in open(). */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether If-None-Match names etag (or is "*"). */
static bool static_unchanged(struct MHD_Connection *c, const char *etag)
{
	const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_IF_NONE_MATCH);

	return inm && (!strcmp(inm, "*") || strstr(inm, etag));
}

static void static_headers(struct MHD_Response *resp, const struct static_type *t,
			   const char *etag)
{
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, t->type);
	/*
	 * Kept, but asked about every time: an upgrade's page shows at once,
	 * and an unchanged file costs a 304.
	 */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_SECURITY_POLICY, static_csp);
}

struct MHD_Response *rest_static_answer(const char *dir, struct MHD_Connection *c,
					const char *url, const char *method,
					unsigned int *status, char *msg, size_t n)
{
	const struct static_type *t;
	struct MHD_Response *resp;
	char name[STATIC_NAME_MAX], etag[80];
	struct stat st;
	bool no_dir;
	int fd;

	*status = 0;
	t = dir ? static_name(url, name, sizeof(name)) : NULL;
	if (!t)
		return NULL;
	fd = static_open(dir, name, &st, &no_dir);
	if (fd < 0) {
		if (no_dir && !strcmp(name, "index.html")) {
			*status = MHD_HTTP_NOT_FOUND;
			snprintf(msg, n, "the status page is not installed: no directory %.160s "
				 "(naobodyd --www DIR); the API's paths still answer", dir);
		}
		return NULL;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		close(fd);
		*status = MHD_HTTP_METHOD_NOT_ALLOWED;
		snprintf(msg, n, "%.64s is a file of the status page: it takes %s, not %.16s",
			 url, REST_STATIC_METHODS, method);
		return NULL;
	}
	/* Changes with any replacement of the file (an upgrade renames a new one in). */
	snprintf(etag, sizeof(etag), "\"%llx-%llx-%llx\"", (unsigned long long)st.st_ino,
		 (unsigned long long)st.st_size,
		 (unsigned long long)st.st_mtim.tv_sec * 1000000000ULL +
		 (unsigned long long)st.st_mtim.tv_nsec);
	if (static_unchanged(c, etag)) {
		close(fd);
		resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
		*status = MHD_HTTP_NOT_MODIFIED;
	} else {
		/* MHD owns fd from here, and closes it; HEAD gets the headers only. */
		resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
		if (!resp)
			close(fd);
		*status = MHD_HTTP_OK;
	}
	if (!resp)
		return NULL;	/* *status set: the caller drops the connection */
	static_headers(resp, t, etag);
	return resp;
}

void rest_static_check(const char *dir)
{
	char path[4096];

	if (!dir) {
		log_info("rest: no status page (no --www directory)");
		return;
	}
	snprintf(path, sizeof(path), "%s/index.html", dir);
	if (access(path, R_OK))
		log_warn("rest: no status page at /: %s: %s (naobodyd --www DIR)", path,
			 strerror(errno));
	else
		log_info("rest: the status page at / comes from %s", dir);
}
