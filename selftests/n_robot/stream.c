// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test streams with line noise, and their judge. See stream.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/n_robot.h>

#include "stream.h"

static uint32_t ts_rand(uint32_t *st)
{
	uint32_t x = *st;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*st = x;
	return x;
}

static void ts_put(struct ts_stream *s, const uint8_t *p, size_t n)
{
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2 + 4096;
		s->buf = realloc(s->buf, s->cap);
		if (!s->buf)
			abort();
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static uint8_t ts_cm5_sum(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;

	while (n--)
		sum += *p++;
	return (uint8_t)~sum;
}

/* One valid frame carrying seq, into f->bytes. */
static void ts_make_frame(struct ts_stream *s, struct ts_frame *f,
			  uint32_t seq, uint32_t *st)
{
	uint8_t *b = f->bytes;
	uint32_t i, v;

	if (s->framing == N_ROBOT_FRAMING_CM5) {
		if (ts_rand(st) & 1) {
			b[0] = N_ROBOT_CM5_STATUS;
			b[1] = ts_rand(st) & 0x7f;
			b[2] = ts_rand(st) & 3;
			b[3] = seq >> 16;
			b[4] = seq >> 8;
			b[5] = seq;
			f->len = 7;
		} else {
			b[0] = N_ROBOT_CM5_DATA;
			b[1] = seq >> 16;
			b[2] = seq >> 8;
			b[3] = seq;
			for (i = 4; i < 1 + s->data_len + 5; i++)
				b[i] = ts_rand(st);
			f->len = 7 + s->data_len;
		}
		b[f->len - 1] = ts_cm5_sum(b, f->len - 1);
		return;
	}
	f->len = N_ROBOT_PAROL6_TELEMETRY_FRAME;
	b[0] = b[1] = b[2] = 0xFF;
	b[3] = N_ROBOT_PAROL6_TELEMETRY_LEN;
	for (i = 4; i < 58; i++)
		b[i] = ts_rand(st);
	/* Positions of -1 put FF FF FF inside payloads, as on the arm. */
	for (i = 0; i < 6; i++) {
		if (ts_rand(st) % 5 == 0) {
			v = 4 + 3 * i;
			b[v] = b[v + 1] = b[v + 2] = 0xFF;
		}
	}
	b[22] = seq >> 16;
	b[23] = seq >> 8;
	b[24] = seq;
	b[40] = 0xFF;		/* all homed */
	b[57] = 0xD4;		/* the constant "CRC" */
	b[58] = 0x01;
	b[59] = 0x02;
}

static void ts_garbage(struct ts_stream *s, uint32_t *st)
{
	uint8_t g[80];
	uint32_t n = 1 + ts_rand(st) % 12, i;

	for (i = 0; i < n; i++)
		g[i] = ts_rand(st);
	if (s->framing == N_ROBOT_FRAMING_PAROL6) {
		switch (ts_rand(st) % 4) {
		case 0:		/* a run of FF */
			memset(g, 0xFF, n);
			break;
		case 1:		/* a header and part of a frame */
			g[0] = g[1] = g[2] = 0xFF;
			g[3] = N_ROBOT_PAROL6_TELEMETRY_LEN;
			n = 4 + ts_rand(st) % 50;
			for (i = 4; i < n; i++)
				g[i] = ts_rand(st);
			break;
		default:
			break;
		}
	} else if (ts_rand(st) % 3 == 0) {
		/* The start of a reply that never finished. */
		g[0] = ts_rand(st) & 1 ? N_ROBOT_CM5_STATUS : N_ROBOT_CM5_DATA;
	}
	ts_put(s, g, n);
	s->noise_events++;
}

void ts_build(struct ts_stream *s, uint32_t framing, size_t nframes,
	      uint32_t seed, unsigned int noise_pct, uint32_t data_len)
{
	uint32_t st = seed ? seed : 1;
	uint8_t tmp[80];
	size_t i;

	memset(s, 0, sizeof(*s));
	s->framing = framing;
	s->data_len = data_len < 3 ? 3 : data_len > 32 ? 32 : data_len;
	s->frame = calloc(nframes, sizeof(*s->frame));
	if (!s->frame)
		abort();
	s->nframes = nframes;
	for (i = 0; i < nframes; i++) {
		struct ts_frame *f = &s->frame[i];
		uint32_t op = 0, pos, n, k;

		ts_make_frame(s, f, (uint32_t)i, &st);
		if (ts_rand(&st) % 100 < noise_pct)
			op = 1 + ts_rand(&st) % 5;
		if (op == 1)
			ts_garbage(s, &st);
		f->off = s->len;
		memcpy(tmp, f->bytes, f->len);
		n = f->len;
		pos = 1 + ts_rand(&st) % (f->len - 1);
		switch (op) {
		case 2:		/* a corrupted byte */
			tmp[pos] ^= 1 + ts_rand(&st) % 255;
			break;
		case 3:		/* bytes inserted inside */
			k = 1 + ts_rand(&st) % 3;
			memmove(tmp + pos + k, tmp + pos, n - pos);
			n += k;
			while (k--)
				tmp[pos + k] = ts_rand(&st);
			break;
		case 4:		/* a lost byte */
			memmove(tmp + pos, tmp + pos + 1, n - pos - 1);
			n--;
			break;
		case 5:		/* cut short */
			n = pos;
			break;
		default:
			break;
		}
		if (op >= 2) {
			f->touched = true;
			s->touched++;
			s->noise_events++;
		}
		ts_put(s, tmp, n);
	}
}

void ts_free(struct ts_stream *s)
{
	free(s->buf);
	free(s->frame);
	memset(s, 0, sizeof(*s));
}

void ts_sink_add(struct ts_sink *k, const uint8_t *p, size_t len)
{
	if (len > sizeof(k->frame[0])) {
		k->oversize++;
		return;
	}
	if (k->n == k->cap) {
		k->cap = k->cap * 2 + 1024;
		k->frame = realloc(k->frame, k->cap * sizeof(k->frame[0]));
		k->len = realloc(k->len, k->cap * sizeof(k->len[0]));
		if (!k->frame || !k->len)
			abort();
	}
	memcpy(k->frame[k->n], p, len);
	k->len[k->n] = (uint32_t)len;
	k->n++;
}

void ts_sink_free(struct ts_sink *k)
{
	free(k->frame);
	free(k->len);
	memset(k, 0, sizeof(*k));
}

/* Length of a candidate that starts at q, from what the protocol allows. */
static uint32_t ts_window(const struct ts_stream *s, size_t q)
{
	const uint8_t *b = s->buf + q;
	size_t left = s->len - q;
	uint32_t len;

	if (s->framing == N_ROBOT_FRAMING_CM5) {
		if (b[0] == N_ROBOT_CM5_STATUS)
			len = 7;
		else if (b[0] == N_ROBOT_CM5_DATA)
			len = 7 + s->data_len;
		else
			return 0;
		if (len > left || ts_cm5_sum(b, len - 1) != b[len - 1])
			return 0;
		return len;
	}
	len = N_ROBOT_PAROL6_TELEMETRY_FRAME;
	if (len > left || b[0] != 0xFF || b[1] != 0xFF || b[2] != 0xFF ||
	    b[3] != N_ROBOT_PAROL6_TELEMETRY_LEN || b[58] != 1 || b[59] != 2)
		return 0;
	return len;
}

/* Could a false frame that starts before frame i swallow its first byte? */
static bool ts_shadowed(const struct ts_stream *s, size_t i)
{
	size_t p = s->frame[i].off, q, from;
	uint32_t len;

	from = p > 64 ? p - 64 : 0;
	for (q = from; q < p; q++) {
		len = ts_window(s, q);
		if (len && q + len > p)
			return true;
	}
	return false;
}

static uint32_t ts_seq(const struct ts_stream *s, const uint8_t *b,
		       uint32_t len)
{
	if (s->framing == N_ROBOT_FRAMING_CM5) {
		if (b[0] == N_ROBOT_CM5_STATUS && len >= 6)
			return (uint32_t)b[3] << 16 | b[4] << 8 | b[5];
		if (len >= 4)
			return (uint32_t)b[1] << 16 | b[2] << 8 | b[3];
		return UINT32_MAX;
	}
	if (len >= 25)
		return (uint32_t)b[22] << 16 | b[23] << 8 | b[24];
	return UINT32_MAX;
}

int ts_verify(const struct ts_stream *s, const struct ts_sink *k,
	      struct ts_result *r, char *why, size_t whylen)
{
	bool *got = calloc(s->nframes + 1, sizeof(bool));
	size_t i, next = 0;
	uint32_t seq;
	int ret = 0;

	if (!got)
		abort();
	memset(r, 0, sizeof(*r));
	r->delivered = k->n + k->oversize;
	for (i = 0; i < k->n; i++) {
		seq = ts_seq(s, k->frame[i], k->len[i]);
		if (seq >= s->nframes || s->frame[seq].len != k->len[i] ||
		    memcmp(s->frame[seq].bytes, k->frame[i], k->len[i]))
			continue;	/* a false frame made of noise */
		if (seq < next) {
			snprintf(why, whylen,
				 "frame %u delivered %s (after frame %zu)",
				 seq, got[seq] ? "twice" : "out of order",
				 next - 1);
			ret = -1;
			goto out;
		}
		got[seq] = true;
		next = seq + 1;
		r->originals++;
	}
	for (i = 0; i < s->nframes; i++) {
		if (s->frame[i].touched)
			continue;
		if (ts_shadowed(s, i)) {
			r->shadowed++;
			continue;
		}
		r->expected++;
		if (!got[i]) {
			snprintf(why, whylen,
				 "untouched frame %zu (offset %zu, %u bytes) was not delivered",
				 i, s->frame[i].off, s->frame[i].len);
			ret = -1;
			goto out;
		}
	}
out:
	free(got);
	return ret;
}
