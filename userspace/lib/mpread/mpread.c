// SPDX-License-Identifier: GPL-2.0-only
/*
 * libmpread: MessagePack from a peer (see mpread.h). One table of the
 * format bytes serves the check and the raw walk.
 */
#include <errno.h>
#include <string.h>

#include <mpread/mpread.h>

/*
 * A format byte's layout: its type; lenbytes of big-endian length (of a
 * string, binary or extension) or count (of an array's elements, a map's
 * pairs) after it; ext, 1 when an extension's type byte follows those;
 * else n, the fixed payload (scalars, fixext with its type byte) or count.
 */
struct format {
	uint8_t type;		/* enum mp_type */
	uint8_t lenbytes;
	uint8_t ext;
	uint8_t n;
};

#define F(t, l, x, n)	{ MP_##t, l, x, n }

/* 0xc0 to 0xdf; 0xc1 is reserved (type 0xff). */
static const struct format formats[32] = {
	F(NIL, 0, 0, 0), { 0xff, 0, 0, 0 }, F(BOOL, 0, 0, 0), F(BOOL, 0, 0, 0),
	F(BIN, 1, 0, 0), F(BIN, 2, 0, 0), F(BIN, 4, 0, 0),			/* bin 8..32 */
	F(EXT, 1, 1, 0), F(EXT, 2, 1, 0), F(EXT, 4, 1, 0),			/* ext 8..32 */
	F(FLOAT, 0, 0, 4), F(FLOAT, 0, 0, 8),
	F(UINT, 0, 0, 1), F(UINT, 0, 0, 2), F(UINT, 0, 0, 4), F(UINT, 0, 0, 8),
	F(INT, 0, 0, 1), F(INT, 0, 0, 2), F(INT, 0, 0, 4), F(INT, 0, 0, 8),
	F(EXT, 0, 0, 2), F(EXT, 0, 0, 3), F(EXT, 0, 0, 5), F(EXT, 0, 0, 9),	/* fixext 1..16 */
	F(EXT, 0, 0, 17),
	F(STR, 1, 0, 0), F(STR, 2, 0, 0), F(STR, 4, 0, 0),			/* str 8..32 */
	F(ARRAY, 2, 0, 0), F(ARRAY, 4, 0, 0), F(MAP, 2, 0, 0), F(MAP, 4, 0, 0),
};

/* False for the reserved byte. */
static bool format(uint8_t b, struct format *f)
{
	if (b <= 0x7f)
		*f = (struct format)F(UINT, 0, 0, 0);		/* positive fixint */
	else if (b >= 0xe0)
		*f = (struct format)F(INT, 0, 0, 0);		/* negative fixint */
	else if (b <= 0x8f)
		*f = (struct format)F(MAP, 0, 0, b & 0x0f);
	else if (b <= 0x9f)
		*f = (struct format)F(ARRAY, 0, 0, b & 0x0f);
	else if (b <= 0xbf)
		*f = (struct format)F(STR, 0, 0, b & 0x1f);
	else
		*f = formats[b - 0xc0];
	return f->type != 0xff;
}

static bool container(const struct format *f)
{
	return f->type == MP_ARRAY || f->type == MP_MAP;
}

static uint64_t be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

long mp_check(const uint8_t *data, size_t len, size_t limit, size_t max_values,
	      const char **why)
{
	/* Values still to read at each open level; level 0 is the top. */
	uint64_t left[MP_MAX_DEPTH + 1];
	unsigned int depth = 0;
	size_t pos = 0, values = 0;

	if (limit < len)
		limit = len;
	left[0] = 1;
	for (;;) {
		uint64_t n, payload = 0, children = 0;
		unsigned int head, mul;
		struct format f;

		while (depth > 0 && left[depth] == 0)
			depth--;
		if (depth == 0 && left[0] == 0)
			return (long)pos;
		left[depth]--;

		if (++values > max_values) {
			*why = "too many values";
			return -1;
		}
		if (pos >= len)
			return 0;
		if (!format(data[pos], &f)) {
			*why = "reserved byte 0xc1";
			return -1;
		}
		head = 1 + f.lenbytes + f.ext;
		if (pos + head > len)
			return pos + head > limit ? (*why = "truncated value", -1) : 0;
		n = f.lenbytes ? be(data + pos + 1, f.lenbytes) : f.n;
		mul = f.type == MP_MAP ? 2 : 1;
		if (container(&f))
			children = n;
		else
			payload = n;
		pos += head;
		/* Every child takes at least one byte. */
		if (payload > limit - pos || children > (limit - pos) / mul) {
			*why = children ? "container longer than the data" :
					  "value longer than the data";
			return -1;
		}
		if (payload) {
			if (pos + payload > len)
				return 0;
			pos += payload;
		}
		if (children) {
			if (depth == MP_MAX_DEPTH) {
				*why = "nested too deeply";
				return -1;
			}
			left[++depth] = children * mul;
		}
	}
}

