// SPDX-License-Identifier: GPL-2.0-only
/*
 * The messages between chestboard-emu --physics-host and nb-physics-server
 * (physics_wire.h has the format). Each payload is its table's fields in
 * order, 4 bytes per element: one table line per field.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "physics_wire.h"

struct field {
	size_t offset;		/* in the message's struct */
	size_t count;		/* 4-byte elements */
	bool u32;		/* uint32_t, else float */
};

#define N(type, f)	(sizeof(((type *)0)->f) / 4)
#define REQ(f, u)	{ offsetof(struct physw_request, f), N(struct physw_request, f), u }
#define REP(f, u)	{ offsetof(struct physw_reply, f), N(struct physw_reply, f), u }

static const struct field request_fields[] = {
	REQ(flags, true),
	REQ(seconds, false),
	REQ(target, false),
	REQ(stiffness, false),
	REQ(push, false),
	REQ(hold_height, false),
};

/* struct sim_physics_sense, field by field: a new field is a new line */
static const struct field reply_fields[] = {
	REP(sense.position, false),
	REP(sense.torque, false),
	REP(sense.current, false),
	REP(sense.accelerometer, false),
	REP(sense.gyroscope, false),
	REP(sense.angles, false),
	REP(sense.fsr, false),
	REP(sense.torso_height, false),
	REP(sense.sonar, false),
	REP(sense.touch, true),
	REP(torso, false),
	REP(model_seconds, false),
	REP(cpu_us, true),
	REP(folded, true),
	REP(mass, false),
};

#define TABLE(t)	{ t, sizeof(t) / sizeof(t[0]) }
static const struct {
	const struct field *f;
	size_t n;
} tables[] = {
	[PHYSW_REQUEST] = TABLE(request_fields),
	[PHYSW_REPLY] = TABLE(reply_fields),
};

static bool known(enum physw_type type)
{
	return type == PHYSW_REQUEST || type == PHYSW_REPLY;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

size_t physw_payload_len(enum physw_type type)
{
	size_t len = 0;

	if (!known(type))
		return 0;
	for (size_t i = 0; i < tables[type].n; i++)
		len += 4 * tables[type].f[i].count;
	return len;
}

/* Every float of the struct at base a number: NaN and infinities poison a model. */
static bool finite_fields(enum physw_type type, const void *base)
{
	for (size_t i = 0; i < tables[type].n; i++) {
		const struct field *f = &tables[type].f[i];
		const uint8_t *at = (const uint8_t *)base + f->offset;

		for (size_t k = 0; !f->u32 && k < f->count; k++, at += 4) {
			float v;

			memcpy(&v, at, 4);
			if (!isfinite(v))
				return false;
		}
	}
	return true;
}

/* struct at base <-> payload at p, by the type's table */
static void fields(enum physw_type type, void *base, uint8_t *p, bool out)
{
	for (size_t i = 0; i < tables[type].n; i++) {
		const struct field *f = &tables[type].f[i];
		uint8_t *at = (uint8_t *)base + f->offset;

		for (size_t k = 0; k < f->count; k++, at += 4, p += 4) {
			uint32_t v;

			/* memcpy: the bits of a float or an unaligned u32 */
			if (out) {
				memcpy(&v, at, 4);
				put32(p, v);
			} else {
				v = get32(p);
				memcpy(at, &v, 4);
			}
		}
	}
}

int physw_encode(const struct physw_msg *m, uint8_t *buf, size_t len)
{
	size_t plen = physw_payload_len(m->type);

	if (!plen || len < PHYSW_HEADER + plen)
		return -ENOSPC;
	put32(buf, PHYSW_MAGIC);
	buf[4] = PHYSW_VERSION & 0xff;
	buf[5] = PHYSW_VERSION >> 8;
	buf[6] = (uint8_t)m->type;
	buf[7] = 0;
	put32(buf + 8, (uint32_t)plen);
	put32(buf + 12, m->seq);
	/* fields() reads only, out = true; the cast keeps one walker */
	fields(m->type, (void *)&m->req, buf + PHYSW_HEADER, true);
	return (int)(PHYSW_HEADER + plen);
}

int physw_decode(const uint8_t *buf, size_t len, struct physw_msg *m)
{
	uint32_t plen;
	unsigned int version, type;

	/* the magic as soon as it can be seen: garbage is refused early */
	for (size_t i = 0; i < len && i < 4; i++)
		if (buf[i] != (uint8_t)(PHYSW_MAGIC >> (8 * i)))
			return -EBADMSG;
	if (len < PHYSW_HEADER)
		return 0;
	version = buf[4] | buf[5] << 8;
	type = buf[6] | buf[7] << 8;
	plen = get32(buf + 8);
	if (version != PHYSW_VERSION)
		return -EPROTONOSUPPORT;
	if (plen > PHYSW_MAX_PAYLOAD)
		return -EMSGSIZE;
	if (!known((enum physw_type)type))
		return -EPROTO;
	if (plen != physw_payload_len((enum physw_type)type))
		return -EMSGSIZE;
	if (len < PHYSW_HEADER + plen)
		return 0;
	memset(m, 0, sizeof(*m));
	m->type = (enum physw_type)type;
	m->seq = get32(buf + 12);
	fields(m->type, &m->req, (uint8_t *)buf + PHYSW_HEADER, false);
	if (m->type == PHYSW_REQUEST && (m->req.flags & ~PHYSW_F_ALL))
		return -EPROTO;
	if (!finite_fields(m->type, &m->req))
		return -EDOM;
	return (int)(PHYSW_HEADER + plen);
}

size_t physw_resync(const uint8_t *buf, size_t len)
{
	uint8_t magic[4];

	put32(magic, PHYSW_MAGIC);
	for (size_t i = 1; i < len; i++) {
		size_t n = len - i < 4 ? len - i : 4;

		/* a magic cut by the buffer's end may be one: keep it */
		if (!memcmp(buf + i, magic, n))
			return i;
	}
	return len;
}
