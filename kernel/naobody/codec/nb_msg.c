// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chest board messages, the driver's side: decoding the board's answers
 * into counts, encoding the commands (the OUT cycle), parsing the
 * handshake answer, and the layout tables' accessors. The other
 * directions, which only an emulator or a tool needs, are in
 * nb_msg_emu.c, outside the module. See nb_msg_shared.h.
 */
#include "nb_msg_shared.h"

/**
 * nb_board() - a board of the provisional board table
 * @index: its index, below NB_BOARDS
 *
 * Context: any.
 * Return: the board, or NULL past the end of the table.
 */
const struct nb_board_desc *nb_board(unsigned int index)
{
	return index < NB_BOARDS ? &nb_boards[index] : NULL;
}

/**
 * nb_board_find() - the board at an address
 * @bus: its bus
 * @address: its address
 *
 * Context: any.
 * Return: the board's index, or -ENOENT.
 */
int nb_board_find(unsigned int bus, unsigned int address)
{
	const struct nb_board_desc *bd;

	if (bus > 0xff || address > 0xff)
		return -ENOENT;
	bd = nb_map(bus, address);
	return bd ? bd - nb_boards : -ENOENT;
}

/**
 * nb_field() - a field of the provisional layout
 * @index: from 0; the table ends with the first NULL
 *
 * Context: any.
 * Return: the field, or NULL past the end of the table.
 */
const struct nb_field *nb_field(unsigned int index)
{
	return index < ARRAY_SIZE(nb_fields) ? &nb_fields[index] : NULL;
}

/**
 * nb_msg_layout() - how a message type looks on the wire
 * @type: enum nb_msg_type
 *
 * Context: any.
 * Return: its layout, or NULL for an unknown type.
 */
const struct nb_msg_layout *nb_msg_layout(unsigned int type)
{
	if (type == NB_MSG_UNSPEC || type >= __NB_MSG_MAX)
		return NULL;
	return &nb_layouts[type];
}

/**
 * nb_msg_len() - a message's length
 * @type: enum nb_msg_type
 * @board: for a board's data or targets, which board (it sets the number
 *	of joints); ignored otherwise
 *
 * A preference piece's length is that of a full piece; the last piece is
 * shorter (nb_prefs_piece_len()).
 *
 * Context: any.
 * Return: the length in bytes, or -EINVAL.
 */
int nb_msg_len(unsigned int type, unsigned int board)
{
	const struct nb_msg_layout *l = nb_msg_layout(type);

	if (!l)
		return -EINVAL;
	if (type == NB_MSG_JOINT_BOARD || type == NB_MSG_TARGETS) {
		if (board >= NB_BOARDS || !nb_boards[board].joints ||
		    nb_boards[board].kind == NAOBODY_BOARD_FOOT)
			return -EINVAL;
		return type == NB_MSG_TARGETS ?
			NB_LEN_TARGETS(nb_boards[board].joints) :
			NB_LEN_JOINT(nb_boards[board].joints);
	}
	return l->len;
}

/* ------------------------------------------------------------------------
 * From the board: decoding
 */

static __always_inline void nb_dec_joint(const u8 *m, unsigned int j,
					 unsigned int jt,
					 struct naobody_sensors *s)
{
	s->joint_position[jt] = nb_get(m, NB_F_JOINT_POS, j);
	s->joint_current[jt] = nb_get(m, NB_F_JOINT_CUR, j);
	s->joint_temperature[jt] = nb_get(m, NB_F_JOINT_TEMP, j);
	s->joint_status[jt] = nb_get(m, NB_F_JOINT_STATUS, j);
}

