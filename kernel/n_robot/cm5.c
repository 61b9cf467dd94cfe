// SPDX-License-Identifier: GPL-2.0-only
/*
 * CM-5 (BRBrain firmware) framing.
 *
 * Packets have no sync byte and no length field: instruction, data, and the
 * inverse of the byte sum. Replies are told apart by their instruction byte
 * alone. STATUS (0xFA) is 7 bytes; the length of DATA (0xFB) follows from the
 * read format, which the host set with a SET_READ_FORMAT (0xF1) packet.
 *
 * Firmware traps guarded here (Documentation/n_robot.rst has the details):
 *  - the firmware executes a packet with a bad checksum and only reports it,
 *    so no packet with a bad checksum is sent;
 *  - a READ_DATA whose checksum never follows makes it stream 0xFF forever,
 *    so F3 goes out only as the two-byte packet (the ldisc writes it whole);
 *  - its receive buffer is 128 bytes, so no longer packet is sent, but for
 *    a WRITE_DATA of up to 130 (see N_ROBOT_CM5_MAX_TX_FRAME);
 *  - it does not check write formats for read-only registers, so we do;
 *  - a format it rejects leaves the rest of the packet to be parsed as new
 *    instructions, so formats are checked against its bounds first.
 */
#include "cm5.h"

/* Read-only register addresses (bit n = address n), per model. */
#define RO(a)		(1ULL << (a))
#define RO2(a)		(3ULL << (a))
static const u64 cm5_ro_mask[] = {
	[N_ROBOT_CM5_MODEL_AX12] = RO2(0) | RO(2) | RO2(20) | RO2(22) |
		RO2(36) | RO2(38) | RO2(40) | RO(42) | RO(43) | RO(46) | RO(54),
	[N_ROBOT_CM5_MODEL_AXS1] = RO2(0) | RO(2) | RO(26) | RO(27) | RO(28) |
		RO(29) | RO(30) | RO(31) | RO(32) | RO(33) | RO(42) | RO(43) |
		RO(46) | RO2(48) | RO(54),
	[N_ROBOT_CM5_MODEL_OTHER] = RO2(0) | RO(2) | RO(42) | RO(43) | RO(46) |
		RO(54),
};

u8 cm5_checksum(const u8 *p, size_t n)
{
	u8 sum = 0;

	while (n--)
		sum += *p++;
	return (u8)~sum;
}

bool cm5_read_only(u8 model, u32 addr)
{
	if (model >= ARRAY_SIZE(cm5_ro_mask) ||
	    addr >= N_ROBOT_CM5_NUM_REG_BYTES)
		return true;
	return cm5_ro_mask[model] & (1ULL << addr);
}

u32 cm5_format_bytes(const struct cm5_format *fmt)
{
	u32 i, total = 0;

	for (i = 0; i < fmt->count && i < N_ROBOT_CM5_MAX_DYNAMIXELS; i++)
		total += fmt->entry[i].num;
	return total;
}

static bool cm5_is_start(u8 b)
{
	return b == N_ROBOT_CM5_STATUS || b == N_ROBOT_CM5_DATA;
}

static enum nrf_verdict cm5_check(struct nrf *f, const u8 *c, u32 n,
				  u32 need, u32 *arg)
{
	u32 len = need;
	u8 sum;

	if (!len) {
		/* A fresh candidate: its length is fixed now, so a format
		 * change cannot cut a reply already on its way.
		 */
		len = N_ROBOT_CM5_STATUS_LEN;
		if (c[0] == N_ROBOT_CM5_DATA)
			len += f->cm5.data_len;
	}
	if (n < len) {
		*arg = len;
		return NRF_NEED;
	}
	sum = nrf_sum(f, c, len - 1);
	if ((u8)(sum + c[len - 1]) != 0xFF) {
		*arg = NRF_CHECKSUM;
		return NRF_BAD;
	}
	*arg = len;
	return NRF_FRAME;
}

