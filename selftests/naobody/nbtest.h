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

/*
 * Each test's limit in the harness (TEST_F_TIMEOUT(f, name, NBT_TIMEOUT)):
 * a hang detector, not a speed check. A test here starts the emulator and
 * the module, waits for the start-up and then does its own part: seconds
 * on an idle stock VM, many times that on a loaded debug tier, where the
 * harness's default 30 s is not far off. NBT_HARNESS_MAIN multiplies every
 * test's limit by NBVM_TIME_SCALE.
 */
#define NBT_TIMEOUT	120

/* printf-style system(); returns the exit status, or -1. */
int nbt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Start the emulator (extra arguments emu_args, NULL-terminated, may be
 * NULL), load naobody.ko with modargs (may be NULL), wait for /dev/naobody
 * and open it read-only. Returns 0 or a negative errno; nbt_down() undoes
 * whatever was done.
 */
int nbt_up(struct nbt *t, const char *modargs, const char *const *emu_args);
/* The same, with the emulator's control requests emu_cmds sent before the load. */
int nbt_up_cmds(struct nbt *t, const char *modargs, const char *const *emu_args,
		const char *const *emu_cmds);
void nbt_down(struct nbt *t);

/*
 * How long this process's last nbt_up() and nbt_down() took, in ns (0:
 * none yet): NBT_HARNESS_MAIN prints them with each test's time.
 */
extern uint64_t nbt_up_ns, nbt_down_ns;

/*
 * One device for every test of a program whose tests leave the module as
 * they found it (argument checks; faults the board recovers from): set up
 * once by nbt_shared_up() in the harness's parent, before its tests fork
 * (NBT_HARNESS_MAIN_SHARED), and undone when the parent exits. A test's
 * fixture takes a copy with nbt_shared(), which returns the set-up's
 * error, and never calls nbt_down() on it; its nb_next() reads the
 * records published from then on.
 */
int nbt_shared_up(const char *modargs, const char *const *emu_args);
int nbt_shared(struct nbt *t);

/* A board state's name as sysfs gives it (NAOBODY_BOARD_*): "accepted"... */
const char *nbt_board_state_name(unsigned int state);

/*
 * Wait until n boards (all: every board) are in state; 0 or -ETIMEDOUT,
 * after saying on stderr where each board stands.
 */
int nbt_wait_boards(struct nbt *t, unsigned int state, unsigned int n, int timeout_ms);

/*
 * Wait until the driver has read the preference block: 0, or -ETIMEDOUT.
 * The start-up's read may fail on a slow machine; the retry work reads it
 * again later, up to 32 s apart (the debug tier's took more than 60 s).
 */
int nbt_wait_calibrated(struct nb_device *d, int timeout_ms);

/* Wait until path exists (present) or not: 0, or -ETIMEDOUT. */
int nbt_wait_path(const char *path, bool present, int timeout_ms);

/* Skip the records published so far: nb_next() then waits for new ones. */
void nbt_skip_to_newest(struct nb_device *d);

/* A counter from /sys/class/naobody/naobody/statistics/, or -1. */
long long nbt_stat(const char *name);

/* The frames the emulated board has got so far (0 if it doesn't say). */
uint64_t nbt_emu_frames(struct nbt *t);

/*
 * A failed exchange check's context, in three lines on stderr: the
 * driver's counters, the emulator's, and where this reader stands
 * (last: the record it read last, or NULL) against the newest record.
 */
void nbt_explain_link(struct nbt *t, const struct naobody_record *last);

/* The board's usbfs node (for USBDEVFS_RESET), opened O_RDWR; or -1. */
int nbt_open_usbfs(const char *host_dev);
/*
 * /sys/class/naobody/naobody/<attr>'s first line, without its newline, in
 * buf; "" if it can't be read. Returns buf.
 */
char *nbt_attr(const char *attr, char *buf, size_t len);

/* CLOCK_MONOTONIC in ns, as the ring's timestamps. */
uint64_t nbt_now_ns(void);

#ifdef __KSELFTEST_HARNESS_H
#include <stdio.h>

/*
 * NBT_HARNESS_MAIN, in place of TEST_HARNESS_MAIN: every test's limit
 * times NBVM_TIME_SCALE, and every test prints its time, and what its
 * nbt_up() and nbt_down() took of it, as a "#" line (to see where the
 * suite's time goes, and a test's drift towards its limit).
 * NBT_HARNESS_MAIN_SHARED(modargs, emu_args) also sets up the device
 * nbt_shared() hands out, before the first test.
 */
struct nbt_timed_test {
	struct __test_metadata *t;
	void (*fn)(struct __test_metadata *t, struct __fixture_variant_metadata *v);
};
static struct nbt_timed_test nbt_timed_tests[256] __attribute__((unused));

static inline void nbt_timed(struct __test_metadata *t, struct __fixture_variant_metadata *v)
{
	uint64_t t0 = nbt_now_ns();

	for (unsigned int i = 0; i < sizeof(nbt_timed_tests) / sizeof(nbt_timed_tests[0]); i++) {
		if (nbt_timed_tests[i].t != t)
			continue;
		nbt_timed_tests[i].fn(t, v);
		/* Not reached after a failed ASSERT: the harness aborts. */
		fprintf(TH_LOG_STREAM, "# %s%s%s.%s: %.2f s, of which nbt_up %.2f s, nbt_down %.2f s\n",
			t->fixture->name, v->name[0] ? "." : "", v->name, t->name,
			(nbt_now_ns() - t0) / 1e9, nbt_up_ns / 1e9, nbt_down_ns / 1e9);
		return;
	}
}

static inline int nbt_harness_run(int argc, char **argv)
{
	unsigned int n = 0;

	for (struct __fixture_metadata *f = __fixture_list; f; f = f->next) {
		for (struct __test_metadata *t = f->tests; t; t = t->next) {
			t->timeout *= nbt_time_scale();
			if (n < sizeof(nbt_timed_tests) / sizeof(nbt_timed_tests[0])) {
				nbt_timed_tests[n].t = t;
				nbt_timed_tests[n++].fn = t->fn;
				t->fn = nbt_timed;
			}
		}
	}
	return test_harness_run(argc, argv);
}

/* As TEST_HARNESS_MAIN's: the tests run in the order they are written. */
#define NBT_HARNESS_CONSTRUCTOR_ORDER \
	static void __attribute__((constructor)) __constructor_order_last(void) \
	{ \
		if (!__constructor_order) \
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	}

#define NBT_HARNESS_MAIN \
	NBT_HARNESS_CONSTRUCTOR_ORDER \
	int main(int argc, char **argv) \
	{ \
		return nbt_harness_run(argc, argv); \
	}

#define NBT_HARNESS_MAIN_SHARED(modargs, emu_args) \
	NBT_HARNESS_CONSTRUCTOR_ORDER \
	int main(int argc, char **argv) \
	{ \
		nbt_shared_up(modargs, emu_args); \
		return nbt_harness_run(argc, argv); \
	}
#endif

#endif
