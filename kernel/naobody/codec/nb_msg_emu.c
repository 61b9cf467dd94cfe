// SPDX-License-Identifier: GPL-2.0-only
/*
 * Chest board messages, the emulator's and the tools' side: encoding the
 * board's answers (and a whole body of them), decoding the commands, and
 * encoding the handshake answer. Built in userspace only (libnbcodec):
 * naobody.ko never needs them. See nb_msg_shared.h.
 */
#include "nb_msg_shared.h"

/* ------------------------------------------------------------------------
 * From the board: encoding (the emulator's side)
 */

static void nb_enc_joints(u8 *m, const struct nb_board_desc *bd,
			  const struct naobody_sensors *s)
{
	unsigned int j;

	for (j = 0; j < bd->joints; j++) {
		unsigned int jt = bd->joint[j];

		nb_put(m, NB_F_JOINT_POS, j, s->joint_position[jt]);
		nb_put(m, NB_F_JOINT_CUR, j, s->joint_current[jt]);
		nb_put(m, NB_F_JOINT_TEMP, j, s->joint_temperature[jt]);
		nb_put(m, NB_F_JOINT_STATUS, j,
		       s->joint_status[jt] > NB_JOINT_STATUS_MAX ?
		       NB_JOINT_STATUS_MAX : s->joint_status[jt]);
	}
}

static int nb_enc_board(struct nb_frame_builder *b,
			const struct nb_msg_info *info,
			const struct nb_board_desc *bd,
			const struct naobody_sensors *s)
{
	u8 *m;

	switch (info->type) {
	case NB_MSG_JOINT_BOARD:
		if (bd->kind != NAOBODY_BOARD_JOINT)
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_JOINT(bd->joints), NB_KIND_DATA, bd->bus,
			   bd->address);
		if (m)
			nb_enc_joints(m, bd, s);
		break;
	case NB_MSG_HAND_BOARD:
		if (bd->kind != NAOBODY_BOARD_HAND)
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_HAND, NB_KIND_DATA, bd->bus, bd->address);
		if (!m)
			break;
		nb_enc_joints(m, bd, s);
		nb_put(m, NB_F_HAND_TOUCH, 0,
		       nb_get_touch(s, bd->touch, NB_HAND_TOUCHES));
		break;
	case NB_MSG_FOOT_BOARD:
		if (bd->kind != NAOBODY_BOARD_FOOT)
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_FOOT, NB_KIND_DATA, bd->bus, bd->address);
		if (!m)
			break;
		nb_put(m, NB_F_FSR_FL, 0, s->fsr[bd->fsr + NAOBODY_FSR_FRONT_LEFT]);
		nb_put(m, NB_F_FSR_FR, 0, s->fsr[bd->fsr + NAOBODY_FSR_FRONT_RIGHT]);
		nb_put(m, NB_F_FSR_RL, 0, s->fsr[bd->fsr + NAOBODY_FSR_REAR_LEFT]);
		nb_put(m, NB_F_FSR_RR, 0, s->fsr[bd->fsr + NAOBODY_FSR_REAR_RIGHT]);
		nb_put(m, NB_F_BUMPERS, 0,
		       nb_get_touch(s, bd->touch, NB_FOOT_TOUCHES));
		break;
	default:	/* NB_MSG_HANDSHAKE */
		if (!info->data || info->len < NB_HANDSHAKE_LEN)
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_HANDSHAKE, NB_KIND_DATA, bd->bus,
			   bd->address);
		if (m)
			memcpy(m + NB_MSG_HDR, info->data, NB_HANDSHAKE_LEN);
		break;
	}
	return b->err;
}

