// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the boards behind the chest board say about themselves: the motor
 * boards' handshake answers, the preference block, the id strings, and the
 * standing body those imply.
 *
 * One calibration (struct nb_calibration) is the source of all of them:
 * libnaobody encodes it as the 4,635-byte preference block (its
 * provisional encoding, CRC-sealed), the handshake answers carry the same
 * serial numbers (the foot boards send 0, as the spec says), and the
 * default body is a standing robot in LoLA's units converted to counts
 * with the same joint zeros and sensor gains, so a driver and libnaobody
 * that read the block get the robot back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <naobody/body.h>
#include <naobody/units.h>

#include "emu.h"

/* A board's stored serial number: "NB" and its index. */
static uint32_t serial_of(unsigned int board)
{
	return 0x4e420000u | (board + 1);
}

int boards_init(struct emu_boards *bd, const struct emu_opts *o)
{
	struct nb_calibration *cal = &bd->cal;
	unsigned int i;
	int r;

	nb_calibration_init(cal);
	cal->present = NB_CAL_BODY_ID | NB_CAL_BODY_VERSION | NB_CAL_SERIALS |
		       NB_CAL_JOINT_ZERO | NB_CAL_FSR | NB_CAL_IMU;
	snprintf(cal->body_id, sizeof(cal->body_id), "%s", o->body_id);
	snprintf(cal->body_version, sizeof(cal->body_version), "6.0.0");
	for (i = 0; i < NB_BOARDS && i < NB_CAL_BOARDS; i++) {
		snprintf(cal->board[i].name, sizeof(cal->board[i].name), "%s",
			 nb_board(i)->name);
		cal->board[i].serial = serial_of(i);
	}
	cal->boards = i;
	/* small, distinct offsets, so that a parser that drops one shows */
	for (i = 0; i < NAOBODY_JOINTS; i++)
		cal->joint_zero[i] = (int32_t)(i * 7 % 23) - 11;
	for (i = 0; i < NAOBODY_FSRS; i++) {
		cal->fsr_gain[i] = NB_FSR_DEFAULT_GAIN * (1.0f + 0.01f * (float)i);
		cal->fsr_offset[i] = -0.01f * (float)(i % 4);
	}
	cal->acc_offset[0] = 0.02f;
	cal->acc_offset[1] = -0.03f;
	cal->gyro_offset[2] = 0.001f;
	cal->angle_offset[0] = 0.002f;

	memset(bd->prefs, 0, sizeof(bd->prefs));
	r = nb_prefs_build(cal, bd->prefs, sizeof(bd->prefs));
	if (r < 0)
		return r;

	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *d = nb_board(i);
		struct naobody_board *h = &bd->hs[i];

		memset(h, 0, sizeof(*h));
		h->bus = d->bus;
		h->address = d->address;
		h->kind = d->kind;
		h->serial = d->kind == NAOBODY_BOARD_FOOT ? 0 : serial_of(i);
		h->config_version = (uint8_t)o->board_version;
		h->hw_revision = 3;
		h->board_type = d->kind;
		h->status[0] = 0x01;	/* provisional: "running" */
	}
	bd->started = 0;

	snprintf(bd->id[0], sizeof(bd->id[0]), "ChestBoard v3.3 emu");
	snprintf(bd->id[1], sizeof(bd->id[1]), "naobody emulator");
	snprintf(bd->id[2], sizeof(bd->id[2]), "6.0.0");
	snprintf(bd->id[3], sizeof(bd->id[3]), "%s", o->body_id);
	return 0;
}

/* board < 0: every motor board. Hand and foot boards answer too. */
void boards_set_version(struct emu_boards *bd, int board, unsigned int v)
{
	for (int i = 0; i < NB_BOARDS; i++)
		if (board < 0 || board == i)
			bd->hs[i].config_version = (uint8_t)v;
}

/*
 * A board drops off the bus (down: a cable, a brown-out) or comes back.
 * While down it answers nothing; back, it has lost its start command and
 * answers only its handshake until it gets one again, as after power-up.
 */
void boards_set_down(struct emu_boards *bd, int board, bool down)
{
	uint64_t bit = 1ULL << board;

	if (down)
		bd->down |= bit;
	else
		bd->down &= ~bit;
	bd->started &= ~bit;
}

/* A robot standing still on its feet, battery nearly full, in counts. */
void boards_standing_body(const struct emu_boards *bd, struct naobody_sensors *s)
{
	static const float pose[NAOBODY_JOINTS] = {
		[NAOBODY_HEAD_YAW] = 0.0f, [NAOBODY_HEAD_PITCH] = -0.05f,
		[NAOBODY_L_SHOULDER_PITCH] = 1.50f, [NAOBODY_L_SHOULDER_ROLL] = 0.18f,
		[NAOBODY_L_ELBOW_YAW] = -1.20f, [NAOBODY_L_ELBOW_ROLL] = -0.52f,
		[NAOBODY_L_WRIST_YAW] = 0.0f,
		[NAOBODY_L_HIP_YAW_PITCH] = 0.0f, [NAOBODY_L_HIP_ROLL] = 0.0f,
		[NAOBODY_L_HIP_PITCH] = -0.44f, [NAOBODY_L_KNEE_PITCH] = 0.90f,
		[NAOBODY_L_ANKLE_PITCH] = -0.46f, [NAOBODY_L_ANKLE_ROLL] = 0.0f,
		[NAOBODY_R_HIP_ROLL] = 0.0f, [NAOBODY_R_HIP_PITCH] = -0.44f,
		[NAOBODY_R_KNEE_PITCH] = 0.90f, [NAOBODY_R_ANKLE_PITCH] = -0.46f,
		[NAOBODY_R_ANKLE_ROLL] = 0.0f,
		[NAOBODY_R_SHOULDER_PITCH] = 1.50f, [NAOBODY_R_SHOULDER_ROLL] = -0.18f,
		[NAOBODY_R_ELBOW_YAW] = 1.20f, [NAOBODY_R_ELBOW_ROLL] = 0.52f,
		[NAOBODY_R_WRIST_YAW] = 0.0f,
		[NAOBODY_L_HAND] = 0.25f, [NAOBODY_R_HAND] = 0.25f,
	};
	struct nb_sensors u;
	unsigned int i;

	memset(&u, 0, sizeof(u));
	u.accelerometer[2] = -9.81f;		/* gravity, z up */
	u.battery[0] = 0.98f;			/* charge */
	u.battery[1] = 0x28;			/* discharging, discharge FET on */
	u.battery[2] = -1.2f;			/* A */
	u.battery[3] = 2.8f;			/* 28 deg C in LoLA's scale */
	u.sonar[0] = 1.2f;
	u.sonar[1] = 1.5f;
	for (i = 0; i < NAOBODY_FSRS; i++)
		u.fsr[i] = 0.55f + 0.02f * (float)(i % 4);	/* kg: about 2.3 per foot */
	for (i = 0; i < NAOBODY_JOINTS; i++) {
		u.position[i] = pose[i];
		u.current[i] = 0.05f;
		u.temperature[i] = 36.0f;
	}
	nb_sensors_to_counts(s, &u, &bd->cal);
}
