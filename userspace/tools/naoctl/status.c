// SPDX-License-Identifier: GPL-2.0-only
/* naoctl status: the driver, the death switch, the controller, the counters. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naoctl.h"
#include "remote.h"

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

/* --host: the daemon's view, over its REST API. */
static int status_remote(struct remote *r)
{
	json_t *robot, *state, *ctl, *drv;
	int rc = 1;

	if (remote_ready(r))
		return 1;
	robot = remote_get(r, "/robot");
	state = robot ? remote_get(r, "/state") : NULL;
	ctl = state ? remote_get(r, "/controller") : NULL;
	drv = ctl ? remote_get(r, "/driver") : NULL;
	if (drv) {
		json_t *stats = json_object_get(drv, "statistics"), *v;
		const char *key;
		int i = 0;

		printf("daemon        %s: naobodyd %s, robot API %.0f, %s body\n", r->url,
		       jstr(robot, "daemon_version"), jnum(robot, "api_version"),
		       jstr(robot, "body"));
		printf("robot         body %s, head %s\n", jstr(robot, "body_id"),
		       jstr(robot, "head_id"));
		printf("cycle         %.1f ms; up %.0f s; cycle %.0f\n", jnum(robot, "period_s") * 1e3,
		       jnum(robot, "uptime_s"), jnum(state, "cycle"));
		printf("death switch  %s\n", json_is_true(json_object_get(state, "stopped")) ?
		       "STOPPED; 'naoctl rearm' on the robot ends it" : "off");
		printf("controller    %s%s%s\n", jstr(ctl, "holder"),
		       json_is_string(json_object_get(ctl, "peer")) ? " from " : "",
		       json_is_string(json_object_get(ctl, "peer")) ? jstr(ctl, "peer") : "");
		printf("body          %s, %s, %s; battery %.0f %%\n", jstr(state, "primary_state"),
		       jstr(state, "fall_state"), jstr(state, "motion"),
		       jnum(json_object_get(state, "battery"), "charge") * 100);
		printf("driver        %s\n", json_is_true(json_object_get(drv, "available")) ?
		       jstr(drv, "driver") : "none (the simulated body)");
		if (json_is_object(stats)) {
			printf("statistics   ");
			json_object_foreach(stats, key, v)
				printf("%s %s=%.0f", i && i % 4 == 0 ? "\n             " : "", key,
				       json_number_value(v)), i++;
			printf("\n");
		}
		rc = 0;
	}
	json_decref(robot);
	json_decref(state);
	json_decref(ctl);
	json_decref(drv);
	return rc;
}

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
		static const struct option longopts[] = { REMOTE_LONG_OPTIONS,
			{ NULL, 0, NULL, 0 } };
		struct remote r = { 0 };
		bool remote = false;
		int c, bad = 0;

		while ((c = getopt_long(argc, argv, "hH:", longopts, NULL)) != -1) {
			int taken = remote_option(&r, c, optarg, &remote);

			if (taken < 0)
				return 2;
			if (!taken)
				bad = c == 'h' ? 1 : 2;
		}
		if (remote && !bad && optind == argc)
			return status_remote(&r);
		printf("Usage: %s status [--host HOST[:PORT]]\n\nShows the driver, the death "
		       "switch, the controller, the boards and the cycle's counters. With\n"
		       "--host, naobodyd's view of them over its REST API.\n\n" REMOTE_HELP,
		       naoctl_prog);
		return bad == 1 ? 0 : 2;
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
