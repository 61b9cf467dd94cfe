// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd: the robot API's messages in MessagePack (see codec.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <mpread/mpread.h>

#include <motion/joints.h>

#include "codec.h"
#include "log.h"

/* ---- decoding helpers --------------------------------------------------- */

static bool fail(struct to_robot *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool fail(struct to_robot *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->error, sizeof(m->error), fmt, ap);
	va_end(ap);
	return false;
}

static bool is_nil(const msgpack_object *o)
{
	return !o || o->type == MSGPACK_OBJECT_NIL;
}

static void note_unknown(struct to_robot *m, const char *where, const char *p, size_t n)
{
	char name[32];
	size_t len = strlen(m->unknown);

	sanitize(name, sizeof(name), p, n);
	snprintf(m->unknown + len, sizeof(m->unknown) - len, "%s%s.%s",
		 len ? ", " : "", where, name);
}

/*
 * An enum value: "Name" (unit) or {"Name": data}. Returns false when o is
 * neither; *data is NULL for a unit variant (or {"Name": nil}).
 */
static bool variant(const msgpack_object *o, const msgpack_object **name,
		    const msgpack_object **data)
{
	if (o->type == MSGPACK_OBJECT_STR) {
		*name = o;
		*data = NULL;
		return true;
	}
	if (o->type == MSGPACK_OBJECT_MAP && o->via.map.size == 1 &&
	    o->via.map.ptr[0].key.type == MSGPACK_OBJECT_STR) {
		*name = &o->via.map.ptr[0].key;
		*data = &o->via.map.ptr[0].val;
		if (is_nil(*data))
			*data = NULL;
		return true;
	}
	return false;
}

/*
 * The fields of a struct, by name (a map) or position (an array). out[i]
 * is NULL when names[i] is missing. Unknown names are noted.
 */
static bool fields(struct to_robot *m, const char *where, const msgpack_object *o,
		   const char *const *names, const msgpack_object **out, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		out[i] = NULL;
	if (!o)
		return fail(m, "%s: fields missing", where);
	if (o->type == MSGPACK_OBJECT_ARRAY) {
		for (uint32_t i = 0; i < o->via.array.size; i++) {
			if (i < n)
				out[i] = &o->via.array.ptr[i];
			else
				note_unknown(m, where, "(extra element)", 15);
		}
		return true;
	}
	if (o->type != MSGPACK_OBJECT_MAP)
		return fail(m, "%s: expected a map of fields", where);
	for (uint32_t k = 0; k < o->via.map.size; k++) {
		const msgpack_object_kv *kv = &o->via.map.ptr[k];
		unsigned int i;

		if (kv->key.type != MSGPACK_OBJECT_STR)
			return fail(m, "%s: a field name is not a string", where);
		for (i = 0; i < n; i++)
			if (mp_is_str(&kv->key, names[i]))
				break;
		if (i < n)
			out[i] = &kv->val;
		else
			note_unknown(m, where, kv->key.via.str.ptr, kv->key.via.str.size);
	}
	return true;
}

static bool get_f32(struct to_robot *m, const char *where, const msgpack_object *o,
		    float *v)
{
	double d;

	if (!o)
		return fail(m, "%s: missing", where);
	if (!mp_number(o, 0, &d))
		return fail(m, "%s: expected a number", where);
	if (!isfinite(d) || fabs(d) > 3.4e38)
		return fail(m, "%s: not a finite 32-bit float", where);
	*v = (float)d;
	return true;
}

static bool get_int(struct to_robot *m, const char *where, const msgpack_object *o,
		    int64_t lo, int64_t hi, int64_t *v)
{
	if (!o)
		return fail(m, "%s: missing", where);
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		if (o->via.u64 > (uint64_t)hi)
			return fail(m, "%s: %llu is out of range %lld..%lld", where,
				    (unsigned long long)o->via.u64, (long long)lo, (long long)hi);
		*v = (int64_t)o->via.u64;
	} else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*v = o->via.i64;
	} else {
		return fail(m, "%s: expected an integer", where);
	}
	if (*v < lo || *v > hi)
		return fail(m, "%s: %lld is out of range %lld..%lld", where, (long long)*v,
			    (long long)lo, (long long)hi);
	return true;
}

static bool get_bool(struct to_robot *m, const char *where, const msgpack_object *o,
		     bool *v)
{
	if (!o || o->type != MSGPACK_OBJECT_BOOLEAN)
		return fail(m, "%s: expected true or false", where);
	*v = o->via.boolean;
	return true;
}

/* ---- the messages ------------------------------------------------------- */

static bool dec_hello(struct to_robot *m, const msgpack_object *d)
{
	static const char *const names[] = { "version", "client" };
	const msgpack_object *f[2];
	int64_t v;

	if (!fields(m, "Hello", d, names, f, 2))
		return false;
	if (!get_int(m, "Hello.version", f[0], 0, UINT32_MAX, &v))
		return false;
	m->hello.version = (uint32_t)v;
	m->hello.client[0] = '\0';
	if (f[1] && !is_nil(f[1])) {
		if (f[1]->type != MSGPACK_OBJECT_STR)
			return fail(m, "Hello.client: expected a string");
		sanitize(m->hello.client, sizeof(m->hello.client), f[1]->via.str.ptr,
			 f[1]->via.str.size);
	}
	return true;
}

