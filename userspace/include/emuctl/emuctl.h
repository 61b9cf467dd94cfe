/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbemuctl: start and drive the chest board emulator (chestboard-emu)
 * from tests and the demo.
 *
 * The emulator listens on a unix stream socket. Its protocol, version
 * NB_EMU_PROTO, is one line of ASCII words per request and one line per
 * reply, "OK ..." or "ERR <errno name> <text>"; a reply that carries
 * records says "OK <count> <record size>" and the records follow, raw.
 * Documentation/chestboard-emu.rst lists every request; nb_emu_cmd() sends
 * any of them, and the functions below wrap the common ones.
 *
 * Every function returns 0 (or a count) on success and a negative errno
 * on failure; none of them prints anything.
 */
#ifndef NAOBODY_EMUCTL_H
#define NAOBODY_EMUCTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/naobody.h>

#define NB_EMU_PROTO		1
#define NB_EMU_SOCKET		"/run/chestboard-emu.sock"
#define NB_EMU_PROGRAM		"chestboard-emu"	/* looked up in PATH */

/* nb_emu_frame.flags */
#define NB_EMU_F_CRC_OK		(1U << 0)	/* the frame's CRC matched */
#define NB_EMU_F_TABLE_OK	(1U << 1)	/* its length table added up */
#define NB_EMU_F_ACKED		(1U << 2)	/* 0x14 was answered for it */
#define NB_EMU_F_ACK_WAITED	(1U << 3)	/* its 0x14 came before its data */
#define NB_EMU_F_ANSWER_QUEUED	(1U << 4)	/* an answer was queued */
#define NB_EMU_F_ANSWER_READ	(1U << 5)	/* the host read all of it */
#define NB_EMU_F_ANSWER_DROPPED	(1U << 6)	/* withdrawn: the host moved on */
#define NB_EMU_F_MISBEHAVED	(1U << 7)	/* a misbehaviour acted on this cycle */
#define NB_EMU_F_STATUS_ASKED	(1U << 8)	/* the host asked 0x15 in this cycle */

/*
 * One command frame as the emulator received and decoded it (with the
 * codec). Fields a frame didn't carry are zero: act holds only what its
 * messages set; the masks say which boards got what.
 */
struct nb_emu_frame {
	uint32_t size;			/* sizeof(struct nb_emu_frame) */
	uint32_t flags;			/* NB_EMU_F_* */
	uint64_t seq;			/* frame number, from 0 at start */
	uint64_t rx_ns;			/* CLOCK_MONOTONIC: its data arrived */
	uint64_t ack_ns;		/* 0x14 answered; 0 if never */
	uint64_t answer_ns;		/* answer read by the host; 0 if not */
	uint32_t len;			/* bytes received */
	uint32_t crc;			/* the CRC it carries */
	uint32_t crc_calc;		/* the CRC of its bytes; what 0x14 said */
	uint32_t answer_len;		/* bytes of the answer queued */
	uint16_t messages;		/* in the frame (0 if it didn't parse) */
	uint16_t bad_messages;		/* unknown or malformed */
	uint32_t types;			/* bit t: a message of enum nb_msg_type t */
	uint64_t targets;		/* bit i: board i got targets or LEDs */
	uint64_t handshake;		/* bit i: board i was asked 00 20 */
	uint64_t start;			/* bit i: board i got its start command */
	uint32_t requests;		/* NB_REQ_* (nb_codec.h) */
	uint16_t pref_piece;		/* NB_REQ_PREF */
	uint8_t id_slot;		/* NB_REQ_ID */
	uint8_t chest_mode;		/* NB_REQ_CHEST_MODE */
	uint8_t harakiri;		/* NB_REQ_HARAKIRI */
	uint8_t misbehaviour;		/* enum nb_emu_misbehaviour acted, or 0 */
	uint8_t reserved[6];
	struct naobody_actuators act;	/* what its messages set */
};

/* Misbehaviours: the names the protocol uses are in nb_emu_misb_name(). */
enum nb_emu_misbehaviour {
	NB_EMU_MISB_NONE,
	NB_EMU_MISB_BAD_CRC,		/* answer with a wrong CRC */
	NB_EMU_MISB_BAD_TABLE,		/* answer whose length table doesn't add up */
	NB_EMU_MISB_MSGS256,		/* answer with 256 messages */
	NB_EMU_MISB_OVERLONG,		/* answer longer than the host reads */
	NB_EMU_MISB_SHORT,		/* answer cut short by a short packet */
	NB_EMU_MISB_NO_ZLP,		/* no zero-length packet after a 64n answer */
	NB_EMU_MISB_STALL_IN,		/* halt bulk IN instead of answering */
	NB_EMU_MISB_STALL_OUT,		/* halt bulk OUT after this frame */
	NB_EMU_MISB_STALL_ACK,		/* stall the 0x14 request */
	NB_EMU_MISB_NAK,		/* no answer: the IN read NAKs until timeout */
	NB_EMU_MISB_SILENCE,		/* no 0x14 answer, no answer, no 0x15 */
	NB_EMU_MISB_WRONG_ACK,		/* 0x14 carries another CRC */
	NB_EMU_MISB_DISCONNECT,		/* unbind after the frame, before its 0x14 */
	NB_EMU_MISB_NO_PREFS,		/* preference requests go unanswered */
	NB_EMU_MISB_NO_VERSION,		/* the 0x02 version request stalls */
	NB_EMU_MISB_STALL_STATUS,	/* no answer, and the 0x15 request stalls */
	NB_EMU_MISB_NO_IDS,		/* id string requests go unanswered */
	__NB_EMU_MISB_MAX
};