/* A board's joints: one or two (the board table has no other counts) */
static __always_inline int nb_dec_joints(const u8 *m,
					 const struct nb_board_desc *bd,
					 struct naobody_sensors *s)
{
	/* a status above 3 has bits outside 0..3 */
	if (bd->joints == 2) {
		if ((nb_get(m, NB_F_JOINT_STATUS, 0) |
		     nb_get(m, NB_F_JOINT_STATUS, 1)) & ~NB_JOINT_STATUS_MAX)
			return -ERANGE;
		nb_dec_joint(m, 0, bd->joint[0], s);
		nb_dec_joint(m, 1, bd->joint[1], s);
	} else if (bd->joints == 1) {
		if (nb_get(m, NB_F_JOINT_STATUS, 0) & ~NB_JOINT_STATUS_MAX)
			return -ERANGE;
		nb_dec_joint(m, 0, bd->joint[0], s);
	} else {
		return -ENOENT;
	}
	s->updated |= NAOBODY_UPDATED_JOINTS;
	return 0;
}

static __always_inline int nb_dec_board(const u8 *m, size_t len,
					struct naobody_sensors *s,
					struct nb_msg_info *info)
{
	const struct nb_board_desc *bd = nb_map(m[1], m[2]);
	int r;

	if (!bd)
		return -ENOENT;
	if (info)
		info->board = bd - nb_boards;
	/* bd->len is the data message's, shorter than a handshake answer */
	BUILD_BUG_ON(NB_LEN_JOINT(2) >= NB_LEN_HANDSHAKE);
	BUILD_BUG_ON(NB_LEN_HAND >= NB_LEN_HANDSHAKE);
	BUILD_BUG_ON(NB_LEN_FOOT >= NB_LEN_HANDSHAKE);
	if (len != bd->len) {
		if (len != NB_LEN_HANDSHAKE)
			return -EMSGSIZE;
		if (info) {
			info->data = m + NB_MSG_HDR;
			info->len = NB_HANDSHAKE_LEN;
		}
		return NB_MSG_HANDSHAKE;
	}
	if (bd->kind == NAOBODY_BOARD_JOINT) {
		r = nb_dec_joints(m, bd, s);
		return r ? r : NB_MSG_JOINT_BOARD;
	}
	if (bd->kind == NAOBODY_BOARD_HAND) {
		r = nb_dec_joints(m, bd, s);
		if (r)
			return r;
		nb_set_touch(s, bd->touch, NB_HAND_TOUCHES,
			     nb_get(m, NB_F_HAND_TOUCH, 0));
		return NB_MSG_HAND_BOARD;
	}
	/* NAOBODY_BOARD_FOOT */
	s->fsr[bd->fsr + NAOBODY_FSR_FRONT_LEFT] = nb_get(m, NB_F_FSR_FL, 0);
	s->fsr[bd->fsr + NAOBODY_FSR_FRONT_RIGHT] = nb_get(m, NB_F_FSR_FR, 0);
	s->fsr[bd->fsr + NAOBODY_FSR_REAR_LEFT] = nb_get(m, NB_F_FSR_RL, 0);
	s->fsr[bd->fsr + NAOBODY_FSR_REAR_RIGHT] = nb_get(m, NB_F_FSR_RR, 0);
	nb_set_touch(s, bd->touch, NB_FOOT_TOUCHES, nb_get(m, NB_F_BUMPERS, 0));
	s->updated |= bd->fsr ? NAOBODY_UPDATED_R_FOOT : NAOBODY_UPDATED_L_FOOT;
	return NB_MSG_FOOT_BOARD;
}

