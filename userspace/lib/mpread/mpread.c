// SPDX-License-Identifier: GPL-2.0-only
/*
 * libmpread: a structural check of MessagePack (see mpread.h). The layout
 * of each format byte is from the MessagePack specification.
 */
#include <stdbool.h>

#include <mpread/mpread.h>

static uint64_t be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * The header of the value at p: its header length, the payload bytes that
 * follow it, and the number of child values (for arrays and maps).
 * Returns false for the reserved byte.
 */
static bool header(uint8_t b, unsigned int *hlen, unsigned int *lenbytes,
		   uint64_t *payload, uint64_t *children, unsigned int *child_mul)
{
	*hlen = 1;
	*lenbytes = 0;
	*payload = 0;
	*children = 0;
	*child_mul = 1;
	if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
		return true;	/* fixint, nil, false, true */
	if (b >= 0x80 && b <= 0x8f) {
		*children = b & 0x0f;
		*child_mul = 2;
		return true;
	}
	if (b >= 0x90 && b <= 0x9f) {
		*children = b & 0x0f;
		return true;
	}
	if (b >= 0xa0 && b <= 0xbf) {
		*payload = b & 0x1f;
		return true;
	}
	switch (b) {
	case 0xc4: case 0xd9:				/* bin 8, str 8 */
		*lenbytes = 1;
		return true;
	case 0xc5: case 0xda:				/* bin 16, str 16 */
		*lenbytes = 2;
		return true;
	case 0xc6: case 0xdb:				/* bin 32, str 32 */
		*lenbytes = 4;
		return true;
	case 0xc7:					/* ext 8: len, type */
		*lenbytes = 1;
		*hlen = 2;
		return true;
	case 0xc8:
		*lenbytes = 2;
		*hlen = 2;
		return true;
	case 0xc9:
		*lenbytes = 4;
		*hlen = 2;
		return true;
	case 0xca: *payload = 4; return true;		/* float 32 */
	case 0xcb: *payload = 8; return true;		/* float 64 */
	case 0xcc: case 0xd0: *payload = 1; return true;
	case 0xcd: case 0xd1: *payload = 2; return true;
	case 0xce: case 0xd2: *payload = 4; return true;
	case 0xcf: case 0xd3: *payload = 8; return true;
	case 0xd4: *payload = 2; return true;		/* fixext 1: type + 1 */
	case 0xd5: *payload = 3; return true;
	case 0xd6: *payload = 5; return true;
	case 0xd7: *payload = 9; return true;
	case 0xd8: *payload = 17; return true;
	case 0xdc: *lenbytes = 2; return true;		/* array 16 */
	case 0xdd: *lenbytes = 4; return true;		/* array 32 */
	case 0xde: *lenbytes = 2; *child_mul = 2; return true;	/* map 16 */
	case 0xdf: *lenbytes = 4; *child_mul = 2; return true;	/* map 32 */
	default:
		return false;				/* 0xc1 */
	}
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
		unsigned int hlen, lenbytes, mul;
		uint64_t payload, children;
		uint8_t b;

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
		b = data[pos];
		if (!header(b, &hlen, &lenbytes, &payload, &children, &mul)) {
			*why = "reserved byte 0xc1";
			return -1;
		}
		if (pos + hlen + lenbytes > len)
			return pos + hlen + lenbytes > limit ? (*why = "truncated value", -1) : 0;
		if (lenbytes) {
			uint64_t n = be(data + pos + 1, lenbytes);

			if (b == 0xdc || b == 0xdd || b == 0xde || b == 0xdf)
				children = n;
			else
				payload = n;
		}
		pos += hlen + lenbytes;
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
