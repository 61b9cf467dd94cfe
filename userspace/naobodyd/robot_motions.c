// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: reading naoctl verify's verdict (see robot_motions.h).
 *
 * The file, as `naoctl verify -V FILE` writes it (Documentation/capture.rst,
 * "From a verdict to walking"):
 *
 *   # comments
 *   verdict 1
 *   layout 1a2b3c4d
 *   entry NAME confirmed|contradicted|not-exercised
 *
 * A walk moves every joint, reads every joint's position, the inertial
 * unit and the feet's pressure, so the frames, every board and those
 * fields must be confirmed. Anything else may stay not exercised (the
 * battery, the sonar), but nothing may be contradicted.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "robot_motions.h"

/* The entries walking needs; a name ending in '.' stands for every entry it begins. */
static const char *const needed[] = {
	"frame.", "ack.crc_order", "board.",
	"joint.position", "targets.position", "targets.stiffness",
	"imu.acc_x", "imu.acc_y", "imu.acc_z",
	"imu.gyr_x", "imu.gyr_y", "imu.gyr_z",
	"imu.angle_x", "imu.angle_y",
	"foot.fsr_front_left", "foot.fsr_front_right",
	"foot.fsr_rear_left", "foot.fsr_rear_right",
};
#define NEEDED (sizeof(needed) / sizeof(needed[0]))

static bool matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);

	if (pattern[n - 1] == '.')
		return !strncmp(pattern, name, n);
	return !strcmp(pattern, name);
}

static int no(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

int robot_motions_check(const char *path, uint32_t layout_id, char *why, size_t n)
{
	bool seen[NEEDED] = { false }, have_version = false, have_layout = false;
	char line[512];
	unsigned int lineno = 0;
	FILE *f = fopen(path, "r");
	int r = 0;

	if (!f)
		return no(why, n, "%s: %s", path, strerror(errno));
	while (!r && fgets(line, sizeof(line), f)) {
		char name[128], verdict[32], extra;
		unsigned int version, id;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			r = no(why, n, "%s:%u: line too long", path, lineno);
			break;
		}
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (sscanf(line, "verdict %u %c", &version, &extra) == 1) {
			if (version != 1)
				r = no(why, n, "%s:%u: verdict format %u, this naobodyd reads 1",
				       path, lineno, version);
			have_version = true;
		} else if (sscanf(line, "layout %x %c", &id, &extra) == 1) {
			if (id != layout_id)
				r = no(why, n, "%s: the verdict is on layout %08x, this naobodyd's is %08x "
				       "(the layout changed since: capture and verify again)",
				       path, id, layout_id);
			have_layout = true;
		} else if (sscanf(line, "entry %127s %31s %c", name, verdict, &extra) == 2) {
			bool confirmed = !strcmp(verdict, "confirmed");

			if (!confirmed && strcmp(verdict, "contradicted") &&
			    strcmp(verdict, "not-exercised")) {
				r = no(why, n, "%s:%u: unknown verdict '%s'", path, lineno, verdict);
				break;
			}
			if (!strcmp(verdict, "contradicted")) {
				r = no(why, n, "%s: %s is contradicted: correct nb_layout.h first",
				       path, name);
				break;
			}
			for (size_t i = 0; i < NEEDED; i++) {
				if (!matches(needed[i], name))
					continue;
				if (!confirmed)
					r = no(why, n, "%s: %s is not exercised, and walking needs it",
					       path, name);
				seen[i] = true;
			}
		} else {
			r = no(why, n, "%s:%u: not a verdict line (naoctl verify -V writes them)",
			       path, lineno);
		}
	}
	if (!r && ferror(f))
		r = no(why, n, "%s: %s", path, strerror(errno));
	fclose(f);
	if (r)
		return r;
	if (!have_version || !have_layout)
		return no(why, n, "%s: no '%s' line: not naoctl verify's verdict", path,
			  have_version ? "layout" : "verdict");
	for (size_t i = 0; i < NEEDED; i++)
		if (!seen[i])
			return no(why, n, "%s: nothing on %s%s, and walking needs it", path,
				  needed[i], needed[i][strlen(needed[i]) - 1] == '.' ? "*" : "");
	return 0;
}