static __always_inline int nb_dec_device(const u8 *m, size_t len,
					 struct naobody_sensors *s)
{
	switch (m[2]) {
	case NB_ADDR_IMU:
		if (len != NB_LEN_IMU)
			return -EMSGSIZE;
		s->accelerometer[0] = nb_get(m, NB_F_ACC_X, 0);
		s->accelerometer[1] = nb_get(m, NB_F_ACC_Y, 0);
		s->accelerometer[2] = nb_get(m, NB_F_ACC_Z, 0);
		s->gyroscope[0] = nb_get(m, NB_F_GYR_X, 0);
		s->gyroscope[1] = nb_get(m, NB_F_GYR_Y, 0);
		s->gyroscope[2] = nb_get(m, NB_F_GYR_Z, 0);
		s->angles[0] = nb_get(m, NB_F_ANGLE_X, 0);
		s->angles[1] = nb_get(m, NB_F_ANGLE_Y, 0);
		s->updated |= NAOBODY_UPDATED_IMU;
		return NB_MSG_IMU;
	case NB_ADDR_BATTERY:
		if (len != NB_LEN_BAT)
			return -EMSGSIZE;
		s->battery_charge = nb_get(m, NB_F_BAT_CHARGE, 0);
		s->battery_status = nb_get(m, NB_F_BAT_STATUS, 0);
		s->battery_current = nb_get(m, NB_F_BAT_CURRENT, 0);
		s->battery_temperature = nb_get(m, NB_F_BAT_TEMP, 0);
		s->updated |= NAOBODY_UPDATED_BATTERY;
		return NB_MSG_BATTERY;
	case NB_ADDR_SONAR:
		if (len != NB_LEN_SONAR)
			return -EMSGSIZE;
		s->sonar[0] = nb_get(m, NB_F_SONAR_L, 0);
		s->sonar[1] = nb_get(m, NB_F_SONAR_R, 0);
		s->updated |= NAOBODY_UPDATED_SONAR;
		return NB_MSG_SONAR;
	}
	return -ENOENT;
}

static __always_inline int nb_dec_chest(const u8 *m, size_t len,
					struct nb_msg_info *info)
{
	unsigned int piece, slot;

	switch (m[2]) {
	case NB_ADDR_PREFS:
		if (len < NB_OFF_PREF_DATA)
			return -EMSGSIZE;
		piece = nb_get(m, NB_F_PREF_INDEX, 0);
		if (piece >= NB_PREFS_PIECES)
			return -ERANGE;
		if (len != NB_LEN_PREF(nb_prefs_piece_len(piece)))
			return -EMSGSIZE;
		if (info) {
			info->piece = piece;
			info->data = m + NB_OFF_PREF_DATA;
			info->len = len - NB_OFF_PREF_DATA;
		}
		return NB_MSG_PREF_PIECE;
	case NB_ADDR_ID:
		if (len != NB_LEN_ID)
			return -EMSGSIZE;
		slot = nb_get(m, NB_F_ID_SLOT, 0);
		if (slot >= NAOBODY_CHEST_ID_SLOTS)
			return -ERANGE;
		if (info) {
			info->value = slot;
			info->data = m + NB_OFF_ID_CHARS;
			info->len = NAOBODY_CHEST_ID_LEN;
		}
		return NB_MSG_ID_STRING;
	case NB_ADDR_MODE:
		if (len != NB_LEN_MODE)
			return -EMSGSIZE;
		if (info)
			info->value = nb_get(m, NB_F_MODE_RESULT, 0);
		return NB_MSG_CHEST_MODE;
	}
	return -ENOENT;
}

/* Most messages are data, then acknowledges: test in that order. */
static __always_inline int nb_in_dispatch(const u8 *m, size_t len,
					  struct naobody_sensors *s,
					  struct nb_msg_info *info)
{
	const struct nb_board_desc *bd;

	if (m[0] == NB_KIND_DATA) {
		if (m[1] <= NB_BUS_LEGS)
			return nb_dec_board(m, len, s, info);
		if (m[1] == NB_BUS_DEVICES)
			return nb_dec_device(m, len, s);
		if (m[1] != NB_BUS_CHEST || m[2] != NB_ADDR_BUTTON)
			return -ENOENT;
		if (len != NB_LEN_BUTTON)
			return -EMSGSIZE;
		nb_set_touch(s, NAOBODY_TOUCH_CHEST_BUTTON, 1,
			     nb_get(m, NB_F_BUTTON, 0));
		s->updated |= NAOBODY_UPDATED_CHEST_BUTTON;
		return NB_MSG_CHEST_BUTTON;
	}
	if (m[0] == NB_KIND_ACK) {
		if (m[1] <= NB_BUS_LEGS) {
			bd = nb_map(m[1], m[2]);
			if (!bd)
				return -ENOENT;
			if (info)
				info->board = bd - nb_boards;
		} else if (m[1] != NB_BUS_DEVICES && m[1] != NB_BUS_CHEST) {
			return -ENOENT;
		}
		if (len != NB_LEN_ACK)
			return -EMSGSIZE;
		if (info)
			info->value = nb_get(m, NB_F_ACK_STATUS, 0);
		return NB_MSG_ACK;
	}
	if (m[0] == NB_KIND_CHEST && m[1] == NB_BUS_CHEST)
		return nb_dec_chest(m, len, info);
	return -ENOENT;
}