static int nb_enc_device(struct nb_frame_builder *b, unsigned int type,
			 const struct naobody_sensors *s)
{
	u8 *m;

	switch (type) {
	case NB_MSG_IMU:
		m = nb_hdr(b, NB_LEN_IMU, NB_KIND_DATA, NB_BUS_DEVICES,
			   NB_ADDR_IMU);
		if (!m)
			break;
		nb_put(m, NB_F_ACC_X, 0, s->accelerometer[0]);
		nb_put(m, NB_F_ACC_Y, 0, s->accelerometer[1]);
		nb_put(m, NB_F_ACC_Z, 0, s->accelerometer[2]);
		nb_put(m, NB_F_GYR_X, 0, s->gyroscope[0]);
		nb_put(m, NB_F_GYR_Y, 0, s->gyroscope[1]);
		nb_put(m, NB_F_GYR_Z, 0, s->gyroscope[2]);
		nb_put(m, NB_F_ANGLE_X, 0, s->angles[0]);
		nb_put(m, NB_F_ANGLE_Y, 0, s->angles[1]);
		break;
	case NB_MSG_BATTERY:
		m = nb_hdr(b, NB_LEN_BAT, NB_KIND_DATA, NB_BUS_DEVICES,
			   NB_ADDR_BATTERY);
		if (!m)
			break;
		nb_put(m, NB_F_BAT_CHARGE, 0, s->battery_charge);
		nb_put(m, NB_F_BAT_STATUS, 0, s->battery_status);
		nb_put(m, NB_F_BAT_CURRENT, 0, s->battery_current);
		nb_put(m, NB_F_BAT_TEMP, 0, s->battery_temperature);
		break;
	case NB_MSG_SONAR:
		m = nb_hdr(b, NB_LEN_SONAR, NB_KIND_DATA, NB_BUS_DEVICES,
			   NB_ADDR_SONAR);
		if (!m)
			break;
		nb_put(m, NB_F_SONAR_L, 0, s->sonar[0]);
		nb_put(m, NB_F_SONAR_R, 0, s->sonar[1]);
		break;
	default:	/* NB_MSG_CHEST_BUTTON */
		m = nb_hdr(b, NB_LEN_BUTTON, NB_KIND_DATA, NB_BUS_CHEST,
			   NB_ADDR_BUTTON);
		if (m)
			nb_put(m, NB_F_BUTTON, 0,
			       nb_get_touch(s, NAOBODY_TOUCH_CHEST_BUTTON, 1));
		break;
	}
	return b->err;
}

static int nb_enc_chest(struct nb_frame_builder *b,
			const struct nb_msg_info *info)
{
	size_t n;
	u8 *m;

	switch (info->type) {
	case NB_MSG_PREF_PIECE:
		n = nb_prefs_piece_len(info->piece);
		if (!n || !info->data || info->len != n)
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_PREF(n), NB_KIND_CHEST, NB_BUS_CHEST,
			   NB_ADDR_PREFS);
		if (!m)
			break;
		nb_put(m, NB_F_PREF_INDEX, 0, info->piece);
		memcpy(m + NB_OFF_PREF_DATA, info->data, n);
		break;
	case NB_MSG_ID_STRING:
		if (info->value >= NAOBODY_CHEST_ID_SLOTS ||
		    info->len > NAOBODY_CHEST_ID_LEN || (info->len && !info->data))
			return -EINVAL;
		m = nb_hdr(b, NB_LEN_ID, NB_KIND_CHEST, NB_BUS_CHEST, NB_ADDR_ID);
		if (!m)
			break;
		nb_put(m, NB_F_ID_SLOT, 0, info->value);
		memset(m + NB_OFF_ID_CHARS, 0, NAOBODY_CHEST_ID_LEN);
		if (info->len)
			memcpy(m + NB_OFF_ID_CHARS, info->data, info->len);
		break;
	default:	/* NB_MSG_CHEST_MODE */
		m = nb_hdr(b, NB_LEN_MODE, NB_KIND_CHEST, NB_BUS_CHEST,
			   NB_ADDR_MODE);
		if (m)
			nb_put(m, NB_F_MODE_RESULT, 0, info->value);
		break;
	}
	return b->err;
}

/**
 * nb_in_msg_encode() - add a message from the board to a frame
 * @b: the frame being built (NB_FRAME_IN)
 * @info: what to encode: @info->type, and @info->board for a board's
 *	message; NB_MSG_ACK: @info->value and, without a board,
 *	@info->bus and @info->address; NB_MSG_PREF_PIECE: @info->piece,
 *	@info->data and @info->len; NB_MSG_ID_STRING: @info->value (the
 *	slot), up to 20 characters at @info->data (@info->len, zero-padded);
 *	NB_MSG_HANDSHAKE: the 32 bytes at @info->data; NB_MSG_CHEST_MODE:
 *	@info->value
 * @s: the counts the sensor messages carry; values beyond a field's range
 *	are clamped to it
 *
 * Encoding what nb_in_msg_decode() decoded gives the same message back,
 * but for bits the layout does not define.
 *
 * Context: any.
 * Return: 0; -EINVAL for an @info that doesn't describe a message from the
 * board; the builder's error (-ENOSPC) when the frame is full.
 */
