// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoctl verify, the frames: which bytes the CRC covers and in which order
 * it is stored, how the 0x14 answer carries it, how the length table
 * reads. Each question is answered by trying every candidate on every
 * frame of the capture: the codec's reading is confirmed when it alone
 * fits every frame, and replaced when another one alone does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nb_codec.h"
#include "verify.h"

/* The codec's layout, in the layout file's terms, through its API */
void v_ours_layout(struct layout *l)
{
	layout_init(l);
	/* nb_frame.c: the CRC of every byte but its own, big endian; the
	 * 0x14 answer as nb_ack_encode() writes it; u8 entries, last first */
	l->crc_cover = LAY_CRC_ALL;
	l->crc_little = 0;
	l->ack_little = 0;
	l->table = LAY_TABLE_U8_REVERSE;
	for (unsigned int i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *b = nb_board(i);
		struct lay_board *lb = layout_board(l, b->name);

		lb->bus = b->bus;
		lb->address = b->address;
		lb->set = true;
	}
	for (unsigned int i = 0; nb_field(i); i++) {
		const struct nb_field *f = nb_field(i);
		struct lay_field *lf = layout_field(l, f->name);

		if (!lf)
			continue;
		lf->offset = f->offset;
		lf->width = f->width;
		lf->stride = f->stride;
		lf->is_signed = f->flags & NB_FIELD_SIGNED;
		lf->little = false;
		lf->num = f->scale_num;
		lf->den = f->scale_den;
		lf->set = true;
	}
}

/*
 * Split the message region [start, start + n) of buf by one reading of
 * the table. Every reading stops at the first k entries whose lengths s
 * leave exactly the table: s + k * entry_size == n.
 */
static bool split(const uint8_t *buf, size_t start, size_t n, int reading,
		  struct vframe *f)
{
	size_t es = reading == LAY_TABLE_U16BE_REVERSE ? 2 : 1, s = 0, k;
	const uint8_t *end = buf + start + n;

	f->n = 0;
	if (!n)
		return true;
	for (k = 1; k <= V_MAX_MSGS; k++) {
		if (k * es > n)
			return false;
		s += es == 2 ? (size_t)(end[-2 * (long)k] << 8 | end[-2 * (long)k + 1])
			     : end[-(long)k];
		if (s + k * es == n)
			break;
		if (s + k * es > n)
			return false;
	}
	if (k > V_MAX_MSGS)
		return false;
	{
		size_t off = start;

		for (size_t i = 0; i < k; i++) {
			size_t l;

			if (reading == LAY_TABLE_U8_FORWARD)
				l = buf[start + s + i];
			else if (reading == LAY_TABLE_U8_REVERSE)
				l = end[-1 - (long)i];
			else
				l = (size_t)(end[-2 - 2 * (long)i] << 8 | end[-1 - 2 * (long)i]);
			if (l > 255)
				return false;
			f->off[i] = (uint16_t)off;
			f->len[i] = (uint8_t)l;
			off += l;
		}
	}
	f->n = (uint16_t)k;
	return true;
}

/* A message that looks like one: kind 0-4, bus 0-3, a header */
static bool plausible(const uint8_t *buf, const struct vframe *f)
{
	for (unsigned int i = 0; i < f->n; i++) {
		const uint8_t *m = buf + f->off[i];

		if (f->len[i] < 3 || m[0] > 4 || m[1] > 3)
			return false;
	}
	return true;
}

static void region(const struct cap_event *e, bool out, size_t *start, size_t *n)
{
	*start = out ? 4 : 0;
	*n = e->len - 4;
}

static bool split_frame(struct vframe *f, bool out, int reading)
{
	size_t start, n;

	region(f->ev, out, &start, &n);
	f->ok = split(f->ev->data, start, n, reading, f) && plausible(f->ev->data, f);
	return f->ok;
}

/*
 * A candidate fits the capture when it fits every frame but a glitch or
 * two: at most one frame in a thousand (a real capture may hold a frame
 * damaged on the wire, which the board itself would reject).
 */
static bool all_but_glitches(size_t fits, size_t total)
{
	return total && fits >= total - total / 1000;
}

