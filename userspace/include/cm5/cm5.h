/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libcm5: the Bioloid CM-5 running the BRBrain firmware, from C. The
 * equivalent of BRBrain's Java host library: ping, scan, read and write
 * formats, reads and writes in raw counts or natural units, the AX-12 and
 * AX-S1 register tables, status decoding and recovery.
 *
 * Every call that talks to the CM-5 returns the CM-5's status word (status
 * byte | retries << 8, >= 0, as BRBrain's Java does) or a negative errno:
 *   -ETIMEDOUT  no reply in time (the library has already recovered once)
 *   -EPROTO     a reply of the wrong kind (e.g. STATUS instead of DATA)
 *   -EINVAL, -EBADMSG, -EMSGSIZE, -EACCES  refused before sending, see
 *               <linux/n_robot.h>
 */
#ifndef _CM5_CM5_H
#define _CM5_CM5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/n_robot.h>
#include <n_robot/link.h>

/* Status byte bits (firmware and Java agree). */
#define CM5_S_PC_TIMEOUT			0x01
#define CM5_S_DYNAMIXEL_TIMEOUT			0x02
#define CM5_S_INVALID_PC_COMMAND		0x04
#define CM5_S_INVALID_DYNAMIXEL_RESPONSE	0x08
#define CM5_S_PC_RX_OVERFLOW			0x10
#define CM5_S_DYNAMIXEL_RX_OVERFLOW		0x20
#define CM5_S_PC_CHECKSUM_ERROR			0x40
#define CM5_S_DYNAMIXEL_CHECKSUM_ERROR		0x80

#define CM5_BAUD		115200
#define CM5_BOOTLOADER_BAUD	57600
#define CM5_BOOTLOADER_MSG	"SYSTEM O.K. (CM5 Boot loader"
#define CM5_TIMEOUT_MS		1000	/* DEF_TIMEOUT_MS */
#define CM5_RECOVER_MS		500	/* RECOVER_MS */
#define CM5_CHANNEL_POS		0
#define CM5_CHANNEL_NEG		1
#define CM5_CHANNEL_THERM	2

/* Register flags. */
#define CM5_REG_RO	0x01	/* read-only */
#define CM5_REG_SM11	0x02	/* sign-magnitude, bit 10 the sign */

/* How raw counts become natural units. */
enum cm5_conv {
	CM5_CONV_LINEAR,	/* natural = raw * scale */
	CM5_CONV_BAUD,		/* kbps = 2000 / (raw + 1) */
	CM5_CONV_SLOPE,		/* (raw - 1) / 253 */
};

struct cm5_reg {
	const char *name;
	uint8_t addr;
	uint8_t size;		/* bytes, little endian */
	uint8_t flags;
	uint8_t conv;		/* enum cm5_conv */
	int32_t min, max;	/* raw range a write may use */
	double scale;
	const char *unit;
};

/* Register tables, in address order; model is N_ROBOT_CM5_MODEL_*. */
const struct cm5_reg *cm5_regs(int model, size_t *count);
const struct cm5_reg *cm5_reg_find(int model, const char *name);
const struct cm5_reg *cm5_reg_at(int model, unsigned int addr);
const char *cm5_model_name(int model);
int cm5_model_parse(const char *s);

int32_t cm5_reg_decode(const struct cm5_reg *r, const uint8_t *p);
void cm5_reg_encode(const struct cm5_reg *r, int32_t raw, uint8_t *p);
double cm5_to_natural(const struct cm5_reg *r, int32_t raw);
/* Natural units to raw counts; -ERANGE outside the register's range. */
int cm5_from_natural(const struct cm5_reg *r, double v, int32_t *raw);
/* Volts at the input of the 3.3k/10k divider. */
double cm5_adc_to_volts(uint8_t adc);
/* "ok", or the status bits by name, and retries; into buf. */
const char *cm5_status_str(int status, char *buf, size_t len);