static void cm5_frame_seen(struct nrf *f, const u8 *c, u32 len)
{
	if (f->cm5.outstanding)
		f->cm5.outstanding--;
	else if (c[0] == N_ROBOT_CM5_STATUS)
		f->cnt.cm5_unsolicited++;
	if (f->cm5.answer_in && !--f->cm5.answer_in) {
		/* the answer to the last F1/F2: "the read format will be
		 * indeterminate until it is successfully re-set"
		 */
		if (c[0] == N_ROBOT_CM5_STATUS && c[1] == 0)
			f->cm5.fmt_unknown &= ~(1U << f->cm5.answer_which);
		else
			f->cnt.cm5_formats_lost++;
	}
}

const struct nrf_proto cm5_proto = {
	.name = "cm5",
	.max_frame = N_ROBOT_CM5_MAX_FRAME,
	.want_sums = true,
	.is_start = cm5_is_start,
	.check = cm5_check,
	.frame_seen = cm5_frame_seen,
};

void cm5_state_init(struct cm5_state *s, struct nrf *rx)
{
	memset(s, 0, sizeof(*s));
	memset(&rx->cm5, 0, sizeof(rx->cm5));
}

/* Validate a format without changing anything. */
static int cm5_check_format(const struct cm5_state *s, u32 which,
			    const struct n_robot_cm5_entry *entry, u32 count)
{
	u32 i, a, total = 0;

	if (which > N_ROBOT_CM5_FORMAT_WRITE ||
	    count > N_ROBOT_CM5_MAX_DYNAMIXELS)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		const struct n_robot_cm5_entry *e = &entry[i];

		if (e->id > N_ROBOT_CM5_MAX_ID || e->pad ||
		    e->start >= N_ROBOT_CM5_NUM_REG_BYTES ||
		    e->num > N_ROBOT_CM5_NUM_REG_BYTES - e->start)
			return -EINVAL;
		total += e->num;
	}
	if (which != N_ROBOT_CM5_FORMAT_WRITE)
		return 0;
	/* The WRITE_DATA this format implies must fit the firmware's buffer. */
	if (total + 2 > N_ROBOT_CM5_MAX_TX_FRAME)
		return -EMSGSIZE;
	for (i = 0; i < count; i++) {
		const struct n_robot_cm5_entry *e = &entry[i];

		for (a = e->start; a < (u32)e->start + e->num; a++)
			if (cm5_read_only(s->model[e->id], a))
				return -EACCES;
	}
	return 0;
}

int cm5_set_format(struct cm5_state *s, struct nrf *rx, u32 which,
		   const struct n_robot_cm5_entry *entry, u32 count)
{
	struct cm5_format *fmt;
	int ret;

	ret = cm5_check_format(s, which, entry, count);
	if (ret)
		return ret;
	fmt = &s->fmt[which];
	memset(fmt, 0, sizeof(*fmt));
	memcpy(fmt->entry, entry, count * sizeof(*entry));
	fmt->count = count;
	if (which == N_ROBOT_CM5_FORMAT_READ)
		rx->cm5.data_len = cm5_format_bytes(fmt);
	/* told, not sent: the caller vouches for the firmware's side */
	rx->cm5.fmt_unknown &= ~(1U << which);
	if (rx->cm5.answer_in && rx->cm5.answer_which == which)
		rx->cm5.answer_in = 0;
	return 0;
}

/* Unpack the entries of a 0xF1/0xF2 packet, whose length is checked. */
static u32 cm5_unpack_format(const u8 *p, struct n_robot_cm5_entry *entry)
{
	u32 i, count = p[1];

	for (i = 0; i < count && i < N_ROBOT_CM5_MAX_DYNAMIXELS; i++) {
		entry[i].id = p[2 + 3 * i];
		entry[i].start = p[3 + 3 * i];
		entry[i].num = p[4 + 3 * i];
		entry[i].pad = 0;
	}
	return i;
}