static bool dec_power(struct to_robot *m, const msgpack_object *d)
{
	if (mp_is_str(d, "Wake"))
		m->power = POWER_WAKE;
	else if (mp_is_str(d, "Rest"))
		m->power = POWER_REST;
	else
		return fail(m, "Power: expected \"Wake\" or \"Rest\"");
	return true;
}

static bool dec_speed(struct to_robot *m, const char *where, const msgpack_object *o,
		      enum walk_speed *s)
{
	if (is_nil(o))
		*s = SPEED_NORMAL;
	else if (mp_is_str(o, "Slow"))
		*s = SPEED_SLOW;
	else if (mp_is_str(o, "Normal"))
		*s = SPEED_NORMAL;
	else if (mp_is_str(o, "Fast"))
		*s = SPEED_FAST;
	else
		return fail(m, "%s: expected \"Slow\", \"Normal\" or \"Fast\"", where);
	return true;
}

static bool dec_head(struct to_robot *m, const char *where, const msgpack_object *o,
		     struct motion_req *r)
{
	static const char *const names[] = { "x", "y" };
	const msgpack_object *name, *data, *f[2];
	char w[64];

	r->head = HEAD_CENTER;
	if (is_nil(o))
		return true;
	if (!variant(o, &name, &data))
		return fail(m, "%s: expected \"Center\", \"LookAround\" or {\"LookAt\": ...}", where);
	if (mp_is_str(name, "Center") && !data)
		return true;
	if (mp_is_str(name, "LookAround") && !data) {
		r->head = HEAD_LOOK_AROUND;
		return true;
	}
	if (!mp_is_str(name, "LookAt"))
		return fail(m, "%s: expected \"Center\", \"LookAround\" or {\"LookAt\": ...}", where);
	snprintf(w, sizeof(w), "%s.LookAt", where);
	if (!fields(m, w, data, names, f, 2))
		return false;
	r->head = HEAD_LOOK_AT;
	snprintf(w, sizeof(w), "%s.LookAt.x", where);
	if (!get_f32(m, w, f[0], &r->look_x))
		return false;
	snprintf(w, sizeof(w), "%s.LookAt.y", where);
	return get_f32(m, w, f[1], &r->look_y);
}

static bool dec_motion(struct to_robot *m, const msgpack_object *d)
{
	static const char *const stand[] = { "head" };
	static const char *const walk_to[] = { "x", "y", "turn_to", "speed", "head" };
	static const char *const walk_toward[] = { "x", "y", "speed", "head" };
	struct motion_req *r = &m->motion;
	const msgpack_object *name, *data, *f[5];

	memset(r, 0, sizeof(*r));
	r->speed = SPEED_NORMAL;
	if (!d || !variant(d, &name, &data))
		return fail(m, "Motion: expected a Motion variant");
	if (mp_is_str(name, "Stand")) {
		r->kind = MOTION_STAND;
		if (!data)
			return true;
		return fields(m, "Motion.Stand", data, stand, f, 1) &&
		       dec_head(m, "Motion.Stand.head", f[0], r);
	}
	if (mp_is_str(name, "WalkTo")) {
		r->kind = MOTION_WALK_TO;
		if (!fields(m, "Motion.WalkTo", data, walk_to, f, 5) ||
		    !get_f32(m, "Motion.WalkTo.x", f[0], &r->x) ||
		    !get_f32(m, "Motion.WalkTo.y", f[1], &r->y))
			return false;
		if (!is_nil(f[2])) {
			if (!get_f32(m, "Motion.WalkTo.turn_to", f[2], &r->turn_to))
				return false;
			r->has_turn = true;
		}
		return dec_speed(m, "Motion.WalkTo.speed", f[3], &r->speed) &&
		       dec_head(m, "Motion.WalkTo.head", f[4], r);
	}
	if (mp_is_str(name, "WalkToward")) {
		r->kind = MOTION_WALK_TOWARD;
		return fields(m, "Motion.WalkToward", data, walk_toward, f, 4) &&
		       get_f32(m, "Motion.WalkToward.x", f[0], &r->x) &&
		       get_f32(m, "Motion.WalkToward.y", f[1], &r->y) &&
		       dec_speed(m, "Motion.WalkToward.speed", f[2], &r->speed) &&
		       dec_head(m, "Motion.WalkToward.head", f[3], r);
	}
	if (mp_is_str(name, "SitDown"))
		r->kind = MOTION_SIT_DOWN;
	else if (mp_is_str(name, "ArmsUp"))
		r->kind = MOTION_ARMS_UP;
	else if (mp_is_str(name, "Squat"))
		r->kind = MOTION_SQUAT;
	else if (name->type == MSGPACK_OBJECT_STR) {
		char v[32];

		sanitize(v, sizeof(v), name->via.str.ptr, name->via.str.size);
		return fail(m, "Motion: unknown variant \"%s\"", v);
	}
	if (data)
		note_unknown(m, "Motion", "(data of a unit variant)", 24);
	return true;
}

