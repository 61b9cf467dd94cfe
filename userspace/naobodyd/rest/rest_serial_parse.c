// SPDX-License-Identifier: GPL-2.0-only
/*
 * The serial bodies' requests, parsed and checked (rest_serial_parse.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rest_serial_parse.h"

bool serial_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 31)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_.-") == n;
}

/*
 * A request body: an object of only these keys (a misspelt one, "sped",
 * must not pass as a default).
 */
static int only_keys(json_t *o, const char *const *keys, char *why, size_t len)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o)) {
		snprintf(why, len, "the body must be an object");
		return -EINVAL;
	}
	json_object_foreach(o, k, v) {
		size_t i;

		for (i = 0; keys[i]; i++)
			if (!strcmp(k, keys[i]))
				break;
		if (!keys[i]) {
			snprintf(why, len, "unknown field \"%.40s\"", k);
			return -EINVAL;
		}
	}
	return 0;
}

/* An optional number field: *out stays as it is when absent. */
static int number(json_t *o, const char *key, double *out, char *why, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		return 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v))) {
		snprintf(why, len, "\"%s\" must be a number", key);
		return -EINVAL;
	}
	*out = json_number_value(v);
	return 0;
}

int serial_parse_move(json_t *o, struct serial_move *m, char *why, size_t len)
{
	static const char *const keys[] = { "joints", "speed", "accel", "timeout", NULL };
	json_t *a = json_is_object(o) ? json_object_get(o, "joints") : NULL;
	size_t j;
	int err;

	memset(m, 0, sizeof(*m));
	m->speed = SERIAL_MOVE_SPEED;
	m->accel = SERIAL_MOVE_ACCEL;
	m->timeout = SERIAL_MOVE_TIMEOUT_S;
	err = only_keys(o, keys, why, len);
	if (err)
		return err;
	if (!json_is_array(a) || json_array_size(a) != PAROL6_JOINTS) {
		snprintf(why, len, "\"joints\" must be %d angles in degrees, J1 first",
			 PAROL6_JOINTS);
		return -EINVAL;
	}
	for (j = 0; j < PAROL6_JOINTS; j++) {
		json_t *v = json_array_get(a, j);

		if (!json_is_number(v) || !isfinite(json_number_value(v))) {
			snprintf(why, len, "joints[%zu] must be a number of degrees", j);
			return -EINVAL;
		}
		m->deg[j] = json_number_value(v);
	}
	err = number(o, "speed", &m->speed, why, len) ?:
	      number(o, "accel", &m->accel, why, len) ?:
	      number(o, "timeout", &m->timeout, why, len);
	if (err)
		return err;
	if (!(m->timeout > 0) || m->timeout > SERIAL_MAX_TIMEOUT_S) {
		snprintf(why, len, "\"timeout\" must be more than 0 and at most %.0f s",
			 SERIAL_MAX_TIMEOUT_S);
		return -EINVAL;
	}
	/* libparol6's rules, as parolctl's: limits, speed, acceleration */
	return parol6_check_move(m->deg, m->speed, m->accel, m->target, why, len) ? -EDOM : 0;
}

int serial_parse_jog(json_t *o, struct serial_jog *jg, char *why, size_t len)
{
	static const char *const keys[] = { "joint", "speed", "seconds", NULL };
	json_t *joint = json_is_object(o) ? json_object_get(o, "joint") : NULL;
	int err;

	memset(jg, 0, sizeof(*jg));
	jg->seconds = SERIAL_JOG_S;
	jg->deg_per_s = NAN;
	err = only_keys(o, keys, why, len);
	if (err)
		return err;
	if (!json_is_integer(joint) || json_integer_value(joint) < 1 ||
	    json_integer_value(joint) > PAROL6_JOINTS) {
		snprintf(why, len, "\"joint\" must be 1 to %d", PAROL6_JOINTS);
		return -EINVAL;
	}
	jg->joint = (int)json_integer_value(joint) - 1;
	err = number(o, "speed", &jg->deg_per_s, why, len) ?:
	      number(o, "seconds", &jg->seconds, why, len);
	if (err)
		return err;
	if (isnan(jg->deg_per_s)) {
		snprintf(why, len, "\"speed\" (deg/s, the sign the direction) is missing");
		return -EINVAL;
	}
	if (!(jg->seconds > 0) || jg->seconds > SERIAL_MAX_JOG_S) {
		snprintf(why, len, "\"seconds\" must be more than 0 and at most %.0f",
			 SERIAL_MAX_JOG_S);
		return -EINVAL;
	}
	return parol6_check_jog(jg->joint, jg->deg_per_s, &jg->speed, why, len) ? -EDOM : 0;
}

