// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recording: the last --record frames received (default 8192, about
 * 98 s at 12 ms), each decoded into a struct nb_emu_frame and with its
 * first 512 bytes kept raw. Frame seq lives in slot seq % size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

#define RAW_MAX		512

int record_init(struct emu_record *r, unsigned int size)
{
	r->size = size ? size : 1;
	r->ring = calloc(r->size, sizeof(*r->ring));
	r->raw = calloc(r->size, sizeof(*r->raw));
	if (!r->ring || !r->raw) {
		record_free(r);
		return -ENOMEM;
	}
	return 0;
}

void record_free(struct emu_record *r)
{
	free(r->ring);
	free(r->raw);
	r->ring = NULL;
	r->raw = NULL;
}

struct nb_emu_frame *record_new(struct emu_record *r, uint64_t seq,
				const uint8_t *raw, size_t len)
{
	struct nb_emu_frame *f = &r->ring[seq % r->size];

	memset(f, 0, sizeof(*f));
	f->size = sizeof(*f);
	f->seq = seq;
	f->len = (uint32_t)len;
	memcpy(r->raw[seq % r->size], raw, len < RAW_MAX ? len : RAW_MAX);
	return f;
}

struct nb_emu_frame *record_find(struct emu_record *r, uint64_t seq)
{
	struct nb_emu_frame *f = &r->ring[seq % r->size];

	return f->size && f->seq == seq ? f : NULL;
}

const uint8_t *record_raw(struct emu_record *r, uint64_t seq, size_t *len)
{
	struct nb_emu_frame *f = record_find(r, seq);

	if (!f)
		return NULL;
	*len = f->len < RAW_MAX ? f->len : RAW_MAX;
	return r->raw[seq % r->size];
}

/* Frames from, ..., newest - 1 that are still kept; at most max. */
unsigned int record_copy(struct emu_record *r, uint64_t from, uint64_t newest,
			 struct nb_emu_frame *out, unsigned int max)
{
	unsigned int n = 0;
	struct nb_emu_frame *f;

	if (newest > r->size && from < newest - r->size)
		from = newest - r->size;
	for (uint64_t s = from; s < newest && n < max; s++) {
		f = record_find(r, s);
		if (f)
			out[n++] = *f;
	}
	return n;
}