static bool dec_rgb(struct to_robot *m, const char *where, const msgpack_object *o,
		    uint8_t *c)
{
	char w[64];
	int64_t v;

	if (!o || o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
		return fail(m, "%s: expected [r, g, b]", where);
	for (int i = 0; i < 3; i++) {
		snprintf(w, sizeof(w), "%s[%d]", where, i);
		if (!get_int(m, w, &o->via.array.ptr[i], 0, 255, &v))
			return false;
		c[i] = (uint8_t)v;
	}
	return true;
}

static bool dec_leds(struct to_robot *m, const msgpack_object *d)
{
	static const char *const names[] = {
		"left_eye", "right_eye", "left_ear", "right_ear",
		"chest", "left_foot", "right_foot",
	};
	struct leds_req *r = &m->leds.req;
	const msgpack_object *f[7];
	char w[64];

	memset(r, 0, sizeof(*r));
	m->leds.all_back = is_nil(d);
	if (m->leds.all_back)
		return true;
	if (!fields(m, "Leds", d, names, f, 7))
		return false;
	for (int e = 0; e < 2; e++) {
		const msgpack_object *eye = f[e], *ear = f[2 + e];

		if (!is_nil(eye)) {
			if (eye->type != MSGPACK_OBJECT_ARRAY ||
			    eye->via.array.size != API_EYE_SEGMENTS)
				return fail(m, "Leds.%s: expected 8 [r, g, b]", names[e]);
			for (int k = 0; k < API_EYE_SEGMENTS; k++) {
				snprintf(w, sizeof(w), "Leds.%s[%d]", names[e], k);
				if (!dec_rgb(m, w, &eye->via.array.ptr[k], r->eye[e][k]))
					return false;
			}
			r->has_eye[e] = true;
		}
		if (!is_nil(ear)) {
			if (ear->type != MSGPACK_OBJECT_ARRAY ||
			    ear->via.array.size != API_EAR_LEDS)
				return fail(m, "Leds.%s: expected 10 numbers", names[2 + e]);
			for (int i = 0; i < API_EAR_LEDS; i++) {
				snprintf(w, sizeof(w), "Leds.%s[%d]", names[2 + e], i);
				if (!get_f32(m, w, &ear->via.array.ptr[i], &r->ear[e][i]))
					return false;
				r->ear[e][i] = fminf(fmaxf(r->ear[e][i], 0.0f), 1.0f);
			}
			r->has_ear[e] = true;
		}
	}
	if (!is_nil(f[4])) {
		if (!dec_rgb(m, "Leds.chest", f[4], r->chest))
			return false;
		r->has_chest = true;
	}
	for (int e = 0; e < 2; e++) {
		if (!is_nil(f[5 + e])) {
			snprintf(w, sizeof(w), "Leds.%s", names[5 + e]);
			if (!dec_rgb(m, w, f[5 + e], r->foot[e]))
				return false;
			r->has_foot[e] = true;
		}
	}
	return true;
}

/* A sample: an integer in i16's range. Names the field only on failure. */
static bool sample_ok(const msgpack_object *o)
{
	return (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT16_MAX) ||
	       (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && o->via.i64 >= INT16_MIN);
}

static bool dec_speaker(struct to_robot *m, const msgpack_object *d)
{
	static const char *const names[] = { "samples" };
	const msgpack_object *f[1];
	char w[48];
	int64_t v;

	/* {"samples": [...]}, or the bare array of a newtype. */
	if (d && d->type == MSGPACK_OBJECT_ARRAY && d->via.array.size &&
	    d->via.array.ptr[0].type != MSGPACK_OBJECT_ARRAY)
		f[0] = d;
	else if (!fields(m, "Speaker", d, names, f, 1))
		return false;
	if (!f[0] || f[0]->type != MSGPACK_OBJECT_ARRAY)
		return fail(m, "Speaker.samples: expected an array of 16-bit samples");
	for (uint32_t i = 0; i < f[0]->via.array.size; i++) {
		if (sample_ok(&f[0]->via.array.ptr[i]))
			continue;
		/* The hot loop formats nothing; the name is built for the error. */
		snprintf(w, sizeof(w), "Speaker.samples[%u]", i);
		get_int(m, w, &f[0]->via.array.ptr[i], INT16_MIN, INT16_MAX, &v);
		return false;
	}
	m->speaker.samples = f[0]->via.array.size;
	return true;
}

/* ---- Speaker, straight from the bytes ------------------------------------ */

/* A container of this type: its count. */
static bool container(struct mp_cursor *c, enum mp_type type, uint32_t *count)
{
	struct mp_value v;

	if (!mp_read(c, &v) || v.type != type)
		return false;
	*count = v.count;
	return true;
}

static bool string_is(struct mp_cursor *c, const char *want)
{
	struct mp_value v;

	return mp_read(c, &v) && v.type == MP_STR && v.len == strlen(want) &&
	       !memcmp(v.data, want, v.len);
}

/* The next value's type, the cursor where it was; false at the end. */
static bool peek(const struct mp_cursor *c, enum mp_type *type)
{
	struct mp_cursor at = *c;
	struct mp_value v;

	if (!mp_read(&at, &v))
		return false;
	*type = v.type;
	return true;
}

/* One sample: 0, 1 when out of range, 2 when not an integer, -1 when cut short. */
static int raw_sample(struct mp_cursor *c, int64_t *v)
{
	struct mp_value x;

	if (!mp_read(c, &x))
		return -1;
	if (x.type == MP_UINT)
		*v = x.u > INT64_MAX ? INT64_MAX : (int64_t)x.u;
	else if (x.type == MP_INT)
		*v = x.i;
	else
		return 2;
	return *v >= INT16_MIN && *v <= INT16_MAX ? 0 : 1;
}

/* The byte walk; out (max samples) takes them when not NULL. */
static int speaker_walk(const uint8_t *p, size_t len, struct to_robot *m, int16_t *out,
			size_t max)
{
	struct mp_cursor c = { p, len };
	enum mp_type next;
	uint32_t n, count;

	if (!container(&c, MP_MAP, &n) || n != 1 || !string_is(&c, "Speaker") ||
	    !peek(&c, &next))
		return -1;
	/* {"samples": [...]}, [[...]] (positional), or the bare array. */
	if (next == MP_MAP) {
		if (!container(&c, MP_MAP, &n) || n != 1 || !string_is(&c, "samples"))
			return -1;
	} else if (next == MP_ARRAY) {
		struct mp_cursor outer = c;

		/* An array of one array is the positional struct. */
		if (container(&outer, MP_ARRAY, &n) && n == 1 && peek(&outer, &next) &&
		    next == MP_ARRAY)
			c = outer;
	}
	if (!container(&c, MP_ARRAY, &count))
		return -1;
	/*
	 * One byte at least per sample: a count the bytes cannot hold is
	 * malformed. No samples: the generic path (tiny, and its own rules).
	 */
	if (!count || count > c.left)
		return -1;
	m->variant[0] = m->error[0] = m->unknown[0] = '\0';
	snprintf(m->variant, sizeof(m->variant), "Speaker");
	m->kind = TR_SPEAKER;
	for (uint32_t i = 0; i < count; i++) {
		int64_t v;
		int r = raw_sample(&c, &v);

		/* Cut short, or another type: the generic path decides. */
		if (r < 0 || r == 2)
			return -1;
		/* The first sample out of range names the error; the rest is still checked. */
		if (r == 1 && !m->error[0])
			fail(m, "Speaker.samples[%u]: %lld is out of range %d..%d", i,
			     (long long)v, INT16_MIN, INT16_MAX);
		else if (out && i < max)
			out[i] = (int16_t)v;
	}
	if (c.left)
		return -1;	/* bytes after the value */
	if (m->error[0])
		return DECODE_INVALID;
	m->speaker.samples = count;
	return DECODE_OK;
}

int codec_decode_speaker(const uint8_t *p, size_t len, struct to_robot *m)
{
	return speaker_walk(p, len, m, NULL, 0);
}

size_t codec_speaker_samples(const uint8_t *p, size_t len, int16_t *out, size_t max)
{
	struct to_robot m;
	msgpack_unpacked u;
	const msgpack_object *arr = NULL, *name, *data;
	size_t off = 0, n = 0;

	if (speaker_walk(p, len, &m, out, max) == DECODE_OK)
		return m.speaker.samples;
	/* The generic path's shapes: the same rules as dec_speaker(). */
	msgpack_unpacked_init(&u);
	if (msgpack_unpack_next(&u, (const char *)p, len, &off) == MSGPACK_UNPACK_SUCCESS &&
	    variant(&u.data, &name, &data) && mp_is_str(name, "Speaker") &&
	    dec_speaker(&m, data)) {
		static const char *const names[] = { "samples" };
		const msgpack_object *f[1];

		if (data && data->type == MSGPACK_OBJECT_ARRAY && data->via.array.size &&
		    data->via.array.ptr[0].type != MSGPACK_OBJECT_ARRAY)
			arr = data;
		else if (fields(&m, "Speaker", data, names, f, 1))
			arr = f[0];
	}
	if (arr) {
		n = arr->via.array.size;
		for (size_t i = 0; i < n && i < max; i++) {
			const msgpack_object *o = &arr->via.array.ptr[i];

			out[i] = (int16_t)(o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ?
					   (int64_t)o->via.u64 : o->via.i64);
		}
	}
	msgpack_unpacked_destroy(&u);
	return n;
}

static bool dec_volume(struct to_robot *m, const msgpack_object *d)
{
	static const char *const names[] = { "percent", "muted" };
	const msgpack_object *f[2];
	int64_t v;

	memset(&m->volume, 0, sizeof(m->volume));
	if (!fields(m, "Volume", d, names, f, 2))
		return false;
	if (!is_nil(f[0])) {
		if (!get_int(m, "Volume.percent", f[0], 0, UINT8_MAX, &v))
			return false;
		m->volume.has_percent = true;
		m->volume.percent = v > 100 ? 100 : (uint8_t)v;
	}
	if (!is_nil(f[1])) {
		if (!get_bool(m, "Volume.muted", f[1], &m->volume.muted))
			return false;
		m->volume.has_muted = true;
	}
	return true;
}

static bool dec_subscribe(struct to_robot *m, const msgpack_object *d)
{
	static const char *const names[] = {
		"state", "cameras", "camera_fps", "microphone", "rate",
	};
	struct subscription *s = &m->subscribe;
	const msgpack_object *f[5];

	memset(s, 0, sizeof(*s));
	if (!fields(m, "Subscribe", d, names, f, 5))
		return false;
	if (!is_nil(f[0]) && !get_bool(m, "Subscribe.state", f[0], &s->state))
		return false;
	if (!is_nil(f[1])) {
		if (f[1]->type != MSGPACK_OBJECT_ARRAY)
			return fail(m, "Subscribe.cameras: expected a list of \"Top\" and \"Bottom\"");
		for (uint32_t i = 0; i < f[1]->via.array.size; i++) {
			const msgpack_object *c = &f[1]->via.array.ptr[i];

			if (mp_is_str(c, "Top"))
				s->cameras[CAMERA_TOP] = true;
			else if (mp_is_str(c, "Bottom"))
				s->cameras[CAMERA_BOTTOM] = true;
			else
				return fail(m, "Subscribe.cameras[%u]: expected \"Top\" or \"Bottom\"", i);
		}
	}
	if (!is_nil(f[2])) {
		if (!get_f32(m, "Subscribe.camera_fps", f[2], &s->camera_fps))
			return false;
		if (s->camera_fps < 0.0f)
			return fail(m, "Subscribe.camera_fps: must not be negative");
	}
	if (!is_nil(f[3]) && !get_bool(m, "Subscribe.microphone", f[3], &s->microphone))
		return false;
	if (!is_nil(f[4])) {
		if (!get_f32(m, "Subscribe.rate", f[4], &s->rate))
			return false;
		if (!(s->rate > 0.0f))
			return fail(m, "Subscribe.rate: must be above 0 (Hz)");
	}
	return true;
}

enum decode_result codec_decode(const msgpack_object *o, struct to_robot *m)
{
	static const struct {
		const char *name;
		enum to_robot_kind kind;
		bool unit;
	} table[] = {
		{ "Hello", TR_HELLO, false },
		{ "Heartbeat", TR_HEARTBEAT, true },
		{ "Power", TR_POWER, false },
		{ "Motion", TR_MOTION, false },
		{ "Leds", TR_LEDS, false },
		{ "Speaker", TR_SPEAKER, false },
		{ "SpeakerClear", TR_SPEAKER_CLEAR, true },
		{ "Volume", TR_VOLUME, false },
		{ "Subscribe", TR_SUBSCRIBE, false },
		{ "Stop", TR_STOP, true },
	};
	const msgpack_object *name, *data;
	unsigned int i;
	bool ok = true;

	m->variant[0] = m->error[0] = m->unknown[0] = '\0';
	if (!variant(o, &name, &data)) {
		fail(m, "expected a ToRobot variant (a string or a one-entry map)");
		return DECODE_UNKNOWN;
	}
	sanitize(m->variant, sizeof(m->variant), name->via.str.ptr, name->via.str.size);
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (mp_is_str(name, table[i].name))
			break;
	if (i == sizeof(table) / sizeof(table[0])) {
		fail(m, "unknown variant \"%s\"", m->variant);
		return DECODE_UNKNOWN;
	}
	m->kind = table[i].kind;
	if (table[i].unit) {
		if (data)
			note_unknown(m, m->variant, "(data of a unit variant)", 24);
		return DECODE_OK;
	}
	switch (m->kind) {
	case TR_HELLO:
		ok = dec_hello(m, data);
		break;
	case TR_POWER:
		ok = dec_power(m, data);
		break;
	case TR_MOTION:
		ok = dec_motion(m, data);
		break;
	case TR_LEDS:
		ok = dec_leds(m, data);
		break;
	case TR_SPEAKER:
		ok = dec_speaker(m, data);
		break;
	case TR_VOLUME:
		ok = dec_volume(m, data);
		break;
	case TR_SUBSCRIBE:
		ok = dec_subscribe(m, data);
		break;
	default:
		break;
	}
	return ok ? DECODE_OK : DECODE_INVALID;
}

/* ---- encoding ------------------------------------------------------------ */

const char *const api_touch_name[API_TOUCHES] = {
	"chest_button", "head_front", "head_middle", "head_rear",
	"left_hand", "right_hand", "left_foot", "right_foot",
};

const char *const api_touch_event[API_TOUCHES] = {
	"ChestButton", "HeadFront", "HeadMiddle", "HeadRear",
	"LeftHand", "RightHand", "LeftFoot", "RightFoot",
};

uint32_t api_touch_bits(const struct nb_sensors *s)
{
	const float *t = s->touch;
	bool v[API_TOUCHES] = {
		t[NAOBODY_TOUCH_CHEST_BUTTON] > 0.5f,
		t[NAOBODY_TOUCH_HEAD_FRONT] > 0.5f,
		t[NAOBODY_TOUCH_HEAD_MIDDLE] > 0.5f,
		t[NAOBODY_TOUCH_HEAD_REAR] > 0.5f,
		t[NAOBODY_TOUCH_L_HAND_BACK] > 0.5f || t[NAOBODY_TOUCH_L_HAND_LEFT] > 0.5f ||
			t[NAOBODY_TOUCH_L_HAND_RIGHT] > 0.5f,
		t[NAOBODY_TOUCH_R_HAND_BACK] > 0.5f || t[NAOBODY_TOUCH_R_HAND_LEFT] > 0.5f ||
			t[NAOBODY_TOUCH_R_HAND_RIGHT] > 0.5f,
		t[NAOBODY_TOUCH_L_FOOT_LEFT] > 0.5f || t[NAOBODY_TOUCH_L_FOOT_RIGHT] > 0.5f,
		t[NAOBODY_TOUCH_R_FOOT_LEFT] > 0.5f || t[NAOBODY_TOUCH_R_FOOT_RIGHT] > 0.5f,
	};
	uint32_t bits = 0;

	for (int i = 0; i < API_TOUCHES; i++)
		bits |= (uint32_t)v[i] << i;
	return bits;
}

static int buf_write(void *data, const char *p, size_t n)
{
	return buf_add(data, p, n) ? -1 : 0;
}

/* A frame: a u32 big-endian length, then one value. */
static size_t frame_begin(struct buf *b, msgpack_packer *pk, int *err)
{
	static const uint8_t zero[4];
	size_t at = b->len;

	msgpack_packer_init(pk, b, buf_write);
	*err |= buf_add(b, zero, 4);
	return at;
}

/* On any error the buffer is as it was before frame_begin. */
static int frame_end(struct buf *b, size_t at, int err)
{
	uint32_t n;

	if (err) {
		b->len = at;
		return -1;
	}
	n = (uint32_t)(b->len - at - 4);
	b->data[at] = n >> 24;
	b->data[at + 1] = n >> 16;
	b->data[at + 2] = n >> 8;
	b->data[at + 3] = n;
	return 0;
}

static int pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = strlen(s);

	return msgpack_pack_str(pk, n) | msgpack_pack_str_body(pk, s, n);
}

