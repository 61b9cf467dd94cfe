/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * n_robot: a tty line discipline for robot serial links.
 *
 * This header is the contract for programs in any language. Everything in it
 * is fixed-size, naturally aligned and explicitly padded; reserved fields and
 * padding must be zero on input and are zero on output.
 *
 * Attaching
 * =========
 *   int ld = N_ROBOT_LDISC;                 29, N_DEVELOPMENT, unless the
 *                                           module was loaded with ldisc=N:
 *                                           /sys/module/n_robot/parameters/ldisc
 *   ioctl(fd, TIOCSETD, &ld);               needs CAP_NET_ADMIN
 *   struct n_robot_config c = { .size = sizeof(c),
 *                               .framing = N_ROBOT_FRAMING_CM5 };
 *   ioctl(fd, N_ROBOT_IOC_SET_CONFIG, &c);
 *
 * Until a framing is selected, read() and write() fail with ENOPROTOOPT.
 * Selecting a framing (even the same one again) resets the receiver: the
 * partial frame, the receive queue, the CM-5 formats and the counters.
 *
 * Reading and writing
 * ===================
 * read() returns exactly one validated frame, byte for byte as it was on the
 * wire (CM-5: instruction, data, checksum; PAROL6: FF FF FF, length,
 * payload, 01 02). A buffer shorter than the frame fails with EOVERFLOW and
 * the frame stays queued; FIONREAD gives the size of the next frame (0 if
 * none). poll() reports POLLIN while a frame is queued. The receive queue
 * holds rx_queue_frames frames; when a new frame finds it full the oldest
 * frame is dropped and counted in rx_overruns.
 *
 * write() takes exactly one frame, whole, with its checksum or end bytes.
 * A frame the discipline refuses is counted in tx_rejected and fails with:
 *   EINVAL      malformed: unknown instruction or command byte, wrong
 *               length, a format entry out of the firmware's bounds
 *   EBADMSG     wrong CM-5 checksum (the CM-5 executes such a packet anyway,
 *               so the discipline never sends one)
 *   EMSGSIZE    a CM-5 packet over 130 bytes, or a write format whose
 *               WRITE_DATA would be (N_ROBOT_CM5_MAX_TX_FRAME)
 *   ESTALE      a CM-5 READ_DATA or WRITE_DATA while that format is unknown
 *   EACCES      a CM-5 write format that covers a read-only register of the
 *               model set for that id (N_ROBOT_IOC_CM5_SET_MODELS)
 *   EAGAIN      O_NONBLOCK and the previous frame is still going out
 * A frame is handed to the tty driver whole when the driver has room for it,
 * so a CM-5 READ_DATA (F3 0C) never leaves without its checksum.
 *
 * CM-5 (BRBrain firmware)
 * =======================
 * Replies are framed by their instruction byte: STATUS (0xFA) is 7 bytes;
 * DATA (0xFB) is 7 bytes plus the sum of the byte counts of the read format.
 * The discipline learns the read and write formats from the SET_READ_FORMAT
 * (0xF1) and SET_WRITE_FORMAT (0xF2) packets written through it, or from
 * N_ROBOT_IOC_CM5_SET_FORMAT when the CM-5 was set up by someone else. Both
 * start empty, as the firmware does after reset. A STATUS that arrives while
 * no request is outstanding (the firmware answers line garbage that way) is
 * delivered and counted in cm5_unsolicited.
 *
 * "The read format will be indeterminate until it is successfully re-set"
 * (BRBrain): a format written through the discipline frames the replies at
 * once, but is known only when the reply to its F1/F2 is a STATUS with
 * status 0. A STATUS with any bit (the firmware installs a format whose
 * checksum failed, 0x40, whatever its bytes were), no reply before the next
 * request or a flush, make it unknown: the reader sees that STATUS itself,
 * cm5_formats_lost counts it, GET_FORMAT flags it, and READ_DATA (for the
 * read format) or WRITE_DATA (for the write format) fail with ESTALE until
 * the format is written again (or set with N_ROBOT_IOC_CM5_SET_FORMAT).
 * Formats are therefore strictly request and reply: send the next request
 * after the STATUS.
 *
 * PAROL6
 * ======
 * Telemetry frames are accepted only with length 56 (60 bytes in all);
 * command frames are written with length 52 (56 bytes in all). A candidate
 * with a wrong length or wrong end bytes is dropped and the receiver slides
 * one byte and searches again, since FF FF FF also occurs inside payloads.
 */
