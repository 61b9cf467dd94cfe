/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The chest board protocol's layout: every number the codec uses.
 *
 * Each value is marked (spec) when nao-rs's "Chest board link" or
 * body-sensors-and-units.md gives it, and (provisional) when it is ours:
 * message payloads, board addresses, request encodings and the preference
 * block's CRC were never published, so they are a consistent guess until a
 * usbmon capture of a real chest board confirms or corrects them.
 * Documentation/chest-board-protocol.rst lists every provisional value and
 * how to check it. A correction belongs here and nowhere else.
 *
 * All multi-byte fields are big endian (provisional; the frame CRC is big
 * endian per the spec).
 *
 * The tables at the end are defined only where NB_LAYOUT_TABLES is defined
 * (nb_msg_shared.h, for nb_msg.c and nb_msg_emu.c): each half of the codec
 * has them at hand, so its accessors fold into constants (and the
 * compiler keeps only what a half uses; a header's unused static const
 * draws no warning).
 */
#ifndef _NB_LAYOUT_H
#define _NB_LAYOUT_H

/*
 * What nb_frame.c and the decoders decide in code rather than in the
 * tables below (the byte orders, what the frame CRC covers, the length
 * table's form). Raise it with any such change: it is part of
 * nb_layout_id(), so a verdict on the old code no longer matches.
 */
#define NB_LAYOUT_CODE_REVISION	1

/* Byte 0 of a message: its kind (spec, inferred from the traffic) */
#define NB_KIND_REQUEST		0x00
#define NB_KIND_COMMAND		0x01
#define NB_KIND_DATA		0x02
#define NB_KIND_CHEST		0x03
#define NB_KIND_ACK		0x04

/* Byte 1: the bus (spec) */
#define NB_BUS_UPPER		0x00	/* upper body motor boards */
#define NB_BUS_LEGS		0x01	/* leg motor boards and foot boards */
#define NB_BUS_DEVICES		0x02	/* devices behind the chest board */
#define NB_BUS_CHEST		0x03	/* the chest board itself */

/* Byte 2 on bus 2 and 3 (spec) */
#define NB_ADDR_IMU		0x09
#define NB_ADDR_BATTERY		0x0b
#define NB_ADDR_SONAR		0x42
#define NB_ADDR_BUTTON		0x05	/* chest button; its LED (provisional) */
#define NB_ADDR_PREFS		0x06
#define NB_ADDR_ID		0x08
#define NB_ADDR_MODE		0x2a	/* chest mode, harakiri (provisional) */

/*
 * The frame CRC (spec: zlib's CRC-32, big endian) covers every byte of the
 * frame but its own four: the messages and the length table (provisional).
 * The 0x14 acknowledge is NB_ACK_BYTE (spec) and then that CRC, big endian
 * (provisional).
 */
#define NB_ACK_BYTE		0x2a

/* ------------------------------------------------------------------------
 * Messages from the board. Offsets count from the message's first byte.
 */

/* Inertial unit: 02 02 09 (provisional payload) */
#define NB_OFF_IMU_ACC		3	/* s16 x, y, z */
#define NB_OFF_IMU_GYR		9	/* s16 x, y, z */
#define NB_OFF_IMU_ANGLE	15	/* s16 x, y */
#define NB_LEN_IMU		19

/* Battery: 02 02 0b (provisional payload) */
#define NB_OFF_BAT_CHARGE	3	/* u16 */
#define NB_OFF_BAT_STATUS	5	/* s16: the status register, as LoLA */
#define NB_OFF_BAT_CURRENT	7	/* s16 */
#define NB_OFF_BAT_TEMP		9	/* s16 */
#define NB_LEN_BAT		11

/* Sonar: 02 02 42 (provisional payload) */
#define NB_OFF_SONAR		3	/* u16 left, right: first echo */
#define NB_LEN_SONAR		7

/* Chest button: 02 03 05 (provisional payload) */
#define NB_OFF_BUTTON		3	/* u8, bit 0: pressed */
#define NB_LEN_BUTTON		4

/*
 * A joint board's data: 02 <bus> <address>, then per joint (provisional):
 * s16 position, s16 current, u8 temperature, u8 temperature status. A hand
 * board adds a u8 of touch bits after its two joints.
 */
#define NB_JOINT_STRIDE		6
#define NB_OFF_JOINT_POS	3
#define NB_OFF_JOINT_CUR	5
#define NB_OFF_JOINT_TEMP	7
#define NB_OFF_JOINT_STATUS	8
#define NB_JOINT_STATUS_MAX	3	/* spec: 0..3 */
#define NB_LEN_JOINT(n)		(NB_MSG_HDR + (unsigned int)(n) * NB_JOINT_STRIDE)
#define NB_OFF_HAND_TOUCH	NB_LEN_JOINT(2)	/* bits 0 back, 1 left, 2 right */
#define NB_LEN_HAND		(NB_OFF_HAND_TOUCH + 1)
#define NB_HAND_TOUCHES		3

