// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receive engine shared by the CM-5 and PAROL6 framers: buffering,
 * resynchronisation and accounting. See framer.h.
 *
 * Invariants, checked with >= against hard maxima before every store:
 *   head <= tail <= NRF_BUF_SIZE
 *   tail - head <= proto->max_frame <= N_ROBOT_MAX_FRAME
 *   need <= proto->max_frame
 * Work is linear in the input: every byte is appended once, slid past at
 * most once, and moved by compaction at most once per candidate's worth of
 * input, because compaction only happens when the buffer's second half is
 * used up.
 */
#include "framer.h"

void nrf_init(struct nrf *f, const struct nrf_proto *proto,
	      nrf_emit_fn emit, void *ctx)
{
	memset(&f->cnt, 0, sizeof(f->cnt));
	memset(&f->cm5, 0, sizeof(f->cm5));
	f->proto = proto;
	f->emit = emit;
	f->ctx = ctx;
	f->head = 0;
	f->tail = 0;
	f->need = 0;
	f->asked = 0;
	f->direct = false;
	f->sum[0] = 0;
}

u8 nrf_sum(const struct nrf *f, const u8 *c, u32 len)
{
	u32 start;
	u8 sum = 0;

	if (f->direct) {
		/* c is the caller's input, judged in place: one pass. */
		while (len--)
			sum += *c++;
		return sum;
	}
	start = (u32)(c - f->buf);
	return (u8)(f->sum[start + len] - f->sum[start]);
}

/* Move the candidate to the start of the buffer. */
static void nrf_compact(struct nrf *f)
{
	u32 n = f->tail - f->head;
	u32 i;

	if (f->head == 0)
		return;
	memmove(f->buf, f->buf + f->head, n);
	f->head = 0;
	f->tail = n;
	if (f->proto->want_sums) {
		f->sum[0] = 0;
		for (i = 0; i < n; i++)
			f->sum[i + 1] = (u8)(f->sum[i] + f->buf[i]);
	}
}

/* Drop bytes from the head up to the next possible start of a frame. */
static void nrf_skip_garbage(struct nrf *f)
{
	while (f->head < f->tail && !f->proto->is_start(f->buf[f->head])) {
		f->head++;
		f->cnt.dropped_bytes++;
	}
	if (f->head == f->tail) {
		f->head = 0;
		f->tail = 0;
	}
}

static void nrf_count_bad(struct nrf *f, u32 reason)
{
	switch (reason) {
	case NRF_CHECKSUM:
		f->cnt.checksum_errors++;
		break;
	case NRF_LENGTH:
		f->cnt.length_errors++;
		break;
	case NRF_MARKER:
		f->cnt.marker_errors++;
		break;
	default:
		break;
	}
	if (reason != NRF_GARBAGE)
		f->cnt.resyncs++;
}

/*
 * Judge candidates until one needs more input than is buffered. With
 * to_the_end, the input has ended badly (a flagged byte): a candidate that
 * needs more can never complete, so it is rejected too.
 */
static void nrf_process(struct nrf *f, bool to_the_end)
{
	const struct nrf_proto *p = f->proto;
	enum nrf_verdict v;
	u32 n, arg;

	for (;;) {
		nrf_skip_garbage(f);
		n = f->tail - f->head;
		if (n == 0) {
			f->need = 0;
			f->asked = 0;
			return;
		}
		arg = 0;
		v = p->check(f, f->buf + f->head, n, f->asked, &arg);
		if (v == NRF_NEED && (arg <= n || arg > p->max_frame)) {
			/* A protocol bug must not become an overflow. */
			v = NRF_BAD;
			arg = NRF_LENGTH;
		}
		if (v == NRF_FRAME && (arg == 0 || arg > n)) {
			v = NRF_BAD;
			arg = NRF_LENGTH;
		}
		if (v == NRF_NEED) {
			if (!to_the_end) {
				f->need = arg;
				f->asked = arg;
				return;
			}
			v = NRF_BAD;
			arg = NRF_GARBAGE;
		}
		if (v == NRF_FRAME) {
			if (p->frame_seen)
				p->frame_seen(f, f->buf + f->head, arg);
			f->cnt.frames++;
			f->cnt.frame_bytes += arg;
			f->emit(f->ctx, f->buf + f->head, arg);
			f->head += arg;
		} else {
			nrf_count_bad(f, arg);
			f->head++;
			f->cnt.dropped_bytes++;
		}
		f->need = 0;
		f->asked = 0;
	}
}

