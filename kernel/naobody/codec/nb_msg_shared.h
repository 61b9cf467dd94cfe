/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the two halves of the message codec share:
 *
 *   nb_msg.c      the driver's side, in naobody.ko and userspace: decode
 *                 the board's answers, encode the commands, the handshake
 *                 answer's parser, the tables' accessors
 *   nb_msg_emu.c  the emulator's and the tools' side, userspace only:
 *                 encode answers (and a whole body), decode commands,
 *                 encode the handshake answer
 *
 * Every offset, width and signedness comes from nb_layout.h's tables,
 * compiled into each file that includes this. The field accessors below
 * are always inlined with a constant field id, so the compiler folds each
 * table lookup into a constant: table-driven source, hand-written speed.
 */
#ifndef _NB_MSG_SHARED_H
#define _NB_MSG_SHARED_H

#include "nb_codec.h"
#define NB_LAYOUT_TABLES
#include "nb_layout.h"

static __always_inline s32 nb_get(const u8 *m, unsigned int id, unsigned int j)
{
	const struct nb_field *f = &nb_fields[id];
	const u8 *p = m + f->offset + j * f->stride;

	if (f->width == 1)
		return f->flags & NB_FIELD_SIGNED ? (s8)p[0] : p[0];
	if (f->width == 2)
		return f->flags & NB_FIELD_SIGNED ?
			(s16)get_unaligned_be16(p) : get_unaligned_be16(p);
	return (s32)get_unaligned_be32(p);
}

/* Store v, clamped to what the field can carry. */
static __always_inline void nb_put(u8 *m, unsigned int id, unsigned int j,
				   s64 v)
{
	const struct nb_field *f = &nb_fields[id];
	u8 *p = m + f->offset + j * f->stride;
	bool sgn = f->flags & NB_FIELD_SIGNED;
	s64 lo, hi;

	if (f->width == 1) {
		lo = sgn ? -128 : 0;
		hi = sgn ? 127 : 255;
	} else if (f->width == 2) {
		lo = sgn ? -32768 : 0;
		hi = sgn ? 32767 : 65535;
	} else {
		lo = sgn ? -2147483648LL : 0;
		hi = sgn ? 2147483647LL : 4294967295LL;
	}
	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	if (f->width == 1)
		p[0] = v;
	else if (f->width == 2)
		put_unaligned_be16(v, p);
	else
		put_unaligned_be32(v, p);
}

static __always_inline const struct nb_board_desc *nb_map(u8 bus, u8 address)
{
	BUILD_BUG_ON(NB_BUS_UPPER != 0 || NB_BUS_LEGS != 1);
	BUILD_BUG_ON(ARRAY_SIZE(nb_board_map[0]) != 256);
	return bus <= NB_BUS_LEGS ? nb_board_map[bus][address] : NULL;
}

static __always_inline void nb_set_touch(struct naobody_sensors *s,
					 unsigned int first, unsigned int n,
					 unsigned int bits)
{
	u32 mask = (BIT(n) - 1) << first;

	s->touch = (s->touch & ~mask) | ((bits << first) & mask);
}

static __always_inline unsigned int nb_get_touch(const struct naobody_sensors *s,
						 unsigned int first, unsigned int n)
{
	return (s->touch >> first) & (BIT(n) - 1);
}

static __always_inline void nb_info_init(struct nb_msg_info *info,
					 const u8 *m)
{
	info->type = NB_MSG_UNSPEC;
	info->kind = m[0];
	info->bus = m[1];
	info->address = m[2];
	info->board = NB_NO_BOARD;
	info->value = 0;
	info->piece = 0;
	info->len = 0;
	info->data = NULL;
}

static inline u8 *nb_hdr(struct nb_frame_builder *b, size_t len, u8 kind, u8 bus,
			 u8 address)
{
	u8 *m = nb_frame_add(b, len);

	if (m) {
		m[0] = kind;
		m[1] = bus;
		m[2] = address;
	}
	return m;
}

#endif /* _NB_MSG_SHARED_H */
