// SPDX-License-Identifier: GPL-2.0-only
/*
 * libparol6: the rules a request to move the arm must pass before the
 * first frame, in one place for every front end (parolctl, naobodyd's REST
 * API). See <parol6/parol6.h>. Each check fills why with a sentence that
 * says what was refused and what is allowed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <parol6/parol6.h>

int32_t parol6_jog_limit(int joint)
{
	if (joint < 0 || joint >= PAROL6_JOINTS)
		return 0;
	return parol6_max_speed[joint] * PAROL6_JOG_PERCENT / 100;
}

int parol6_check_jog(int joint, double deg_per_s, int32_t *steps, char *why,
		     size_t len)
{
	int err;

	if (joint < 0 || joint >= PAROL6_JOINTS) {
		snprintf(why, len, "the joint must be 1 to %d", PAROL6_JOINTS);
		return -EINVAL;
	}
	err = parol6_speed_to_steps(joint, deg_per_s, steps);
	if (err || abs(*steps) > parol6_jog_limit(joint)) {
		snprintf(why, len, "%g deg/s is over J%d's jog limit of %.1f deg/s",
			 deg_per_s, joint + 1,
			 parol6_steps_to_deg(joint, parol6_jog_limit(joint)));
		return -ERANGE;
	}
	return 0;
}

bool parol6_jog_at_limit(int joint, const struct parol6_telemetry *t,
			 int32_t jog_speed)
{
	/* where the joint will be in two cycles at this speed */
	return parol6_check_steps(joint, t->position[joint] + jog_speed / 50) != 0;
}

int parol6_check_move(const double deg[PAROL6_JOINTS], double speed_dps,
		      double accel_dps2, int32_t target[PAROL6_JOINTS],
		      char *why, size_t len)
{
	int32_t steps;
	int j, err;

	if (!(accel_dps2 > 0) || isinf(accel_dps2)) {
		snprintf(why, len, "the acceleration must be a positive deg/s^2, not %g",
			 accel_dps2);
		return -EINVAL;
	}
	for (j = 0; j < PAROL6_JOINTS; j++) {
		err = parol6_deg_to_steps(j, deg[j], &target[j]);
		if (err) {
			snprintf(why, len, "J%d %.3f deg is outside %.3f..%.3f deg",
				 j + 1, deg[j], parol6_limit_deg[j][0],
				 parol6_limit_deg[j][1]);
			return err;
		}
		err = parol6_speed_to_steps(j, speed_dps, &steps);
		if (err || !(speed_dps > 0)) {
			snprintf(why, len, "speed %.1f deg/s: not above 0, or over J%d's maximum of %.1f deg/s",
				 speed_dps, j + 1,
				 parol6_steps_to_deg(j, parol6_max_speed[j]));
			return err ? err : -EINVAL;
		}
	}
	return 0;
}

int parol6_check_plan(const struct parol6_move *m, double speed_dps,
		      double timeout_s, char *why, size_t len)
{
	if (m->duration > timeout_s) {
		snprintf(why, len, "takes %.1f s at %.1f deg/s, over the timeout of %.0f s",
			 m->duration, speed_dps, timeout_s);
		return -ETIMEDOUT;
	}
	return 0;
}

int parol6_abort_homing(int step, struct parol6_cmd *next)
{
	if (step <= PAROL6_ABORT_FRAMES) {
		next->command = PAROL6_DISABLE;
		return 0;
	}
	if (step <= 2 * PAROL6_ABORT_FRAMES) {
		next->command = PAROL6_CLEAR_ERROR;
		return 0;
	}
	return 1;
}
