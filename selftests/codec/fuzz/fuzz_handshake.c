// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the motor board handshake answer.
 *
 * Input: a board byte, then the answer. The answer, whatever its length,
 * goes to nb_handshake_parse(); when it is 32 bytes it also travels in a
 * message from that board through the message decoder.
 *
 * Invariants: only a 32-byte answer parses; the parsed fields are the
 * configuration's bytes; encoding the parsed board gives the answer back.
 */
#include <stdint.h>
#include <string.h>

#include "nb_codec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	uint8_t msg[NB_MSG_HDR + NB_HANDSHAKE_LEN], again[NB_HANDSHAKE_LEN];
	struct naobody_board bo, bo2, zero;
	const struct nb_board_desc *bd;
	struct naobody_sensors s;
	struct nb_msg_info info;
	const uint8_t *ans;
	size_t len;
	int r;

	if (size < 1)
		return 0;
	bd = nb_board(data[0] % NB_BOARDS);
	ans = data + 1;
	len = size - 1;

	memset(&bo, 0, sizeof(bo));
	memset(&zero, 0, sizeof(zero));
	r = nb_handshake_parse(ans, len, &bo);
	if (len != NB_HANDSHAKE_LEN) {
		FZ_ASSERT(r == -EMSGSIZE);
		FZ_ASSERT(memcmp(&bo, &zero, sizeof(bo)) == 0);
		return 0;
	}
	FZ_ASSERT(r == 0);
	FZ_ASSERT(memcmp(bo.status, ans, 16) == 0);
	FZ_ASSERT(memcmp(bo.config, ans + 16, 16) == 0);
	FZ_ASSERT(bo.serial == ((uint32_t)ans[16] << 24 | ans[17] << 16 |
				ans[18] << 8 | ans[19]));
	nb_handshake_encode(&bo, again);
	FZ_ASSERT(memcmp(again, ans, NB_HANDSHAKE_LEN) == 0);

	/* through the message decoder, from the board */
	msg[0] = 0x02;
	msg[1] = bd->bus;
	msg[2] = bd->address;
	memcpy(msg + NB_MSG_HDR, ans, NB_HANDSHAKE_LEN);
	memset(&s, 0, sizeof(s));
	FZ_ASSERT(nb_in_msg_decode(msg, sizeof(msg), &s, &info) ==
		  NB_MSG_HANDSHAKE);
	FZ_ASSERT(nb_board(info.board) == bd);
	FZ_ASSERT(info.data == msg + NB_MSG_HDR && info.len == NB_HANDSHAKE_LEN);
	/* a handshake answer sets no sensor */
	FZ_ASSERT(s.updated == 0);
	memset(&bo2, 0, sizeof(bo2));
	FZ_ASSERT(nb_handshake_parse(info.data, info.len, &bo2) == 0);
	FZ_ASSERT(memcmp(&bo, &bo2, sizeof(bo)) == 0);
	return 0;
}
