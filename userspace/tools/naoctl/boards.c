// SPDX-License-Identifier: GPL-2.0-only
/* naoctl boards: the motor boards and the outcome of their handshake. */
#include <stdio.h>
#include <string.h>

#include "naoctl.h"

static const char *const kinds[] = { "?", "joint", "hand", "foot" };
static const char *const states[] = { "not asked", "accepted", "rejected", "silent" };

int boards_main(int argc, char **argv)
{
	struct naobody_board b[64];
	struct nb_device *d;
	int n;

	if (argc > 1) {
		printf("Usage: %s boards\n\nLists the boards behind the chest board: bus, address,\n"
		       "kind, handshake outcome, configuration version, hardware\n"
		       "revision, type, serial and handshake tries. Version 11 boards are\n"
		       "rejected unless naobody.ko has accepted_versions=10,11.\n", naoctl_prog);
		return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
	}
	d = naoctl_open(0);
	if (!d)
		return 1;
	n = nb_boards(d, b, sizeof(b) / sizeof(b[0]));
	nb_close(d);
	if (n < 0)
		return naoctl_fail("boards", n);
	printf("%-3s %-3s %-7s %-5s %-9s %-7s %-5s %-4s %-10s %s\n", "#", "bus", "address",
	       "kind", "state", "version", "hwrev", "type", "serial", "tries");
	for (int i = 0; i < n && i < 64; i++)
		printf("%-3d %-3u 0x%02x    %-5s %-9s %-7u %-5u %-4u %-10u %u\n", i, b[i].bus,
		       b[i].address, kinds[b[i].kind < 4 ? b[i].kind : 0],
		       b[i].state < 4 ? states[b[i].state] : "?", b[i].config_version,
		       b[i].hw_revision, b[i].board_type, b[i].serial, b[i].tries);
	return 0;
}