static int pack_floats(msgpack_packer *pk, const float *v, size_t n)
{
	int err = msgpack_pack_array(pk, n);

	for (size_t i = 0; i < n; i++)
		err |= msgpack_pack_float(pk, v[i]);
	return err;
}

/* {"Outer": {"Inner": ...}}: the two one-entry maps of an enum in an enum. */
static int pack_tag(msgpack_packer *pk, const char *tag)
{
	return msgpack_pack_map(pk, 1) | pack_str(pk, tag);
}

int codec_hello(struct buf *b, uint32_t version, const char *body_id,
		const char *head_id, bool simulated, bool echo_cancellation)
{
	msgpack_packer pk;
	int err = 0;
	size_t at = frame_begin(b, &pk, &err);

	err |= pack_tag(&pk, "Hello");
	err |= msgpack_pack_map(&pk, 2);
	err |= pack_str(&pk, "version");
	err |= msgpack_pack_uint32(&pk, version);
	err |= pack_str(&pk, "robot");
	err |= msgpack_pack_map(&pk, 4);
	err |= pack_str(&pk, "body_id");
	err |= pack_str(&pk, body_id);
	err |= pack_str(&pk, "head_id");
	err |= pack_str(&pk, head_id);
	err |= pack_str(&pk, "simulated");
	err |= simulated ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
	err |= pack_str(&pk, "echo_cancellation");
	err |= echo_cancellation ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
	return frame_end(b, at, err);
}

