// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoctl token: print naobodyd's REST API token (Documentation/rest-api.rst,
 * "The token"). Root only: the token lets anyone on the robot's network
 * stop it, so it stays as private as the 0600 file that holds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "naoctl.h"

#define TOKEN_HEX	64
#define STATE_DIR	"/var/lib/naobodyd"	/* naobodyd's --state-dir default */

int token_main(int argc, char **argv)
{
	const char *dir = STATE_DIR;
	char path[4096], text[TOKEN_HEX + 2];
	ssize_t n;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--state-dir")) {
		dir = argv[2];
	} else if (argc > 1) {
		printf("Usage: %s token [--state-dir DIR]\n\nPrints naobodyd's REST API token, "
		       "DIR/rest-token (default DIR " STATE_DIR ").\nRoot only. Replace the "
		       "file to rotate the token; naobodyd needs no restart.\n", naoctl_prog);
		return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "%s: token: root only (run it with sudo): the token lets anyone "
			"on the robot's network stop it\n", naoctl_prog);
		return 1;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/rest-token", dir) >= sizeof(path)) {
		fprintf(stderr, "%s: --state-dir %.64s...: too long\n", naoctl_prog, dir);
		return 1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT) {
			fprintf(stderr, "%s: %s: no token yet; naobodyd writes one when it first "
				"starts with the REST API on\n", naoctl_prog, path);
			return 1;
		}
		fprintf(stderr, "%s: %s: %s\n", naoctl_prog, path, strerror(errno));
		return 1;
	}
	n = read(fd, text, sizeof(text));
	close(fd);
	if (n < TOKEN_HEX || strspn(text, "0123456789abcdefABCDEF") < TOKEN_HEX ||
	    (n > TOKEN_HEX && text[TOKEN_HEX] != '\n')) {
		fprintf(stderr, "%s: %s: not a token (64 hex digits); delete it and restart "
			"naobodyd for a new one\n", naoctl_prog, path);
		return 1;
	}
	printf("%.*s\n", TOKEN_HEX, text);
	return 0;
}