/* A foot board's data: 02 01 <address> (provisional payload) */
#define NB_OFF_FOOT_FSR		3	/* u16 FL, FR, RL, RR */
#define NB_OFF_FOOT_BUMPERS	11	/* u8, bits 0 left, 1 right */
#define NB_LEN_FOOT		12
#define NB_FOOT_TOUCHES		2

/*
 * The handshake answer: 02 <bus> <address> and its 32 bytes (spec: 16 of
 * status, then 16 of configuration). The configuration's fields, from the
 * answer's first byte (provisional order and widths):
 */
#define NB_HS_STATUS		0	/* 16 bytes */
#define NB_HS_CONFIG		16	/* 16 bytes */
#define NB_HS_SERIAL		16	/* u32 */
#define NB_HS_VERSION		20	/* u8: configuration version */
#define NB_HS_HW_REVISION	21	/* u8 */
#define NB_HS_BOARD_TYPE	22	/* u8 */
#define NB_LEN_HANDSHAKE	(NB_MSG_HDR + NB_HANDSHAKE_LEN)

/* A board's acknowledge: 04 <bus> <address> <status> (spec) */
#define NB_OFF_ACK_STATUS	3
#define NB_LEN_ACK		4

/* A preference piece: 03 03 06, u16 piece index, the piece (provisional) */
#define NB_OFF_PREF_INDEX	3
#define NB_OFF_PREF_DATA	5
#define NB_LEN_PREF(n)		(NB_OFF_PREF_DATA + (n))

/* An id string: 03 03 08, u8 slot, 20 characters (provisional) */
#define NB_OFF_ID_SLOT		3
#define NB_OFF_ID_CHARS		4
#define NB_LEN_ID		(NB_OFF_ID_CHARS + NAOBODY_CHEST_ID_LEN)

/* A chest mode answer: 03 03 2a, u8 result (provisional) */
#define NB_OFF_MODE_VALUE	3
#define NB_LEN_MODE		4

/* ------------------------------------------------------------------------
 * Messages to the board
 */

/*
 * A joint or hand board's targets: 00 <bus> <address>, then per joint
 * (provisional): s16 position, u16 stiffness (0..1000).
 */
#define NB_TARGET_STRIDE	4
#define NB_OFF_TGT_POS		3
#define NB_OFF_TGT_STIFF	5
#define NB_LEN_TARGETS(n)	(NB_MSG_HDR + (unsigned int)(n) * NB_TARGET_STRIDE)

/* A foot board's LEDs: 00 01 <address> r g b (provisional) */
#define NB_OFF_FOOT_LED		3
#define NB_LEN_FOOT_LEDS	6

/* Sensor requests: 00 02 09, 00 02 0b, 00 02 42 <enable bits> (provisional) */
#define NB_LEN_DEV_REQ		3
#define NB_OFF_SONAR_ENABLE	3	/* NAOBODY_SONAR_* */
#define NB_LEN_SONAR_REQ	4

/* The chest LED: 03 03 05 r g b (provisional) */
#define NB_OFF_CHEST_LED	3
#define NB_LEN_CHEST_LED	6

/* The handshake request: 00 <bus> <address> 20 (spec: "00 20", 4 bytes) */
#define NB_HANDSHAKE_OP		0x20
#define NB_LEN_HANDSHAKE_REQ	4

/*
 * The start command: 01 <bus> <address> <command> (spec: 01 07 for joint
 * boards, 01 08 for hand and foot boards; the byte positions provisional)
 */
#define NB_START_JOINT		0x07
#define NB_START_OTHER		0x08
#define NB_LEN_START		4

/* Preference piece read: 03 03 06, u16 piece index (provisional) */
#define NB_LEN_PREF_READ	5

/* Id string read: 03 03 08, u8 slot (provisional) */
#define NB_LEN_ID_READ		4

/* Chest mode and harakiri: 03 03 2a <code> (provisional; codes below) */
#define NB_LEN_MODE_REQ		4
#define NB_HARAKIRI_CODE	0x10	/* + NAOBODY_HARAKIRI_* */

/* The preference block's CRC: its last 4 bytes, big endian, over the rest */
#define NB_PREFS_CRC_OFF	(NB_PREFS_SIZE - 4)

/*
 * The boards (provisional: names, addresses and which joint is on which
 * board are ours; HAL's device list is not public). A board's index is its
 * position in nb_boards[].
 */
