/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libmpread: MessagePack from a peer, read in one place. naobodyd's robot
 * API and LoLA socket and the LoLA log reader take their bytes through it.
 *
 * The bytes are checked before msgpack-c sees them. msgpack-c's unpacker
 * allocates room for every element of an array or map as soon as it reads
 * the header, before the elements arrive: five bytes that claim 16 million
 * elements cost 400 MB. mp_check() walks a value and allocates nothing; it
 * finds where the value ends (for a stream, which has no framing) and
 * refuses, before any allocation:
 *   - a container that claims more elements than bytes are left,
 *   - a string, binary or extension longer than the bytes left,
 *   - nesting deeper than MP_MAX_DEPTH,
 *   - more than max_values values in all,
 *   - the reserved byte 0xc1.
 * A value that passes is well formed, and unpacking it costs at most about
 * 48 bytes per value. mp_unpack_frame() and mp_unpack_stream() check, then
 * unpack: what a protocol gets is either an object or the reason why not.
 *
 * For the hot paths that must not make an object per element (a Speaker
 * frame's samples), mp_read() walks the raw bytes one value at a time with
 * the same format table as the check.
 *
 * The layout of each format byte is the MessagePack specification's
 * (github.com/msgpack/msgpack/blob/master/spec.md).
 */
#ifndef MPREAD_MPREAD_H
#define MPREAD_MPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#define MP_MAX_DEPTH	16

/*
 * mp_check() - walk one value at the start of data[0..len). limit is the
 * most bytes the value may take (len for a complete frame; the buffer's
 * capacity for a stream). Returns the value's length, 0 when more bytes
 * are needed, or -1 with *why set when the bytes can never form an
 * acceptable value.
 */
long mp_check(const uint8_t *data, size_t len, size_t limit, size_t max_values,
	      const char **why);

/*
 * mp_unpack_frame() - a frame that is exactly one value, data[0..len),
 * of at most max_values values: checked, then unpacked into *u. Returns 0
 * (msgpack_unpacked_destroy(u) when done with it), or -1 with *why set
 * ("truncated value", "bytes after the value", or the check's reason) and
 * nothing to destroy.
 */
int mp_unpack_frame(msgpack_unpacked *u, const uint8_t *data, size_t len, size_t max_values,
		    const char **why);

/*
 * mp_unpack_stream() - the first value of a stream's bytes data[0..len),
 * which may grow to limit bytes, of at most max_values values: checked,
 * then unpacked into *u. Returns the value's length (destroy u when done),
 * 0 when more bytes are needed, or -1 with *why set; nothing to destroy
 * but on success.
 */
long mp_unpack_stream(msgpack_unpacked *u, const uint8_t *data, size_t len, size_t limit,
		      size_t max_values, const char **why);

/* mp_number() flags */
#define MP_BOOL_AS_NUMBER	(1U << 0)	/* true is 1, false 0 */

/*
 * mp_number() - an integer or a float as a double (and a boolean with
 * MP_BOOL_AS_NUMBER). False for any other type. NaN and the infinities are
 * numbers too: whether they are acceptable is the protocol's to say.
 */
bool mp_number(const msgpack_object *o, unsigned int flags, double *v);

/* mp_is_str() - o is the string s (false for NULL or another type). */
bool mp_is_str(const msgpack_object *o, const char *s);

/* ---- the raw bytes, one value at a time --------------------------------- */

enum mp_type {
	MP_NIL, MP_BOOL, MP_UINT, MP_INT, MP_FLOAT, MP_STR, MP_BIN, MP_EXT, MP_ARRAY, MP_MAP,
};

struct mp_cursor {
	const uint8_t *p;
	size_t left;
};

struct mp_value {
	enum mp_type type;
	union {
		bool b;			/* MP_BOOL */
		uint64_t u;		/* MP_UINT: the unsigned formats and positive fixint */
		int64_t i;		/* MP_INT: the signed formats and negative fixint */
		double f;		/* MP_FLOAT */
		uint32_t count;		/* MP_ARRAY: elements; MP_MAP: pairs; they follow */
		struct {
			const uint8_t *data;	/* MP_STR, MP_BIN; MP_EXT: its type byte first */
			uint32_t len;
		};
	};
};

/*
 * mp_read() - the value at the cursor: a scalar whole, a container's
 * header (its elements are the next values), and the cursor past it.
 * False, the cursor where it was, when its bytes are not all there or the
 * byte is the reserved 0xc1. It checks nothing else: a container's count
 * is the peer's word (bound it by c->left before trusting it).
 */
bool mp_read(struct mp_cursor *c, struct mp_value *v);

#endif /* MPREAD_MPREAD_H */