static void check_table(struct vctx *v)
{
	size_t fits[__LAY_TABLE_MAX] = { 0 }, total = v->nin + v->nout;
	int only = -1, nfit = 0;

	for (int r = 0; r < __LAY_TABLE_MAX; r++) {
		for (size_t i = 0; i < v->nin; i++)
			fits[r] += split_frame(&v->in[i], false, r);
		for (size_t i = 0; i < v->nout; i++)
			fits[r] += split_frame(&v->out[i], true, r);
		if (all_but_glitches(fits[r], total)) {
			nfit++;
			only = r;
		}
	}
	if (!total) {
		v_entry(v, "frame.table", V_NOT_EXERCISED, "no frames in the capture");
		return;
	}
	if (nfit == 1) {
		struct ventry *e = v_entry(v, "frame.table",
					   only == v->ours.table ? V_CONFIRMED : V_CONTRADICTED,
					   "%s splits %zu of %zu frames into plausible messages (kind 0-4, bus 0-3); "
					   "%s: %zu of them",
					   lay_table_names[only], fits[only], total,
					   lay_table_names[v->ours.table], fits[v->ours.table]);
		snprintf(e->ours, sizeof(e->ours), "%s", lay_table_names[v->ours.table]);
		snprintf(e->found, sizeof(e->found), "%s", lay_table_names[only]);
		v->found.table = only;
		v->table_ok = true;
	} else if (nfit > 1) {
		v_entry(v, "frame.table", V_NOT_EXERCISED,
			"%d readings split all %zu frames plausibly: the messages don't tell them apart",
			nfit, total);
		v->table_ok = true;	/* ours is among them */
	} else {
		v_entry(v, "frame.table", V_CONTRADICTED,
			"no reading verify knows splits every frame (%s: %zu, %s: %zu, %s: %zu of %zu); "
			"look at the bytes before the IN frames' CRC by hand",
			lay_table_names[0], fits[0], lay_table_names[1], fits[1],
			lay_table_names[2], fits[2], total);
		v->table_ok = false;
		return;
	}
	for (size_t i = 0; i < v->nin; i++)
		split_frame(&v->in[i], false, v->found.table);
	for (size_t i = 0; i < v->nout; i++)
		split_frame(&v->out[i], true, v->found.table);
}

static uint32_t crc_of(const struct vframe *f, bool out, int cover)
{
	const struct cap_event *e = f->ev;
	uint8_t tmp[NB_FRAME_MAX + 64];
	size_t start = out ? 4 : 0, crc_at = out ? 0 : e->len - 4;

	switch (cover) {
	case LAY_CRC_ZEROED:
		memcpy(tmp, e->data, e->len);
		memset(tmp + crc_at, 0, 4);
		return lay_crc32(tmp, e->len);
	case LAY_CRC_MESSAGES: {
		size_t end = start;

		for (unsigned int i = 0; i < f->n; i++)
			end = f->off[i] + f->len[i];
		return lay_crc32(e->data + start, end - start);
	}
	default:
		return lay_crc32(e->data + start, e->len - 4);
	}
}

static uint32_t stored_crc(const struct vframe *f, bool out, bool little)
{
	const struct cap_event *e = f->ev;

	return (uint32_t)lay_get(e->data + (out ? 0 : e->len - 4), 4, little);
}

static void check_crc(struct vctx *v)
{
	size_t fit[__LAY_CRC_MAX][2] = { { 0 } }, total = v->nin + v->nout;
	int nfit = 0, cover = -1, little = -1;

	for (int c = 0; c < __LAY_CRC_MAX; c++) {
		if (c == LAY_CRC_MESSAGES && !v->table_ok)
			continue;
		for (int o = 0; o < 2; o++) {
			for (size_t i = 0; i < v->nin; i++)
				fit[c][o] += crc_of(&v->in[i], false, c) == stored_crc(&v->in[i], false, o);
			for (size_t i = 0; i < v->nout; i++)
				fit[c][o] += crc_of(&v->out[i], true, c) == stored_crc(&v->out[i], true, o);
			if (all_but_glitches(fit[c][o], total)) {
				nfit++;
				cover = c;
				little = o;
			}
		}
	}
	if (!total) {
		v_entry(v, "frame.crc_cover", V_NOT_EXERCISED, "no frames in the capture");
		v_entry(v, "frame.crc_order", V_NOT_EXERCISED, "no frames in the capture");
		return;
	}
	if (nfit == 1) {
		struct ventry *e;

		e = v_entry(v, "frame.crc_cover", cover == v->ours.crc_cover ? V_CONFIRMED : V_CONTRADICTED,
			    "zlib's CRC-32 of %s matches %zu of %zu frames (%zu IN, %zu OUT); the codec's "
			    "coverage matches %zu", cover == LAY_CRC_ALL ? "every byte but the CRC's" :
			    cover == LAY_CRC_ZEROED ? "the whole frame with the CRC as zeros" :
			    "the messages alone", fit[cover][little], total, v->nin, v->nout,
			    fit[v->ours.crc_cover][v->ours.crc_little]);
		snprintf(e->ours, sizeof(e->ours), "%s", lay_crc_cover_names[v->ours.crc_cover]);
		snprintf(e->found, sizeof(e->found), "%s", lay_crc_cover_names[cover]);
		e = v_entry(v, "frame.crc_order", little == v->ours.crc_little ? V_CONFIRMED : V_CONTRADICTED,
			    "stored %s endian: %zu of %zu frames check", little ? "little" : "big",
			    fit[cover][little], total);
		snprintf(e->ours, sizeof(e->ours), "%s", v->ours.crc_little ? "le" : "be");
		snprintf(e->found, sizeof(e->found), "%s", little ? "le" : "be");
		v->found.crc_cover = cover;
		v->found.crc_little = little;
	} else {
		const char *why = nfit ? "several candidates match every frame" :
				  "no candidate matches every frame (a CRC of another polynomial, or other bytes)";

		v_entry(v, "frame.crc_cover", nfit ? V_NOT_EXERCISED : V_CONTRADICTED,
			"%s; the codec's matches %zu of %zu", why,
			fit[v->ours.crc_cover][v->ours.crc_little], total);
		v_entry(v, "frame.crc_order", nfit ? V_NOT_EXERCISED : V_CONTRADICTED, "%s", why);
	}
}

