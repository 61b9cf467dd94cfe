/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The chest board protocol codec: frames, messages and counts.
 *
 * One copy of these files is built into naobody.ko and, unchanged, into
 * userspace (unit tests, fuzzers, the chest board emulator, tools); nb_env.h
 * is the only difference between the two. Everything here may be called
 * from any context, hard interrupt included: nothing allocates, sleeps,
 * uses floating point or recurses, every loop is bounded by a frame's size,
 * no function keeps state outside the structures it is given, and no call
 * chain uses more than a few hundred bytes of stack. Concurrent calls on
 * different structures need no locking; the caller serialises calls on the
 * same structure.
 *
 * Input from the device is untrusted: every length, count and index is
 * checked, and a bad frame or message is reported with a negative errno,
 * never with a warning. Errors:
 *
 *   -EMSGSIZE  a frame shorter than its CRC or longer than NB_FRAME_MAX; a
 *              message whose length does not fit its kind
 *   -EBADMSG   a CRC that does not match
 *   -EPROTO    a length table that does not add up
 *   -ENOENT    a message of a kind, bus or address the codec doesn't know
 *   -ERANGE    a field outside its range (an index, a slot, a status)
 *   -ENOSPC    a frame being built is full (or has 255 messages)
 *   -EINVAL    a caller's argument out of range
 *
 * The frame format is the spec's (Documentation/chest-board-protocol.rst).
 * Message layouts, board addresses and request encodings the spec doesn't
 * give are provisional: they all live in nb_layout.h.
 */
#ifndef _NB_CODEC_H
#define _NB_CODEC_H

#include "nb_env.h"
#include <linux/naobody.h>

/* ------------------------------------------------------------------------
 * Frames
 *
 *   to the board:   [CRC-32, big endian][messages][length table]
 *   from the board: [messages][length table][CRC-32, big endian]
 *
 * The length table has one byte per message, last message first, so that
 * read backwards from its end it gives the messages' lengths in order.
 */
#define NB_FRAME_MAX		4096	/* bytes, CRC included */
#define NB_FRAME_MAX_MSGS	255
#define NB_FRAME_CRC_LEN	4
#define NB_IN_FRAME_MAX		512	/* what one bulk IN read asks for */
#define NB_MSG_MAX		255	/* a table entry is one byte */
#define NB_MSG_HDR		3	/* kind, bus, address */

/*
 * Flags of nb_frame_parse() and nb_frame_begin(). NB_FRAME_UNBOUNDED lets a
 * builder make frames the parser rejects (more than 255 messages, more than
 * NB_FRAME_MAX bytes), for tests and a misbehaving emulator.
 */
#define NB_FRAME_IN		0		/* from the board: CRC last */
#define NB_FRAME_OUT		BIT(0)		/* to the board: CRC first */
#define NB_FRAME_NO_CRC		BIT(1)		/* parse: don't check the CRC */
#define NB_FRAME_UNBOUNDED	BIT(2)		/* build: no limits */

/**
 * struct nb_frame - a parsed frame: a view into the caller's buffer
 * @msgs: the first message
 * @msgs_len: bytes of messages; the length table follows them
 * @count: number of messages, 0 to 255
 * @crc: the CRC the frame carries (checked unless NB_FRAME_NO_CRC)
 */
struct nb_frame {
	const u8 *msgs;
	u16 msgs_len;
	u16 count;
	u32 crc;
};

/**
 * struct nb_msg_iter - walks the messages of a parsed frame
 * @frame: the frame
 * @off: offset of the next message from @frame->msgs
 * @index: number of messages returned so far
 */
struct nb_msg_iter {
	const struct nb_frame *frame;
	u16 off;
	u16 index;
};

/**
 * struct nb_frame_builder - a frame being built in the caller's buffer
 * @buf: the buffer
 * @cap: its size
 * @end: end of the messages added so far
 * @count: messages added so far
 * @flags: NB_FRAME_IN or NB_FRAME_OUT, optionally NB_FRAME_UNBOUNDED
 * @err: the first error of an add, reported by nb_frame_end()
 *
 * Until nb_frame_end() the message lengths are kept at the end of @buf.
 */
struct nb_frame_builder {
	u8 *buf;
	u32 cap;
	u32 end;
	u32 count;
	u32 flags;
	int err;
};

u32 nb_crc32(u32 crc, const void *buf, size_t len);

int nb_frame_parse(struct nb_frame *f, const void *buf, size_t len,
		   unsigned int flags);