#ifndef _UAPI_LINUX_N_ROBOT_H
#define _UAPI_LINUX_N_ROBOT_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define N_ROBOT_LDISC		29	/* N_DEVELOPMENT: the default */
#define N_ROBOT_LDISC_SYSFS	"/sys/module/n_robot/parameters/ldisc"
#define N_ROBOT_API_VERSION	1

/* n_robot_config.framing */
#define N_ROBOT_FRAMING_NONE	0
#define N_ROBOT_FRAMING_CM5	1
#define N_ROBOT_FRAMING_PAROL6	2

/* Receive queue length, in frames. */
#define N_ROBOT_RX_QUEUE_DEFAULT	32
#define N_ROBOT_RX_QUEUE_MAX		1024

/* CM-5 constants (BRBrain firmware). */
#define N_ROBOT_CM5_PING	0xF0
#define N_ROBOT_CM5_SET_READ	0xF1
#define N_ROBOT_CM5_SET_WRITE	0xF2
#define N_ROBOT_CM5_READ_DATA	0xF3
#define N_ROBOT_CM5_WRITE_DATA	0xF4
#define N_ROBOT_CM5_STATUS	0xFA
#define N_ROBOT_CM5_DATA	0xFB
#define N_ROBOT_CM5_MAX_DYNAMIXELS	32
#define N_ROBOT_CM5_MAX_ID		253
#define N_ROBOT_CM5_PING_CM5		255	/* ping the CM-5 itself */
#define N_ROBOT_CM5_NUM_REG_BYTES	55	/* registers 0..54 */
#define N_ROBOT_CM5_STATUS_LEN		7
/* DATA: 1 + 32 * 55 + 5 + 1 */
#define N_ROBOT_CM5_MAX_FRAME		1767
/*
 * The longest packet to the CM-5: a WRITE_DATA of 32 servos x 4 bytes (goal
 * position and moving speed, BRBrain's everyday write format) plus its
 * instruction and checksum. The firmware's receive buffer is 128 bytes, but
 * it takes WRITE_DATA out of it servo by servo as it arrives: by the time
 * the first servo's bytes are out (5 bytes, even if that servo then times
 * out for 4 x 100 ms), the rest (125 bytes) fits. Every other packet is at
 * most 99 bytes.
 */
#define N_ROBOT_CM5_MAX_TX_FRAME	130

/* PAROL6 constants. */
#define N_ROBOT_PAROL6_CMD_LEN		52	/* length byte of a command */
#define N_ROBOT_PAROL6_TELEMETRY_LEN	56	/* length byte of telemetry */
#define N_ROBOT_PAROL6_CMD_FRAME	56	/* bytes on the wire */
#define N_ROBOT_PAROL6_TELEMETRY_FRAME	60

/* The largest frame read() can return, for any framing. */
#define N_ROBOT_MAX_FRAME		N_ROBOT_CM5_MAX_FRAME

/*
 * N_ROBOT_IOC_SET_CONFIG / N_ROBOT_IOC_GET_CONFIG
 *
 * size:            sizeof(struct n_robot_config); set on input, filled on output
 * framing:         N_ROBOT_FRAMING_*
 * flags:           none defined yet; must be 0
 * rx_queue_frames: 0 for N_ROBOT_RX_QUEUE_DEFAULT, else 1..N_ROBOT_RX_QUEUE_MAX
 * api_version:     output only (N_ROBOT_API_VERSION); 0 on input
 * max_frame:       output only: the largest frame of this framing; 0 on input
 */
struct n_robot_config {
	__u32 size;
	__u32 framing;
	__u32 flags;
	__u32 rx_queue_frames;
	__u32 api_version;
	__u32 max_frame;
	__u32 reserved[2];
};

/*
 * N_ROBOT_IOC_GET_STATS: counters since the framing was selected or the last
 * N_ROBOT_IOC_RESET_STATS. Every byte received is accounted for:
 *   rx_raw_bytes = rx_bytes + rx_dropped_bytes + rx_pending_bytes
 * (rx_bytes counts frames when they are queued, also those later dropped
 * from a full queue, which rx_overruns counts).
 */