/*
 * The fast path, while nothing is buffered: judge candidates where they lie
 * in the input and emit the valid ones from there. Stops at the first
 * candidate that is not a whole valid frame (which the buffered path then
 * judges again and deals with). Returns the bytes consumed.
 */
static size_t nrf_feed_direct(struct nrf *f, const u8 *data, size_t len)
{
	const struct nrf_proto *p = f->proto;
	size_t done = 0;
	enum nrf_verdict v;
	u32 n, arg;

	f->direct = true;
	while (done < len && p->is_start(data[done])) {
		n = len - done > p->max_frame ? p->max_frame :
						 (u32)(len - done);
		arg = 0;
		v = p->check(f, data + done, n, 0, &arg);
		if (v != NRF_FRAME || arg == 0 || arg > n)
			break;
		if (p->frame_seen)
			p->frame_seen(f, data + done, arg);
		f->cnt.frames++;
		f->cnt.frame_bytes += arg;
		f->emit(f->ctx, data + done, arg);
		done += arg;
	}
	f->direct = false;
	return done;
}

/* Append good bytes, judging the candidate whenever it has what it needs. */
static void nrf_feed_good(struct nrf *f, const u8 *data, size_t len)
{
	const struct nrf_proto *p = f->proto;
	u32 want, take, i;
	size_t used;

	while (len) {
		if (f->head == f->tail) {
			/* Hunting: skip to the next possible start. */
			while (len && !p->is_start(*data)) {
				data++;
				len--;
				f->cnt.dropped_bytes++;
			}
			if (!len)
				return;
			/* Frames that are whole in the input need no copy. */
			used = nrf_feed_direct(f, data, len);
			data += used;
			len -= used;
			if (!len)
				return;
			if (used)
				continue;
			f->head = 0;
			f->tail = 0;
			f->need = 1;
			f->asked = 0;
		}
		want = f->need > f->tail - f->head ?
		       f->need - (f->tail - f->head) : 1;
		if (f->tail + want > NRF_BUF_SIZE)
			nrf_compact(f);
		/* need <= max_frame <= NRF_BUF_SIZE / 2 after compaction. */
		if (f->tail + want > NRF_BUF_SIZE) {
			nrf_reset(f);
			continue;
		}
		take = len < want ? (u32)len : want;
		memcpy(f->buf + f->tail, data, take);
		if (p->want_sums) {
			for (i = f->tail; i < f->tail + take; i++)
				f->sum[i + 1] = (u8)(f->sum[i] + f->buf[i]);
		}
		f->tail += take;
		data += take;
		len -= take;
		if (f->tail - f->head >= f->need)
			nrf_process(f, false);
	}
}

void nrf_feed(struct nrf *f, const u8 *data, const u8 *flags, size_t len)
{
	size_t run;

	f->cnt.raw_bytes += len;
	if (!flags) {
		nrf_feed_good(f, data, len);
		return;
	}
	while (len) {
		for (run = 0; run < len && !flags[run]; run++)
			;
		nrf_feed_good(f, data, run);
		data += run;
		flags += run;
		len -= run;
		if (!len)
			break;
		/* A flagged byte: no candidate can span it. */
		f->cnt.tty_errors++;
		if (f->head != f->tail) {
			f->cnt.resyncs++;
			nrf_process(f, true);
		}
		f->cnt.dropped_bytes++;
		data++;
		flags++;
		len--;
	}
}

void nrf_reset(struct nrf *f)
{
	f->cnt.dropped_bytes += f->tail - f->head;
	f->head = 0;
	f->tail = 0;
	f->need = 0;
	f->asked = 0;
}
