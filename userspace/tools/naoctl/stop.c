// SPDX-License-Identifier: GPL-2.0-only
/* naoctl stop and rearm: the death switch. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "naoctl.h"

static const char *const reasons[] = {
	[NAOBODY_STOP_UNSPEC] = "unspecified",
	[NAOBODY_STOP_TOOL] = "tool",
	[NAOBODY_STOP_API] = "api",
	[NAOBODY_STOP_GUARD] = "guard",
	[NAOBODY_STOP_BUTTON] = "button",
};

int stop_main(int argc, char **argv)
{
	uint32_t reason = NAOBODY_STOP_TOOL;
	struct nb_device *d;
	int c, err;

	while ((c = getopt(argc, argv, "hr:")) != -1) {
		switch (c) {
		case 'r':
			for (reason = 0; reason < __NAOBODY_STOP_MAX; reason++)
				if (!strcmp(optarg, reasons[reason]))
					break;
			if (reason == __NAOBODY_STOP_MAX) {
				fprintf(stderr, "%s: unknown reason '%s' (tool, api, guard, button)\n",
					naoctl_prog, optarg);
				return 2;
			}
			break;
		default:
			printf("Usage: %s stop [-r REASON]\n\n"
			       "Sets every stiffness to 0 from the next cycle, latched until\n"
			       "'naoctl rearm'. Needs no privileges. REASON is tool (default),\n"
			       "api, guard or button; it shows in 'naoctl status'.\n", naoctl_prog);
			return c == 'h' ? 0 : 2;
		}
	}
	d = naoctl_open(0);
	if (!d)
		return 1;
	err = nb_stop(d, reason);
	nb_close(d);
	if (err)
		return naoctl_fail("stop", err);
	printf("stopped: every stiffness is 0 until 'naoctl rearm'\n");
	return 0;
}

int rearm_main(int argc, char **argv)
{
	struct nb_device *d;
	int err;

	if (argc > 1) {
		printf("Usage: %s rearm\n\nEnds a stop (needs CAP_SYS_ADMIN). Stiffness stays 0\n"
		       "and position targets are the measured positions until the\n"
		       "controller sends new targets.\n", naoctl_prog);
		return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
	}
	d = naoctl_open(0);
	if (!d)
		return 1;
	err = nb_rearm(d);
	nb_close(d);
	if (err)
		return naoctl_fail("rearm", err);
	printf("rearmed\n");
	return 0;
}