static int pack_joints(msgpack_packer *pk, const float *lola)
{
	int err = msgpack_pack_array(pk, API_JOINTS);

	for (int i = 0; i < API_JOINTS; i++)
		err |= msgpack_pack_float(pk, lola[api_joint_lola[i]]);
	return err;
}

static int pack_bool(msgpack_packer *pk, bool v)
{
	return v ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
}

int codec_state(struct buf *b, const struct state_view *v)
{
	const struct nb_sensors *s = v->s;
	uint32_t touch = api_touch_bits(s), hot = 0;
	msgpack_packer pk;
	int err = 0;
	size_t at = frame_begin(b, &pk, &err);

	err |= pack_tag(&pk, "State");
	err |= msgpack_pack_map(&pk, 16);
	err |= pack_str(&pk, "time");
	err |= msgpack_pack_double(&pk, v->time);
	err |= pack_str(&pk, "primary_state");
	err |= pack_str(&pk, v->primary_state);
	err |= pack_str(&pk, "fall_state");
	err |= pack_str(&pk, v->fall_state);
	err |= pack_str(&pk, "motion");
	err |= pack_str(&pk, v->motion);
	/* Beyond the spec (Documentation/naobodyd.rst, "Subscribe and State"). */
	err |= pack_str(&pk, "odometry");
	err |= v->odometry ? pack_floats(&pk, v->odometry, 3) : msgpack_pack_nil(&pk);
	err |= pack_str(&pk, "odometry_uncertainty");
	err |= v->odometry ? msgpack_pack_float(&pk, v->odometry_uncertainty) :
			     msgpack_pack_nil(&pk);
	/* The joints held back by their heat (motion/care.h), the API's names. */
	err |= pack_str(&pk, "hot_joints");
	for (int i = 0; i < API_JOINTS; i++)
		hot += !!(v->hot & (1U << api_joint_lola[i]));
	err |= msgpack_pack_array(&pk, hot);
	for (int i = 0; i < API_JOINTS; i++)
		if (v->hot & (1U << api_joint_lola[i]))
			err |= pack_str(&pk, api_joint_name[i]);

	err |= pack_str(&pk, "battery");
	err |= msgpack_pack_map(&pk, 4);
	err |= pack_str(&pk, "charge");
	err |= msgpack_pack_float(&pk, s->battery[0]);
	err |= pack_str(&pk, "current");
	err |= msgpack_pack_float(&pk, s->battery[2]);
	err |= pack_str(&pk, "temperature");
	err |= msgpack_pack_float(&pk, s->battery[3]);
	err |= pack_str(&pk, "charging");
	err |= pack_bool(&pk, s->battery[2] > 0.0f);

	err |= pack_str(&pk, "imu");
	err |= msgpack_pack_map(&pk, 3);
	err |= pack_str(&pk, "linear_acceleration");
	err |= pack_floats(&pk, s->accelerometer, 3);
	err |= pack_str(&pk, "angular_velocity");
	err |= pack_floats(&pk, s->gyroscope, 3);
	err |= pack_str(&pk, "roll_pitch");
	err |= pack_floats(&pk, s->angles, 2);

	err |= pack_str(&pk, "sonar");
	err |= msgpack_pack_map(&pk, 2);
	err |= pack_str(&pk, "left");
	err |= msgpack_pack_float(&pk, s->sonar[0]);
	err |= pack_str(&pk, "right");
	err |= msgpack_pack_float(&pk, s->sonar[1]);

	err |= pack_str(&pk, "left_foot_pressure");
	err |= pack_floats(&pk, s->fsr, 4);
	err |= pack_str(&pk, "right_foot_pressure");
	err |= pack_floats(&pk, s->fsr + NAOBODY_FSR_RIGHT_FOOT, 4);

	err |= pack_str(&pk, "touch");
	err |= msgpack_pack_map(&pk, API_TOUCHES);
	for (int i = 0; i < API_TOUCHES; i++) {
		err |= pack_str(&pk, api_touch_name[i]);
		err |= pack_bool(&pk, touch & (1U << i));
	}

	err |= pack_str(&pk, "joint_positions");
	err |= pack_joints(&pk, s->position);
	err |= pack_str(&pk, "joint_temperatures");
	err |= pack_joints(&pk, s->temperature);
	err |= pack_str(&pk, "joint_currents");
	err |= pack_joints(&pk, s->current);
	return frame_end(b, at, err);
}

