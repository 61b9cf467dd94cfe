// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chest board tools, ported onto the driver: id strings, mode and LED
 * state, harakiri. Their options are those of Aldebaran's chest-version,
 * chest-mode and chest-harakiri, which naoctl also answers to by name.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naoctl.h"

int id_main(int argc, char **argv)
{
	char id[NAOBODY_CHEST_ID_LEN + 1];
	unsigned int first = 0, last = NAOBODY_CHEST_ID_SLOTS - 1;
	struct nb_device *d;
	int err, status = 0;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		bool help = argc == 2 && (!strcmp(argv[1], "-h") ||
					  !strcmp(argv[1], "--help"));

		fprintf(help ? stdout : stderr,
			"Usage: %s [SLOT]\n\nPrints the chest board's id string in SLOT (0 to 3;\n"
			"3 is the body id), or in every slot. Read-only.\n", naoctl_prog);
		return help ? 0 : 2;
	}
	if (argc == 2) {
		char *end;
		unsigned long slot = strtoul(argv[1], &end, 10);

		if (*end || slot >= NAOBODY_CHEST_ID_SLOTS) {
			fprintf(stderr, "%s: slot '%s' is not 0, 1, 2 or 3\n", naoctl_prog, argv[1]);
			return 2;
		}
		first = last = slot;
	}
	d = naoctl_open(0);
	if (!d)
		return 1;
	for (unsigned int slot = first; slot <= last; slot++) {
		err = nb_chest_id(d, slot, id);
		if (err) {
			char what[32];

			snprintf(what, sizeof(what), "slot %u", slot);
			status = naoctl_fail(what, err);
			continue;
		}
		if (first == last)
			printf("%s\n", id);
		else
			printf("%u %s%s\n", slot, id, slot == 3 ? "  (body id)" : "");
	}
	nb_close(d);
	return status;
}

static const struct {
	char opt;
	uint32_t op;
	const char *what;
} modes[] = {
	{ 'b', NAOBODY_CHEST_QUERY_BOOTLOADER, "ask whether it is in its boot loader (default)" },
	{ 's', NAOBODY_CHEST_LED_START, "LED state: start" },
	{ 't', NAOBODY_CHEST_LED_STOP, "LED state: stop" },
	{ 'f', NAOBODY_CHEST_LED_FIRMWARE_UPDATE, "LED state: firmware update" },
	{ 'u', NAOBODY_CHEST_LED_UNUSABLE, "LED state: unusable" },
	{ 'm', NAOBODY_CHEST_LED_MANUAL, "LED state: manual" },
	{ 'r', NAOBODY_CHEST_LED_WATCHDOG_RESET, "reset the LED watchdog timer" },
	{ 'o', NAOBODY_CHEST_CYCLE_MOTOR_POWER, "switch the motors off and on (NOT safe on a running robot; provisional)" },
	{ 'p', NAOBODY_CHEST_CYCLE_HEAD_POWER, "switch the head off and on (NOT safe on a running robot; provisional)" },
};

/*
 * The driver refuses the requests that change power while their encoding
 * is provisional: say so, and how to allow them.
 */
static int power_fail(const char *what, int err)
{
	if (err != -EOPNOTSUPP)
		return naoctl_fail(what, err);
	fprintf(stderr,
		"%s: %s: refused: the encoding of this request is provisional (not checked on a\n"
		"robot). Once it is checked on this robot, allow it with\n"
		"  echo Y > /sys/module/naobody/parameters/provisional_power_requests\n"
		"(or the naobody.ko option provisional_power_requests=1).\n", naoctl_prog, what);
	return 1;
}

/* Aldebaran's tools take short options; --help as well, as every tool. */
static const struct option help_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

int mode_main(int argc, char **argv)
{
	uint32_t op = NAOBODY_CHEST_QUERY_BOOTLOADER, result = 0;
	struct nb_device *d;
	int c, err;

	while ((c = getopt_long(argc, argv, "bstfumroph", help_opts, NULL)) != -1) {
		FILE *f = c == 'h' ? stdout : stderr;
		size_t i;

		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (modes[i].opt == c)
				break;
		if (i == sizeof(modes) / sizeof(modes[0])) {
			fprintf(f, "Usage: %s [-b|-s|-t|-f|-u|-m|-r|-o|-p]\n\n", naoctl_prog);
			for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
				fprintf(f, "  -%c  %s\n", modes[i].opt, modes[i].what);
			fprintf(f, "\nAll but -b need CAP_SYS_ADMIN. -o and -p are provisional: naobody.ko\n"
				"refuses them unless provisional_power_requests is set.\n");
			return c == 'h' ? 0 : 2;
		}
		op = modes[i].op;
	}
	if (op == NAOBODY_CHEST_CYCLE_MOTOR_POWER || op == NAOBODY_CHEST_CYCLE_HEAD_POWER)
		fprintf(stderr, "%s: warning: this cuts power on a running robot\n", naoctl_prog);
	d = naoctl_open(0);
	if (!d)
		return 1;
	err = nb_chest_mode(d, op, &result);
	nb_close(d);
	if (err)
		return power_fail("mode", err);
	if (op == NAOBODY_CHEST_QUERY_BOOTLOADER)
		printf("%s\n", result ? "boot loader" : "firmware");
	return 0;
}

int harakiri_main(int argc, char **argv)
{
	uint32_t op = NAOBODY_HARAKIRI_POWER_OFF;
	struct nb_device *d;
	int c, err;

	while ((c = getopt_long(argc, argv, "rh", help_opts, NULL)) != -1) {
		if (c == 'r') {
			op = NAOBODY_HARAKIRI_RESET;
			continue;
		}
		fprintf(c == 'h' ? stdout : stderr,
			"Usage: %s [-r]\n\nPowers the robot off, or with -r resets it. Needs\n"
			"CAP_SYS_ADMIN. HULKs-OS runs it at the very end of shutdown.\n"
			"The request's encoding is provisional: naobody.ko refuses it\n"
			"(EOPNOTSUPP) unless its provisional_power_requests parameter is set.\n",
			naoctl_prog);
		return c == 'h' ? 0 : 2;
	}
	d = naoctl_open(0);
	if (!d)
		return 1;
	err = nb_harakiri(d, op);
	nb_close(d);
	if (err)
		return power_fail("harakiri", err);
	return 0;
}
