// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz frame parsing and every decoder behind it.
 *
 * Input: one mode byte, then a frame. Mode bit 0: give the frame a good
 * CRC first, so the fuzzer reaches the length table and the messages;
 * bit 1: an OUT frame (CRC first) rather than an IN frame.
 *
 * Invariants: a frame that parses has at most 255 messages, all inside
 * its message region, which ends where the table starts and the table
 * where the CRC does; building a frame from its messages gives the same
 * bytes; decoding, re-encoding what was decoded and decoding again gives
 * the same state, and encoding that again gives the same bytes.
 */
#include <stdint.h>
#include <string.h>

#include "nb_codec.h"
#include "fuzz.h"

static uint8_t frame[NB_FRAME_MAX + 8];
static uint8_t again[NB_FRAME_MAX], third[NB_FRAME_MAX];

/* Decode every message of f into state; encode them again into out. */
static int redo(const struct nb_frame *f, bool out_dir, void *state,
		uint8_t *dst, int *decoded)
{
	struct nb_frame_builder b;
	struct nb_msg_info info[NB_FRAME_MAX_MSGS];
	struct nb_msg_iter it;
	const uint8_t *m;
	unsigned int i, n = 0;
	size_t l;
	int r;

	nb_msg_iter_init(&it, f);
	while ((m = nb_msg_next(&it, &l))) {
		r = out_dir ? nb_out_msg_decode(m, l, state, &info[n]) :
			      nb_in_msg_decode(m, l, state, &info[n]);
		FZ_ASSERT(r != 0);
		if (r > 0) {
			FZ_ASSERT(info[n].type == r);
			FZ_ASSERT(!info[n].data ||
				  (info[n].data >= f->msgs &&
				   info[n].data + info[n].len <= m + l));
			n++;
		}
	}
	*decoded = n;
	nb_frame_begin(&b, dst, NB_FRAME_MAX,
		       out_dir ? NB_FRAME_OUT : NB_FRAME_IN);
	for (i = 0; i < n; i++) {
		r = out_dir ? nb_out_msg_encode(&b, &info[i], state) :
			      nb_in_msg_encode(&b, &info[i], state);
		FZ_ASSERT(r == 0);
	}
	return nb_frame_end(&b, NULL);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct naobody_actuators a1, a2;
	struct naobody_sensors s1, s2;
	struct nb_frame_builder b;
	struct nb_frame f, f2;
	struct nb_msg_iter it;
	unsigned int flags, count = 0;
	const uint8_t *m;
	bool out_dir;
	size_t len, l, sum = 0;
	int r, n2, n3, d1, d2;
	uint32_t crc;

	if (size < 1 || size - 1 > sizeof(frame))
		return 0;
	out_dir = data[0] & 2;
	flags = out_dir ? NB_FRAME_OUT : NB_FRAME_IN;
	len = size - 1;
	memcpy(frame, data + 1, len);
	if ((data[0] & 1) && len >= NB_FRAME_CRC_LEN) {
		uint8_t *body = out_dir ? frame + 4 : frame;

		crc = nb_crc32(0, body, len - 4);
		frame[out_dir ? 0 : len - 4] = crc >> 24;
		frame[out_dir ? 1 : len - 3] = crc >> 16;
		frame[out_dir ? 2 : len - 2] = crc >> 8;
		frame[out_dir ? 3 : len - 1] = crc;
	}

	r = nb_frame_parse(&f, frame, len, flags);
	if (r) {
		FZ_ASSERT(r == -EMSGSIZE || r == -EBADMSG || r == -EPROTO);
		return 0;
	}
	FZ_ASSERT(len <= NB_FRAME_MAX);
	FZ_ASSERT(f.count <= NB_FRAME_MAX_MSGS);
	FZ_ASSERT(f.msgs == frame + (out_dir ? 4 : 0));
	FZ_ASSERT(f.msgs_len + f.count + NB_FRAME_CRC_LEN == len);

	/* every message inside the region; rebuilt, the same frame */
	nb_frame_begin(&b, again, sizeof(again), flags);
	nb_msg_iter_init(&it, &f);
	while ((m = nb_msg_next(&it, &l))) {
		FZ_ASSERT(m == f.msgs + sum);
		sum += l;
		FZ_ASSERT(sum <= f.msgs_len);
		FZ_ASSERT(nb_frame_put(&b, m, l) == 0);
		count++;
	}
	FZ_ASSERT(count == f.count);
	FZ_ASSERT(sum == f.msgs_len);
	FZ_ASSERT(nb_frame_end(&b, &crc) == (int)len);
	FZ_ASSERT(crc == f.crc);
	FZ_ASSERT(memcmp(again, frame, len) == 0);

	/* decode, encode what decoded, decode again: the same state */
	memset(&s1, 0, sizeof(s1));
	memset(&a1, 0, sizeof(a1));
	n2 = redo(&f, out_dir, out_dir ? (void *)&a1 : (void *)&s1, again, &d1);
	FZ_ASSERT(n2 > 0);
	FZ_ASSERT(nb_frame_parse(&f2, again, n2, flags) == 0);
	FZ_ASSERT(f2.count == d1);
	memset(&s2, 0, sizeof(s2));
	memset(&a2, 0, sizeof(a2));
	n3 = redo(&f2, out_dir, out_dir ? (void *)&a2 : (void *)&s2, third, &d2);
	FZ_ASSERT(d2 == d1);
	if (out_dir) {
		FZ_ASSERT(memcmp(&a1, &a2, sizeof(a1)) == 0);
	} else {
		/* updated only says which groups; the counts must agree */
		FZ_ASSERT(memcmp(&s1, &s2, sizeof(s1)) == 0);
	}
	/* and a second encoding is byte for byte the first */
	FZ_ASSERT(n3 == n2);
	FZ_ASSERT(memcmp(again, third, n2) == 0);

	/* the whole-frame decoder agrees */
	if (!out_dir) {
		struct nb_in_stats st;

		memset(&s2, 0, sizeof(s2));
		FZ_ASSERT(nb_in_frame_decode(frame, len, &s2, &st) == f.count);
		FZ_ASSERT(st.messages == f.count);
		FZ_ASSERT(st.decoded == d1);
		FZ_ASSERT(st.decoded + st.unknown + st.malformed == f.count);
		FZ_ASSERT(memcmp(&s1, &s2, sizeof(s1)) == 0);
	}
	return 0;
}