static size_t event_begin(struct buf *b, msgpack_packer *pk, const char *kind,
			  unsigned int fields, int *err)
{
	size_t at = frame_begin(b, pk, err);

	*err |= pack_tag(pk, "Event");
	*err |= pack_tag(pk, kind);
	*err |= msgpack_pack_map(pk, fields);
	return at;
}

int codec_event_touch(struct buf *b, int api_touch, bool pressed)
{
	msgpack_packer pk;
	int err = 0;
	size_t at = event_begin(b, &pk, "Touch", 2, &err);

	err |= pack_str(&pk, "sensor");
	err |= pack_str(&pk, api_touch_event[api_touch]);
	err |= pack_str(&pk, "pressed");
	err |= pack_bool(&pk, pressed);
	return frame_end(b, at, err);
}

int codec_event_fall(struct buf *b, const char *state)
{
	msgpack_packer pk;
	int err = 0;
	size_t at = event_begin(b, &pk, "Fall", 1, &err);

	err |= pack_str(&pk, "state");
	err |= pack_str(&pk, state);
	return frame_end(b, at, err);
}

int codec_microphone(struct buf *b, double time, const int16_t *samples, size_t n)
{
	msgpack_packer pk;
	int err = 0;
	size_t at = frame_begin(b, &pk, &err);

	err |= pack_tag(&pk, "Microphone");
	err |= msgpack_pack_map(&pk, 2);
	err |= pack_str(&pk, "time");
	err |= msgpack_pack_double(&pk, time);
	err |= pack_str(&pk, "samples");
	err |= msgpack_pack_array(&pk, n);
	for (size_t i = 0; i < n; i++)
		err |= msgpack_pack_int16(&pk, samples[i]);
	return frame_end(b, at, err);
}

