// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer: everything naobodyd parses from a peer. One input is read as
 *   - a robot API frame's body: Speaker's byte walk (codec_decode_speaker(),
 *     which must accept only well-formed values and agree with the generic
 *     decoder), the structural check (libmpread), then, when it passes,
 *     msgpack-c and the robot API decoder (codec.c) and the LoLA actuator
 *     parser (lola_codec.c);
 *   - a LoLA stream: values split by the structural check, each unpacked.
 * The check and msgpack-c must agree: a value the check passes must unpack,
 * to exactly its length.
 */
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>
#include <mpread/mpread.h>

#include "api/api.h"
#include "api/codec.h"
#include "lola/lola.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode(const uint8_t *p, size_t n)
{
	msgpack_unpacked u;
	struct nb_actuators a;
	struct to_robot m;
	size_t off = 0;
	char err[160];

	msgpack_unpacked_init(&u);
	if (msgpack_unpack_next(&u, (const char *)p, n, &off) != MSGPACK_UNPACK_SUCCESS ||
	    off != n)
		abort();	/* the check passed what msgpack-c refuses */
	codec_decode(&u.data, &m);
	memset(&a, 0, sizeof(a));
	lola_apply(&u.data, &a, err, sizeof(err));
	msgpack_unpacked_destroy(&u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
		if (r >= 0 && mp_check(data, size, size, API_MAX_VALUES, &why) == (long)size) {
			struct to_robot g;
			msgpack_unpacked u;
			size_t off = 0;

			msgpack_unpacked_init(&u);
			if (msgpack_unpack_next(&u, (const char *)data, size, &off) ==
			    MSGPACK_UNPACK_SUCCESS && (int)codec_decode(&u.data, &g) != r)
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
	if (size && mp_check(data, size, size, API_MAX_VALUES, &why) == (long)size)
		decode(data, size);

	/* A LoLA stream. */
	while (off < size) {
		n = mp_check(data + off, size - off, LOLA_IN_MAX, 4096, &why);
		if (n <= 0)
			break;
		decode(data + off, (size_t)n);
		off += (size_t)n;
	}
	return 0;
}