/* n checked bytes, unpacked whole by msgpack-c. */
static int unpack(msgpack_unpacked *u, const uint8_t *data, size_t n, const char **why)
{
	size_t off = 0;

	msgpack_unpacked_init(u);
	if (msgpack_unpack_next(u, (const char *)data, n, &off) != MSGPACK_UNPACK_SUCCESS ||
	    off != n) {
		msgpack_unpacked_destroy(u);
		*why = "msgpack-c refused it";
		return -1;
	}
	return 0;
}

int mp_unpack_frame(msgpack_unpacked *u, const uint8_t *data, size_t len, size_t max_values,
		    const char **why)
{
	long n = mp_check(data, len, len, max_values, why);

	if (n != (long)len) {
		if (n > 0)
			*why = "bytes after the value";
		else if (n == 0)
			*why = "truncated value";
		return -1;
	}
	return unpack(u, data, len, why);
}

long mp_unpack_stream(msgpack_unpacked *u, const uint8_t *data, size_t len, size_t limit,
		      size_t max_values, const char **why)
{
	long n = mp_check(data, len, limit, max_values, why);

	if (n <= 0)
		return n;
	return unpack(u, data, (size_t)n, why) ? -1 : n;
}

bool mp_number(const msgpack_object *o, unsigned int flags, double *v)
{
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64:
		*v = o->via.f64;
		return true;
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		*v = (double)o->via.u64;
		return true;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		*v = (double)o->via.i64;
		return true;
	case MSGPACK_OBJECT_BOOLEAN:
		*v = o->via.boolean;
		return flags & MP_BOOL_AS_NUMBER;
	default:
		return false;
	}
}

bool mp_is_str(const msgpack_object *o, const char *s)
{
	size_t n = strlen(s);

	return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
	       !memcmp(o->via.str.ptr, s, n);
}

/* A signed value of n big-endian bytes. */
static int64_t be_signed(const uint8_t *p, unsigned int n)
{
	uint64_t u = be(p, n);

	if (n < 8 && (u >> (8 * n - 1)) & 1)
		u |= ~0ULL << (8 * n);
	return (int64_t)u;
}

static double be_float(const uint8_t *p, unsigned int n)
{
	uint64_t bits = be(p, n);
	uint32_t b32 = (uint32_t)bits;
	float f;
	double d;

	if (n == 4) {
		memcpy(&f, &b32, sizeof(f));
		return f;
	}
	memcpy(&d, &bits, sizeof(d));
	return d;
}

bool mp_read(struct mp_cursor *c, struct mp_value *v)
{
	const uint8_t *p = c->p;
	unsigned int head;
	struct format f;
	uint64_t n;

	if (!c->left || !format(*p, &f))
		return false;
	head = 1 + f.lenbytes + f.ext;
	if (head > c->left)
		return false;
	n = f.lenbytes ? be(p + 1, f.lenbytes) : f.n;
	v->type = (enum mp_type)f.type;
	if (container(&f)) {
		v->count = (uint32_t)n;
		n = 0;			/* the elements are the next values */
	} else if (n > c->left - head) {
		return false;
	}
	switch (v->type) {
	case MP_BOOL:
		v->b = *p == 0xc3;
		break;
	case MP_UINT:
		v->u = *p <= 0x7f ? *p : be(p + 1, (unsigned int)n);
		break;
	case MP_INT:
		v->i = *p >= 0xe0 ? (int8_t)*p : be_signed(p + 1, (unsigned int)n);
		break;
	case MP_FLOAT:
		v->f = be_float(p + 1, (unsigned int)n);
		break;
	case MP_STR:
	case MP_BIN:
	case MP_EXT:
		/* An ext's type byte is the last of its head, or its payload's first. */
		v->data = p + head - f.ext;
		v->len = (uint32_t)(n + f.ext);
		break;
	default:
		break;
	}
	c->p += head + n;
	c->left -= head + n;
	return true;
}
