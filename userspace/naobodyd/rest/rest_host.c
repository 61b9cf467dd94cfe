// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd's REST API: the Host check (see rest_host.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rest_host.h"
#include "rest_net.h"

/* ":PORT" or nothing. */
static bool port_ok(const char *p)
{
	size_t n;

	if (!*p)
		return true;
	if (*p++ != ':')
		return false;
	n = strspn(p, "0123456789");
	return n >= 1 && n <= 5 && !p[n];
}

/* name equals want, or want followed by suffix; a final dot is allowed. */
static bool name_is(const char *name, size_t len, const char *want, const char *suffix)
{
	size_t w = strlen(want), s = strlen(suffix);

	if (len && name[len - 1] == '.')
		len--;
	if (!w || len != w + s)
		return false;
	return !strncasecmp(name, want, w) && !strncasecmp(name + w, suffix, s);
}

bool rest_host_names_robot(struct localnet *ln, const char *host, const char *hostname)
{
	char name[256];
	const char *end;
	size_t len;
	unsigned char a[16];

	if (!host || !*host)
		return false;
	if (host[0] == '[') {
		end = strchr(host, ']');
		if (!end || !port_ok(end + 1) || (size_t)(end - host - 1) >= sizeof(name))
			return false;
		snprintf(name, sizeof(name), "%.*s", (int)(end - host - 1), host + 1);
		return inet_pton(AF_INET6, name, a) == 1 && localnet_own(ln, AF_INET6, a);
	}
	end = strchr(host, ':');
	len = end ? (size_t)(end - host) : strlen(host);
	if (!len || len >= sizeof(name) || (end && !port_ok(end)))
		return false;
	snprintf(name, sizeof(name), "%.*s", (int)len, host);
	if (inet_pton(AF_INET, name, a) == 1)
		return localnet_own(ln, AF_INET, a);
	return name_is(name, len, "localhost", "") || name_is(name, len, hostname, "") ||
	       name_is(name, len, hostname, ".local");
}
