// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chest board frames: the CRC, the length table, parsing and building.
 *
 *   to the board:   [CRC-32, big endian][messages][length table]
 *   from the board: [messages][length table][CRC-32, big endian]
 *
 * Reading the length table (provisional, Documentation/chest-board-protocol.rst
 * "Frames"): each entry is one byte; read backwards from the table's end,
 * the entries are the messages' lengths in order, the first message at
 * offset 0 of the message region. The table ends where the message region
 * meets it: after k entries whose lengths sum to n, the table starts at n
 * and ends at n + k, which must be the end of the region the CRC leaves.
 * Without a 256th entry, a frame that hasn't met by its 255th is rejected,
 * as is one whose lengths jump past the table.
 */
#include "nb_codec.h"
#include "nb_layout.h"

/**
 * nb_crc32() - zlib's CRC-32
 * @crc: 0 to start, or the CRC of the bytes before @buf to continue
 * @buf: the bytes
 * @len: how many
 *
 * Context: any.
 * Return: the CRC-32 of the bytes, as zlib's crc32() computes it.
 */
u32 nb_crc32(u32 crc, const void *buf, size_t len)
{
	return nb_env_crc32(crc, buf, len);
}

/**
 * nb_frame_parse() - check a frame's size, CRC and length table
 * @f: the parsed frame; its pointers point into @buf
 * @buf: the frame
 * @len: its length
 * @flags: NB_FRAME_IN (CRC last) or NB_FRAME_OUT (CRC first), and
 *	NB_FRAME_NO_CRC to skip the CRC check
 *
 * On success every message of @f lies inside the message region, which
 * ends where the table starts, and @f->count is at most 255.
 *
 * Context: any. Reads @len bytes and at most 255 table entries.
 * Return: 0; -EMSGSIZE if @len is below 4 or above NB_FRAME_MAX; -EBADMSG
 * if the CRC does not match; -EPROTO if the table does not add up. @f is
 * only written on success.
 */
int nb_frame_parse(struct nb_frame *f, const void *buf, size_t len,
		   unsigned int flags)
{
	const u8 *p = buf;
	const u8 *body, *t;
	unsigned int n, k;
	int rem;
	u32 crc;

	if (len < NB_FRAME_CRC_LEN || len > NB_FRAME_MAX)
		return -EMSGSIZE;
	n = len - NB_FRAME_CRC_LEN;
	if (flags & NB_FRAME_OUT) {
		crc = get_unaligned_be32(p);
		body = p + NB_FRAME_CRC_LEN;
	} else {
		body = p;
		crc = get_unaligned_be32(p + n);
	}
	if (!(flags & NB_FRAME_NO_CRC) && nb_env_crc32(0, body, n) != crc)
		return -EBADMSG;

	/*
	 * Walk the table back from its end at body + n. rem is what neither
	 * the messages counted so far nor their entries account for: it
	 * must reach exactly 0, within 255 entries. Each entry takes at
	 * least 1 from rem, so rem <= t - body throughout: the walk never
	 * leaves the frame, and ends within n steps.
	 */
	t = body + n;
	rem = n;
	while (rem > 0)
		rem -= *--t + 1;
	k = body + n - t;
	if (rem || k > NB_FRAME_MAX_MSGS)
		return -EPROTO;

	f->msgs = body;
	f->msgs_len = n - k;
	f->count = k;
	f->crc = crc;
	return 0;
}

static unsigned int nb_frame_tail(const struct nb_frame_builder *b)
{
	return b->flags & NB_FRAME_OUT ? 0 : NB_FRAME_CRC_LEN;
}

/**
 * nb_frame_begin() - start building a frame
 * @b: the builder
 * @buf: where the frame goes
 * @cap: the room at @buf; only NB_FRAME_MAX bytes of it are used unless
 *	@flags has NB_FRAME_UNBOUNDED
 * @flags: NB_FRAME_IN or NB_FRAME_OUT, and optionally NB_FRAME_UNBOUNDED
 *
 * Context: any.
 */
void nb_frame_begin(struct nb_frame_builder *b, void *buf, size_t cap,
		    unsigned int flags)
{
	size_t max = flags & NB_FRAME_UNBOUNDED ? 0x10000 : NB_FRAME_MAX;

	b->buf = buf;
	b->cap = cap < max ? cap : max;
	b->flags = flags;
	b->count = 0;
	b->end = flags & NB_FRAME_OUT ? NB_FRAME_CRC_LEN : 0;
	b->err = b->cap < NB_FRAME_CRC_LEN ? -ENOSPC : 0;
}