static __always_inline int nb_in_decode(const u8 *msg, size_t len,
					struct naobody_sensors *s,
					struct nb_msg_info *info)
{
	int r;

	if (len < NB_MSG_HDR)
		return -EMSGSIZE;
	if (info)
		nb_info_init(info, msg);
	r = nb_in_dispatch(msg, len, s, info);
	if (info && r > 0)
		info->type = r;
	return r;
}

/**
 * nb_in_msg_decode() - decode one message from the board
 * @msg: the message
 * @len: its length (from the length table)
 * @s: the state; the message's counts are written here and its group is
 *	added to @s->updated. Nothing is written unless the message is valid.
 * @info: what the message was (type, board, acknowledge status,
 *	preference piece, id string, handshake answer), or NULL
 *
 * Context: any.
 * Return: the enum nb_msg_type (positive); -EMSGSIZE if @len does not fit
 * the message's kind (a message shorter than 3 bytes, a zero-length one
 * included); -ENOENT for an unknown kind, bus or address; -ERANGE for a
 * temperature status above 3, a preference piece or id slot out of range.
 * @info->kind, bus and address are set whenever @len is at least 3.
 */
int nb_in_msg_decode(const u8 *msg, size_t len, struct naobody_sensors *s,
		     struct nb_msg_info *info)
{
	return nb_in_decode(msg, len, s, info);
}

/**
 * nb_in_frame_decode() - decode a whole answer frame into the state
 * @buf: the frame
 * @len: its length
 * @s: the state: @s->updated is cleared, then every valid sensor message
 *	updates its counts and its group bit
 * @st: if not NULL, counts of what the frame held
 *
 * Messages other than sensor data (acknowledges, preference pieces, id
 * strings, handshake answers) are counted as decoded and otherwise
 * dropped; a driver that needs them walks the frame with nb_msg_next()
 * and nb_in_msg_decode() instead.
 *
 * Context: any.
 * Return: the number of messages, or nb_frame_parse()'s error (then @s is
 * untouched).
 */
int nb_in_frame_decode(const void *buf, size_t len, struct naobody_sensors *s,
		       struct nb_in_stats *st)
{
	unsigned int decoded = 0, unknown = 0, l;
	const u8 *m, *table, *end;
	struct nb_frame f;
	int r;

	r = nb_frame_parse(&f, buf, len, NB_FRAME_IN);
	if (r)
		return r;
	s->updated = 0;
	/*
	 * The parse proved every message inside the region: walk it bare,
	 * the table from its end (the first message's length) down.
	 */
	m = f.msgs;
	end = f.msgs + f.msgs_len;
	table = end + f.count;
	while (table > end) {
		l = *--table;
		r = nb_in_decode(m, l, s, NULL);
		m += l;
		if (r > 0)
			decoded++;
		else if (r == -ENOENT)
			unknown++;
	}
	if (st) {
		st->messages = f.count;
		st->decoded = decoded;
		st->unknown = unknown;
		st->malformed = f.count - decoded - unknown;
	}
	return f.count;
}

/* ------------------------------------------------------------------------
 * To the board: encoding (the driver's side)
 */

