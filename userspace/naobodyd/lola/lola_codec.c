// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: LoLA's messages (see lola.h). Keys, types and orders:
 * the teams' public LoLA code (HULKs' hula_types, nao_lola's lola_enums.hpp).
 *
 * The sensor map is always exactly 896 bytes, as real LoLA's is, with
 * nothing after it: 13 keys (fixed strings), 136 float32 values (always
 * 0xca and four bytes, whatever the value: NaN and infinities too), 25
 * positive fixint statuses (clamped to 0..3), arrays of compile-time
 * lengths, and RobotConfig's four strings at LoLA's lengths: ids of 20
 * characters, versions of 5 (lola_string()). Nothing a sensor or an id
 * holds can change the length.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mpread/mpread.h>

#include "log.h"
#include "lola.h"

/* ---- the sensor map ------------------------------------------------------ */

struct fixed {
	uint8_t *p;
	size_t len, cap;
};

static int fixed_write(void *data, const char *p, size_t n)
{
	struct fixed *f = data;

	if (f->len + n > f->cap)
		return -1;
	memcpy(f->p + f->len, p, n);
	f->len += n;
	return 0;
}

static int key(msgpack_packer *pk, const char *k)
{
	size_t n = strlen(k);

	return msgpack_pack_str(pk, n) | msgpack_pack_str_body(pk, k, n);
}

static int floats(msgpack_packer *pk, const char *k, const float *v, size_t n)
{
	int err = key(pk, k) | msgpack_pack_array(pk, n);

	for (size_t i = 0; i < n; i++)
		err |= msgpack_pack_float(pk, v[i]);
	return err;
}

/*
 * LoLA's strings: 20-character ids, 5-character versions, always. A string
 * of the right length goes as it is (unprintable bytes as '?'); an empty
 * one (unknown) is the placeholder, of the same length; a shorter one is
 * padded with '-', a longer one cut (Documentation/naobodyd.rst).
 */
static int lola_string(msgpack_packer *pk, const char *s, size_t len, const char *placeholder)
{
	char out[BODY_ID_LEN + 1];
	size_t n = strnlen(s, len);

	if (!n)
		s = placeholder;
	sanitize(out, len + 1, s, strnlen(s, len));
	n = strlen(out);
	memset(out + n, '-', len - n);
	return msgpack_pack_str(pk, len) | msgpack_pack_str_body(pk, out, len);
}

int lola_pack(uint8_t *out, const struct body_info *info, const struct nb_sensors *s)
{
	struct fixed f = { .p = out, .cap = LOLA_PACKET };
	msgpack_packer pk;
	int err = 0;

	msgpack_packer_init(&pk, &f, fixed_write);
	err |= msgpack_pack_map(&pk, 13);
	err |= key(&pk, "RobotConfig");
	err |= msgpack_pack_array(&pk, 4);
	err |= lola_string(&pk, info->body_id, BODY_ID_LEN, LOLA_UNKNOWN_BODY_ID);
	err |= lola_string(&pk, info->body_version, LOLA_VERSION_LEN, LOLA_UNKNOWN_VERSION);
	err |= lola_string(&pk, info->head_id, BODY_ID_LEN, LOLA_UNKNOWN_HEAD_ID);
	err |= lola_string(&pk, info->head_version, LOLA_VERSION_LEN, LOLA_UNKNOWN_VERSION);
	err |= floats(&pk, "Accelerometer", s->accelerometer, 3);
	err |= floats(&pk, "Angles", s->angles, 2);
	err |= floats(&pk, "Battery", s->battery, 4);
	err |= floats(&pk, "Current", s->current, NAOBODY_JOINTS);
	err |= floats(&pk, "FSR", s->fsr, NAOBODY_FSRS);
	err |= floats(&pk, "Gyroscope", s->gyroscope, 3);
	err |= floats(&pk, "Position", s->position, NAOBODY_JOINTS);
	err |= floats(&pk, "Sonar", s->sonar, 2);
	err |= floats(&pk, "Stiffness", s->stiffness, NAOBODY_JOINTS);
	err |= floats(&pk, "Temperature", s->temperature, NAOBODY_JOINTS);
	err |= floats(&pk, "Touch", s->touch, NAOBODY_TOUCHES);
	err |= key(&pk, "Status");
	err |= msgpack_pack_array(&pk, NAOBODY_JOINTS);
	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		int32_t st = s->status[j];

		/* 0..3: one positive fixint byte each, as LoLA sends them */
		err |= msgpack_pack_int32(&pk, st < 0 ? 0 : st > 3 ? 3 : st);
	}
	/* Exactly LoLA's length, or nothing is sent. */
	if (err || f.len != LOLA_PACKET)
		return -1;
	return 0;
}

