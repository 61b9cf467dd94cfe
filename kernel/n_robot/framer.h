/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The receive engine shared by the CM-5 and PAROL6 framers.
 *
 * Pure C: the same files build into n_robot.ko and, unchanged, into the
 * userspace libraries, unit tests, fuzzers and benchmark. No allocation, no
 * locking: the caller owns a struct nrf and serialises calls on it.
 *
 * The engine keeps the bytes of the current candidate frame in buf[head,
 * tail). A protocol's check() looks at a candidate and answers: it needs
 * more bytes, it is a frame of some length, or it is bad. A bad candidate
 * loses its first byte and the search starts again one byte later, so a
 * false start never hides a real frame that begins inside it.
 */
#ifndef _N_ROBOT_FRAMER_H
#define _N_ROBOT_FRAMER_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#else
#include <n_robot/ktypes.h>
#endif
#include <linux/n_robot.h>

/* The buffer holds two of the largest candidates, so that compacting it
 * moves at most one candidate for every candidate's worth of input.
 */
#define NRF_BUF_SIZE	(2 * N_ROBOT_MAX_FRAME)

enum nrf_verdict {
	NRF_NEED,	/* *arg: total bytes needed to decide */
	NRF_FRAME,	/* *arg: frame length */
	NRF_BAD,	/* *arg: enum nrf_reason */
};

enum nrf_reason {
	NRF_GARBAGE,	/* cannot start a frame here: not an error */
	NRF_CHECKSUM,
	NRF_LENGTH,
	NRF_MARKER,
	NRF_TTY_ERROR,
};

struct nrf_counters {
	u64 raw_bytes;
	u64 frames;
	u64 frame_bytes;
	u64 dropped_bytes;
	u64 checksum_errors;
	u64 length_errors;
	u64 marker_errors;
	u64 resyncs;
	u64 tty_errors;
	u64 cm5_unsolicited;
	u64 cm5_formats_lost;
};

struct nrf;

/* Called for every valid frame; the bytes are only valid during the call. */
typedef void (*nrf_emit_fn)(void *ctx, const u8 *frame, size_t len);

struct nrf_proto {
	const char *name;
	u32 max_frame;
	bool want_sums;		/* keep prefix sums for nrf_sum() */
	/* Is b a byte a frame can start with? */
	bool (*is_start)(u8 b);
	/*
	 * Judge the candidate c[0, n), n >= 1, c[0] a start byte. need is
	 * what this function last answered NRF_NEED for this candidate, 0
	 * for a fresh one. Must answer NRF_NEED only with *arg > n and
	 * *arg <= max_frame, and NRF_FRAME only with 1 <= *arg <= n.
	 */
	enum nrf_verdict (*check)(struct nrf *f, const u8 *c, u32 n,
				  u32 need, u32 *arg);
	/* A valid frame is about to be emitted (CM-5 bookkeeping). */
	void (*frame_seen)(struct nrf *f, const u8 *c, u32 len);
};

struct nrf_cm5_rx {
	u32 data_len;		/* sum of the read format's byte counts */
	u32 outstanding;	/* requests written, not yet answered */
	/*
	 * The firmware's format is known only once a clean STATUS answered
	 * it: bit N_ROBOT_CM5_FORMAT_* set while not. answer_in counts the
	 * replies until the one answering the last F1/F2 (0: none awaited),
	 * answer_which is its format.
	 */
	u8 fmt_unknown;
	u8 answer_which;
	u32 answer_in;
};

struct nrf {
	const struct nrf_proto *proto;
	u32 head;		/* candidate starts here */
	u32 tail;		/* end of buffered bytes */
	u32 need;		/* bytes the candidate needs before check() */
	u32 asked;		/* check()'s last NRF_NEED for it, 0 if none */
	bool direct;		/* check() is judging the input in place */
	struct nrf_counters cnt;
	struct nrf_cm5_rx cm5;
	nrf_emit_fn emit;
	void *ctx;
	u8 buf[NRF_BUF_SIZE];
	u8 sum[NRF_BUF_SIZE + 1];	/* sum[i] = buf[0] + ... + buf[i - 1] */
};

void nrf_init(struct nrf *f, const struct nrf_proto *proto,
	      nrf_emit_fn emit, void *ctx);
/* Feed bytes; flags (may be NULL) are the tty's per-byte flags, 0 = good. */
void nrf_feed(struct nrf *f, const u8 *data, const u8 *flags, size_t len);
/* Drop the partial candidate (after a flush); counts its bytes as dropped. */
void nrf_reset(struct nrf *f);
/* Bytes buffered in the current candidate. */
static inline u32 nrf_pending(const struct nrf *f)
{
	return f->tail - f->head;
}

/* Byte sum of c[0, len), the candidate check() was given. */
u8 nrf_sum(const struct nrf *f, const u8 *c, u32 len);

#endif /* _N_ROBOT_FRAMER_H */