int nb_in_msg_encode(struct nb_frame_builder *b,
		     const struct nb_msg_info *info,
		     const struct naobody_sensors *s)
{
	const struct nb_board_desc *bd = NULL;
	u8 *m;

	if (info->board != NB_NO_BOARD) {
		if (info->board >= NB_BOARDS)
			return -EINVAL;
		bd = &nb_boards[info->board];
	}
	switch (info->type) {
	case NB_MSG_IMU:
	case NB_MSG_BATTERY:
	case NB_MSG_SONAR:
	case NB_MSG_CHEST_BUTTON:
		return nb_enc_device(b, info->type, s);
	case NB_MSG_JOINT_BOARD:
	case NB_MSG_HAND_BOARD:
	case NB_MSG_FOOT_BOARD:
	case NB_MSG_HANDSHAKE:
		if (!bd)
			return -EINVAL;
		return nb_enc_board(b, info, bd, s);
	case NB_MSG_ACK:
		if (bd)
			m = nb_hdr(b, NB_LEN_ACK, NB_KIND_ACK, bd->bus,
				   bd->address);
		else
			m = nb_hdr(b, NB_LEN_ACK, NB_KIND_ACK, info->bus,
				   info->address);
		if (m)
			nb_put(m, NB_F_ACK_STATUS, 0, info->value);
		return b->err;
	case NB_MSG_PREF_PIECE:
	case NB_MSG_ID_STRING:
	case NB_MSG_CHEST_MODE:
		return nb_enc_chest(b, info);
	}
	return -EINVAL;
}

/**
 * nb_in_body() - add a whole body's data to a frame: the emulator's answer
 * @b: the frame being built (NB_FRAME_IN)
 * @s: the counts
 * @boards: bit i: board i answers with its data
 *
 * Adds the inertial unit, the battery, the sonar, the chest button, then
 * each board of @boards in board order.
 *
 * Context: any.
 * Return: 0, or the builder's error.
 */
int nb_in_body(struct nb_frame_builder *b, const struct naobody_sensors *s,
	       u64 boards)
{
	static const u8 types[] = {
		[NAOBODY_BOARD_JOINT] = NB_MSG_JOINT_BOARD,
		[NAOBODY_BOARD_HAND] = NB_MSG_HAND_BOARD,
		[NAOBODY_BOARD_FOOT] = NB_MSG_FOOT_BOARD,
	};
	struct nb_msg_info info = { .board = NB_NO_BOARD };
	unsigned int i;

	for (i = NB_MSG_IMU; i <= NB_MSG_CHEST_BUTTON; i++)
		nb_enc_device(b, i, s);
	for (i = 0; i < NB_BOARDS; i++) {
		if (!(boards & BIT_ULL(i)))
			continue;
		info.type = types[nb_boards[i].kind];
		info.board = i;
		nb_enc_board(b, &info, &nb_boards[i], s);
	}
	return b->err;
}

/* ------------------------------------------------------------------------
 * To the board: decoding (the emulator's side)
 */

static int nb_dec_targets(const u8 *m, size_t len,
			  const struct nb_board_desc *bd,
			  struct naobody_actuators *a)
{
	unsigned int j;
	u8 *led;

	if (bd->kind == NAOBODY_BOARD_FOOT) {
		if (len != NB_LEN_FOOT_LEDS)
			return -EMSGSIZE;
		led = bd->fsr ? a->r_foot_led : a->l_foot_led;
		led[0] = nb_get(m, NB_F_FOOT_LED_R, 0);
		led[1] = nb_get(m, NB_F_FOOT_LED_G, 0);
		led[2] = nb_get(m, NB_F_FOOT_LED_B, 0);
		return NB_MSG_FOOT_LEDS;
	}
	if (len != NB_LEN_TARGETS(bd->joints))
		return -EMSGSIZE;
	for (j = 0; j < bd->joints; j++)
		if (nb_get(m, NB_F_TGT_STIFF, j) > NAOBODY_STIFFNESS_MAX)
			return -ERANGE;
	for (j = 0; j < bd->joints; j++) {
		a->position[bd->joint[j]] = nb_get(m, NB_F_TGT_POS, j);
		a->stiffness[bd->joint[j]] = nb_get(m, NB_F_TGT_STIFF, j);
	}
	return NB_MSG_TARGETS;
}

static int nb_out_dec_chest(const u8 *m, size_t len,
			    struct naobody_actuators *a,
			    struct nb_msg_info *info)
{
	unsigned int v, i;