/**
 * nb_msg_iter_init() - start walking a parsed frame's messages
 * @it: the iterator
 * @f: a frame nb_frame_parse() accepted
 *
 * Context: any.
 */
static inline void nb_msg_iter_init(struct nb_msg_iter *it,
				    const struct nb_frame *f)
{
	it->frame = f;
	it->off = 0;
	it->index = 0;
}

/**
 * nb_msg_next() - the next message
 * @it: the iterator
 * @len: set to the message's length, which may be 0
 *
 * Context: any.
 * Return: the message, or NULL after the last one.
 */
static inline const u8 *nb_msg_next(struct nb_msg_iter *it, size_t *len)
{
	const struct nb_frame *f = it->frame;
	unsigned int l;
	const u8 *m;

	if (it->index >= f->count)
		return NULL;
	/* entry i is the i-th byte back from the table's end */
	l = f->msgs[f->msgs_len + f->count - 1 - it->index];
	if (it->off + l > f->msgs_len)	/* only for a frame made by hand */
		return NULL;
	m = f->msgs + it->off;
	it->off += l;
	it->index++;
	*len = l;
	return m;
}

void nb_frame_begin(struct nb_frame_builder *b, void *buf, size_t cap,
		    unsigned int flags);
u8 *nb_frame_add(struct nb_frame_builder *b, size_t len);
int nb_frame_put(struct nb_frame_builder *b, const void *msg, size_t len);
int nb_frame_end(struct nb_frame_builder *b, u32 *crc);

/* The vendor IN request 0x14's answer: 0x2a, then the CRC of the frame */
#define NB_ACK_LEN		5
int nb_ack_check(const u8 *ack, size_t len, u32 crc);
void nb_ack_encode(u8 *ack, u32 crc);

/* ------------------------------------------------------------------------
 * Boards (provisional table: nb_layout.h)
 */
#define NB_BOARDS		17	/* entries in the board table */
#define NB_NO_BOARD		0xff
#define NB_NONE			0xff	/* a board's unused touch or fsr */

/**
 * struct nb_board_desc - one board behind the chest board
 * @name: its name, as in the preferences ("LHip")
 * @bus: 0 upper body, 1 legs and feet
 * @address: its address on @bus
 * @kind: NAOBODY_BOARD_JOINT, _HAND or _FOOT
 * @start: the command that starts it after its handshake (0x07, 0x08)
 * @joints: joints it drives, 0 to 2
 * @joint: those joints (enum naobody_joint)
 * @touch: its first touch bit (enum naobody_touch), or NB_NONE; a hand has
 *	three (back, left, right), a foot two (bumper left, right)
 * @fsr: a foot's first pressure sensor (0 or NAOBODY_FSR_RIGHT_FOOT), or
 *	NB_NONE
 * @len: the length of its data message (nb_msg_len() of its kind's type)
 *
 * A board's index in the table is its index everywhere: in bit masks, in
 * struct nb_msg_info and in NAOBODY_IOC_GET_BOARDS.
 */
struct nb_board_desc {
	const char *name;
	u8 bus;
	u8 address;
	u8 kind;
	u8 start;
	u8 joints;
	u8 joint[2];
	u8 touch;
	u8 fsr;
	u8 len;
};

const struct nb_board_desc *nb_board(unsigned int index);
int nb_board_find(unsigned int bus, unsigned int address);

/* ------------------------------------------------------------------------
 * Messages
 */

/* What a message is: nb_msg_info.type */
enum nb_msg_type {
	NB_MSG_UNSPEC,
	/* from the board */
	NB_MSG_IMU,		/* inertial unit */
	NB_MSG_BATTERY,
	NB_MSG_SONAR,
	NB_MSG_CHEST_BUTTON,
	NB_MSG_JOINT_BOARD,	/* positions, currents, temperatures */
	NB_MSG_HAND_BOARD,	/* the same, and the hand's touch */
	NB_MSG_FOOT_BOARD,	/* pressure sensors and bumpers */
	NB_MSG_HANDSHAKE,	/* a board's 32-byte answer to 00 20 */
	NB_MSG_ACK,		/* 04: a board's acknowledge */
	NB_MSG_PREF_PIECE,	/* 03 06: a piece of the preference block */
	NB_MSG_ID_STRING,	/* 03 08: an id string */
	NB_MSG_CHEST_MODE,	/* the answer to a chest mode request */
	/* to the board */
	NB_MSG_TARGETS,		/* a joint or hand board's targets */
	NB_MSG_FOOT_LEDS,
	NB_MSG_IMU_REQ,
	NB_MSG_BATTERY_REQ,
	NB_MSG_SONAR_REQ,	/* with the sonar enable bits */
	NB_MSG_CHEST_LED,
	NB_MSG_HANDSHAKE_REQ,	/* 00 20 */
	NB_MSG_START,		/* 01 07 or 01 08 */
	NB_MSG_PREF_READ,
	NB_MSG_ID_READ,
	NB_MSG_CHEST_MODE_REQ,
	NB_MSG_HARAKIRI,
	__NB_MSG_MAX
};

