// SPDX-License-Identifier: GPL-2.0-only
/*
 * Misbehaviours on demand. Each is switched on for a number of cycles (or
 * until switched off); a cycle acts on at most one, the first in enum
 * order, and the record of its frame says which. The answer frames are
 * built with the codec; the broken ones are built whole first and then
 * broken in one place, so that only the named fault is wrong:
 *
 *   bad_crc    the CRC's last byte flipped
 *   bad_table  message 0's length table entry off by one, CRC redone
 *   msgs256    as many body messages as fit, then empty messages up to
 *              256 in all (NB_FRAME_UNBOUNDED), CRC valid
 *   overlong   the body, then 4-byte acknowledge messages until the frame
 *              is arg bytes (default in_size + 88); CRC valid. The host's
 *              read fills at in_size and the rest is withdrawn later
 *   short      the answer cut at arg bytes (default half, above 64), a
 *              short packet
 *   no_zlp     the answer padded to a multiple of 64 bytes with one
 *              unknown message, and sent without its zero-length packet
 *
 * The others (stalls, nak, silence, wrong_ack, disconnect, no_prefs,
 * no_version, stall_status, no_ids) act in exchange.c and ep0.c;
 * stall_status queues no answer, as nak, and stalls the 0x15 the host then
 * asks. no_prefs and no_ids leave preference and id string requests
 * unanswered, and no_version stalls the 0x02 version request, for as long
 * as they have cycles left, whatever else acts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emu.h"

int misb_set(struct emu *e, unsigned int m, int cycles, int arg)
{
	if (m == NB_EMU_MISB_NONE || m >= __NB_EMU_MISB_MAX || cycles < -1)
		return -EINVAL;
	e->misb.left[m] = cycles;
	if (!arg && m == NB_EMU_MISB_DISCONNECT)
		arg = 100;	/* ms before binding again */
	e->misb.arg[m] = arg;
	return 0;
}

/* This cycle's misbehaviour, or NB_EMU_MISB_NONE. */
int misb_pick(struct emu *e)
{
	for (int m = NB_EMU_MISB_NONE + 1; m < __NB_EMU_MISB_MAX; m++) {
		if (!e->misb.left[m])
			continue;
		if (e->misb.left[m] > 0)
			e->misb.left[m]--;
		return m;
	}
	return NB_EMU_MISB_NONE;
}

void misb_describe(struct emu *e, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int m = NB_EMU_MISB_NONE + 1; m < __NB_EMU_MISB_MAX && used < len; m++) {
		if (!e->misb.left[m])
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s:%d", used ? "," : "",
					 nb_emu_misb_name((unsigned int)m), e->misb.left[m]);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Redo the CRC of an answer frame (messages and table, CRC last). */
static void reseal(uint8_t *frame, size_t len)
{
	put_be32(frame + len - NB_FRAME_CRC_LEN,
		 nb_crc32(0, frame, len - NB_FRAME_CRC_LEN));
}

static int build(struct emu *e, struct nb_frame_builder *b, unsigned int flags,
		 size_t cap, size_t reserve)
{
	nb_frame_begin(b, e->answer, cap, NB_FRAME_IN | flags);
	exchange_fill(e, b, reserve);
	exchange_pad(e, b);
	return b->err;
}

/*
 * Build this cycle's answer under misbehaviour m into e->answer. Returns
 * its length, or -ENOENT if m doesn't concern the answer's bytes; clears
 * *zlp to send no zero-length packet.
 */
int misb_answer(struct emu *e, int m, bool *zlp)
{
	const size_t in = (size_t)e->opt.in_size;
	struct nb_frame_builder b;
	struct nb_msg_info ack = { .type = NB_MSG_ACK, .board = NB_NO_BOARD,
				   .bus = 2, .address = 9 };
	int n, target;
	size_t pad;
	uint8_t *p;

	switch (m) {
	case NB_EMU_MISB_BAD_CRC:
	case NB_EMU_MISB_BAD_TABLE:
	case NB_EMU_MISB_SHORT:
		build(e, &b, 0, in, 0);
		n = nb_frame_end(&b, NULL);
		if (n < 0)
			return n;
		if (m == NB_EMU_MISB_BAD_CRC) {
			e->answer[n - 1] ^= 0x5a;
		} else if (m == NB_EMU_MISB_BAD_TABLE) {
			/* the table's last byte is the first message's length */
			p = &e->answer[n - NB_FRAME_CRC_LEN - 1];
			*p = *p == 0xff ? 0xfe : *p + 1;
			reseal(e->answer, (size_t)n);
		} else {
			/* above 64 bytes: see EMU_MIN_ANSWER */
			target = e->misb.arg[m] > 0 ? e->misb.arg[m] :
				 n / 2 > EMU_MIN_ANSWER ? n / 2 : EMU_MIN_ANSWER;
			if (target >= n)
				target = n - 1;
			if (target % EMU_PACKET == 0)
				target--;	/* it must end with a short packet */
			n = target > 0 ? target : 1;
			*zlp = false;
		}
		return n;
	case NB_EMU_MISB_MSGS256:
		/* keep room for 256 table entries: the empty messages' too */
		build(e, &b, NB_FRAME_UNBOUNDED, in, 256);
		while (b.count < 256 && nb_frame_add(&b, 0))
			;
		return nb_frame_end(&b, NULL);
	case NB_EMU_MISB_OVERLONG:
		target = e->misb.arg[m] > 0 ? e->misb.arg[m] : (int)in + 88;
		if (target > EMU_IN_BUF)
			target = EMU_IN_BUF;
		build(e, &b, NB_FRAME_UNBOUNDED, EMU_IN_BUF, 0);
		while (b.end + b.count + NB_FRAME_CRC_LEN < (uint32_t)target &&
		       nb_in_msg_encode(&b, &ack, &e->body.now) == 0)
			;
		return nb_frame_end(&b, NULL);
	case NB_EMU_MISB_NO_ZLP:
		build(e, &b, 0, in, 0);
		/* one message of m bytes adds m + 1 (its table entry) */
		n = (int)(b.end + b.count + NB_FRAME_CRC_LEN);
		pad = (size_t)((EMU_PACKET - n % EMU_PACKET) % EMU_PACKET);
		if ((pad && pad < NB_MSG_HDR + 1) || n + (int)pad <= EMU_PACKET)
			pad += EMU_PACKET;
		if (pad) {
			p = nb_frame_add(&b, pad - 1);
			if (p) {
				memset(p, 0, pad - 1);
				p[0] = p[1] = p[2] = 0xff;	/* an unknown kind */
			}
		}
		*zlp = false;
		return nb_frame_end(&b, NULL);
	}
	return -ENOENT;
}