/* ---- actuator maps ------------------------------------------------------- */

/* A number as LoLA's clients send them: booleans too; never NaN or infinite. */
static bool number(const msgpack_object *o, float *v)
{
	double d;

	if (!mp_number(o, MP_BOOL_AS_NUMBER, &d) || !isfinite(d))
		return false;
	*v = (float)d;
	return true;
}

/* n numbers into out, clamped to lo..hi; false leaves out unchanged. */
static bool numbers(const msgpack_object *o, float *out, size_t n, float lo, float hi)
{
	float tmp[32];

	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != n || n > 32)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!number(&o->via.array.ptr[i], &tmp[i]))
			return false;
		tmp[i] = fminf(fmaxf(tmp[i], lo), hi);
	}
	memcpy(out, tmp, n * sizeof(float));
	return true;
}

static void note(char *err, size_t errlen, const char *what, const msgpack_object *k)
{
	size_t len = strlen(err);
	char name[24] = "?";

	if (k->type == MSGPACK_OBJECT_STR)
		sanitize(name, sizeof(name), k->via.str.ptr, k->via.str.size);
	snprintf(err + len, errlen - len, "%s%s %s", len ? ", " : "", what, name);
}

int lola_apply(const msgpack_object *o, struct nb_actuators *a, char *err, size_t errlen)
{
	static const float huge = 1e6f;
	int applied = 0;

	err[0] = '\0';
	if (o->type != MSGPACK_OBJECT_MAP) {
		snprintf(err, errlen, "not a map");
		return 0;
	}
	for (uint32_t i = 0; i < o->via.map.size; i++) {
		const msgpack_object *k = &o->via.map.ptr[i].key, *v = &o->via.map.ptr[i].val;
		bool ok;

		if (mp_is_str(k, "Position")) {
			float p[NAOBODY_JOINTS];

			ok = numbers(v, p, NAOBODY_JOINTS, -huge, huge);
			if (ok)
				memcpy(a->position, p, sizeof(p));
		} else if (mp_is_str(k, "Stiffness")) {
			ok = numbers(v, a->stiffness, NAOBODY_JOINTS, 0.0f, 1.0f);
		} else if (mp_is_str(k, "Chest")) {
			ok = numbers(v, a->chest, 3, 0.0f, 1.0f);
		} else if (mp_is_str(k, "LFoot")) {
			ok = numbers(v, a->l_foot, 3, 0.0f, 1.0f);
		} else if (mp_is_str(k, "RFoot")) {
			ok = numbers(v, a->r_foot, 3, 0.0f, 1.0f);
		} else if (mp_is_str(k, "LEar")) {
			ok = numbers(v, a->l_ear, NB_EAR_LEDS, 0.0f, 1.0f);
		} else if (mp_is_str(k, "REar")) {
			ok = numbers(v, a->r_ear, NB_EAR_LEDS, 0.0f, 1.0f);
		} else if (mp_is_str(k, "LEye")) {
			ok = numbers(v, a->l_eye, NB_EYE_LEDS, 0.0f, 1.0f);
		} else if (mp_is_str(k, "REye")) {
			ok = numbers(v, a->r_eye, NB_EYE_LEDS, 0.0f, 1.0f);
		} else if (mp_is_str(k, "Skull")) {
			ok = numbers(v, a->skull, NB_SKULL_LEDS, 0.0f, 1.0f);
		} else if (mp_is_str(k, "Sonar")) {
			float s[2];

			ok = numbers(v, s, 2, 0.0f, 1.0f);
			if (ok) {
				a->sonar[0] = s[0] > 0.5f;
				a->sonar[1] = s[1] > 0.5f;
			}
		} else {
			note(err, errlen, "unknown key", k);
			continue;
		}
		if (ok)
			applied++;
		else
			note(err, errlen, "wrong length or type for", k);
	}
	return applied;
}