#define NB_ADDR_HEAD_BOARD	0x10	/* bus 0 */
#define NB_ADDR_L_SHOULDER_BOARD 0x12
#define NB_ADDR_L_ARM_BOARD	0x14
#define NB_ADDR_L_HAND_BOARD	0x16
#define NB_ADDR_R_SHOULDER_BOARD 0x18
#define NB_ADDR_R_ARM_BOARD	0x1a
#define NB_ADDR_R_HAND_BOARD	0x1c
#define NB_ADDR_L_HIP_BOARD	0x20	/* bus 1 */
#define NB_ADDR_L_THIGH_BOARD	0x22
#define NB_ADDR_L_SHIN_BOARD	0x24
#define NB_ADDR_L_ANKLE_BOARD	0x26
#define NB_ADDR_R_HIP_BOARD	0x28
#define NB_ADDR_R_THIGH_BOARD	0x2a
#define NB_ADDR_R_SHIN_BOARD	0x2c
#define NB_ADDR_R_ANKLE_BOARD	0x2e
#define NB_ADDR_L_FOOT_BOARD	0x30
#define NB_ADDR_R_FOOT_BOARD	0x32

#ifdef NB_LAYOUT_TABLES

enum nb_board_index {
	NB_BD_HEAD,
	NB_BD_L_SHOULDER,
	NB_BD_L_ARM,
	NB_BD_L_HAND,
	NB_BD_R_SHOULDER,
	NB_BD_R_ARM,
	NB_BD_R_HAND,
	NB_BD_L_HIP,
	NB_BD_L_THIGH,
	NB_BD_L_SHIN,
	NB_BD_L_ANKLE,
	NB_BD_R_HIP,
	NB_BD_R_THIGH,
	NB_BD_R_SHIN,
	NB_BD_R_ANKLE,
	NB_BD_L_FOOT,
	NB_BD_R_FOOT,
};

static const struct nb_board_desc nb_boards[NB_BOARDS] = {
	[NB_BD_HEAD] = { "Head", NB_BUS_UPPER, NB_ADDR_HEAD_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 2,
		{ NAOBODY_HEAD_YAW, NAOBODY_HEAD_PITCH },
		NB_NONE, NB_NONE, NB_LEN_JOINT(2) },
	[NB_BD_L_SHOULDER] = { "LShoulder", NB_BUS_UPPER, NB_ADDR_L_SHOULDER_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 2,
		{ NAOBODY_L_SHOULDER_PITCH, NAOBODY_L_SHOULDER_ROLL },
		NB_NONE, NB_NONE, NB_LEN_JOINT(2) },
	[NB_BD_L_ARM] = { "LArm", NB_BUS_UPPER, NB_ADDR_L_ARM_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 2,
		{ NAOBODY_L_ELBOW_YAW, NAOBODY_L_ELBOW_ROLL },
		NB_NONE, NB_NONE, NB_LEN_JOINT(2) },
	[NB_BD_L_HAND] = { "LHand", NB_BUS_UPPER, NB_ADDR_L_HAND_BOARD,
		NAOBODY_BOARD_HAND, NB_START_OTHER, 2,
		{ NAOBODY_L_WRIST_YAW, NAOBODY_L_HAND },
		NAOBODY_TOUCH_L_HAND_BACK, NB_NONE, NB_LEN_HAND },
	[NB_BD_R_SHOULDER] = { "RShoulder", NB_BUS_UPPER, NB_ADDR_R_SHOULDER_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 2,
		{ NAOBODY_R_SHOULDER_PITCH, NAOBODY_R_SHOULDER_ROLL },
		NB_NONE, NB_NONE, NB_LEN_JOINT(2) },
	[NB_BD_R_ARM] = { "RArm", NB_BUS_UPPER, NB_ADDR_R_ARM_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 2,
		{ NAOBODY_R_ELBOW_YAW, NAOBODY_R_ELBOW_ROLL },
		NB_NONE, NB_NONE, NB_LEN_JOINT(2) },
	[NB_BD_R_HAND] = { "RHand", NB_BUS_UPPER, NB_ADDR_R_HAND_BOARD,
		NAOBODY_BOARD_HAND, NB_START_OTHER, 2,
		{ NAOBODY_R_WRIST_YAW, NAOBODY_R_HAND },
		NAOBODY_TOUCH_R_HAND_BACK, NB_NONE, NB_LEN_HAND },
	[NB_BD_L_HIP] = { "LHip", NB_BUS_LEGS, NB_ADDR_L_HIP_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 2,
		{ NAOBODY_L_HIP_YAW_PITCH, NAOBODY_L_HIP_ROLL },
		NB_NONE, NB_NONE, NB_LEN_JOINT(2) },
	[NB_BD_L_THIGH] = { "LThigh", NB_BUS_LEGS, NB_ADDR_L_THIGH_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 1,
		{ NAOBODY_L_HIP_PITCH },
		NB_NONE, NB_NONE, NB_LEN_JOINT(1) },
	[NB_BD_L_SHIN] = { "LShin", NB_BUS_LEGS, NB_ADDR_L_SHIN_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 1,
		{ NAOBODY_L_KNEE_PITCH },
		NB_NONE, NB_NONE, NB_LEN_JOINT(1) },
	[NB_BD_L_ANKLE] = { "LAnkle", NB_BUS_LEGS, NB_ADDR_L_ANKLE_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 2,
		{ NAOBODY_L_ANKLE_PITCH, NAOBODY_L_ANKLE_ROLL },
		NB_NONE, NB_NONE, NB_LEN_JOINT(2) },
	[NB_BD_R_HIP] = { "RHip", NB_BUS_LEGS, NB_ADDR_R_HIP_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 1,
		{ NAOBODY_R_HIP_ROLL },
		NB_NONE, NB_NONE, NB_LEN_JOINT(1) },
	[NB_BD_R_THIGH] = { "RThigh", NB_BUS_LEGS, NB_ADDR_R_THIGH_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 1,
		{ NAOBODY_R_HIP_PITCH },
		NB_NONE, NB_NONE, NB_LEN_JOINT(1) },
	[NB_BD_R_SHIN] = { "RShin", NB_BUS_LEGS, NB_ADDR_R_SHIN_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 1,
		{ NAOBODY_R_KNEE_PITCH },
		NB_NONE, NB_NONE, NB_LEN_JOINT(1) },
	[NB_BD_R_ANKLE] = { "RAnkle", NB_BUS_LEGS, NB_ADDR_R_ANKLE_BOARD,
		NAOBODY_BOARD_JOINT, NB_START_JOINT, 2,
		{ NAOBODY_R_ANKLE_PITCH, NAOBODY_R_ANKLE_ROLL },
		NB_NONE, NB_NONE, NB_LEN_JOINT(2) },
	[NB_BD_L_FOOT] = { "LFoot", NB_BUS_LEGS, NB_ADDR_L_FOOT_BOARD,
		NAOBODY_BOARD_FOOT, NB_START_OTHER, 0,
		{ },
		NAOBODY_TOUCH_L_FOOT_LEFT, 0, NB_LEN_FOOT },
	[NB_BD_R_FOOT] = { "RFoot", NB_BUS_LEGS, NB_ADDR_R_FOOT_BOARD,
		NAOBODY_BOARD_FOOT, NB_START_OTHER, 0,
		{ },
		NAOBODY_TOUCH_R_FOOT_LEFT, NAOBODY_FSR_RIGHT_FOOT, NB_LEN_FOOT },
};