static int nb_enc_targets(struct nb_frame_builder *b,
			  const struct nb_board_desc *bd,
			  const struct naobody_actuators *a)
{
	const u8 *led;
	unsigned int j;
	u8 *m;

	if (bd->kind == NAOBODY_BOARD_FOOT) {
		m = nb_hdr(b, NB_LEN_FOOT_LEDS, NB_KIND_REQUEST, bd->bus,
			   bd->address);
		if (!m)
			return b->err;
		led = bd->fsr ? a->r_foot_led : a->l_foot_led;
		nb_put(m, NB_F_FOOT_LED_R, 0, led[0]);
		nb_put(m, NB_F_FOOT_LED_G, 0, led[1]);
		nb_put(m, NB_F_FOOT_LED_B, 0, led[2]);
		return 0;
	}
	m = nb_hdr(b, NB_LEN_TARGETS(bd->joints), NB_KIND_REQUEST, bd->bus,
		   bd->address);
	if (!m)
		return b->err;
	for (j = 0; j < bd->joints; j++) {
		u16 st = a->stiffness[bd->joint[j]];

		nb_put(m, NB_F_TGT_POS, j, a->position[bd->joint[j]]);
		nb_put(m, NB_F_TGT_STIFF, j, st > NAOBODY_STIFFNESS_MAX ?
		       NAOBODY_STIFFNESS_MAX : st);
	}
	return 0;
}

static int nb_enc_out_chest(struct nb_frame_builder *b,
			    const struct nb_msg_info *info,
			    const struct naobody_actuators *a)
{
	u8 *m;

	switch (info->type) {
	case NB_MSG_CHEST_LED:
		m = nb_hdr(b, NB_LEN_CHEST_LED, NB_KIND_CHEST, NB_BUS_CHEST,
			   NB_ADDR_BUTTON);
		if (!m)
			break;
		nb_put(m, NB_F_CHEST_LED_R, 0, a->chest_led[0]);
		nb_put(m, NB_F_CHEST_LED_G, 0, a->chest_led[1]);
		nb_put(m, NB_F_CHEST_LED_B, 0, a->chest_led[2]);
		break;
	case NB_MSG_PREF_READ:
		if (info->piece >= NB_PREFS_PIECES)
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_PREF_READ, NB_KIND_CHEST, NB_BUS_CHEST,
			   NB_ADDR_PREFS);
		if (m)
			nb_put(m, NB_F_PREF_READ_INDEX, 0, info->piece);
		break;
	case NB_MSG_ID_READ:
		if (info->value >= NAOBODY_CHEST_ID_SLOTS)
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_ID_READ, NB_KIND_CHEST, NB_BUS_CHEST,
			   NB_ADDR_ID);
		if (m)
			nb_put(m, NB_F_ID_READ_SLOT, 0, info->value);
		break;
	case NB_MSG_CHEST_MODE_REQ:
		if (info->value >= ARRAY_SIZE(nb_chest_mode_codes))
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_MODE_REQ, NB_KIND_CHEST, NB_BUS_CHEST,
			   NB_ADDR_MODE);
		if (m)
			nb_put(m, NB_F_MODE_CODE, 0,
			       nb_chest_mode_codes[info->value]);
		break;
	default:	/* NB_MSG_HARAKIRI */
		if (info->value != NAOBODY_HARAKIRI_POWER_OFF &&
		    info->value != NAOBODY_HARAKIRI_RESET)
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_MODE_REQ, NB_KIND_CHEST, NB_BUS_CHEST,
			   NB_ADDR_MODE);
		if (m)
			nb_put(m, NB_F_MODE_CODE, 0,
			       NB_HARAKIRI_CODE + info->value);
		break;
	}
	return b->err;
}

/**
 * nb_out_msg_encode() - add a message to the board to a frame
 * @b: the frame being built (NB_FRAME_OUT)
 * @info: what to encode: @info->type, @info->board for a board's message,
 *	@info->piece (NB_MSG_PREF_READ), @info->value (the id slot, the
 *	enum naobody_chest_mode_op, the NAOBODY_HARAKIRI_* op)
 * @a: the targets: positions (clamped to the wire's range), stiffness
 *	(clamped to 1000), LEDs, sonar enables
 *
 * Context: any.
 * Return: 0; -EINVAL for an @info that doesn't describe a message to the
 * board; the builder's error (-ENOSPC) when the frame is full.
 */