/**
 * struct nb_msg_info - what a decoded message was, beyond the state it set
 * @type: enum nb_msg_type
 * @kind: byte 0 of the message
 * @bus: byte 1
 * @address: byte 2
 * @board: index into the board table, or NB_NO_BOARD
 * @value: NB_MSG_ACK: the status byte; NB_MSG_ID_STRING, NB_MSG_ID_READ:
 *	the slot; NB_MSG_CHEST_MODE: the result; NB_MSG_CHEST_MODE_REQ: the
 *	enum naobody_chest_mode_op; NB_MSG_HARAKIRI: NAOBODY_HARAKIRI_*;
 *	NB_MSG_START: the command byte
 * @piece: NB_MSG_PREF_PIECE, NB_MSG_PREF_READ: the piece's index
 * @len: bytes at @data
 * @data: NB_MSG_ID_STRING: the 20 characters; NB_MSG_PREF_PIECE: the
 *	piece's bytes; NB_MSG_HANDSHAKE: the 32 bytes of the answer. It points
 *	into the decoded message and is valid as long as that is.
 *
 * To encode a message, fill @type, @board and whatever the type uses.
 */
struct nb_msg_info {
	u8 type;
	u8 kind;
	u8 bus;
	u8 address;
	u8 board;
	u8 value;
	u16 piece;
	u16 len;
	const u8 *data;
};

int nb_in_msg_decode(const u8 *msg, size_t len, struct naobody_sensors *s,
		     struct nb_msg_info *info);
int nb_in_msg_encode(struct nb_frame_builder *b,
		     const struct nb_msg_info *info,
		     const struct naobody_sensors *s);
int nb_out_msg_decode(const u8 *msg, size_t len, struct naobody_actuators *a,
		      struct nb_msg_info *info);
int nb_out_msg_encode(struct nb_frame_builder *b,
		      const struct nb_msg_info *info,
		      const struct naobody_actuators *a);

/**
 * struct nb_in_stats - what nb_in_frame_decode() found
 * @messages: messages in the frame
 * @decoded: messages decoded
 * @unknown: messages of an unknown kind, bus or address (-ENOENT)
 * @malformed: messages with a bad length or field (any other error)
 */
struct nb_in_stats {
	u32 messages;
	u32 decoded;
	u32 unknown;
	u32 malformed;
};

int nb_in_frame_decode(const void *buf, size_t len, struct naobody_sensors *s,
		       struct nb_in_stats *st);

/* ------------------------------------------------------------------------
 * The OUT frame, driver side
 */

/* nb_out_plan.requests */
#define NB_REQ_SENSORS		BIT(0)	/* inertial unit, battery, sonar */
#define NB_REQ_CHEST_LED	BIT(1)
#define NB_REQ_PREF		BIT(2)	/* read piece pref_piece */
#define NB_REQ_ID		BIT(3)	/* read id string id_slot */
#define NB_REQ_CHEST_MODE	BIT(4)	/* chest_mode */
#define NB_REQ_HARAKIRI		BIT(5)	/* harakiri */
#define NB_REQ_ALL		(BIT(6) - 1)

/**
 * struct nb_out_plan - what one OUT frame carries besides the targets
 * @targets: bit i: board i gets its targets (positions and stiffness, or a
 *	foot's LEDs)
 * @handshake: bit i: board i is asked for its handshake answer (00 20)
 * @start: bit i: board i gets its start command (01 07 or 01 08)
 * @requests: NB_REQ_*
 * @pref_piece: the preference piece to read, below NB_PREFS_PIECES
 * @id_slot: the id string to read, below NAOBODY_CHEST_ID_SLOTS
 * @chest_mode: enum naobody_chest_mode_op
 * @harakiri: NAOBODY_HARAKIRI_POWER_OFF or NAOBODY_HARAKIRI_RESET
 *
 * Messages go into the frame in this order: handshakes, starts, targets
 * (board order), sensor requests, chest LED, chest board requests.
 */
struct nb_out_plan {
	u64 targets;
	u64 handshake;
	u64 start;
	u32 requests;
	u16 pref_piece;
	u8 id_slot;
	u8 chest_mode;
	u8 harakiri;
};