/*
 * The board table read backwards: the board by bus (0, 1) and address,
 * NULL for none. Pointers rather than indexes save the decoder an index
 * computation per message (4 KB of rodata for about 2% of a frame's
 * decode). selftests/codec checks that it matches nb_boards[] exactly.
 */
static const struct nb_board_desc *const nb_board_map[2][256] = {
	[NB_BUS_UPPER][NB_ADDR_HEAD_BOARD] = &nb_boards[NB_BD_HEAD],
	[NB_BUS_UPPER][NB_ADDR_L_SHOULDER_BOARD] = &nb_boards[NB_BD_L_SHOULDER],
	[NB_BUS_UPPER][NB_ADDR_L_ARM_BOARD] = &nb_boards[NB_BD_L_ARM],
	[NB_BUS_UPPER][NB_ADDR_L_HAND_BOARD] = &nb_boards[NB_BD_L_HAND],
	[NB_BUS_UPPER][NB_ADDR_R_SHOULDER_BOARD] = &nb_boards[NB_BD_R_SHOULDER],
	[NB_BUS_UPPER][NB_ADDR_R_ARM_BOARD] = &nb_boards[NB_BD_R_ARM],
	[NB_BUS_UPPER][NB_ADDR_R_HAND_BOARD] = &nb_boards[NB_BD_R_HAND],
	[NB_BUS_LEGS][NB_ADDR_L_HIP_BOARD] = &nb_boards[NB_BD_L_HIP],
	[NB_BUS_LEGS][NB_ADDR_L_THIGH_BOARD] = &nb_boards[NB_BD_L_THIGH],
	[NB_BUS_LEGS][NB_ADDR_L_SHIN_BOARD] = &nb_boards[NB_BD_L_SHIN],
	[NB_BUS_LEGS][NB_ADDR_L_ANKLE_BOARD] = &nb_boards[NB_BD_L_ANKLE],
	[NB_BUS_LEGS][NB_ADDR_R_HIP_BOARD] = &nb_boards[NB_BD_R_HIP],
	[NB_BUS_LEGS][NB_ADDR_R_THIGH_BOARD] = &nb_boards[NB_BD_R_THIGH],
	[NB_BUS_LEGS][NB_ADDR_R_SHIN_BOARD] = &nb_boards[NB_BD_R_SHIN],
	[NB_BUS_LEGS][NB_ADDR_R_ANKLE_BOARD] = &nb_boards[NB_BD_R_ANKLE],
	[NB_BUS_LEGS][NB_ADDR_L_FOOT_BOARD] = &nb_boards[NB_BD_L_FOOT],
	[NB_BUS_LEGS][NB_ADDR_R_FOOT_BOARD] = &nb_boards[NB_BD_R_FOOT],
};