struct n_robot_stats {
	__u32 size;
	__u32 framing;
	__u64 rx_raw_bytes;		/* bytes from the tty */
	__u64 rx_frames;		/* valid frames queued */
	__u64 rx_bytes;			/* bytes of those frames */
	__u64 rx_dropped_bytes;		/* garbage and bytes of bad candidates */
	__u64 rx_checksum_errors;	/* CM-5: checksum did not match */
	__u64 rx_length_errors;		/* PAROL6: length byte other than 56 */
	__u64 rx_marker_errors;		/* PAROL6: end bytes other than 01 02 */
	__u64 rx_resyncs;		/* candidates rejected: slid one byte */
	__u64 rx_overruns;		/* frames dropped from a full queue */
	__u64 rx_tty_errors;		/* bytes the driver flagged (parity...) */
	__u64 rx_pending_bytes;		/* snapshot: partial frame buffered */
	__u64 rx_queued_frames;		/* snapshot: frames waiting for read() */
	__u64 tx_frames;
	__u64 tx_bytes;
	__u64 tx_rejected;		/* write() refused a frame */
	__u64 cm5_unsolicited;		/* STATUS with no request outstanding */
	__u64 cm5_formats_lost;		/* F1/F2 answered with an error, or not */
	__u64 reserved[3];
};

/*
 * N_ROBOT_IOC_CM5_SET_FORMAT / N_ROBOT_IOC_CM5_GET_FORMAT
 *
 * which: N_ROBOT_CM5_FORMAT_READ or _WRITE (input to GET as well)
 * count: number of entries, 0..N_ROBOT_CM5_MAX_DYNAMIXELS
 * entry: id 0..253; start 0..54; num is a byte count (not a register count),
 *        0..55 - start (0: nothing from this servo, as BRBrain allows).
 *        Unused entries and pad must be zero.
 * SET validates like write() of the matching 0xF1/0xF2 packet (same errnos)
 * but sends nothing, and makes the format known. GET sets
 * N_ROBOT_CM5_FORMAT_UNKNOWN in flags while the format is unknown (see
 * "CM-5" above).
 */
#define N_ROBOT_CM5_FORMAT_READ		0
#define N_ROBOT_CM5_FORMAT_WRITE	1

struct n_robot_cm5_entry {
	__u8 id;
	__u8 start;
	__u8 num;
	__u8 pad;
};

#define N_ROBOT_CM5_FORMAT_UNKNOWN	1	/* flags, GET only */

struct n_robot_cm5_format {
	__u32 size;
	__u32 which;
	__u32 count;
	__u32 flags;		/* 0 on SET; N_ROBOT_CM5_FORMAT_UNKNOWN on GET */
	struct n_robot_cm5_entry entry[N_ROBOT_CM5_MAX_DYNAMIXELS];
};

/*
 * N_ROBOT_IOC_CM5_SET_MODELS / _GET_MODELS: the Dynamixel model behind each
 * id, which decides the read-only registers a write format may not cover.
 * All ids start as AX-12. model[254] and model[255] must be 0.
 */
#define N_ROBOT_CM5_MODEL_AX12	0
#define N_ROBOT_CM5_MODEL_AXS1	1
#define N_ROBOT_CM5_MODEL_OTHER	2	/* only 0-2, 42, 43, 46, 54 read-only */

struct n_robot_cm5_models {
	__u32 size;
	__u32 reserved;
	__u8 model[256];
};

#define N_ROBOT_IOC_MAGIC	0xB9

#define N_ROBOT_IOC_SET_CONFIG	_IOW(N_ROBOT_IOC_MAGIC, 0x20, struct n_robot_config)
#define N_ROBOT_IOC_GET_CONFIG	_IOR(N_ROBOT_IOC_MAGIC, 0x21, struct n_robot_config)
#define N_ROBOT_IOC_GET_STATS	_IOR(N_ROBOT_IOC_MAGIC, 0x22, struct n_robot_stats)
#define N_ROBOT_IOC_RESET_STATS	_IO(N_ROBOT_IOC_MAGIC, 0x23)
#define N_ROBOT_IOC_CM5_SET_FORMAT _IOW(N_ROBOT_IOC_MAGIC, 0x24, struct n_robot_cm5_format)
#define N_ROBOT_IOC_CM5_GET_FORMAT _IOWR(N_ROBOT_IOC_MAGIC, 0x25, struct n_robot_cm5_format)
#define N_ROBOT_IOC_CM5_SET_MODELS _IOW(N_ROBOT_IOC_MAGIC, 0x26, struct n_robot_cm5_models)
#define N_ROBOT_IOC_CM5_GET_MODELS _IOR(N_ROBOT_IOC_MAGIC, 0x27, struct n_robot_cm5_models)

#endif /* _UAPI_LINUX_N_ROBOT_H */
