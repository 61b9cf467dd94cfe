/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The chest board's preference block: its typed key-value pairs and the
 * calibration they hold.
 *
 * The kernel reassembles the 4,635-byte block and checks its CRC
 * (NAOBODY_IOC_GET_PREFS hands it out raw); this parser reads it. The
 * block's encoding and its keys are provisional: no public source gives
 * them. Documentation/chest-board-protocol.rst ("The preference block")
 * describes both and how to check them against a real block.
 */
#ifndef NAOBODY_PREFS_H
#define NAOBODY_PREFS_H

#include <stddef.h>
#include <stdint.h>

#include <linux/naobody.h>

/* Entry types (provisional) */
enum nb_pref_type {
	NB_PREF_END = 0,	/* no more entries */
	NB_PREF_INT = 1,	/* int32, big endian */
	NB_PREF_FLOAT = 2,	/* IEEE 754 binary32, big endian */
	NB_PREF_STRING = 3,	/* bytes, not NUL-terminated */
};

#define NB_PREF_KEY_MAX		63
#define NB_PREF_STRING_MAX	63

/* One entry, as nb_prefs_next() returns it. */
struct nb_pref {
	uint8_t type;			/* enum nb_pref_type; others are skipped */
	char key[NB_PREF_KEY_MAX + 1];	/* NUL-terminated */
	int32_t i;			/* NB_PREF_INT */
	float f;			/* NB_PREF_FLOAT */
	char s[NB_PREF_STRING_MAX + 1];	/* NB_PREF_STRING, NUL-terminated */
};

#define NB_CAL_BOARDS		32
#define NB_CAL_NAME_MAX		15

/* nb_calibration.present: what the block held */
#define NB_CAL_BODY_ID		(1U << 0)
#define NB_CAL_BODY_VERSION	(1U << 1)
#define NB_CAL_SERIALS		(1U << 2)	/* at least one board serial */
#define NB_CAL_JOINT_ZERO	(1U << 3)	/* at least one joint zero */
#define NB_CAL_FSR		(1U << 4)	/* at least one gain or offset */
#define NB_CAL_IMU		(1U << 5)	/* at least one IMU offset */

struct nb_board_serial {
	char name[NB_CAL_NAME_MAX + 1];		/* the board's name ("LHip") */
	uint32_t serial;
};

/*
 * The calibration the unit conversions use (<naobody/units.h>).
 * nb_calibration_init() sets the defaults: zero offsets, joint zeros of 0
 * counts, and FSR gains of NB_FSR_DEFAULT_GAIN kg per count.
 */
struct nb_calibration {
	uint32_t present;			/* NB_CAL_* */
	char body_id[NAOBODY_CHEST_ID_LEN + 1];
	char body_version[16];
	unsigned int boards;			/* entries used in board[] */
	struct nb_board_serial board[NB_CAL_BOARDS];
	int32_t joint_zero[NAOBODY_JOINTS];	/* counts at 0 rad */
	float fsr_gain[NAOBODY_FSRS];		/* kg per count */
	float fsr_offset[NAOBODY_FSRS];		/* kg */
	float acc_offset[3];			/* m/s^2 */
	float gyro_offset[3];			/* rad/s */
	float angle_offset[2];			/* rad */
};

#define NB_FSR_DEFAULT_GAIN	0.001f		/* provisional */

void nb_calibration_init(struct nb_calibration *cal);

/*
 * nb_prefs_verify() - 0 if block (len bytes, NAOBODY_PREFS_SIZE) carries a
 * good CRC, -EBADMSG if not, -EINVAL for a wrong size.
 */
int nb_prefs_verify(const void *block, size_t len);

/*
 * nb_prefs_next() - the entry at *pos, which starts at 0. Returns 1 and
 * advances *pos past it, 0 at the end of the entries, or -EBADMSG when an
 * entry runs past the block or is malformed.
 */
int nb_prefs_next(const void *block, size_t len, size_t *pos,
		  struct nb_pref *e);

/*
 * nb_prefs_parse() - verify the block and fill cal from it: cal is first
 * reset with nb_calibration_init(), then every known key sets its field.
 * Unknown keys and types are skipped. Returns the number of entries read,
 * or a negative errno (-EBADMSG: bad CRC or malformed entry).
 */
int nb_prefs_parse(const void *block, size_t len, struct nb_calibration *cal);

/*
 * nb_prefs_build() - encode cal as a block of len bytes (at least
 * NAOBODY_PREFS_SIZE; the rest is zero), CRC included: for the emulator
 * and tests. Only what cal->present says is written. Returns the bytes
 * of entries written, or -ENOSPC.
 */
int nb_prefs_build(const struct nb_calibration *cal, void *block, size_t len);

#endif
