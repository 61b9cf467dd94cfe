/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the naobody VM tests share: the emulator up, naobody.ko loaded with
 * the test's parameters, /dev/naobody open through libnaobody.
 */
#ifndef NBTEST_H
#define NBTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NBT_ALL_BOARDS	(~0u)

#include <naobody/naobody.h>

#include <emuctl/emuctl.h>

struct nbt {
	struct nb_emu emu;
	struct nb_device *dev;
	int module_loaded;
};

/*
 * How much slower than the stock kernel the VM runs (NBVM_TIME_SCALE: 3 on
 * the debug tier, KASAN, lockdep and kmemleak under TCG); 1 when unset.
 * NBT_MS() scales a bound (a wait's timeout), never a rate a test asserts.
 */
int nbt_time_scale(void);
#define NBT_MS(ms)	((ms) * nbt_time_scale())

/*
 * The driver's hold (hold_cycles: misses of a board's data before it goes
 * limp, 10 by default) for this VM: a slower VM misses more cycles in a row
 * by chance, so it gets 10 * NBVM_TIME_SCALE. nbt_up() passes it unless
 * its modargs name one; nbt_hold_cycles() reads the loaded driver's.
 */
const char *nbt_hold_arg(void);
int nbt_hold_cycles(void);

/* printf-style system(); returns the exit status, or -1. */
int nbt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Start the emulator (extra arguments emu_args, NULL-terminated, may be
 * NULL), load naobody.ko with modargs (may be NULL), wait for /dev/naobody
 * and open it read-only. Returns 0 or a negative errno; nbt_down() undoes
 * whatever was done.
 */
int nbt_up(struct nbt *t, const char *modargs, const char *const *emu_args);
void nbt_down(struct nbt *t);

/* Wait until n boards (all: every board) are in state; 0 or -ETIMEDOUT. */
int nbt_wait_boards(struct nbt *t, unsigned int state, unsigned int n, int timeout_ms);

/* Wait until path exists (present) or not: 0, or -ETIMEDOUT. */
int nbt_wait_path(const char *path, bool present, int timeout_ms);

/* Skip the records published so far: nb_next() then waits for new ones. */
void nbt_skip_to_newest(struct nb_device *d);

/* A counter from /sys/class/naobody/naobody/statistics/, or -1. */
long long nbt_stat(const char *name);

/* The board's usbfs node (for USBDEVFS_RESET), opened O_RDWR; or -1. */
int nbt_open_usbfs(const char *host_dev);
/*
 * /sys/class/naobody/naobody/<attr>'s first line, without its newline, in
 * buf; "" if it can't be read. Returns buf.
 */
char *nbt_attr(const char *attr, char *buf, size_t len);

/* CLOCK_MONOTONIC in ns, as the ring's timestamps. */
uint64_t nbt_now_ns(void);

#endif
