// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the message decoders of both directions with one message.
 *
 * Invariants: a message that fails to decode leaves the state untouched;
 * one that decodes encodes back to a message that decodes to the same
 * state and the same description, and encoding that again gives the same
 * bytes. A decoder never reports success without a type.
 */
#include <stdint.h>
#include <string.h>

#include "nb_codec.h"
#include "fuzz.h"

/* Encode info from state into a one-message frame; return the message. */
static const uint8_t *encode(uint8_t *buf, bool out_dir,
			     const struct nb_msg_info *info, const void *state,
			     size_t *len)
{
	struct nb_frame_builder b;
	struct nb_msg_iter it;
	struct nb_frame f;
	int n;

	nb_frame_begin(&b, buf, NB_FRAME_MAX,
		       out_dir ? NB_FRAME_OUT : NB_FRAME_IN);
	FZ_ASSERT((out_dir ? nb_out_msg_encode(&b, info, state) :
			     nb_in_msg_encode(&b, info, state)) == 0);
	n = nb_frame_end(&b, NULL);
	FZ_ASSERT(n > 0);
	FZ_ASSERT(nb_frame_parse(&f, buf, n, out_dir ? NB_FRAME_OUT :
						       NB_FRAME_IN) == 0);
	FZ_ASSERT(f.count == 1);
	nb_msg_iter_init(&it, &f);
	return nb_msg_next(&it, len);
}

static int decode(bool out_dir, const uint8_t *m, size_t len, void *state,
		  struct nb_msg_info *info)
{
	return out_dir ? nb_out_msg_decode(m, len, state, info) :
			 nb_in_msg_decode(m, len, state, info);
}

static void one(const uint8_t *msg, size_t size, bool out_dir)
{
	static uint8_t buf1[NB_FRAME_MAX], buf2[NB_FRAME_MAX];
	union {
		struct naobody_sensors s;
		struct naobody_actuators a;
	} st, st2, st3, zero;
	struct nb_msg_info info, info2, info3;
	const uint8_t *m2, *m3;
	size_t l2, l3;
	int r, r2;

	memset(&st, 0, sizeof(st));
	memset(&zero, 0, sizeof(zero));
	r = decode(out_dir, msg, size, &st, &info);
	if (r <= 0) {
		FZ_ASSERT(r < 0);
		FZ_ASSERT(memcmp(&st, &zero, sizeof(st)) == 0);
		return;
	}
	FZ_ASSERT(r < __NB_MSG_MAX);
	FZ_ASSERT(info.type == r);
	FZ_ASSERT(info.board == NB_NO_BOARD || info.board < NB_BOARDS);
	FZ_ASSERT(!info.data || (info.data >= msg &&
				 info.data + info.len <= msg + size));

	m2 = encode(buf1, out_dir, &info, &st, &l2);
	/* the lengths are exact: encoding keeps them */
	FZ_ASSERT(l2 == size);
	memset(&st2, 0, sizeof(st2));
	r2 = decode(out_dir, m2, l2, &st2, &info2);
	FZ_ASSERT(r2 == r);
	FZ_ASSERT(memcmp(&st, &st2, sizeof(st)) == 0);
	FZ_ASSERT(info2.kind == info.kind && info2.bus == info.bus &&
		  info2.address == info.address && info2.board == info.board &&
		  info2.value == info.value && info2.piece == info.piece &&
		  info2.len == info.len);
	FZ_ASSERT(!info.len || memcmp(info.data, info2.data, info.len) == 0);
	/* the header bytes always survive */
	FZ_ASSERT(memcmp(m2, msg, NB_MSG_HDR) == 0);

	m3 = encode(buf2, out_dir, &info2, &st2, &l3);
	FZ_ASSERT(l3 == l2 && memcmp(m2, m3, l2) == 0);
	memset(&st3, 0, sizeof(st3));
	FZ_ASSERT(decode(out_dir, m3, l3, &st3, &info3) == r);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size > NB_MSG_MAX)
		return 0;
	one(data, size, false);
	one(data, size, true);
	return 0;
}
