/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: the status page's static files, served at / from
 * one flat directory (--www; Documentation/rest-api.rst, "The status
 * page"). Called from the HTTP threads for a path no API route took, after
 * the local-network check and before the token check: the files hold no
 * secret (the page asks for the token and sends it to the API).
 *
 * Only names of letters, digits, '.', '_' and '-' that do not start with
 * a '.', with an extension in one table (which also gives the content
 * type), are files: no '/', so no path can leave the directory, whatever
 * its encoding. A symbolic link, a directory or a FIFO is not served.
 */
#ifndef NAOBODYD_REST_STATIC_H
#define NAOBODYD_REST_STATIC_H

#include <stddef.h>

#include <microhttpd.h>

#define REST_STATIC_METHODS	"GET, HEAD"

/*
 * The answer for url (the path, without the query) and method, from the
 * files in dir. A response to queue with *status (200, or 304 when the
 * client's If-None-Match names the file's ETag); or NULL and *status 0
 * (no such file: the caller answers its own 404), 404 with msg (the page
 * is asked for and dir has none) or 405 with msg (a file, asked with a
 * method other than GET and HEAD; Allow: REST_STATIC_METHODS).
 */
struct MHD_Response *rest_static_answer(const char *dir, struct MHD_Connection *c,
					const char *url, const char *method,
					unsigned int *status, char *msg, size_t n);

/* A log line at start: where the page comes from, or that it is missing. */
void rest_static_check(const char *dir);

#endif