int nb_out_msg_encode(struct nb_frame_builder *b,
		      const struct nb_msg_info *info,
		      const struct naobody_actuators *a)
{
	const struct nb_board_desc *bd = NULL;
	bool foot, leds;
	u8 *m;

	if (info->board != NB_NO_BOARD) {
		if (info->board >= NB_BOARDS)
			return -EINVAL;
		bd = &nb_boards[info->board];
	}
	switch (info->type) {
	case NB_MSG_TARGETS:
	case NB_MSG_FOOT_LEDS:
		if (!bd)
			return -EINVAL;
		foot = bd->kind == NAOBODY_BOARD_FOOT;
		leds = info->type == NB_MSG_FOOT_LEDS;
		if (foot != leds)
			return -EINVAL;
		return nb_enc_targets(b, bd, a);
	case NB_MSG_HANDSHAKE_REQ:
	case NB_MSG_START:
		if (!bd)
			return -EINVAL;
		if (info->type == NB_MSG_HANDSHAKE_REQ)
			m = nb_hdr(b, NB_LEN_HANDSHAKE_REQ, NB_KIND_REQUEST,
				   bd->bus, bd->address);
		else
			m = nb_hdr(b, NB_LEN_START, NB_KIND_COMMAND, bd->bus,
				   bd->address);
		if (m)
			m[NB_MSG_HDR] = info->type == NB_MSG_START ? bd->start :
							      NB_HANDSHAKE_OP;
		return b->err;
	case NB_MSG_IMU_REQ:
	case NB_MSG_BATTERY_REQ:
		nb_hdr(b, NB_LEN_DEV_REQ, NB_KIND_REQUEST, NB_BUS_DEVICES,
		       info->type == NB_MSG_IMU_REQ ? NB_ADDR_IMU :
						      NB_ADDR_BATTERY);
		return b->err;
	case NB_MSG_SONAR_REQ:
		m = nb_hdr(b, NB_LEN_SONAR_REQ, NB_KIND_REQUEST, NB_BUS_DEVICES,
			   NB_ADDR_SONAR);
		if (m)
			nb_put(m, NB_F_SONAR_ENABLE, 0, a->sonar &
			       (NAOBODY_SONAR_LEFT | NAOBODY_SONAR_RIGHT));
		return b->err;
	case NB_MSG_CHEST_LED:
	case NB_MSG_PREF_READ:
	case NB_MSG_ID_READ:
	case NB_MSG_CHEST_MODE_REQ:
	case NB_MSG_HARAKIRI:
		return nb_enc_out_chest(b, info, a);
	}
	return -EINVAL;
}

static int nb_out_boards(struct nb_frame_builder *b, u64 mask, u8 type,
			 const struct naobody_actuators *a)
{
	struct nb_msg_info info = { .type = type };
	unsigned int i;

	for (i = 0; i < NB_BOARDS; i++) {
		if (!(mask & BIT_ULL(i)))
			continue;
		info.board = i;
		if (type == NB_MSG_TARGETS &&
		    nb_boards[i].kind == NAOBODY_BOARD_FOOT)
			info.type = NB_MSG_FOOT_LEDS;
		else if (type == NB_MSG_TARGETS)
			info.type = NB_MSG_TARGETS;
		nb_out_msg_encode(b, &info, a);
	}
	return b->err;
}

/**
 * nb_out_cycle() - build one OUT frame
 * @buf: where the frame goes
 * @cap: the room at @buf (a full frame needs at most a few hundred bytes;
 *	NB_FRAME_MAX always suffices)
 * @a: the targets: positions, stiffness, LEDs and sonar enables
 * @plan: which boards get what, and which chest board requests go along
 * @crc: if not NULL, set to the frame's CRC, which the 0x14 acknowledge
 *	must return (nb_ack_check())
 *
 * Context: any: the driver calls it from its hrtimer or a URB completion.
 * Return: the frame's length; -EINVAL for a @plan naming boards past the
 * table, unknown requests, or a piece, slot or op out of range; -ENOSPC if
 * @cap is too small.
 */