	switch (m[2]) {
	case NB_ADDR_BUTTON:
		if (len != NB_LEN_CHEST_LED)
			return -EMSGSIZE;
		a->chest_led[0] = nb_get(m, NB_F_CHEST_LED_R, 0);
		a->chest_led[1] = nb_get(m, NB_F_CHEST_LED_G, 0);
		a->chest_led[2] = nb_get(m, NB_F_CHEST_LED_B, 0);
		return NB_MSG_CHEST_LED;
	case NB_ADDR_PREFS:
		if (len != NB_LEN_PREF_READ)
			return -EMSGSIZE;
		v = nb_get(m, NB_F_PREF_READ_INDEX, 0);
		if (v >= NB_PREFS_PIECES)
			return -ERANGE;
		info->piece = v;
		return NB_MSG_PREF_READ;
	case NB_ADDR_ID:
		if (len != NB_LEN_ID_READ)
			return -EMSGSIZE;
		v = nb_get(m, NB_F_ID_READ_SLOT, 0);
		if (v >= NAOBODY_CHEST_ID_SLOTS)
			return -ERANGE;
		info->value = v;
		return NB_MSG_ID_READ;
	case NB_ADDR_MODE:
		if (len != NB_LEN_MODE_REQ)
			return -EMSGSIZE;
		v = nb_get(m, NB_F_MODE_CODE, 0);
		for (i = 0; i < ARRAY_SIZE(nb_chest_mode_codes); i++) {
			if (nb_chest_mode_codes[i] == v) {
				info->value = i;
				return NB_MSG_CHEST_MODE_REQ;
			}
		}
		if (v == NB_HARAKIRI_CODE + NAOBODY_HARAKIRI_POWER_OFF ||
		    v == NB_HARAKIRI_CODE + NAOBODY_HARAKIRI_RESET) {
			info->value = v - NB_HARAKIRI_CODE;
			return NB_MSG_HARAKIRI;
		}
		return -ERANGE;
	}
	return -ENOENT;
}

static int nb_out_dispatch(const u8 *m, size_t len, struct naobody_actuators *a,
			   struct nb_msg_info *info)
{
	const struct nb_board_desc *bd;
	unsigned int v;

	switch (m[0]) {
	case NB_KIND_REQUEST:
		if (m[1] == NB_BUS_DEVICES) {
			if (m[2] == NB_ADDR_IMU || m[2] == NB_ADDR_BATTERY) {
				if (len != NB_LEN_DEV_REQ)
					return -EMSGSIZE;
				return m[2] == NB_ADDR_IMU ? NB_MSG_IMU_REQ :
							     NB_MSG_BATTERY_REQ;
			}
			if (m[2] != NB_ADDR_SONAR)
				return -ENOENT;
			if (len != NB_LEN_SONAR_REQ)
				return -EMSGSIZE;
			v = nb_get(m, NB_F_SONAR_ENABLE, 0);
			if (v & ~(NAOBODY_SONAR_LEFT | NAOBODY_SONAR_RIGHT))
				return -ERANGE;
			a->sonar = v;
			return NB_MSG_SONAR_REQ;
		}
		if (m[1] != NB_BUS_UPPER && m[1] != NB_BUS_LEGS)
			return -ENOENT;
		bd = nb_map(m[1], m[2]);
		if (!bd)
			return -ENOENT;
		info->board = bd - nb_boards;
		if (len == NB_LEN_HANDSHAKE_REQ && m[3] == NB_HANDSHAKE_OP)
			return NB_MSG_HANDSHAKE_REQ;
		return nb_dec_targets(m, len, bd, a);
	case NB_KIND_COMMAND:
		bd = nb_map(m[1], m[2]);
		if (!bd)
			return -ENOENT;
		info->board = bd - nb_boards;
		if (len != NB_LEN_START)
			return -EMSGSIZE;
		info->value = nb_get(m, NB_F_START_CMD, 0);
		return info->value == bd->start ? NB_MSG_START : -ERANGE;
	case NB_KIND_CHEST:
		if (m[1] != NB_BUS_CHEST)
			return -ENOENT;
		return nb_out_dec_chest(m, len, a, info);
	}
	return -ENOENT;
}

/**
 * nb_out_msg_decode() - decode one message to the board
 * @msg: the message
 * @len: its length
 * @a: the targets it sets (positions and stiffness, LEDs, sonar enables)
 *	are written here; nothing is written unless the message is valid
 * @info: what the message was (type, board, piece, slot, op)
 *
 * Context: any.
 * Return: the enum nb_msg_type, or the errors of nb_in_msg_decode()
 * (-ERANGE here: a stiffness above 1000, unknown sonar bits, a start
 * command that isn't the board's, an unknown chest mode code).
 */