const char *nb_emu_misb_name(unsigned int m);
int nb_emu_misb_find(const char *name);

/* Counters the emulator keeps (nb_emu_stats()); names as in "stats". */
struct nb_emu_stats {
	uint64_t frames;		/* command frames received */
	uint64_t bad_frames;		/* of those: bad CRC or table, too long */
	uint64_t acks;			/* 0x14 answered */
	uint64_t ack_waits;		/* 0x14 that came before their frame */
	uint64_t ack_timeouts;		/* ... whose frame never came (stalled) */
	uint64_t ack_wait_max_us;	/* longest a 0x14 waited for its frame */
	uint64_t answers;		/* answers queued */
	uint64_t answers_read;		/* answers the host read in full */
	uint64_t answers_dropped;	/* answers withdrawn unread */
	uint64_t status_requests;	/* 0x15 */
	uint64_t start_requests;	/* 0x13 */
	uint64_t version_requests;	/* 0x02 */
	uint64_t stalls;		/* stalls made on purpose */
	uint64_t misbehaviours;		/* cycles a misbehaviour acted on */
	uint64_t connects;		/* UDC binds */
	uint64_t enables;		/* host configured the device */
	uint64_t started_boards;	/* bit mask of boards started */
	uint64_t cycle;			/* the body's cycle (= frames) */
};

/* How to start the emulator; zero means the default for every field. */
struct nb_emu_options {
	const char *program;		/* default: $NB_EMU_PROGRAM or PATH */
	const char *socket;		/* default: NB_EMU_SOCKET */
	const char *const *args;	/* more arguments, NULL-terminated */
	int timeout_ms;			/* to wait for enumeration; default 10000 */
	int no_wait_host;		/* don't wait for the host to see it */
	int quiet;			/* send its stderr to /dev/null */
};

struct nb_emu {
	pid_t pid;			/* 0 if we attached rather than started */
	int fd;				/* the control connection */
	char socket[108];
	char host_dev[32];		/* sysfs name on the host side ("1-1") */
	uint16_t product;		/* 0x0006 or 0x0005 */
};

/* Start the emulator and wait until the host side has enumerated it. */
int nb_emu_start(struct nb_emu *emu, const struct nb_emu_options *opt);
/* Connect to an emulator that is already running. */
int nb_emu_attach(struct nb_emu *emu, const char *socket);
/* Ask it to quit, wait for it (up to 5 s, then SIGKILL); close. */
int nb_emu_stop(struct nb_emu *emu);

/*
 * Send one request (printf-style, without the newline) and read the reply
 * line into reply (without "OK "); -errno from an "ERR" reply.
 */
int nb_emu_cmd(struct nb_emu *emu, char *reply, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The body. field is a member of struct naobody_sensors ("gyroscope"). */
int nb_emu_set(struct nb_emu *emu, const char *field, unsigned int index, int32_t value);
int nb_emu_get(struct nb_emu *emu, const char *field, unsigned int index, int32_t *value);
/*
 * shape: "sine", "square", "triangle" (amplitude around the set value),
 * "ramp" (0 to amplitude, then again), "linear" (amplitude per cycle,
 * unbounded), "none"; period in cycles.
 */
int nb_emu_wave(struct nb_emu *emu, const char *field, unsigned int index,
		const char *shape, int32_t amplitude, uint32_t period);
/* Press touch bit (enum naobody_touch) from cycle start for cycles cycles. */
int nb_emu_touch(struct nb_emu *emu, unsigned int bit, uint64_t start, uint32_t cycles);
/* Drain the battery by per_kcycle charge counts per 1000 cycles. */
int nb_emu_drain(struct nb_emu *emu, uint32_t per_kcycle);
/* Motor boards' configuration version (10, 11...); board < 0: all. */
int nb_emu_board_version(struct nb_emu *emu, int board, unsigned int version);

/* Misbehave for the next cycles cycles (-1: until switched off; 0: off). */
int nb_emu_misbehave(struct nb_emu *emu, unsigned int what, int cycles, int arg);

/*
 * Recorded frames with seq >= from, up to max of them, oldest first.
 * Returns how many were copied.
 */
int nb_emu_frames(struct nb_emu *emu, uint64_t from, struct nb_emu_frame *out,
		  unsigned int max);
/* Wait until at least frames frames have arrived in all. */
int nb_emu_wait_frames(struct nb_emu *emu, uint64_t frames, int timeout_ms);
int nb_emu_stats(struct nb_emu *emu, struct nb_emu_stats *st);
/* Forget the recording and zero the counters (the body is kept). */
int nb_emu_reset(struct nb_emu *emu);

/* Unbind the gadget from the UDC, and bind it again. */
int nb_emu_disconnect(struct nb_emu *emu);
int nb_emu_connect(struct nb_emu *emu);
/* count unbind/bind pairs, down_ms unbound and up_ms bound each; ends bound. */
int nb_emu_storm(struct nb_emu *emu, unsigned int count, unsigned int down_ms,
		 unsigned int up_ms);

#endif
