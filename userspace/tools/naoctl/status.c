// SPDX-License-Identifier: GPL-2.0-only
/* naoctl status: the driver, the death switch, the controller, the counters. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naoctl.h"

static const char *const stop_reasons[] = {
	"unspecified", "tool", "api", "guard", "button",
};

/* naobody_info.calibration: whether the body may be stiffened. */
static const char *const calibrations[] = {
	[NAOBODY_CALIB_PENDING] = "pending: the preference block is being read",
	[NAOBODY_CALIB_READ] = "read (preference block, CRC good)",
	[NAOBODY_CALIB_RETRYING] = "retrying: a read of the preference block failed "
				   "(see dmesg); don't stiffen the body yet",
	[NAOBODY_CALIB_FAILED] = "FAILED: the preference block is unusable; "
				 "the joints' zero positions are unknown",
};

/* /sys/class/naobody/<node>/<attr>, one line, or "" if unreadable. */
static void sysfs_read(const char *node, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/naobody/%s/%s", node, attr);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static const char *const counters[] = {
	"cycles", "answers", "overruns", "crc_errors", "bad_tables", "bad_messages",
	"timeouts", "stalls", "ack_mismatches", "io_errors", "skipped",
	"calib_failures",
};

int status_main(int argc, char **argv)
{
	struct naobody_board boards[64];
	const struct naobody_info *info;
	unsigned int state[4] = { 0 };
	char real[PATH_MAX], val[64];
	const char *node;
	struct nb_device *d;
	int n;

	if (argc > 1) {
		printf("Usage: %s status\n\nShows the driver, the death switch, the "
		       "controller, the boards and the cycle's counters.\n", naoctl_prog);
		return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
	}
	d = naoctl_open(0);
	if (!d)
		return 1;
	info = nb_info(d);
	if (!realpath(naoctl_device ? naoctl_device : NB_DEFAULT_DEVICE, real))
		strcpy(real, NB_DEFAULT_DEVICE);
	node = strrchr(real, '/') + 1;

	printf("device        %s (driver %s, ABI %u)\n", real,
	       (const char *)info->driver_version, info->abi_version);
	printf("chest board   version %08x\n", info->chest_version);
	printf("cycle         %u us; ring of %u records (%.1f s)\n",
	       info->period_ns / 1000, info->record_count,
	       info->record_count * (info->period_ns / 1e9));
	if (info->flags & NAOBODY_INFO_STOPPED)
		printf("death switch  STOPPED (%s); 'naoctl rearm' ends it\n",
		       info->stop_reason < sizeof(stop_reasons) / sizeof(stop_reasons[0]) ?
		       stop_reasons[info->stop_reason] : "unknown");
	else
		printf("death switch  off\n");
	printf("controller    %s\n", info->flags & NAOBODY_INFO_CONTROLLED ? "held" : "none");
	printf("start-up      %s\n", info->flags & NAOBODY_INFO_READY ? "done" :
	       "running (preferences, id strings, handshake)");
	printf("calibration   %s\n", info->calibration < sizeof(calibrations) /
	       sizeof(calibrations[0]) ? calibrations[info->calibration] : "unknown");

	n = nb_boards(d, boards, sizeof(boards) / sizeof(boards[0]));
	if (n >= 0) {
		for (int i = 0; i < n && i < 64; i++)
			if (boards[i].state < 4)
				state[boards[i].state]++;
		printf("boards        %u accepted, %u rejected, %u silent, %u not asked yet"
		       " ('naoctl boards')\n", state[NAOBODY_BOARD_ACCEPTED],
		       state[NAOBODY_BOARD_REJECTED], state[NAOBODY_BOARD_SILENT],
		       state[NAOBODY_BOARD_UNKNOWN]);
	}
	printf("statistics   ");
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		char attr[64];

		snprintf(attr, sizeof(attr), "statistics/%s", counters[i]);
		sysfs_read(node, attr, val, sizeof(val));
		printf("%s %s=%s", i && i % 4 == 0 ? "\n             " : "", counters[i],
		       val[0] ? val : "?");
	}
	printf("\n");
	nb_close(d);
	return 0;
}