static int whole(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * Where the registers start and how many: the address must be a register's
 * first byte in the model's table, and the registers must all be in it
 * (addresses 0..54: the firmware's 55 register bytes, BRBrain's limits).
 */
static int locate(struct serial_regs *r, long address, const char *reg, long count,
		  char *why, size_t len)
{
	const struct cm5_reg *tab;
	size_t n;

	tab = cm5_regs(r->model, &n);
	if (reg)
		r->start = cm5_reg_find(r->model, reg);
	else if (address >= 0 && address < N_ROBOT_CM5_NUM_REG_BYTES)
		r->start = cm5_reg_at(r->model, (unsigned int)address);
	if (!r->start) {
		if (reg)
			snprintf(why, len, "%s has no register \"%.40s\" (cm5ctl(1) lists them)",
				 cm5_model_name(r->model), reg);
		else
			snprintf(why, len, "address %ld is not the first byte of a %s register "
				 "(0..%d; cm5ctl(1) lists them)", address,
				 cm5_model_name(r->model), N_ROBOT_CM5_NUM_REG_BYTES - 1);
		return -EINVAL;
	}
	if (count < 1 || (size_t)(r->start - tab) + (size_t)count > n) {
		snprintf(why, len, "count must be 1 to %zu from %s (the registers up to "
			 "address %d)", n - (size_t)(r->start - tab), r->start->name,
			 tab[n - 1].addr);
		return -EINVAL;
	}
	r->count = (unsigned int)count;
	return 0;
}

static int model_of(const char *s, struct serial_regs *r, char *why, size_t len)
{
	r->model = s ? cm5_model_parse(s) : N_ROBOT_CM5_MODEL_AX12;
	if (r->model < 0) {
		snprintf(why, len, "model must be ax12, axs1 or other, not \"%.20s\"", s);
		return -EINVAL;
	}
	return 0;
}

int serial_parse_read(const char *id, const char *address, const char *reg,
		      const char *count, const char *model, struct serial_regs *r,
		      char *why, size_t len)
{
	long v, a = -1, n = 1;
	int err;

	memset(r, 0, sizeof(*r));
	if (whole(id, 0, N_ROBOT_CM5_MAX_ID, &v)) {
		snprintf(why, len, "id must be a Dynamixel id, 0..%d", N_ROBOT_CM5_MAX_ID);
		return -EINVAL;
	}
	r->id = (uint8_t)v;
	err = model_of(model, r, why, len);
	if (err)
		return err;
	if (!!address == !!reg || (address && whole(address, 0, 255, &a))) {
		snprintf(why, len, "give address (0..%d) or register (a name), one of them",
			 N_ROBOT_CM5_NUM_REG_BYTES - 1);
		return -EINVAL;
	}
	if (count && whole(count, 1, N_ROBOT_CM5_NUM_REG_BYTES, &n)) {
		snprintf(why, len, "count must be a number of registers, 1..%d",
			 N_ROBOT_CM5_NUM_REG_BYTES);
		return -EINVAL;
	}
	return locate(r, a, reg, n, why, len);
}

int serial_parse_write(json_t *o, struct serial_regs *r, char *why, size_t len)
{
	static const char *const keys[] = { "id", "address", "register", "values",
					    "model", NULL };
	json_t *id, *addr, *reg, *vals, *model;
	unsigned int k;
	int err;

	memset(r, 0, sizeof(*r));
	err = only_keys(o, keys, why, len);
	if (err)
		return err;
	id = json_object_get(o, "id");
	addr = json_object_get(o, "address");
	reg = json_object_get(o, "register");
	vals = json_object_get(o, "values");
	model = json_object_get(o, "model");
	if (!json_is_integer(id) || json_integer_value(id) < 0 ||
	    json_integer_value(id) > N_ROBOT_CM5_MAX_ID) {
		snprintf(why, len, "\"id\" must be a Dynamixel id, 0..%d", N_ROBOT_CM5_MAX_ID);
		return -EINVAL;
	}
	r->id = (uint8_t)json_integer_value(id);
	if (model && !json_is_string(model)) {
		snprintf(why, len, "\"model\" must be ax12, axs1 or other");
		return -EINVAL;
	}
	err = model_of(model ? json_string_value(model) : NULL, r, why, len);
	if (err)
		return err;
	if (!!addr == !!reg || (addr && !json_is_integer(addr)) ||
	    (reg && !json_is_string(reg))) {
		snprintf(why, len, "give \"address\" (0..%d) or \"register\" (a name), one of them",
			 N_ROBOT_CM5_NUM_REG_BYTES - 1);
		return -EINVAL;
	}
	if (!json_is_array(vals) || !json_array_size(vals) ||
	    json_array_size(vals) > N_ROBOT_CM5_NUM_REG_BYTES) {
		snprintf(why, len, "\"values\" must be 1..%d raw counts, one a register",
			 N_ROBOT_CM5_NUM_REG_BYTES);
		return -EINVAL;
	}
	err = locate(r, addr ? (long)json_integer_value(addr) : -1,
		     reg ? json_string_value(reg) : NULL, (long)json_array_size(vals),
		     why, len);
	if (err)
		return err;
	for (k = 0; k < r->count; k++) {
		const struct cm5_reg *g = &r->start[k];
		json_t *v = json_array_get(vals, k);

		if (g->flags & CM5_REG_RO) {
			snprintf(why, len, "%s (address %u) is read-only", g->name, g->addr);
			return -EACCES;
		}
		if (!json_is_integer(v)) {
			snprintf(why, len, "values[%u] (%s) must be a whole number of raw counts",
				 k, g->name);
			return -EINVAL;
		}
		if (json_integer_value(v) < g->min || json_integer_value(v) > g->max) {
			snprintf(why, len, "%s (address %u) takes %d..%d raw counts",
				 g->name, g->addr, g->min, g->max);
			return -ERANGE;
		}
		r->values[k] = (int32_t)json_integer_value(v);
	}
	return 0;
}
