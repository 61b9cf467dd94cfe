// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoctl: inspect and command the NAO6 body through /dev/naobody.
 *
 * Also answers to the names of Aldebaran's chest board tools: run as
 * chest-version, chest-mode or chest-harakiri (a symlink), it behaves as
 * "naoctl id", "naoctl mode" or "naoctl harakiri" with the same options.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nbtool/version.h>

#include "naoctl.h"
#include "capture_cmds.h"

const char *naoctl_device;
const char *naoctl_prog = "naoctl";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *alias;		/* Aldebaran's tool name, if any */
	const char *help;
} commands[] = {
	{ "status", status_main, NULL, "driver, death switch, controller, boards and counters" },
	{ "watch", watch_main, NULL, "live body state in LoLA's units" },
	{ "dump", dump_main, NULL, "records as tab-separated lines, for scripts" },
	{ "record", record_main, NULL, "naobodyd's States to a file, for the status page's replay" },
	{ "stop", stop_main, NULL, "the death switch: every stiffness to 0, latched" },
	{ "rearm", rearm_main, NULL, "end a stop (needs CAP_SYS_ADMIN)" },
	{ "boards", boards_main, NULL, "the motor boards and their handshake" },
	{ "prefs", prefs_main, NULL, "the preference block's entries" },
	{ "id", id_main, "chest-version", "the chest board's id strings" },
	{ "mode", mode_main, "chest-mode", "the chest board's mode and LED state" },
	{ "harakiri", harakiri_main, "chest-harakiri", "power the robot off, or reset it" },
	{ "replay", replay_main, NULL, "decode a chest board capture through the codec" },
	{ "verify", verify_main, NULL, "check the provisional layout against a capture" },
	{ "token", token_main, NULL, "naobodyd's REST API token (root only)" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s [-d DEVICE] COMMAND [ARGS...]\n\n", naoctl_prog);
	fprintf(f, "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nOptions:\n"
		"  -d DEVICE  the body's device (default $NAOBODY_DEVICE, else %s)\n"
		"  -h, --help this help; COMMAND -h for a command's own\n"
		"  --version  the program's version\n\n"
		"See naoctl(8).\n", NB_DEFAULT_DEVICE);
}

struct nb_device *naoctl_open(unsigned int flags)
{
	struct nb_device *d = nb_open(naoctl_device, flags);

	if (!d)
		naoctl_fail(naoctl_device ? naoctl_device : NB_DEFAULT_DEVICE, -errno);
	return d;
}

int naoctl_fail(const char *what, int err)
{
	const char *hint = NULL;

	switch (-err) {
	case ENOENT:
		hint = "is naobody.ko loaded and the chest board connected?";
		break;
	case EACCES:
		hint = "the device's mode doesn't let you in; see the udev rule";
		break;
	case EPERM:
		hint = "this needs CAP_SYS_ADMIN (run as root)";
		break;
	case EBUSY:
		hint = "another program holds the controller role";
		break;
	case ENODATA:
		hint = "the driver has not read it from the chest board (yet: see the calibration in naoctl status)";
		break;
	case ETIMEDOUT:
		hint = "the chest board did not answer";
		break;
	case ENODEV:
		hint = "the chest board is gone";
		break;
	}
	fprintf(stderr, "%s: %s: %s%s%s\n", naoctl_prog, what, strerror(-err),
		hint ? "; " : "", hint ? hint : "");
	return 1;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t i;

	naoctl_device = getenv("NAOBODY_DEVICE");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (commands[i].alias && !strcmp(base, commands[i].alias)) {
			naoctl_prog = commands[i].alias;
			if (argc == 2 && !strcmp(argv[1], "--version"))
				return nbtool_version(naoctl_prog);
			return commands[i].fn(argc, argv);
		}
	}

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-d") && argc > 2) {
			naoctl_device = argv[2];
			argv += 2;
			argc -= 2;
		} else if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[1], "--version")) {
			return nbtool_version(naoctl_prog);
		} else {
			fprintf(stderr, "%s: unknown option '%s'\n\n", naoctl_prog, argv[1]);
			usage(stderr);
			return 2;
		}
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n\n", naoctl_prog, argv[1]);
	usage(stderr);
	return 2;
}