int codec_event_watchdog(struct buf *b, bool active)
{
	msgpack_packer pk;
	int err = 0;
	size_t at = event_begin(b, &pk, "Watchdog", 1, &err);

	err |= pack_str(&pk, "active");
	err |= pack_bool(&pk, active);
	return frame_end(b, at, err);
}

int codec_event_temperature(struct buf *b, int lola_joint, bool hot, float celsius,
			    float stiffness)
{
	msgpack_packer pk;
	int err = 0;
	size_t at = event_begin(b, &pk, "Temperature", 4, &err);
	const char *name = "";

	/* The API's name of that motor (HipYawPitch: the left one's). */
	for (int i = 0; i < API_JOINTS; i++)
		if (api_joint_lola[i] == lola_joint) {
			name = api_joint_name[i];
			break;
		}
	err |= pack_str(&pk, "joint");
	err |= pack_str(&pk, name);
	err |= pack_str(&pk, "hot");
	err |= pack_bool(&pk, hot);
	err |= pack_str(&pk, "temperature");
	err |= msgpack_pack_float(&pk, celsius);
	err |= pack_str(&pk, "stiffness");
	err |= msgpack_pack_float(&pk, stiffness);
	return frame_end(b, at, err);
}

int codec_image(struct buf *b, const char *camera, double time, uint32_t width,
		uint32_t height, const uint8_t *jpeg, size_t len)
{
	msgpack_packer pk;
	int err = 0;
	size_t at = frame_begin(b, &pk, &err);

	err |= pack_tag(&pk, "Image");
	err |= msgpack_pack_map(&pk, 5);
	err |= pack_str(&pk, "camera");
	err |= pack_str(&pk, camera);
	err |= pack_str(&pk, "time");
	err |= msgpack_pack_double(&pk, time);
	err |= pack_str(&pk, "width");
	err |= msgpack_pack_uint32(&pk, width);
	err |= pack_str(&pk, "height");
	err |= msgpack_pack_uint32(&pk, height);
	err |= pack_str(&pk, "jpeg");
	err |= msgpack_pack_bin(&pk, len) | msgpack_pack_bin_body(&pk, jpeg, len);
	return frame_end(b, at, err);
}