int nb_out_cycle(void *buf, size_t cap, const struct naobody_actuators *a,
		 const struct nb_out_plan *plan, u32 *crc);

/* ------------------------------------------------------------------------
 * The IN frame, emulator side
 */
int nb_in_body(struct nb_frame_builder *b, const struct naobody_sensors *s,
	       u64 boards);

/* ------------------------------------------------------------------------
 * The motor board handshake answer
 */
#define NB_HANDSHAKE_LEN	32	/* 16 bytes of status, 16 of configuration */

int nb_handshake_parse(const u8 *answer, size_t len,
		       struct naobody_board *board);
void nb_handshake_encode(const struct naobody_board *board, u8 *answer);

/* ------------------------------------------------------------------------
 * The preference block: reassembly from pieces and its CRC. The typed
 * key-value parser is userspace's (libnaobody, <naobody/prefs.h>).
 */
#define NB_PREFS_SIZE		NAOBODY_PREFS_SIZE	/* 4,635 */
#define NB_PREFS_PIECE		32
#define NB_PREFS_PIECES		((NB_PREFS_SIZE + NB_PREFS_PIECE - 1) / NB_PREFS_PIECE)

/**
 * struct nb_prefs_asm - a preference block being reassembled
 * @block: the block
 * @have: bit i: piece i arrived
 * @pieces: pieces arrived
 */
struct nb_prefs_asm {
	u8 block[NB_PREFS_SIZE];
	u32 have[(NB_PREFS_PIECES + 31) / 32];
	u16 pieces;
};

/**
 * nb_prefs_piece_len() - the length of a preference piece
 * @piece: its index
 *
 * Context: any.
 * Return: NB_PREFS_PIECE, less for the last piece, 0 past it.
 */
static inline size_t nb_prefs_piece_len(unsigned int piece)
{
	if (piece >= NB_PREFS_PIECES)
		return 0;
	if (piece == NB_PREFS_PIECES - 1)
		return NB_PREFS_SIZE - (NB_PREFS_PIECES - 1) * NB_PREFS_PIECE;
	return NB_PREFS_PIECE;
}

void nb_prefs_asm_init(struct nb_prefs_asm *p);
int nb_prefs_asm_put(struct nb_prefs_asm *p, unsigned int piece,
		     const u8 *data, size_t len);
int nb_prefs_asm_missing(const struct nb_prefs_asm *p, unsigned int from);
int nb_prefs_asm_check(const struct nb_prefs_asm *p);
int nb_prefs_crc_check(const u8 *block, size_t len);
void nb_prefs_crc_seal(u8 *block, size_t len);

/* ------------------------------------------------------------------------
 * The provisional layout, for tools, tests and documentation
 */
#define NB_FIELD_SIGNED		BIT(0)

/**
 * struct nb_field - one field of a message
 * @name: "<message>.<field>"
 * @msg: enum nb_msg_type of the message it is in
 * @offset: from the message's first byte (for a per-joint field: joint 0's;
 *	joint j's is @offset + j * @stride)
 * @width: bytes: 1, 2 or 4 (big endian)
 * @flags: NB_FIELD_SIGNED
 * @stride: for a per-joint field, bytes per joint; 0 otherwise
 * @scale_num: a count is worth @scale_num / @scale_den @unit
 * @scale_den: see @scale_num
 * @unit: the unit of the scaled value
 */
struct nb_field {
	const char *name;
	u8 msg;
	u8 offset;
	u8 width;
	u8 flags;
	u8 stride;
	s32 scale_num;
	s32 scale_den;
	const char *unit;
};

/**
 * struct nb_msg_layout - how a message type looks on the wire
 * @name: its name
 * @type: enum nb_msg_type
 * @kind: byte 0
 * @bus: byte 1, or NB_ANY for a board's message (its board's bus)
 * @address: byte 2, or NB_ANY for a board's message (its board's address)
 * @len: total length in bytes; for a board's message, with one joint less
 *	per missing joint (see nb_msg_len())
 */
struct nb_msg_layout {
	const char *name;
	u8 type;
	u8 kind;
	u8 bus;
	u8 address;
	u16 len;
};

#define NB_ANY			0xff

const struct nb_field *nb_field(unsigned int index);
/* Userspace only (nb_msg_emu.c): the fingerprint of the whole layout */
u32 nb_layout_id(void);
const struct nb_msg_layout *nb_msg_layout(unsigned int type);
int nb_msg_len(unsigned int type, unsigned int board);

#endif /* _NB_CODEC_H */