int nb_out_msg_decode(const u8 *msg, size_t len, struct naobody_actuators *a,
		      struct nb_msg_info *info)
{
	int r;

	if (len < NB_MSG_HDR)
		return -EMSGSIZE;
	nb_info_init(info, msg);
	r = nb_out_dispatch(msg, len, a, info);
	if (r > 0)
		info->type = r;
	return r;
}

/* ------------------------------------------------------------------------
 * The handshake answer
 */

/**
 * nb_handshake_encode() - a board's answer to 00 20, for the emulator
 * @board: the raw status and configuration bytes, over which the serial,
 *	configuration version, hardware revision and board type are written
 * @answer: NB_HANDSHAKE_LEN bytes
 *
 * Context: any.
 */
void nb_handshake_encode(const struct naobody_board *board, u8 *answer)
{
	BUILD_BUG_ON(sizeof(board->status) + sizeof(board->config) !=
		     NB_HANDSHAKE_LEN);
	memcpy(answer + NB_HS_STATUS, board->status, sizeof(board->status));
	memcpy(answer + NB_HS_CONFIG, board->config, sizeof(board->config));
	put_unaligned_be32(board->serial, answer + NB_HS_SERIAL);
	answer[NB_HS_VERSION] = board->config_version;
	answer[NB_HS_HW_REVISION] = board->hw_revision;
	answer[NB_HS_BOARD_TYPE] = board->board_type;
}

/*
 * The layout id hashes values, never raw structs: padding and the names'
 * pointers differ between the module and userspace, the values do not.
 */
static u32 nb_id_bytes(u32 crc, const void *p, size_t n)
{
	return nb_crc32(crc, p, n);
}

/*
 * A byte at a time, the terminator included: a counting loop would become
 * strlen(), and the codec calls nothing of libc's but mem*()
 * (stack_test.py). The CRC of the bytes one by one is the CRC of them all.
 */
static u32 nb_id_str(u32 crc, const char *s)
{
	do
		crc = nb_id_bytes(crc, s, 1);
	while (*s++);
	return crc;
}

static u32 nb_id_s32(u32 crc, s32 v)
{
	u8 b[4] = { (u8)(v >> 24), (u8)(v >> 16), (u8)(v >> 8), (u8)v };

	return nb_id_bytes(crc, b, sizeof(b));
}

/**
 * nb_layout_id() - a fingerprint of every provisional number the codec uses
 *
 * The CRC-32 of the field, message and board tables and the chest mode
 * codes (their values, in table order), and NB_LAYOUT_CODE_REVISION for
 * what nb_frame.c and the decoders decide in code (the byte orders, what
 * the frame CRC covers, the length table). naoctl verify writes it into its
 * verdict, and naobodyd enables the motions that need a verified layout only
 * when the verdict's id is its own
 * (Documentation/capture.rst, "From a verdict to walking").
 *
 * Context: any.
 * Return: the fingerprint; the same in the module and in userspace.
 */
u32 nb_layout_id(void)
{
	u32 crc = nb_id_s32(0, NB_LAYOUT_CODE_REVISION);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nb_fields); i++) {
		const struct nb_field *f = &nb_fields[i];
		u8 b[5] = { f->msg, f->offset, f->width, f->flags, f->stride };

		crc = nb_id_str(crc, f->name ? f->name : "");
		crc = nb_id_bytes(crc, b, sizeof(b));
		crc = nb_id_s32(crc, f->scale_num);
		crc = nb_id_s32(crc, f->scale_den);
	}
	for (i = 0; i < ARRAY_SIZE(nb_layouts); i++) {
		const struct nb_msg_layout *l = &nb_layouts[i];
		u8 b[4] = { l->type, l->kind, l->bus, l->address };

		crc = nb_id_bytes(crc, b, sizeof(b));
		crc = nb_id_s32(crc, l->len);
	}
	for (i = 0; i < ARRAY_SIZE(nb_boards); i++) {
		const struct nb_board_desc *bd = &nb_boards[i];
		u8 b[10] = { bd->bus, bd->address, bd->kind, bd->start, bd->joints,
			     bd->joint[0], bd->joint[1], bd->touch, bd->fsr, bd->len };

		crc = nb_id_str(crc, bd->name ? bd->name : "");
		crc = nb_id_bytes(crc, b, sizeof(b));
	}
	return nb_id_bytes(crc, nb_chest_mode_codes, sizeof(nb_chest_mode_codes));
}