/* The chest mode request's code per enum naobody_chest_mode_op (provisional) */
static const u8 nb_chest_mode_codes[__NAOBODY_CHEST_MODE_MAX] = {
	[NAOBODY_CHEST_QUERY_BOOTLOADER] = 0x00,
	[NAOBODY_CHEST_LED_START] = 0x01,
	[NAOBODY_CHEST_LED_STOP] = 0x02,
	[NAOBODY_CHEST_LED_FIRMWARE_UPDATE] = 0x03,
	[NAOBODY_CHEST_LED_UNUSABLE] = 0x04,
	[NAOBODY_CHEST_LED_MANUAL] = 0x05,
	[NAOBODY_CHEST_LED_WATCHDOG_RESET] = 0x06,
	[NAOBODY_CHEST_CYCLE_MOTOR_POWER] = 0x07,
	[NAOBODY_CHEST_CYCLE_HEAD_POWER] = 0x08,
};

/* Every message type's wire identity and length */
static const struct nb_msg_layout nb_layouts[__NB_MSG_MAX] = {
	[NB_MSG_IMU] = { "imu", NB_MSG_IMU, NB_KIND_DATA, NB_BUS_DEVICES,
			 NB_ADDR_IMU, NB_LEN_IMU },
	[NB_MSG_BATTERY] = { "battery", NB_MSG_BATTERY, NB_KIND_DATA,
			     NB_BUS_DEVICES, NB_ADDR_BATTERY, NB_LEN_BAT },
	[NB_MSG_SONAR] = { "sonar", NB_MSG_SONAR, NB_KIND_DATA, NB_BUS_DEVICES,
			   NB_ADDR_SONAR, NB_LEN_SONAR },
	[NB_MSG_CHEST_BUTTON] = { "chest_button", NB_MSG_CHEST_BUTTON,
				  NB_KIND_DATA, NB_BUS_CHEST, NB_ADDR_BUTTON,
				  NB_LEN_BUTTON },
	[NB_MSG_JOINT_BOARD] = { "joint", NB_MSG_JOINT_BOARD, NB_KIND_DATA,
				 NB_ANY, NB_ANY, NB_LEN_JOINT(2) },
	[NB_MSG_HAND_BOARD] = { "hand", NB_MSG_HAND_BOARD, NB_KIND_DATA,
				NB_ANY, NB_ANY, NB_LEN_HAND },
	[NB_MSG_FOOT_BOARD] = { "foot", NB_MSG_FOOT_BOARD, NB_KIND_DATA,
				NB_ANY, NB_ANY, NB_LEN_FOOT },
	[NB_MSG_HANDSHAKE] = { "handshake", NB_MSG_HANDSHAKE, NB_KIND_DATA,
			       NB_ANY, NB_ANY, NB_LEN_HANDSHAKE },
	[NB_MSG_ACK] = { "ack", NB_MSG_ACK, NB_KIND_ACK, NB_ANY, NB_ANY,
			 NB_LEN_ACK },
	[NB_MSG_PREF_PIECE] = { "pref_piece", NB_MSG_PREF_PIECE, NB_KIND_CHEST,
				NB_BUS_CHEST, NB_ADDR_PREFS,
				NB_LEN_PREF(NB_PREFS_PIECE) },
	[NB_MSG_ID_STRING] = { "id_string", NB_MSG_ID_STRING, NB_KIND_CHEST,
			       NB_BUS_CHEST, NB_ADDR_ID, NB_LEN_ID },
	[NB_MSG_CHEST_MODE] = { "chest_mode", NB_MSG_CHEST_MODE, NB_KIND_CHEST,
				NB_BUS_CHEST, NB_ADDR_MODE, NB_LEN_MODE },
	[NB_MSG_TARGETS] = { "targets", NB_MSG_TARGETS, NB_KIND_REQUEST,
			     NB_ANY, NB_ANY, NB_LEN_TARGETS(2) },
	[NB_MSG_FOOT_LEDS] = { "foot_leds", NB_MSG_FOOT_LEDS, NB_KIND_REQUEST,
			       NB_ANY, NB_ANY, NB_LEN_FOOT_LEDS },
	[NB_MSG_IMU_REQ] = { "imu_req", NB_MSG_IMU_REQ, NB_KIND_REQUEST,
			     NB_BUS_DEVICES, NB_ADDR_IMU, NB_LEN_DEV_REQ },
	[NB_MSG_BATTERY_REQ] = { "battery_req", NB_MSG_BATTERY_REQ,
				 NB_KIND_REQUEST, NB_BUS_DEVICES,
				 NB_ADDR_BATTERY, NB_LEN_DEV_REQ },
	[NB_MSG_SONAR_REQ] = { "sonar_req", NB_MSG_SONAR_REQ, NB_KIND_REQUEST,
			       NB_BUS_DEVICES, NB_ADDR_SONAR,
			       NB_LEN_SONAR_REQ },
	[NB_MSG_CHEST_LED] = { "chest_led", NB_MSG_CHEST_LED, NB_KIND_CHEST,
			       NB_BUS_CHEST, NB_ADDR_BUTTON,
			       NB_LEN_CHEST_LED },
	[NB_MSG_HANDSHAKE_REQ] = { "handshake_req", NB_MSG_HANDSHAKE_REQ,
				   NB_KIND_REQUEST, NB_ANY, NB_ANY,
				   NB_LEN_HANDSHAKE_REQ },
	[NB_MSG_START] = { "start", NB_MSG_START, NB_KIND_COMMAND, NB_ANY,
			   NB_ANY, NB_LEN_START },
	[NB_MSG_PREF_READ] = { "pref_read", NB_MSG_PREF_READ, NB_KIND_CHEST,
			       NB_BUS_CHEST, NB_ADDR_PREFS,
			       NB_LEN_PREF_READ },
	[NB_MSG_ID_READ] = { "id_read", NB_MSG_ID_READ, NB_KIND_CHEST,
			     NB_BUS_CHEST, NB_ADDR_ID, NB_LEN_ID_READ },
	[NB_MSG_CHEST_MODE_REQ] = { "chest_mode_req", NB_MSG_CHEST_MODE_REQ,
				    NB_KIND_CHEST, NB_BUS_CHEST, NB_ADDR_MODE,
				    NB_LEN_MODE_REQ },
	[NB_MSG_HARAKIRI] = { "harakiri", NB_MSG_HARAKIRI, NB_KIND_CHEST,
			      NB_BUS_CHEST, NB_ADDR_MODE, NB_LEN_MODE_REQ },
};