/**
 * nb_frame_add() - make room for the next message
 * @b: the builder
 * @len: the message's length, at most NB_MSG_MAX
 *
 * The caller writes the message's @len bytes at the pointer returned.
 * A failure is latched: nb_frame_end() reports it and later adds fail.
 *
 * Context: any.
 * Return: where to write the message, or NULL if the frame is full (it
 * already holds 255 messages, or the bytes would not fit) or @len is too
 * long.
 */
u8 *nb_frame_add(struct nb_frame_builder *b, size_t len)
{
	unsigned int tail = nb_frame_tail(b);
	u8 *m;

	if (b->err)
		return NULL;
	if (len > NB_MSG_MAX) {
		b->err = -EMSGSIZE;
		return NULL;
	}
	if ((!(b->flags & NB_FRAME_UNBOUNDED) &&
	     b->count >= NB_FRAME_MAX_MSGS) ||
	    (size_t)b->end + len + b->count + 1 + tail > b->cap) {
		b->err = -ENOSPC;
		return NULL;
	}
	/* Lengths wait at the end, message 0 last, as the table will be. */
	b->buf[b->cap - tail - 1 - b->count] = len;
	m = b->buf + b->end;
	b->end += len;
	b->count++;
	return m;
}

/**
 * nb_frame_put() - add a message by copying it
 * @b: the builder
 * @msg: the message
 * @len: its length
 *
 * Context: any.
 * Return: 0, or the error nb_frame_add() latched.
 */
int nb_frame_put(struct nb_frame_builder *b, const void *msg, size_t len)
{
	u8 *m = nb_frame_add(b, len);

	if (!m)
		return b->err;
	memcpy(m, msg, len);
	return 0;
}

/**
 * nb_frame_end() - write the length table and the CRC
 * @b: the builder; it cannot take more messages afterwards
 * @crc: if not NULL, set to the frame's CRC (what the 0x14 acknowledge
 *	must carry for an OUT frame)
 *
 * Context: any.
 * Return: the frame's length in bytes, or a negative errno latched by an
 * add (-ENOSPC, -EMSGSIZE).
 */
int nb_frame_end(struct nb_frame_builder *b, u32 *crc)
{
	unsigned int tail = nb_frame_tail(b);
	unsigned int start = b->flags & NB_FRAME_OUT ? NB_FRAME_CRC_LEN : 0;
	unsigned int body;
	u32 c;

	if (b->err)
		return b->err;
	memmove(b->buf + b->end, b->buf + b->cap - tail - b->count, b->count);
	body = b->end + b->count - start;
	c = nb_env_crc32(0, b->buf + start, body);
	if (b->flags & NB_FRAME_OUT)
		put_unaligned_be32(c, b->buf);
	else
		put_unaligned_be32(c, b->buf + body);
	if (crc)
		*crc = c;
	b->err = -EINVAL;
	return body + NB_FRAME_CRC_LEN;
}

/**
 * nb_ack_check() - check the 0x14 acknowledge of an OUT frame
 * @ack: the answer
 * @len: its length
 * @crc: the CRC of the frame it acknowledges (from nb_frame_end())
 *
 * Context: any.
 * Return: 0; -EMSGSIZE for a length other than NB_ACK_LEN; -EPROTO if
 * the first byte is not 0x2a; -EBADMSG if it acknowledges another CRC.
 */
int nb_ack_check(const u8 *ack, size_t len, u32 crc)
{
	if (len != NB_ACK_LEN)
		return -EMSGSIZE;
	if (ack[0] != NB_ACK_BYTE)
		return -EPROTO;
	return get_unaligned_be32(ack + 1) == crc ? 0 : -EBADMSG;
}

/**
 * nb_ack_encode() - the 0x14 acknowledge of a frame, for the emulator
 * @ack: NB_ACK_LEN bytes
 * @crc: the frame's CRC
 *
 * Context: any.
 */
void nb_ack_encode(u8 *ack, u32 crc)
{
	ack[0] = NB_ACK_BYTE;
	put_unaligned_be32(crc, ack + 1);
}
