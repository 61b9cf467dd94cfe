// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the head bus (see head_bus.h), through i2c-dev.
 *
 * Why i2c-dev for all three parts, not the kernel's drivers: the touch
 * pads' device has no driver (and no public name), so the bus's i2c-dev
 * file is needed anyway; Debian's 6.1 kernel builds no hwmon ina2xx
 * (CONFIG_SENSORS_INA2XX is not set; only the IIO ina2xx-adc, which
 * writes the configuration and calibration registers), and which drivers
 * the robot's kernel has is not known; instantiating a driver takes a
 * write to the adapter's new_device as root, which naobodyd (user nao on
 * HULKs-OS) is not; and HAL reads the same bus from userspace
 * (libio_headi2c.so). naobodyd only reads: it never writes a register,
 * so nothing it does changes what the head's parts do.
 *
 * One thread, one tick every touch_period_ms: the pads each tick, the
 * INA230 and the TMP100 every readings_period_ms. A bus that cannot be
 * opened is tried again every second (the head's USB-I2C bridge comes and
 * goes with its USB device).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "head_bus.h"
#include "head_bus_table.h"
#include "log.h"
#include "naobodyd.h"

#define READER_STACK	(128 * 1024)

/* The snapshot's words: the touch pads, then struct body_head's. */
enum { W_TOUCH, W_FLAGS, W_VOLTAGE, W_CURRENT, W_POWER, W_TEMP, W_COUNT };

enum part { P_TOUCH, P_INA230, P_TMP100, P_COUNT };
static const char *const part_name[P_COUNT] = {
	[P_TOUCH] = "touch pads", [P_INA230] = "INA230", [P_TMP100] = "TMP100",
};

struct head_bus {
	const struct head_bus_table *t;
	char *path;
	pthread_t tid;
	atomic_bool quit;
	/*
	 * The seqlock: odd while the reader thread writes words[]. Every word
	 * is an atomic, so a torn snapshot is a stale one, never undefined.
	 */
	_Atomic uint32_t seq;
	_Atomic uint32_t words[W_COUNT];
	struct body_head last;		/* the body thread's: the last whole snapshot */
	uint32_t last_touch;
	_Atomic uint64_t reads, failed, malformed;
	atomic_bool open;
	/* The reader thread's own. */
	int fd;
	int err[P_COUNT];		/* each part's last error (0: answering), for the log */
	struct body_head now;
	uint32_t touch;
};

static uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void publish(struct head_bus *h)
{
	uint32_t w[W_COUNT] = {
		[W_TOUCH] = h->touch, [W_FLAGS] = h->now.flags,
		[W_VOLTAGE] = f2u(h->now.voltage), [W_CURRENT] = f2u(h->now.current),
		[W_POWER] = f2u(h->now.power), [W_TEMP] = f2u(h->now.face_temperature),
	};
	uint32_t s = atomic_load_explicit(&h->seq, memory_order_relaxed);

	atomic_store_explicit(&h->seq, s + 1, memory_order_relaxed);
	/* The odd count is seen before any new word (pairs with the reader's acquire fence). */
	atomic_thread_fence(memory_order_release);
	for (int i = 0; i < W_COUNT; i++)
		atomic_store_explicit(&h->words[i], w[i], memory_order_relaxed);
	/* Every new word is seen before the even count (pairs with the reader's acquire load). */
	atomic_store_explicit(&h->seq, s + 2, memory_order_release);
}

void head_bus_apply(struct head_bus *h, struct body_frame *f)
{
	uint32_t w[W_COUNT];
	uint32_t s1 = atomic_load_explicit(&h->seq, memory_order_acquire), s2;

	if (!(s1 & 1)) {
		for (int i = 0; i < W_COUNT; i++)
			w[i] = atomic_load_explicit(&h->words[i], memory_order_relaxed);
		/* The words are read before seq is read again (pairs with publish()'s release fence). */
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&h->seq, memory_order_relaxed);
		/* Caught mid-update: the previous snapshot, never a wait. */
		if (s1 == s2) {
			h->last_touch = w[W_TOUCH];
			h->last.flags = w[W_FLAGS];
			h->last.voltage = u2f(w[W_VOLTAGE]);
			h->last.current = u2f(w[W_CURRENT]);
			h->last.power = u2f(w[W_POWER]);
			h->last.face_temperature = u2f(w[W_TEMP]);
		}
	}
	f->head = h->last;
	f->head.flags |= BODY_HEAD_BUS;
	for (int i = 0; i < HEAD_TOUCHES; i++)
		f->s.touch[1 + i] = h->last_touch >> i & 1 ? 1.0f : 0.0f;
}