/* Each 0x14 answer against the OUT frame just before it */
static void check_ack(struct vctx *v)
{
	size_t fit[2] = { 0 }, total = 0, bad_byte = 0;
	const struct cap_capture *c = &v->nc->cap;
	const struct vframe *last = NULL;
	size_t oi = 0;

	if (v->found.crc_cover < 0) {
		v_entry(v, "ack.crc_order", V_NOT_EXERCISED, "the frame CRC is not known, so neither is the answer's");
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct cap_event *e = &c->ev[i];
		uint32_t crc;

		if (oi < v->nout && v->out[oi].ev == e) {
			last = &v->out[oi++];
			continue;
		}
		if (e->type != CAP_VENDOR_IN || e->request != 0x14 || e->status || e->len != 5 || !last)
			continue;
		total++;
		if (e->data[0] != 0x2a)
			bad_byte++;
		crc = crc_of(last, true, v->found.crc_cover);
		for (int o = 0; o < 2; o++)
			fit[o] += (uint32_t)lay_get(e->data + 1, 4, o) == crc;
		last = NULL;	/* one answer per frame */
	}
	if (!total) {
		v_entry(v, "ack.crc_order", V_NOT_EXERCISED, "no 5-byte 0x14 answers after an OUT frame");
		return;
	}
	if (all_but_glitches(fit[0], total) != all_but_glitches(fit[1], total)) {
		int o = all_but_glitches(fit[1], total);
		struct ventry *e = v_entry(v, "ack.crc_order",
					   o == v->ours.ack_little ? V_CONFIRMED : V_CONTRADICTED,
					   "%zu of %zu answers carry the CRC of the frame before them, %s endian; "
					   "%zu start with a byte other than 2a", fit[o], total, o ? "little" : "big",
					   bad_byte);

		snprintf(e->ours, sizeof(e->ours), "%s", v->ours.ack_little ? "le" : "be");
		snprintf(e->found, sizeof(e->found), "%s", o ? "le" : "be");
		v->found.ack_little = o;
	} else {
		v_entry(v, "ack.crc_order", V_CONTRADICTED,
			"of %zu answers, %zu carry the frame's CRC big endian, %zu little endian",
			total, fit[0], fit[1]);
	}
}

void v_check_frames(struct vctx *v)
{
	const struct cap_capture *c = &v->nc->cap;

	v->in = calloc(c->n + 1, sizeof(*v->in));
	v->out = calloc(c->n + 1, sizeof(*v->out));
	if (!v->in || !v->out)
		return;
	for (size_t i = 0; i < c->n; i++) {
		const struct cap_event *e = &c->ev[i];

		if (e->status || e->len < 4 || e->len > NB_FRAME_MAX)
			continue;
		if (e->type == CAP_IN_FRAME)
			v->in[v->nin++].ev = e;
		else if (e->type == CAP_OUT_FRAME)
			v->out[v->nout++].ev = e;
	}
	check_table(v);
	check_crc(v);
	check_ack(v);
}
