/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the head bus (Documentation/naobodyd.rst, "The head bus"): the
 * head's touch pads, its INA230 power monitor and its TMP100 face
 * temperature, read through i2c-dev (/dev/i2c-head on HULKs-OS) by a
 * thread of their own, off the body loop; and the head's id string.
 *
 * The reader thread runs at normal priority and may block in the bus's
 * transfers (the USB-I2C bridge's 100 ms timeout); it never holds anything
 * the body thread waits for. It publishes each reading through a seqlock
 * the body thread reads wait-free: a snapshot it catches mid-update is not
 * retried, the previous one is kept (head_bus_apply()).
 */
#ifndef NAOBODYD_HEAD_BUS_H
#define NAOBODYD_HEAD_BUS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "body.h"

#define HEAD_BUS_DEFAULT_PATH	"/dev/i2c-head"	/* HULKs-OS's udev name */
/*
 * Where HULKs-OS keeps the head's id (HULKs' docs/operating_system/partitioning.md);
 * what the file holds is not public: head_id_read() takes the first token
 * of 20 letters and digits (provisional).
 */
#define HEAD_ID_DEFAULT_PATH	"/media/internal/DeviceHeadInternalGeode.xml"

struct head_bus;

/* Statistics, for the REST API and the log. */
struct head_bus_stats {
	uint64_t reads;			/* transfers that answered */
	uint64_t failed;		/* transfers that did not (no device, bus error) */
	uint64_t malformed;		/* answers no such device can send: dropped */
	bool open;			/* the bus's file is open */
};

/* The thread on the bus at path; NULL (logged) when it cannot start. */
struct head_bus *head_bus_start(const char *path);
void head_bus_stop(struct head_bus *h);

/*
 * Body thread, each cycle: the newest reading into the frame: touch 1..3
 * (0 while the pads do not answer) and f->head. Wait-free.
 */
void head_bus_apply(struct head_bus *h, struct body_frame *f);

/* Any thread. */
void head_bus_stats(struct head_bus *h, struct head_bus_stats *out);
const char *head_bus_path(const struct head_bus *h);

/*
 * The head's id from path: the first run of exactly BODY_ID_LEN letters
 * and digits in its first 4 KiB. 0, or -errno (-ENODATA: no such token).
 */
int head_id_read(const char *path, char out[BODY_ID_LEN + 1]);

/*
 * Hello's and LoLA's head id, for either body: --head-id, else the head's
 * file (--head-id-file), else fallback ("" on the real body). Logged when
 * the file cannot give one.
 */
struct config;
void head_id_choose(const struct config *cfg, const char *fallback, char out[BODY_ID_LEN + 1]);

#endif