/* One part's answer or failure, logged when it changes. */
static void part_result(struct head_bus *h, enum part p, int err, uint8_t addr)
{
	atomic_fetch_add_explicit(err ? &h->failed : &h->reads, 1, memory_order_relaxed);
	if (err == h->err[p])
		return;
	if (err)
		log_warn("head bus: %s: the %s (address 0x%02x) do%s not answer: %s%s", h->path,
			 part_name[p], addr, p == P_TOUCH ? "" : "es", strerror(err),
			 err == EBUSY ? " (a kernel driver holds the address)" : "");
	else
		log_info("head bus: %s: the %s (address 0x%02x) answer%s", h->path, part_name[p],
			 addr, p == P_TOUCH ? "" : "s");
	h->err[p] = err;
}

static int smbus_read(struct head_bus *h, uint8_t addr, uint8_t reg, int size, uint16_t *out)
{
	union i2c_smbus_data data;
	struct i2c_smbus_ioctl_data args = {
		.read_write = I2C_SMBUS_READ, .command = reg, .size = (uint32_t)size, .data = &data,
	};

	if (ioctl(h->fd, I2C_SLAVE, (unsigned long)addr) < 0 || ioctl(h->fd, I2C_SMBUS, &args) < 0)
		return errno;
	*out = size == I2C_SMBUS_BYTE_DATA ? data.byte : data.word;
	return 0;
}

static void malformed(struct head_bus *h, enum part p, uint16_t wire)
{
	uint64_t n = atomic_fetch_add_explicit(&h->malformed, 1, memory_order_relaxed);

	/* The first few, then every 1000th: a bus that goes bad must not flood the log. */
	if (n < 4 || n % 1000 == 0)
		log_warn("head bus: %s: the %s sent 0x%04x, which it cannot send: dropped "
			 "(%llu so far)", h->path, part_name[p], wire, (unsigned long long)n + 1);
}

static void read_touch(struct head_bus *h)
{
	const struct head_bus_table *t = h->t;
	float pads[HEAD_TOUCHES];
	uint16_t v = 0;
	int err = smbus_read(h, t->touch_addr, t->touch_reg, I2C_SMBUS_BYTE_DATA, &v);

	part_result(h, P_TOUCH, err, t->touch_addr);
	/* Pads that do not answer read untouched, never stuck at their last value. */
	h->touch = 0;
	h->now.flags &= ~BODY_HEAD_TOUCH;
	if (err)
		return;
	head_touch_decode(t, (uint8_t)v, pads);
	for (int i = 0; i < HEAD_TOUCHES; i++)
		h->touch |= (pads[i] > 0.5f ? 1U : 0U) << i;
	h->now.flags |= BODY_HEAD_TOUCH;
}

static void read_ina230(struct head_bus *h)
{
	const struct head_bus_table *t = h->t;
	uint16_t bus, shunt;
	float volts, shunt_v;
	int err = smbus_read(h, t->ina230_addr, t->ina230_bus_reg, I2C_SMBUS_WORD_DATA, &bus);

	if (!err)
		err = smbus_read(h, t->ina230_addr, t->ina230_shunt_reg, I2C_SMBUS_WORD_DATA,
				 &shunt);
	part_result(h, P_INA230, err, t->ina230_addr);
	if (err)
		return;	/* the last reading stays */
	if (!head_ina230_bus_volts(t, head_bus_wire16(bus), &volts)) {
		malformed(h, P_INA230, head_bus_wire16(bus));
		return;
	}
	head_ina230_shunt_volts(t, head_bus_wire16(shunt), &shunt_v);
	h->now.voltage = volts;
	h->now.current = shunt_v / t->ina230_shunt_ohm;
	h->now.power = volts * h->now.current;
	h->now.flags |= BODY_HEAD_POWER;
}

static void read_tmp100(struct head_bus *h)
{
	const struct head_bus_table *t = h->t;
	uint16_t v;
	float c;
	int err = smbus_read(h, t->tmp100_addr, t->tmp100_temp_reg, I2C_SMBUS_WORD_DATA, &v);

	part_result(h, P_TMP100, err, t->tmp100_addr);
	if (err)
		return;
	if (!head_tmp100_celsius(head_bus_wire16(v), &c)) {
		malformed(h, P_TMP100, head_bus_wire16(v));
		return;
	}
	h->now.face_temperature = c;
	h->now.flags |= BODY_HEAD_TEMP;
}

