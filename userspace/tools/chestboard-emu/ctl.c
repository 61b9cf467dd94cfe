// SPDX-License-Identifier: GPL-2.0-only
/*
 * chestboard-emu-ctl: one request to a running chestboard-emu, from a shell.
 * The words after the options form the request line; the reply's text goes
 * to stdout (without "OK"), an error to stderr with exit status 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nbtool/version.h>

#include <emuctl/emuctl.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: chestboard-emu-ctl [-s SOCKET] REQUEST [WORDS...]\n\n"
		"Sends one request to a running chestboard-emu and prints its reply.\n"
		"Requests: hello, status, stats, set FIELD INDEX VALUE, get FIELD INDEX,\n"
		"wave FIELD INDEX SHAPE AMPLITUDE PERIOD, touch BIT START|+DELAY CYCLES,\n"
		"drain RATE, follow on|off, version BOARD|all N, board BOARD down|up,\n"
		"id SLOT STRING, misbehave NAME CYCLES [ARG], wait FRAMES TIMEOUT_MS, reset,\n"
		"disconnect, connect, storm COUNT DOWN_MS UP_MS, quit, help.\n\n"
		"  -s, --socket SOCKET  the emulator's control socket (default %s)\n"
		"  -h, --help           this help\n"
		"      --version        the program's version\n\n"
		"See chestboard-emu-ctl(1) and chestboard-emu(8).\n", NB_EMU_SOCKET);
}

int main(int argc, char **argv)
{
	const char *socket = NB_EMU_SOCKET;
	char line[512] = "", reply[512];
	struct nb_emu emu;
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int c, err;

	while ((c = getopt_long(argc, argv, "+s:h", opts, NULL)) != -1) {
		if (c == 's') {
			socket = optarg;
			continue;
		}
		if (c == 'V')
			return nbtool_version("chestboard-emu-ctl");
		usage(c == 'h' ? stdout : stderr);
		return c == 'h' ? 0 : 2;
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		if (strlen(line) + strlen(argv[i]) + 2 > sizeof(line)) {
			fprintf(stderr, "chestboard-emu-ctl: request too long\n");
			return 2;
		}
		if (i > optind)
			strcat(line, " ");
		strcat(line, argv[i]);
	}
	if (!strncmp(line, "frames", 6) || !strncmp(line, "raw", 3)) {
		fprintf(stderr, "chestboard-emu-ctl: '%s' replies with binary records; use "
			"libnbemuctl (nb_emu_frames) for those\n", argv[optind]);
		return 2;
	}
	err = nb_emu_attach(&emu, socket);
	if (err) {
		fprintf(stderr, "chestboard-emu-ctl: %s: %s (is chestboard-emu running?)\n",
			socket, strerror(-err));
		return 1;
	}
	err = nb_emu_cmd(&emu, reply, sizeof(reply), "%s", line);
	close(emu.fd);
	if (err) {
		fprintf(stderr, "chestboard-emu-ctl: %s: %s\n", line, strerror(-err));
		return 1;
	}
	if (reply[0])
		printf("%s\n", reply);
	return 0;
}