/* ---- errors --------------------------------------------------------------- */

const struct api_error_info api_errors[AERR_COUNT] = {
	[AERR_UNKNOWN_MESSAGE] = { "UnknownMessage", NULL, NULL,
		"%s: this robot does not know that message; it was ignored" },
	[AERR_UNKNOWN_FIELD] = { "UnknownField", NULL, NULL,
		"%s is not a field of that message: the field was ignored, the rest applied" },
	[AERR_BAD_VALUE] = { "BadValue", NULL, NULL, "%s: the message was ignored" },
	[AERR_MALFORMED] = { "Malformed", NULL, NULL, "%s: the connection is closed" },
	[AERR_HANDSHAKE] = { "Handshake", NULL, NULL, "%s: the connection is closed" },
	[AERR_VERSION] = { "Version", NULL, "Hello",
		"%s: the connection is closed (versions lists the versions this robot speaks)" },
	[AERR_STOPPED] = { "Refused", "Stopped", "Power",
		"Wake refused: the death switch is latched; the robot stays limp until it is "
		"rearmed on the robot ('naoctl rearm'), then Wake" },
	[AERR_UNCALIBRATED] = { "Refused", "Uncalibrated", "Power",
		"Wake refused: the body's calibration (its preference block) is not read; "
		"'naoctl status' on the robot says why" },
	[AERR_FALLEN] = { "Refused", "Fallen", "Power",
		"Wake refused: the robot is down and this body has no safe get-up motion; "
		"set it upright, then Wake" },
	[AERR_WALKING_DISABLED] = { "Refused", "WalkingDisabled", "Motion",
		"%s refused: walking is off on this body (the chest board's layout is not "
		"verified on a robot: see naobodyd --robot-motions); the robot stands instead" },
	[AERR_NOT_CONTROLLER] = { "Refused", "NotController", NULL,
		"%s before Hello: this connection is not the controller (say Hello first); "
		"the connection is closed" },
	[AERR_HELLO_AGAIN] = { "Refused", "HelloAgain", "Hello",
		"Hello after the handshake: ignored; this connection is the controller already" },
	[AERR_NO_SPEAKER] = { "Refused", "NoSpeaker", NULL,
		"%s: there is no speaker (the simulated body has none unless --speaker names "
		"one); nothing was played" },
	[AERR_SPEAKER_FULL] = { "Refused", "QueueFull", "Speaker",
		"Speaker: its samples do not fit in what is left of the speaker's queue; none "
		"of them was queued: send it again once the queue has drained" },
	[AERR_NO_MIXER] = { "Refused", "NoMixer", "Volume",
		"Volume: there is no speaker mixer; nothing was changed" },
	[AERR_MIXER_REFUSED] = { "Refused", "MixerRefused", "Volume",
		"Volume: the mixer refused it; nothing was changed" },
	[AERR_NO_MICROPHONES] = { "Refused", "NoMicrophones", "Subscribe",
		"Subscribe: there are no microphones; the subscription is recorded, and no "
		"Microphone message will come" },
	[AERR_LOW_BATTERY] = { "Refused", "LowBattery", "Power",
		"Wake refused: the battery is low; the robot sat down and stays limp until "
		"it is charged above 10 % or on the charger" },
};

static int pack_str_or_nil(msgpack_packer *pk, const char *s)
{
	return s ? pack_str(pk, s) : msgpack_pack_nil(pk);
}

int codec_event_error(struct buf *b, enum api_error e, const char *command,
		      const char *field, const char *detail, uint32_t version,
		      uint32_t suppressed)
{
	const struct api_error_info *info = &api_errors[e];
	char message[400];
	msgpack_packer pk;
	int err = 0;
	size_t at;

	if ((unsigned int)e >= AERR_COUNT)
		return -1;
	/* The table's sentences are the only formats; detail is data. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(message, sizeof(message), info->message, detail ? detail : "");
#pragma GCC diagnostic pop
	at = event_begin(b, &pk, "Error", 7, &err);
	err |= pack_str(&pk, "kind");
	err |= pack_str(&pk, info->kind);
	err |= pack_str(&pk, "reason");
	err |= pack_str_or_nil(&pk, info->reason);
	err |= pack_str(&pk, "command");
	err |= pack_str_or_nil(&pk, info->command ? info->command : command);
	err |= pack_str(&pk, "field");
	err |= pack_str_or_nil(&pk, field && *field ? field : NULL);
	err |= pack_str(&pk, "message");
	err |= pack_str(&pk, message);
	err |= pack_str(&pk, "versions");
	err |= msgpack_pack_array(&pk, 1);
	err |= msgpack_pack_uint32(&pk, version);
	err |= pack_str(&pk, "suppressed");
	err |= msgpack_pack_uint32(&pk, suppressed);
	return frame_end(b, at, err);
}

void codec_error_field(const char *error, char *out, size_t n)
{
	size_t len = strcspn(error, ": ");

	/* A path has no spaces and is followed by ": ". */
	if (!n)
		return;
	if (error[len] != ':' || error[len + 1] != ' ' || !len || len >= n) {
		out[0] = '\0';
		return;
	}
	memcpy(out, error, len);
	out[len] = '\0';
}