int nb_out_cycle(void *buf, size_t cap, const struct naobody_actuators *a,
		 const struct nb_out_plan *plan, u32 *crc)
{
	const u64 all = BIT_ULL(NB_BOARDS) - 1;
	struct nb_frame_builder b;
	struct nb_msg_info info = { .board = NB_NO_BOARD };
	u32 rq = plan->requests;

	BUILD_BUG_ON(NB_BOARDS > 64);
	if ((plan->targets | plan->handshake | plan->start) & ~all ||
	    rq & ~NB_REQ_ALL)
		return -EINVAL;
	if ((rq & NB_REQ_PREF && plan->pref_piece >= NB_PREFS_PIECES) ||
	    (rq & NB_REQ_ID && plan->id_slot >= NAOBODY_CHEST_ID_SLOTS) ||
	    (rq & NB_REQ_CHEST_MODE &&
	     plan->chest_mode >= ARRAY_SIZE(nb_chest_mode_codes)) ||
	    (rq & NB_REQ_HARAKIRI &&
	     plan->harakiri != NAOBODY_HARAKIRI_POWER_OFF &&
	     plan->harakiri != NAOBODY_HARAKIRI_RESET))
		return -EINVAL;

	nb_frame_begin(&b, buf, cap, NB_FRAME_OUT);
	nb_out_boards(&b, plan->handshake, NB_MSG_HANDSHAKE_REQ, a);
	nb_out_boards(&b, plan->start, NB_MSG_START, a);
	nb_out_boards(&b, plan->targets, NB_MSG_TARGETS, a);
	if (rq & NB_REQ_SENSORS) {
		info.type = NB_MSG_IMU_REQ;
		nb_out_msg_encode(&b, &info, a);
		info.type = NB_MSG_BATTERY_REQ;
		nb_out_msg_encode(&b, &info, a);
		info.type = NB_MSG_SONAR_REQ;
		nb_out_msg_encode(&b, &info, a);
	}
	if (rq & NB_REQ_CHEST_LED) {
		info.type = NB_MSG_CHEST_LED;
		nb_out_msg_encode(&b, &info, a);
	}
	if (rq & NB_REQ_PREF) {
		info.type = NB_MSG_PREF_READ;
		info.piece = plan->pref_piece;
		nb_out_msg_encode(&b, &info, a);
	}
	if (rq & NB_REQ_ID) {
		info.type = NB_MSG_ID_READ;
		info.value = plan->id_slot;
		nb_out_msg_encode(&b, &info, a);
	}
	if (rq & NB_REQ_CHEST_MODE) {
		info.type = NB_MSG_CHEST_MODE_REQ;
		info.value = plan->chest_mode;
		nb_out_msg_encode(&b, &info, a);
	}
	if (rq & NB_REQ_HARAKIRI) {
		info.type = NB_MSG_HARAKIRI;
		info.value = plan->harakiri;
		nb_out_msg_encode(&b, &info, a);
	}
	return nb_frame_end(&b, crc);
}

/* ------------------------------------------------------------------------
 * The handshake answer
 */

/**
 * nb_handshake_parse() - read a board's answer to 00 20
 * @answer: its 32 bytes (struct nb_msg_info.data of NB_MSG_HANDSHAKE)
 * @len: their number
 * @board: gets the raw status and configuration bytes, and from the
 *	configuration the serial, configuration version, hardware revision
 *	and board type; its other fields are left alone
 *
 * Context: any.
 * Return: 0, or -EMSGSIZE if @len is not NB_HANDSHAKE_LEN.
 */
int nb_handshake_parse(const u8 *answer, size_t len,
		       struct naobody_board *board)
{
	if (len != NB_HANDSHAKE_LEN)
		return -EMSGSIZE;
	memcpy(board->status, answer + NB_HS_STATUS, sizeof(board->status));
	memcpy(board->config, answer + NB_HS_CONFIG, sizeof(board->config));
	board->serial = get_unaligned_be32(answer + NB_HS_SERIAL);
	board->config_version = answer[NB_HS_VERSION];
	board->hw_revision = answer[NB_HS_HW_REVISION];
	board->board_type = answer[NB_HS_BOARD_TYPE];
	return 0;
}
