// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer: everything naobodyd parses from a peer, and libmpread, the
 * MessagePack layer it parses it with. One input is read as
 *   - a robot API frame's body: Speaker's byte walk (codec_decode_speaker(),
 *     on mp_read(); it must accept only well-formed values and agree with
 *     the generic decoder), then mp_unpack_frame() and, when it passes, the
 *     robot API decoder (codec.c) and the LoLA actuator parser
 *     (lola_codec.c);
 *   - a LoLA stream: values split and unpacked by mp_unpack_stream().
 * The layer's two walks must agree: a value mp_check() passes must unpack
 * with msgpack-c to exactly its length, and mp_read() must step over it
 * value by value to that same length.
 */
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>
#include <mpread/mpread.h>

#include "api/api.h"
#include "api/codec.h"
#include "lola/lola.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Step over one value and its elements with mp_read(); false if it cannot. */
static bool skip(struct mp_cursor *c, unsigned int depth)
{
	struct mp_value v;
	uint64_t elements;

	if (depth > MP_MAX_DEPTH || !mp_read(c, &v))
		return false;
	if (v.type != MP_ARRAY && v.type != MP_MAP)
		return true;
	elements = (uint64_t)v.count * (v.type == MP_MAP ? 2 : 1);
	for (uint64_t i = 0; i < elements; i++)
		if (!skip(c, depth + 1))
			return false;
	return true;
}

/* A value mp_check() passed, n bytes: mp_read() walks exactly those. */
static void walk(const uint8_t *p, size_t n)
{
	struct mp_cursor c = { p, n };

	if (!skip(&c, 0) || c.left)
		abort();
}

/* A value unpacked: what the robot API and LoLA make of it. */
static void decode(const msgpack_object *o)
{
	struct nb_actuators a;
	struct to_robot m;
	char err[160];

	codec_decode(o, &m);
	memset(&a, 0, sizeof(a));
	lola_apply(o, &a, err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	msgpack_unpacked u;
	const char *why;
	size_t off = 0;
	long n;

	/* A frame: Speaker's byte walk, then the generic path. */
	if (size) {
		struct to_robot m;
		int r = codec_decode_speaker(data, size, &m);

		/* What the walk accepts is well formed (any number of values). */
		if (r >= 0 && mp_check(data, size, size, size, &why) != (long)size)
			abort();
		/* And, within the values limit, the generic path agrees. */
		if (r >= 0 && !mp_unpack_frame(&u, data, size, API_MAX_VALUES, &why)) {
			struct to_robot g;

			if ((int)codec_decode(&u.data, &g) != r)
				abort();
			msgpack_unpacked_destroy(&u);
		}
		/* The samples the head's queue gets: as many as the walk counted. */
		if (r == DECODE_OK) {
			int16_t pcm[64];

			if (codec_speaker_samples(data, size, pcm, 64) != m.speaker.samples)
				abort();
		}
	}
	/* A frame the check passes unpacks, whole, and mp_read() agrees. */
	n = mp_check(data, size, size, API_MAX_VALUES, &why);
	if (size && n == (long)size) {
		if (mp_unpack_frame(&u, data, size, API_MAX_VALUES, &why))
			abort();	/* the check passed what msgpack-c refuses */
		walk(data, size);
		decode(&u.data);
		msgpack_unpacked_destroy(&u);
	}

	/* A LoLA stream. */
	while (off < size) {
		n = mp_unpack_stream(&u, data + off, size - off, LOLA_IN_MAX, 4096, &why);
		if (n <= 0)
			break;
		walk(data + off, (size_t)n);
		decode(&u.data);
		msgpack_unpacked_destroy(&u);
		off += (size_t)n;
	}
	return 0;
}
