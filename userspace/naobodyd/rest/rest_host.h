/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: the Host check (Documentation/rest-api.rst, "Who
 * may ask"). A web page on another site can make a browser on the robot's
 * network send it requests, and with DNS rebinding read the answers: such
 * requests name the other site in Host. So the REST API answers only a
 * Host that names the robot itself: "localhost", its host name (and
 * NAME.local, its mDNS name), or one of its own addresses (IPv4, or IPv6 in
 * brackets), each with or without a port. Anything else is answered 400,
 * and so is an HTTP/1.1 request without Host (RFC 9112, 3.2); HTTP/1.0 may
 * leave it out.
 */
#ifndef NAOBODYD_REST_HOST_H
#define NAOBODYD_REST_HOST_H

#include <stdbool.h>
#include <stddef.h>

struct localnet;

/* host: the header's value; hostname: the robot's (gethostname()). */
bool rest_host_names_robot(struct localnet *ln, const char *host, const char *hostname);

#endif