/* The fields; the decoders and encoders read offsets and widths from here */
enum nb_field_id {
	NB_F_ACC_X, NB_F_ACC_Y, NB_F_ACC_Z,
	NB_F_GYR_X, NB_F_GYR_Y, NB_F_GYR_Z,
	NB_F_ANGLE_X, NB_F_ANGLE_Y,
	NB_F_BAT_CHARGE, NB_F_BAT_STATUS, NB_F_BAT_CURRENT, NB_F_BAT_TEMP,
	NB_F_SONAR_L, NB_F_SONAR_R,
	NB_F_BUTTON,
	NB_F_JOINT_POS, NB_F_JOINT_CUR, NB_F_JOINT_TEMP, NB_F_JOINT_STATUS,
	NB_F_HAND_TOUCH,
	NB_F_FSR_FL, NB_F_FSR_FR, NB_F_FSR_RL, NB_F_FSR_RR,
	NB_F_BUMPERS,
	NB_F_HS_SERIAL, NB_F_HS_VERSION, NB_F_HS_HW_REVISION,
	NB_F_HS_BOARD_TYPE,
	NB_F_ACK_STATUS,
	NB_F_PREF_INDEX,
	NB_F_ID_SLOT,
	NB_F_MODE_RESULT,
	NB_F_TGT_POS, NB_F_TGT_STIFF,
	NB_F_FOOT_LED_R, NB_F_FOOT_LED_G, NB_F_FOOT_LED_B,
	NB_F_SONAR_ENABLE,
	NB_F_CHEST_LED_R, NB_F_CHEST_LED_G, NB_F_CHEST_LED_B,
	NB_F_START_CMD,
	NB_F_PREF_READ_INDEX,
	NB_F_ID_READ_SLOT,
	NB_F_MODE_CODE,
	__NB_F_MAX
};

#define NB_S	NB_FIELD_SIGNED
#define NB_FLD(id, nm, m, off, w, fl, st, num, den, u) \
	[id] = { nm, m, off, w, fl, st, num, den, u }

