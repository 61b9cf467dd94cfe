/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the body backend. The daemon sees the body only through this
 * interface, in LoLA's units and orders (naobody/body.h):
 *
 *   - fd() becomes readable when a new body state is there: the body's cycle
 *     drives the daemon's cycle;
 *   - read() returns the newest state;
 *   - write() sets the actuators from the next cycle on;
 *   - stop() latches the death switch (only a rearm, outside the daemon,
 *     releases it). The one operation either thread may call: the network
 *     thread calls it for a robot API Stop, without waiting for the cycle;
 *   - boards() lists the boards behind the chest board (the real body only).
 *
 * A body moves joints and reads sensors, nothing more: walking, and the
 * odometry that follows the steps, are the motion layer's (libnbmotion,
 * <motion/motion.h>), the same on every body.
 *
 * Backends: the simulated body (body_sim.c) and the real one through
 * /dev/naobody and libnaobody (body_real.c).
 */
#ifndef NAOBODYD_BODY_H
#define NAOBODYD_BODY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <naobody/body.h>

#define BODY_ID_LEN	20	/* LoLA's id strings are 20 characters */

/* body_frame.flags */
#define BODY_F_STOPPED		(1U << 0)	/* death switch latched */
#define BODY_F_NO_ANSWER	(1U << 1)	/* no fresh sensor data this cycle */
/*
 * The sensors and targets convert with a calibration that isn't the body's
 * own (its preference block is not read yet, or unusable): the joints' zero
 * positions are unknown, so the daemon must not stiffen them.
 */
#define BODY_F_UNCALIBRATED	(1U << 3)

/* The head bus's readings (head_bus.h), 0 until read. */
#define BODY_HEAD_BUS		(1U << 0)	/* a head bus is read */
#define BODY_HEAD_TOUCH		(1U << 1)	/* its pads answered the last read */
#define BODY_HEAD_POWER		(1U << 2)	/* the INA230 has answered */
#define BODY_HEAD_TEMP		(1U << 3)	/* the TMP100 has answered */

struct body_head {
	uint32_t flags;			/* BODY_HEAD_* */
	float voltage;			/* V */
	float current;			/* A */
	float power;			/* W */
	float face_temperature;		/* degC */
};

struct body_frame {
	uint64_t cycle;
	uint64_t time_ns;		/* CLOCK_MONOTONIC: the state was taken */
	uint32_t flags;			/* BODY_F_* */
	struct nb_sensors s;
	struct body_head head;
};

struct body_info {
	char body_id[BODY_ID_LEN + 1];
	char head_id[BODY_ID_LEN + 1];
	char body_version[8];
	char head_version[8];
	bool simulated;
	bool can_walk;			/* the walking engine may move its legs */
	bool can_stand_up;		/* the get-up motions are safe on it */
	bool can_protect;		/* the protective fall's poses are safe on it */
	/*
	 * It shows the eyes, ears and skull LEDs (LEye, REye, LEar, REar,
	 * Skull). False on the real body: where they are on the head bus is
	 * not known, so they are accepted and not driven.
	 */
	bool head_leds;
	uint32_t period_ns;
	/* The driver's, from NAOBODY_IOC_GET_INFO; has_driver false: none (simulated). */
	bool has_driver;
	char driver_version[32];
	uint32_t abi_version;		/* the driver's NAOBODY_ABI_VERSION */
	uint32_t chest_version;		/* the chest board's vendor request 0x02, big endian */
};

struct body;

struct body_ops {
	const char *name;
	int (*fd)(struct body *b);
	/* 1 and a frame when one is new, 0 when none, -errno when the body is gone. */
	int (*read)(struct body *b, struct body_frame *f);
	int (*write)(struct body *b, const struct nb_actuators *a);
	int (*stop)(struct body *b, uint32_t reason);	/* enum naobody_stop_reason */
	/*
	 * The boards behind the chest board (NAOBODY_IOC_GET_BOARDS): their
	 * count, or -errno; at most max written. Safe from any thread (one
	 * ioctl, no state of the body's). Optional: NULL when the body has none.
	 */
	int (*boards)(struct body *b, struct naobody_board *out, unsigned int max);
	/*
	 * The chest board's raw preference block (NAOBODY_IOC_GET_PREFS, as
	 * nb_prefs()): its size or -errno, NAOBODY_PREFS_* in *flags. Safe
	 * from any thread, like boards(). Optional.
	 */
	int (*prefs)(struct body *b, void *buf, size_t len, uint32_t *flags);
	/*
	 * The driver's sysfs statistics directory (/sys/class/naobody/<dev>/
	 * statistics), NULL if unknown. Optional.
	 */
	const char *(*statistics_dir)(struct body *b);
	void (*destroy)(struct body *b);
};

struct body {
	const struct body_ops *ops;
	struct body_info info;
};

struct config;
struct loop;

struct body *body_sim_create(const struct config *cfg, struct loop *loop);
struct body *body_real_create(const struct config *cfg);

#endif