/* One entry of a format: nregs registers from start, on one Dynamixel. */
struct cm5_fmt_entry {
	uint8_t id;
	const struct cm5_reg *start;
	unsigned int nregs;
};

struct cm5_fmt {
	bool unknown;		/* not answered by a clean STATUS: set it again */
	unsigned int count;
	struct cm5_fmt_entry e[N_ROBOT_CM5_MAX_DYNAMIXELS];
	unsigned int total_regs;
	unsigned int total_bytes;
};

struct cm5 {
	struct nr_link link;
	int timeout_ms;
	int retries;			/* recover-and-retry attempts */
	uint8_t model[256];
	struct cm5_fmt fmt[2];	/* N_ROBOT_CM5_FORMAT_READ, _WRITE */
	uint8_t adc[3];
	/* per register of the last read: the firmware stuffed it (below) */
	bool missing[N_ROBOT_CM5_NUM_REG_BYTES * N_ROBOT_CM5_MAX_DYNAMIXELS];
};

int cm5_open(struct cm5 *c, const char *path, enum nr_link_mode mode);
int cm5_attach_fd(struct cm5 *c, int fd, enum nr_link_mode mode);
void cm5_close(struct cm5 *c);
/* Which model each id is; the write format checks use it. */
int cm5_set_model(struct cm5 *c, uint8_t id, int model);

int cm5_ping(struct cm5 *c, uint8_t id);
int cm5_ping_cm5(struct cm5 *c);
/* Ids from..to that answer a ping; returns how many (<= max) or -errno. */
int cm5_scan(struct cm5 *c, unsigned int from, unsigned int to, uint8_t *ids,
	     int max);
/*
 * A format is known only once the CM-5 answered it with a clean STATUS;
 * until it is set again after a status bit or no answer, reads and writes
 * return -ESTALE. Entries of 0 registers are allowed (nothing from that
 * servo). Returns the status word (status | retries << 8) or -errno.
 */
int cm5_set_read_format(struct cm5 *c, const struct cm5_fmt_entry *e,
			unsigned int n);
int cm5_set_write_format(struct cm5 *c, const struct cm5_fmt_entry *e,
			 unsigned int n);
/*
 * One value per register of the read format, in order. Bytes the firmware
 * could not read from a servo come as 0xFF, with a status bit set: a
 * register all of whose bytes are 0xFF in a read with a status bit is
 * marked in c->missing[k] (cm5_read_missing()), and is not a reading.
 */
int cm5_read_raw(struct cm5 *c, int32_t *values, size_t n);
int cm5_read_natural(struct cm5 *c, double *values, size_t n);
/* One value per register of the write format, in order. */
int cm5_write_raw(struct cm5 *c, const int32_t *values, size_t n);
int cm5_write_natural(struct cm5 *c, const double *values, size_t n);
bool cm5_read_missing(const struct cm5 *c, unsigned int k);
/* For other languages' FFIs (userspace/python): sizeof(struct cm5). */
size_t cm5_size(void);
size_t cm5_reg_struct_size(void);
size_t cm5_fmt_entry_size(void);
void cm5_set_timeout(struct cm5 *c, int timeout_ms);
/* BRBrain's recover(): wait 500 ms, then drop what arrived. */
int cm5_recover(struct cm5 *c);
/* The most recent raw ADC byte of a channel. */
uint8_t cm5_adc(const struct cm5 *c, int channel);

/* Bootloader flashing (57,600 baud, banner, 'l', binary, verify). */
struct cm5_flash_ops {
	void (*progress)(void *ctx, size_t done, size_t total, const char *what);
	void *ctx;
};
/* Bytes flashed, or -errno (-EILSEQ: the read-back did not match). */
ssize_t cm5_flash(const char *path, const uint8_t *image, size_t len,
		  const struct cm5_flash_ops *ops, int step_ms);

#endif /* _CM5_CM5_H */