static const struct nb_field nb_fields[__NB_F_MAX] = {
	/*	id	name	msg	offset	width flags stride scale unit */
	NB_FLD(NB_F_ACC_X, "imu.acc_x", NB_MSG_IMU, NB_OFF_IMU_ACC,
	       2, NB_S, 0, 981, 1638400, "m/s^2"),
	NB_FLD(NB_F_ACC_Y, "imu.acc_y", NB_MSG_IMU, NB_OFF_IMU_ACC + 2,
	       2, NB_S, 0, 981, 1638400, "m/s^2"),
	NB_FLD(NB_F_ACC_Z, "imu.acc_z", NB_MSG_IMU, NB_OFF_IMU_ACC + 4,
	       2, NB_S, 0, 981, 1638400, "m/s^2"),
	NB_FLD(NB_F_GYR_X, "imu.gyr_x", NB_MSG_IMU, NB_OFF_IMU_GYR,
	       2, NB_S, 0, 500, 32768, "deg/s"),
	NB_FLD(NB_F_GYR_Y, "imu.gyr_y", NB_MSG_IMU, NB_OFF_IMU_GYR + 2,
	       2, NB_S, 0, 500, 32768, "deg/s"),
	NB_FLD(NB_F_GYR_Z, "imu.gyr_z", NB_MSG_IMU, NB_OFF_IMU_GYR + 4,
	       2, NB_S, 0, 500, 32768, "deg/s"),
	NB_FLD(NB_F_ANGLE_X, "imu.angle_x", NB_MSG_IMU, NB_OFF_IMU_ANGLE,
	       2, NB_S, 0, 1, 1000, "rad"),
	NB_FLD(NB_F_ANGLE_Y, "imu.angle_y", NB_MSG_IMU, NB_OFF_IMU_ANGLE + 2,
	       2, NB_S, 0, 1, 1000, "rad"),
	NB_FLD(NB_F_BAT_CHARGE, "battery.charge", NB_MSG_BATTERY,
	       NB_OFF_BAT_CHARGE, 2, 0, 0, 1, 100, "1"),
	NB_FLD(NB_F_BAT_STATUS, "battery.status", NB_MSG_BATTERY,
	       NB_OFF_BAT_STATUS, 2, NB_S, 0, 1, 1, "bits"),
	NB_FLD(NB_F_BAT_CURRENT, "battery.current", NB_MSG_BATTERY,
	       NB_OFF_BAT_CURRENT, 2, NB_S, 0, 1, 1000, "A"),
	NB_FLD(NB_F_BAT_TEMP, "battery.temperature", NB_MSG_BATTERY,
	       NB_OFF_BAT_TEMP, 2, NB_S, 0, 1, 100, "LoLA"),
	NB_FLD(NB_F_SONAR_L, "sonar.left", NB_MSG_SONAR, NB_OFF_SONAR,
	       2, 0, 0, 1, 100, "m"),
	NB_FLD(NB_F_SONAR_R, "sonar.right", NB_MSG_SONAR, NB_OFF_SONAR + 2,
	       2, 0, 0, 1, 100, "m"),
	NB_FLD(NB_F_BUTTON, "chest_button.pressed", NB_MSG_CHEST_BUTTON,
	       NB_OFF_BUTTON, 1, 0, 0, 1, 1, "bits"),
	NB_FLD(NB_F_JOINT_POS, "joint.position", NB_MSG_JOINT_BOARD,
	       NB_OFF_JOINT_POS, 2, NB_S, NB_JOINT_STRIDE, 1, 4096, "turn"),
	NB_FLD(NB_F_JOINT_CUR, "joint.current", NB_MSG_JOINT_BOARD,
	       NB_OFF_JOINT_CUR, 2, NB_S, NB_JOINT_STRIDE, 16, 1000, "A"),
	NB_FLD(NB_F_JOINT_TEMP, "joint.temperature", NB_MSG_JOINT_BOARD,
	       NB_OFF_JOINT_TEMP, 1, 0, NB_JOINT_STRIDE, 2, 1, "degC"),
	NB_FLD(NB_F_JOINT_STATUS, "joint.status", NB_MSG_JOINT_BOARD,
	       NB_OFF_JOINT_STATUS, 1, 0, NB_JOINT_STRIDE, 1, 1, "0..3"),
	NB_FLD(NB_F_HAND_TOUCH, "hand.touch", NB_MSG_HAND_BOARD,
	       NB_OFF_HAND_TOUCH, 1, 0, 0, 1, 1, "bits"),
	NB_FLD(NB_F_FSR_FL, "foot.fsr_front_left", NB_MSG_FOOT_BOARD,
	       NB_OFF_FOOT_FSR, 2, 0, 0, 1, 1, "count"),
	NB_FLD(NB_F_FSR_FR, "foot.fsr_front_right", NB_MSG_FOOT_BOARD,
	       NB_OFF_FOOT_FSR + 2, 2, 0, 0, 1, 1, "count"),
	NB_FLD(NB_F_FSR_RL, "foot.fsr_rear_left", NB_MSG_FOOT_BOARD,
	       NB_OFF_FOOT_FSR + 4, 2, 0, 0, 1, 1, "count"),
	NB_FLD(NB_F_FSR_RR, "foot.fsr_rear_right", NB_MSG_FOOT_BOARD,
	       NB_OFF_FOOT_FSR + 6, 2, 0, 0, 1, 1, "count"),
	NB_FLD(NB_F_BUMPERS, "foot.bumpers", NB_MSG_FOOT_BOARD,
	       NB_OFF_FOOT_BUMPERS, 1, 0, 0, 1, 1, "bits"),
	NB_FLD(NB_F_HS_SERIAL, "handshake.serial", NB_MSG_HANDSHAKE,
	       NB_MSG_HDR + NB_HS_SERIAL, 4, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_HS_VERSION, "handshake.config_version", NB_MSG_HANDSHAKE,
	       NB_MSG_HDR + NB_HS_VERSION, 1, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_HS_HW_REVISION, "handshake.hw_revision", NB_MSG_HANDSHAKE,
	       NB_MSG_HDR + NB_HS_HW_REVISION, 1, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_HS_BOARD_TYPE, "handshake.board_type", NB_MSG_HANDSHAKE,
	       NB_MSG_HDR + NB_HS_BOARD_TYPE, 1, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_ACK_STATUS, "ack.status", NB_MSG_ACK,
	       NB_OFF_ACK_STATUS, 1, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_PREF_INDEX, "pref_piece.index", NB_MSG_PREF_PIECE,
	       NB_OFF_PREF_INDEX, 2, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_ID_SLOT, "id_string.slot", NB_MSG_ID_STRING,
	       NB_OFF_ID_SLOT, 1, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_MODE_RESULT, "chest_mode.result", NB_MSG_CHEST_MODE,
	       NB_OFF_MODE_VALUE, 1, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_TGT_POS, "targets.position", NB_MSG_TARGETS,
	       NB_OFF_TGT_POS, 2, NB_S, NB_TARGET_STRIDE, 1, 4096, "turn"),
	NB_FLD(NB_F_TGT_STIFF, "targets.stiffness", NB_MSG_TARGETS,
	       NB_OFF_TGT_STIFF, 2, 0, NB_TARGET_STRIDE, 1, 1000, "1"),
	NB_FLD(NB_F_FOOT_LED_R, "foot_leds.red", NB_MSG_FOOT_LEDS,
	       NB_OFF_FOOT_LED, 1, 0, 0, 1, 255, "1"),
	NB_FLD(NB_F_FOOT_LED_G, "foot_leds.green", NB_MSG_FOOT_LEDS,
	       NB_OFF_FOOT_LED + 1, 1, 0, 0, 1, 255, "1"),
	NB_FLD(NB_F_FOOT_LED_B, "foot_leds.blue", NB_MSG_FOOT_LEDS,
	       NB_OFF_FOOT_LED + 2, 1, 0, 0, 1, 255, "1"),
	NB_FLD(NB_F_SONAR_ENABLE, "sonar_req.enable", NB_MSG_SONAR_REQ,
	       NB_OFF_SONAR_ENABLE, 1, 0, 0, 1, 1, "bits"),
	NB_FLD(NB_F_CHEST_LED_R, "chest_led.red", NB_MSG_CHEST_LED,
	       NB_OFF_CHEST_LED, 1, 0, 0, 1, 255, "1"),
	NB_FLD(NB_F_CHEST_LED_G, "chest_led.green", NB_MSG_CHEST_LED,
	       NB_OFF_CHEST_LED + 1, 1, 0, 0, 1, 255, "1"),
	NB_FLD(NB_F_CHEST_LED_B, "chest_led.blue", NB_MSG_CHEST_LED,
	       NB_OFF_CHEST_LED + 2, 1, 0, 0, 1, 255, "1"),
	NB_FLD(NB_F_START_CMD, "start.command", NB_MSG_START,
	       NB_MSG_HDR, 1, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_PREF_READ_INDEX, "pref_read.index", NB_MSG_PREF_READ,
	       NB_MSG_HDR, 2, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_ID_READ_SLOT, "id_read.slot", NB_MSG_ID_READ,
	       NB_MSG_HDR, 1, 0, 0, 1, 1, ""),
	NB_FLD(NB_F_MODE_CODE, "chest_mode_req.code", NB_MSG_CHEST_MODE_REQ,
	       NB_MSG_HDR, 1, 0, 0, 1, 1, ""),
};

#undef NB_FLD
#undef NB_S

#endif /* NB_LAYOUT_TABLES */
#endif /* _NB_LAYOUT_H */
