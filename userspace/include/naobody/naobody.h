/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnaobody: the NAO6 body through /dev/naobody, in C.
 *
 *	struct nb_device *d = nb_open(NULL, 0);
 *	struct naobody_record rec;
 *	struct nb_sensors s;
 *
 *	while (nb_next(d, &rec, -1) > 0) {
 *		nb_record_sensors(d, &rec, &s);
 *		printf("%.2f m/s^2\n", s.accelerometer[2]);
 *	}
 *
 * The library maps the kernel's state ring read-only and follows it with
 * the lock-free protocol in <linux/naobody.h>; it never blocks the driver,
 * and never read()s a record to learn there is a newer one: the device
 * sits in an edge-triggered epoll set of the library's own, which each
 * record the driver publishes wakes once (nb_wait_fd()).
 * Units and calibration come from <naobody/units.h> and the preference
 * block. Functions return 0 (or a count) on success and a negative errno on
 * failure; nb_open() returns NULL and sets errno. Nothing here prints.
 */
#ifndef NAOBODY_NAOBODY_H
#define NAOBODY_NAOBODY_H

#include <stddef.h>
#include <stdint.h>

#include <linux/naobody.h>

#include <naobody/body.h>
#include <naobody/prefs.h>
#include <naobody/units.h>

#define NB_DEFAULT_DEVICE	"/dev/naobody"

/* nb_open() flags */
#define NB_OPEN_CONTROL		(1U << 0)	/* claim the controller role now */

struct nb_device;

/*
 * nb_open() - open path (NULL: NB_DEFAULT_DEVICE) and map its ring. The
 * calibration comes from the preference block once the driver has read it
 * (the defaults until then, or when it is unreadable: see
 * nb_calibration_state()). With NB_OPEN_CONTROL the file is opened O_RDWR
 * and claims the controller role with NAOBODY_IOC_CLAIM (errno EBUSY if
 * someone else holds it); otherwise read-only. Followers start at the
 * newest record.
 */
struct nb_device *nb_open(const char *path, unsigned int flags);
void nb_close(struct nb_device *d);

/* The device's file descriptor, for the ioctls this library has no call for. */
int nb_fd(const struct nb_device *d);

/*
 * nb_wait_fd() - a file descriptor for poll() or epoll (level-triggered
 * is fine), readable while a record may wait: from the driver's wake-up
 * for a new record until nb_next() or nb_newest() has found none newer.
 * An event loop that takes every record calls nb_next(d, &rec, 0) until it
 * returns 0 each time it is readable; one that wants the present only
 * calls nb_newest() once.
 */
int nb_wait_fd(const struct nb_device *d);
const struct naobody_info *nb_info(const struct nb_device *d);
const struct nb_calibration *nb_calibration(struct nb_device *d);

/*
 * nb_calibration_state() - whether nb_calibration() is the body's own:
 * NAOBODY_CALIB_READ when it is; NAOBODY_CALIB_PENDING or _RETRYING while
 * the driver is still reading the preference block (the defaults apply
 * until then, and the block is taken as soon as the driver has it: the
 * state is asked again at most once a second); NAOBODY_CALIB_FAILED for a
 * block that is unusable for good. Never stiffen a body that isn't
 * NAOBODY_CALIB_READ: its joints' zero positions are unknown.
 */
enum naobody_calibration nb_calibration_state(struct nb_device *d);

/*
 * nb_next() - the next record after the last one returned, in order,
 * waiting up to timeout_ms (-1: forever, 0: not at all). Returns 1 with a
 * record, 0 on timeout, -ENODEV once the device is gone and every record
 * has been read. Records overwritten before they were read are skipped and
 * counted in nb_lost().
 */
int nb_next(struct nb_device *d, struct naobody_record *rec, int timeout_ms);
uint64_t nb_lost(const struct nb_device *d);

/*
 * nb_newest() - the newest record after the last one returned, without
 * waiting; the records between are skipped (not lost: passed over, and
 * not counted in nb_lost()), and nb_next() goes on after it. Returns 1 with
 * a record, 0 when there is none newer (nb_wait_fd() then reads as idle
 * until the next one), -ENODEV once the device is gone.
 */
int nb_newest(struct nb_device *d, struct naobody_record *rec);

/* nb_latest() - the newest complete record, without waiting (-EAGAIN: none). */
int nb_latest(struct nb_device *d, struct naobody_record *rec);

/* The record's sensors in LoLA's units, with the device's calibration. */
void nb_record_sensors(struct nb_device *d, const struct naobody_record *rec,
		       struct nb_sensors *out);

/* The controller role: claim, release (the body then ramps down). */
int nb_claim(struct nb_device *d);
int nb_release(struct nb_device *d);

/*
 * nb_command() - send targets in LoLA's units; set says which groups apply
 * (NAOBODY_SET_*), the others keep their last values. nb_command_counts()
 * takes the kernel's counts instead.
 */
int nb_command(struct nb_device *d, const struct nb_actuators *a, uint32_t set);
int nb_command_counts(struct nb_device *d, const struct naobody_actuators *a,
		      uint32_t set);

/* The death switch: stop from anyone; rearm needs CAP_SYS_ADMIN. */
int nb_stop(struct nb_device *d, uint32_t reason);
int nb_rearm(struct nb_device *d);

/* Fresh driver state (stopped, controller, ready...): updates nb_info(). */
int nb_refresh_info(struct nb_device *d);

/*
 * nb_wait_ready() - wait up to timeout_ms for the driver's start-up (the
 * preference block, the id strings, the handshake) to end: 1 when it has,
 * 0 on timeout, a negative errno if the device fails (-ENODEV: unplugged).
 * The body works before; its calibration and ids don't.
 */
int nb_wait_ready(struct nb_device *d, int timeout_ms);

/* The boards: fills up to max entries, returns how many boards there are. */
int nb_boards(struct nb_device *d, struct naobody_board *out, unsigned int max);

/* The chest board's id string in slot 0..3, NUL-terminated. */
int nb_chest_id(struct nb_device *d, unsigned int slot,
		char out[NAOBODY_CHEST_ID_LEN + 1]);

int nb_chest_mode(struct nb_device *d, uint32_t op, uint32_t *result);
int nb_harakiri(struct nb_device *d, uint32_t op);

/*
 * nb_prefs() - the raw preference block into buf (len at least
 * NAOBODY_PREFS_SIZE); flags gets NAOBODY_PREFS_VALID when its CRC held.
 * Returns its size.
 */
int nb_prefs(struct nb_device *d, void *buf, size_t len, uint32_t *flags);

/* LoLA's name of a touch sensor ("ChestBoard/Button"); "?" out of range. */
const char *nb_touch_name(unsigned int touch);

#endif