int cm5_tx_check(const struct cm5_state *s, const u8 *p, size_t len)
{
	struct n_robot_cm5_entry entry[N_ROBOT_CM5_MAX_DYNAMIXELS];
	u32 count;
	int ret;

	if (len < 2)
		return -EINVAL;
	switch (p[0]) {
	case N_ROBOT_CM5_PING:
		if (len != 3)
			return -EINVAL;
		if (p[1] > N_ROBOT_CM5_MAX_ID && p[1] != N_ROBOT_CM5_PING_CM5)
			return -EINVAL;
		break;
	case N_ROBOT_CM5_SET_READ:
	case N_ROBOT_CM5_SET_WRITE:
		if (len < 3 || p[1] > N_ROBOT_CM5_MAX_DYNAMIXELS ||
		    len != 3 + 3 * (size_t)p[1])
			return -EINVAL;
		break;
	case N_ROBOT_CM5_READ_DATA:
		if (len != 2)
			return -EINVAL;
		break;
	case N_ROBOT_CM5_WRITE_DATA:
		if (len > N_ROBOT_CM5_MAX_TX_FRAME)
			return -EMSGSIZE;
		if (len != 2 + cm5_format_bytes(&s->fmt[N_ROBOT_CM5_FORMAT_WRITE]))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (len > N_ROBOT_CM5_MAX_TX_FRAME)
		return -EMSGSIZE;
	if (cm5_checksum(p, len - 1) != p[len - 1])
		return -EBADMSG;
	if (p[0] == N_ROBOT_CM5_SET_READ || p[0] == N_ROBOT_CM5_SET_WRITE) {
		count = cm5_unpack_format(p, entry);
		ret = cm5_check_format(s, p[0] == N_ROBOT_CM5_SET_READ ?
				       N_ROBOT_CM5_FORMAT_READ :
				       N_ROBOT_CM5_FORMAT_WRITE, entry, count);
		if (ret)
			return ret;
	}
	return 0;
}

int cm5_tx_ready(const struct nrf *rx, const u8 *p, size_t len)
{
	if (len && p[0] == N_ROBOT_CM5_READ_DATA &&
	    rx->cm5.fmt_unknown & (1U << N_ROBOT_CM5_FORMAT_READ))
		return -ESTALE;
	if (len && p[0] == N_ROBOT_CM5_WRITE_DATA &&
	    rx->cm5.fmt_unknown & (1U << N_ROBOT_CM5_FORMAT_WRITE))
		return -ESTALE;
	return 0;
}

void cm5_tx_commit(struct cm5_state *s, struct nrf *rx, const u8 *p,
		   size_t len)
{
	struct n_robot_cm5_entry entry[N_ROBOT_CM5_MAX_DYNAMIXELS];
	u32 count, which;

	/*
	 * A request while an F1/F2 is unanswered: that answer is taken as
	 * lost (strict request and reply, as libcm5 and BRBrain do), so its
	 * format stays unknown and a later STATUS cannot vouch for it.
	 */
	if (rx->cm5.answer_in) {
		rx->cm5.answer_in = 0;
		rx->cnt.cm5_formats_lost++;
	}
	if (len >= 3 && (p[0] == N_ROBOT_CM5_SET_READ ||
			 p[0] == N_ROBOT_CM5_SET_WRITE)) {
		which = p[0] == N_ROBOT_CM5_SET_READ ? N_ROBOT_CM5_FORMAT_READ :
						       N_ROBOT_CM5_FORMAT_WRITE;
		count = cm5_unpack_format(p, entry);
		cm5_set_format(s, rx, which, entry, count);
		/* framed with it from now on, but unknown until answered */
		rx->cm5.fmt_unknown |= 1U << which;
		rx->cm5.answer_which = (u8)which;
		rx->cm5.answer_in = rx->cm5.outstanding + 1;
	}
	/* Every packet gets exactly one reply; bound the count anyway. */
	if (rx->cm5.outstanding < 255)
		rx->cm5.outstanding++;
}
