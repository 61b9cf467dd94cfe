/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test streams for the n_robot framers: valid frames with line noise of
 * every kind, and the ground truth to judge what a framer delivered. Used
 * by the host unit tests (the framer directly) and the VM suite (the line
 * discipline on a pty), so both hold the framer to the same standard.
 */
#ifndef _N_ROBOT_TEST_STREAM_H
#define _N_ROBOT_TEST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ts_frame {
	size_t off;		/* where the frame starts in the stream */
	uint32_t len;
	bool touched;		/* noise went inside it */
	uint8_t bytes[64];	/* the frame as generated (len <= 64 here) */
};

struct ts_stream {
	uint32_t framing;	/* N_ROBOT_FRAMING_* */
	uint32_t data_len;	/* CM-5: bytes of the read format */
	uint8_t *buf;
	size_t len, cap;
	struct ts_frame *frame;
	size_t nframes;
	size_t touched;
	size_t noise_events;
};

struct ts_result {
	size_t delivered;	/* frames the framer delivered */
	size_t originals;	/* of those, untouched originals */
	size_t expected;	/* untouched frames that must be delivered */
	size_t shadowed;	/* untouched frames a false frame may swallow */
};

/*
 * Build nframes frames of this framing with noise in noise_pct percent of
 * them, from a fixed seed. CM-5 frames are STATUS and DATA (data_len bytes
 * of read format, 3..32); PAROL6 frames are telemetry.
 */
void ts_build(struct ts_stream *s, uint32_t framing, size_t nframes,
	      uint32_t seed, unsigned int noise_pct, uint32_t data_len);
void ts_free(struct ts_stream *s);

/* Collects delivered frames, in order. */
struct ts_sink {
	uint8_t (*frame)[64];
	uint32_t *len;
	size_t n, cap;
	size_t oversize;	/* frames longer than 64 bytes */
};

void ts_sink_add(struct ts_sink *k, const uint8_t *p, size_t len);
void ts_sink_free(struct ts_sink *k);

/*
 * Judge what was delivered: every untouched frame that no false frame can
 * have swallowed is delivered, in order, exactly once; nothing is
 * delivered twice or out of order. A false frame is a window of the
 * stream that is not a generated frame yet passes every check the
 * protocol has (start byte, length, checksum or end bytes) and overlaps
 * the frame's first byte: with an 8-bit checksum and no sync byte, no
 * CM-5 framer can tell such a window from a real reply, so the frame it
 * covers is exempt (and counted, and bounded by the caller). Returns 0, or
 * -1 with the reason in why.
 */
int ts_verify(const struct ts_stream *s, const struct ts_sink *k,
	      struct ts_result *r, char *why, size_t whylen);

#endif /* _N_ROBOT_TEST_STREAM_H */
