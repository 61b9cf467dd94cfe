// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The preference block's typed key-value pairs (provisional encoding; see
 * Documentation/chest-board-protocol.rst, "The preference block"):
 *
 *   offset 0      entries, one after the other
 *   ...           zero bytes after the last entry (type 0 ends the list)
 *   4631..4634    CRC-32 (zlib's) of bytes 0..4630, big endian
 *
 *   entry:  u8 type, u8 key length, u8 value length, key, value
 *   type 1: int32, big endian (value length 4)
 *   type 2: IEEE 754 binary32, big endian (value length 4)
 *   type 3: a string (value length bytes, no NUL)
 *   other types are skipped by their value length
 *
 * This file is libnaobody's own (LGPL): it shares no code with the kernel's
 * codec, which reassembles the block and checks the same CRC.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include <naobody/prefs.h>
#include <naobody/units.h>

#define PREFS_CRC_OFF	(NAOBODY_PREFS_SIZE - 4)
#define ENTRY_HDR	3

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static const char *const foot_name[2] = { "LFoot", "RFoot" };
static const char *const fsr_name[4] = {
	"FrontLeft", "FrontRight", "RearLeft", "RearRight"
};
static const char *const axis_name[3] = { "X", "Y", "Z" };

void nb_calibration_init(struct nb_calibration *cal)
{
	unsigned int i;

	memset(cal, 0, sizeof(*cal));
	for (i = 0; i < NAOBODY_FSRS; i++)
		cal->fsr_gain[i] = NB_FSR_DEFAULT_GAIN;
}

int nb_prefs_verify(const void *block, size_t len)
{
	const uint8_t *b = block;

	if (len != NAOBODY_PREFS_SIZE)
		return -EINVAL;
	if ((uint32_t)crc32(0, b, PREFS_CRC_OFF) != get_be32(b + PREFS_CRC_OFF))
		return -EBADMSG;
	return 0;
}

int nb_prefs_next(const void *block, size_t len, size_t *pos,
		  struct nb_pref *e)
{
	const uint8_t *b = block;
	size_t end = len < PREFS_CRC_OFF ? len : PREFS_CRC_OFF;
	size_t p = *pos, klen, vlen;
	uint32_t v;

	if (p >= end || b[p] == NB_PREF_END)
		return 0;
	if (end - p < ENTRY_HDR)
		return -EBADMSG;
	klen = b[p + 1];
	vlen = b[p + 2];
	if (klen == 0 || klen > NB_PREF_KEY_MAX ||
	    end - p - ENTRY_HDR < klen + vlen)
		return -EBADMSG;
	memset(e, 0, sizeof(*e));
	e->type = b[p];
	memcpy(e->key, b + p + ENTRY_HDR, klen);
	if (memchr(e->key, 0, klen))
		return -EBADMSG;
	p += ENTRY_HDR + klen;
	switch (e->type) {
	case NB_PREF_INT:
	case NB_PREF_FLOAT:
		if (vlen != 4)
			return -EBADMSG;
		v = get_be32(b + p);
		if (e->type == NB_PREF_INT)
			e->i = (int32_t)v;
		else
			memcpy(&e->f, &v, sizeof(e->f));
		break;
	case NB_PREF_STRING:
		memcpy(e->s, b + p, vlen < NB_PREF_STRING_MAX ? vlen :
							       NB_PREF_STRING_MAX);
		break;
	}
	*pos = p + vlen;
	return 1;
}

/* A copy of src that fits in n bytes, zero-padded (a key seen twice
 * leaves nothing of its first value behind)
 */
static void copy_str(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memset(dst, 0, n);
	memcpy(dst, src, l);
}

/* Set the field key names, if it is one we know. */
static void apply(struct nb_calibration *cal, const struct nb_pref *e)
{
	char name[NB_PREF_KEY_MAX + 1];
	unsigned int i, k;
	int end = -1;

	if (e->type == NB_PREF_STRING && !strcmp(e->key, "Body/BodyId")) {
		copy_str(cal->body_id, sizeof(cal->body_id), e->s);
		cal->present |= NB_CAL_BODY_ID;
		return;
	}
	if (e->type == NB_PREF_STRING && !strcmp(e->key, "Body/Version")) {
		copy_str(cal->body_version, sizeof(cal->body_version), e->s);
		cal->present |= NB_CAL_BODY_VERSION;
		return;
	}
	if (e->type == NB_PREF_INT &&
	    sscanf(e->key, "Board/%15[^/]/Serial%n", name, &end) == 1 &&
	    end > 0 && e->key[end] == '\0') {
		for (i = 0; i < cal->boards; i++)
			if (!strcmp(cal->board[i].name, name))
				break;
		if (i == NB_CAL_BOARDS)
			return;
		if (i == cal->boards) {
			copy_str(cal->board[i].name, sizeof(cal->board[i].name),
				 name);
			cal->boards++;
		}
		cal->board[i].serial = (uint32_t)e->i;
		cal->present |= NB_CAL_SERIALS;
		return;
	}
	if (e->type == NB_PREF_INT) {
		for (i = 0; i < NAOBODY_JOINTS; i++) {
			snprintf(name, sizeof(name), "Joint/%s/Zero",
				 nb_joint_name(i));
			if (!strcmp(e->key, name)) {
				cal->joint_zero[i] = e->i;
				cal->present |= NB_CAL_JOINT_ZERO;
				return;
			}
		}
		return;
	}
	if (e->type != NB_PREF_FLOAT)
		return;
	for (i = 0; i < NAOBODY_FSRS; i++) {
		for (k = 0; k < 2; k++) {
			snprintf(name, sizeof(name), "FSR/%s/%s/%s",
				 foot_name[i / 4], fsr_name[i % 4],
				 k ? "Offset" : "Gain");
			if (strcmp(e->key, name))
				continue;
			if (k)
				cal->fsr_offset[i] = e->f;
			else
				cal->fsr_gain[i] = e->f;
			cal->present |= NB_CAL_FSR;
			return;
		}
	}
	for (i = 0; i < 8; i++) {
		float *dst = i < 3 ? &cal->acc_offset[i] :
			     i < 6 ? &cal->gyro_offset[i - 3] :
				     &cal->angle_offset[i - 6];

		snprintf(name, sizeof(name), "IMU/%s%s/Offset",
			 i < 3 ? "Acc" : i < 6 ? "Gyr" : "Angle",
			 axis_name[i < 3 ? i : i < 6 ? i - 3 : i - 6]);
		if (!strcmp(e->key, name)) {
			*dst = e->f;
			cal->present |= NB_CAL_IMU;
			return;
		}
	}
}

int nb_prefs_parse(const void *block, size_t len, struct nb_calibration *cal)
{
	struct nb_pref e;
	size_t pos = 0;
	int r, n = 0;

	nb_calibration_init(cal);
	r = nb_prefs_verify(block, len);
	if (r)
		return r;
	while ((r = nb_prefs_next(block, len, &pos, &e)) > 0) {
		apply(cal, &e);
		n++;
	}
	return r < 0 ? r : n;
}

struct writer {
	uint8_t *b;
	size_t pos;
	size_t end;
	int err;
};

static void put_entry(struct writer *w, uint8_t type, const char *key,
		      const void *val, size_t vlen)
{
	size_t klen = strlen(key);

	if (w->err)
		return;
	if (klen == 0 || klen > NB_PREF_KEY_MAX || vlen > 255 ||
	    w->end - w->pos < ENTRY_HDR + klen + vlen) {
		w->err = -ENOSPC;
		return;
	}
	w->b[w->pos] = type;
	w->b[w->pos + 1] = klen;
	w->b[w->pos + 2] = vlen;
	memcpy(w->b + w->pos + ENTRY_HDR, key, klen);
	memcpy(w->b + w->pos + ENTRY_HDR + klen, val, vlen);
	w->pos += ENTRY_HDR + klen + vlen;
}

static void put_int(struct writer *w, const char *key, int32_t v)
{
	uint8_t be[4];

	put_be32(be, (uint32_t)v);
	put_entry(w, NB_PREF_INT, key, be, 4);
}

static void put_float(struct writer *w, const char *key, float f)
{
	uint8_t be[4];
	uint32_t v;

	memcpy(&v, &f, sizeof(v));
	put_be32(be, v);
	put_entry(w, NB_PREF_FLOAT, key, be, 4);
}

int nb_prefs_build(const struct nb_calibration *cal, void *block, size_t len)
{
	struct writer w = { .b = block, .end = PREFS_CRC_OFF };
	char key[NB_PREF_KEY_MAX + 1];
	unsigned int i, k;

	if (len < NAOBODY_PREFS_SIZE)
		return -EINVAL;
	memset(block, 0, len);
	if (cal->present & NB_CAL_BODY_ID)
		put_entry(&w, NB_PREF_STRING, "Body/BodyId", cal->body_id,
			  strnlen(cal->body_id, sizeof(cal->body_id)));
	if (cal->present & NB_CAL_BODY_VERSION)
		put_entry(&w, NB_PREF_STRING, "Body/Version", cal->body_version,
			  strnlen(cal->body_version, sizeof(cal->body_version)));
	if (cal->present & NB_CAL_SERIALS) {
		for (i = 0; i < cal->boards && i < NB_CAL_BOARDS; i++) {
			snprintf(key, sizeof(key), "Board/%s/Serial",
				 cal->board[i].name);
			put_int(&w, key, (int32_t)cal->board[i].serial);
		}
	}
	if (cal->present & NB_CAL_JOINT_ZERO) {
		for (i = 0; i < NAOBODY_JOINTS; i++) {
			snprintf(key, sizeof(key), "Joint/%s/Zero",
				 nb_joint_name(i));
			put_int(&w, key, cal->joint_zero[i]);
		}
	}
	if (cal->present & NB_CAL_FSR) {
		for (i = 0; i < NAOBODY_FSRS; i++) {
			for (k = 0; k < 2; k++) {
				snprintf(key, sizeof(key), "FSR/%s/%s/%s",
					 foot_name[i / 4], fsr_name[i % 4],
					 k ? "Offset" : "Gain");
				put_float(&w, key, k ? cal->fsr_offset[i] :
						       cal->fsr_gain[i]);
			}
		}
	}
	if (cal->present & NB_CAL_IMU) {
		for (i = 0; i < 3; i++) {
			snprintf(key, sizeof(key), "IMU/Acc%s/Offset",
				 axis_name[i]);
			put_float(&w, key, cal->acc_offset[i]);
		}
		for (i = 0; i < 3; i++) {
			snprintf(key, sizeof(key), "IMU/Gyr%s/Offset",
				 axis_name[i]);
			put_float(&w, key, cal->gyro_offset[i]);
		}
		for (i = 0; i < 2; i++) {
			snprintf(key, sizeof(key), "IMU/Angle%s/Offset",
				 axis_name[i]);
			put_float(&w, key, cal->angle_offset[i]);
		}
	}
	if (w.err)
		return w.err;
	put_be32(w.b + PREFS_CRC_OFF, (uint32_t)crc32(0, w.b, PREFS_CRC_OFF));
	return (int)w.pos;
}