static void bus_open(struct head_bus *h)
{
	static const int quiet = -1;	/* the open's error already logged */

	h->fd = open(h->path, O_RDWR | O_CLOEXEC);
	if (h->fd < 0) {
		if (h->err[P_TOUCH] != quiet)
			log_warn("head bus: %s: %s: no head touch, power or face temperature; "
				 "trying again every second", h->path, strerror(errno));
		h->err[P_TOUCH] = h->err[P_INA230] = h->err[P_TMP100] = quiet;
		return;
	}
	log_info("head bus: %s open", h->path);
	atomic_store(&h->open, true);
}

static void *reader(void *arg)
{
	struct head_bus *h = arg;
	const struct head_bus_table *t = h->t;
	uint32_t ticks_per_reading = t->readings_period_ms / t->touch_period_ms;
	uint32_t ticks_per_open = 1000 / t->touch_period_ms;
	struct timespec next;
	uint64_t tick = 0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&h->quit)) {
		if (h->fd < 0 && tick % ticks_per_open == 0)
			bus_open(h);
		if (h->fd >= 0) {
			read_touch(h);
			if (tick % ticks_per_reading == 0) {
				read_ina230(h);
				read_tmp100(h);
			}
			/* The adapter is gone (its USB device went): open it again. */
			if (h->err[P_TOUCH] == ENODEV) {
				close(h->fd);
				h->fd = -1;
				atomic_store(&h->open, false);
			}
		}
		publish(h);
		tick++;
		next.tv_nsec += (long)t->touch_period_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		/* Late by more than a tick (a slow bus): from now on, no burst of catch-ups. */
		if (mono_ns() > (uint64_t)next.tv_sec * NSEC_PER_SEC + (uint64_t)next.tv_nsec +
				(uint64_t)t->touch_period_ms * NSEC_PER_MSEC)
			clock_gettime(CLOCK_MONOTONIC, &next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	if (h->fd >= 0)
		close(h->fd);
	return NULL;
}

struct head_bus *head_bus_start(const char *path)
{
	struct head_bus *h = calloc(1, sizeof(*h));
	pthread_attr_t attr;
	int err;

	if (!h || !(h->path = strdup(path))) {
		free(h);
		log_err("head bus: %s: out of memory", path);
		return NULL;
	}
	h->t = &head_bus_table;
	h->fd = -1;
	/* A small stack: with --priority (mlockall) every page of it is locked in. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, READER_STACK);
	err = pthread_create(&h->tid, &attr, reader, h);
	pthread_attr_destroy(&attr);
	if (err) {
		log_err("head bus: cannot start its thread: %s", strerror(err));
		free(h->path);
		free(h);
		return NULL;
	}
	return h;
}

void head_bus_stop(struct head_bus *h)
{
	if (!h)
		return;
	atomic_store(&h->quit, true);
	pthread_join(h->tid, NULL);
	free(h->path);
	free(h);
}

void head_bus_stats(struct head_bus *h, struct head_bus_stats *out)
{
	out->reads = atomic_load_explicit(&h->reads, memory_order_relaxed);
	out->failed = atomic_load_explicit(&h->failed, memory_order_relaxed);
	out->malformed = atomic_load_explicit(&h->malformed, memory_order_relaxed);
	out->open = atomic_load(&h->open);
}

const char *head_bus_path(const struct head_bus *h)
{
	return h->path;
}

static bool id_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

int head_id_read(const char *path, char out[BODY_ID_LEN + 1])
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), run = 0;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	/* A run ends at a character that is not a letter or digit, or at the end. */
	for (ssize_t i = 0; i <= n; i++) {
		if (i < n && id_char(buf[i])) {
			run++;
			continue;
		}
		if (run == BODY_ID_LEN) {
			memcpy(out, buf + i - run, BODY_ID_LEN);
			out[BODY_ID_LEN] = '\0';
			return 0;
		}
		run = 0;
	}
	return -ENODATA;
}

void head_id_choose(const struct config *cfg, const char *fallback, char out[BODY_ID_LEN + 1])
{
	int err;

	if (cfg->head_id) {
		snprintf(out, BODY_ID_LEN + 1, "%s", cfg->head_id);
		return;
	}
	snprintf(out, BODY_ID_LEN + 1, "%s", fallback);
	if (!cfg->head_id_file)
		return;
	err = head_id_read(cfg->head_id_file, out);
	if (err)
		log_warn("head id: %s: %s", cfg->head_id_file,
			 err == -ENODATA ? "no id in it (20 letters and digits)" : strerror(-err));
}
