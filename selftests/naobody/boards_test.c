// SPDX-License-Identifier: GPL-2.0-only
/*
 * The motor board handshake's version check, the chest board's own
 * requests, and a USB reset, end to end against the emulator.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

#include "kselftest_harness.h"
#include "nb_codec.h"
#include "nbtest.h"

#define MAX_FRAMES	1024

static const char *const version_11[] = { "--board-version", "11", NULL };

/* Count boards in each state. */
static void board_states(struct nbt *t, unsigned int count[4], struct naobody_board *b,
			 int *n)
{
	memset(count, 0, 4 * sizeof(count[0]));
	*n = nb_boards(t->dev, b, 64);
	for (int i = 0; i < *n && i < 64; i++)
		if (b[i].state < 4)
			count[b[i].state]++;
}

FIXTURE(boards) {
	struct nbt t;
};

FIXTURE_VARIANT(boards) {
	const char *modargs;
	const char *const *emu_args;
	unsigned int expect;		/* the state every board must reach */
};

FIXTURE_VARIANT_ADD(boards, version_10_by_default) {
	.modargs = NULL,
	.emu_args = NULL,
	.expect = NAOBODY_BOARD_ACCEPTED,
};

FIXTURE_VARIANT_ADD(boards, version_11_refused_by_default) {
	.modargs = NULL,
	.emu_args = version_11,
	.expect = NAOBODY_BOARD_REJECTED,
};

FIXTURE_VARIANT_ADD(boards, version_11_accepted_with_the_parameter) {
	.modargs = "accepted_versions=10,11",
	.emu_args = version_11,
	.expect = NAOBODY_BOARD_ACCEPTED,
};

FIXTURE_SETUP(boards)
{
	ASSERT_EQ(0, nbt_up(&self->t, variant->modargs, variant->emu_args));
}

FIXTURE_TEARDOWN(boards)
{
	nbt_down(&self->t);
}

TEST_F_TIMEOUT(boards, handshake_outcome, NBT_TIMEOUT)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct naobody_board b[64];
	unsigned int count[4], asked[64] = { 0 };
	struct nb_emu_stats st;
	int n, frames;

	ASSERT_EQ(0, nbt_wait_boards(&self->t, variant->expect, NBT_ALL_BOARDS, NBT_MS(20000)));
	board_states(&self->t, count, b, &n);
	EXPECT_EQ((unsigned int)n, count[variant->expect]);
	for (int i = 0; i < n; i++) {
		/* A board with a serial says so (the foot boards send 0). */
		EXPECT_EQ(variant->emu_args ? 11 : 10, b[i].config_version);
		/* Rejected: asked three times in all; accepted: once. */
		EXPECT_EQ(variant->expect == NAOBODY_BOARD_REJECTED ? 3 : 1, b[i].tries);
	}
	/* sysfs: a directory per board, one value per file, as the ioctl says. */
	for (int i = 0; i < n; i++) {
		static const char *const names[] = { "unknown", "accepted", "rejected", "silent" };
		char attr[64], val[32], want[32];

		snprintf(attr, sizeof(attr), "board%d/state", i);
		EXPECT_STREQ(names[b[i].state & 3], nbt_attr(attr, val, sizeof(val)));
		snprintf(attr, sizeof(attr), "board%d/config_version", i);
		snprintf(want, sizeof(want), "%u", b[i].config_version);
		EXPECT_STREQ(want, nbt_attr(attr, val, sizeof(val)));
		snprintf(attr, sizeof(attr), "board%d/address", i);
		snprintf(want, sizeof(want), "0x%02x", b[i].address);
		EXPECT_STREQ(want, nbt_attr(attr, val, sizeof(val)));
		snprintf(attr, sizeof(attr), "board%d/bus", i);
		snprintf(want, sizeof(want), "%u", b[i].bus);
		EXPECT_STREQ(want, nbt_attr(attr, val, sizeof(val)));
		snprintf(attr, sizeof(attr), "board%d/tries", i);
		snprintf(want, sizeof(want), "%u", b[i].tries);
		EXPECT_STREQ(want, nbt_attr(attr, val, sizeof(val)));
	}
	EXPECT_STREQ("", nbt_attr("boards", (char[8]){ 0 }, 8));

	/* What the board got: handshakes, and start commands only if accepted. */
	ASSERT_EQ(0, nb_emu_stats(&self->t.emu, &st));
	frames = nb_emu_frames(&self->t.emu, 0, f, MAX_FRAMES);
	ASSERT_LT(0, frames);
	for (int i = 0; i < frames; i++)
		for (int j = 0; j < n && j < 64; j++)
			asked[j] += !!(f[i].handshake & (1ull << j));
	for (int j = 0; j < n; j++)
		EXPECT_LE(variant->expect == NAOBODY_BOARD_REJECTED ? 3u : 1u, asked[j]);
	EXPECT_EQ(variant->expect == NAOBODY_BOARD_REJECTED ? 0 : (1ull << n) - 1,
		  st.started_boards);
}

FIXTURE(chest) {
	struct nbt t;
};

FIXTURE_SETUP(chest)
{
	ASSERT_EQ(0, nbt_up(&self->t, NULL, NULL));
	ASSERT_EQ(1, nb_wait_ready(self->t.dev, NBT_MS(20000)));
}

FIXTURE_TEARDOWN(chest)
{
	nbt_down(&self->t);
}

TEST_F_TIMEOUT(chest, id_strings_in_every_slot, NBT_TIMEOUT)
{
	char id[NAOBODY_CHEST_ID_LEN + 1], want[64];

	for (unsigned int slot = 0; slot < NAOBODY_CHEST_ID_SLOTS; slot++) {
		ASSERT_EQ(0, nb_chest_id(self->t.dev, slot, id));
		EXPECT_LT(0u, strlen(id));
		EXPECT_GE(NAOBODY_CHEST_ID_LEN, (int)strlen(id));
	}
	/* The body id is the preference block's. */
	ASSERT_EQ(0, nb_chest_id(self->t.dev, 3, id));
	snprintf(want, sizeof(want), "%s", nb_calibration(self->t.dev)->body_id);
	EXPECT_STREQ(want, id);
}

TEST_F_TIMEOUT(chest, mode_query_and_led_state, NBT_TIMEOUT)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct nb_emu_stats st;
	uint32_t result = 7;
	int n, seen = 0;

	/* The firmware is running: not in the boot loader. */
	ASSERT_EQ(0, nb_chest_mode(self->t.dev, NAOBODY_CHEST_QUERY_BOOTLOADER, &result));
	EXPECT_EQ(0u, result);
	ASSERT_EQ(0, nb_emu_stats(&self->t.emu, &st));
	ASSERT_EQ(0, nb_chest_mode(self->t.dev, NAOBODY_CHEST_LED_MANUAL, NULL));
	/* The request went out in a frame, with its op. */
	n = nb_emu_frames(&self->t.emu, st.frames > 20 ? st.frames - 20 : 0, f, MAX_FRAMES);
	for (int i = 0; i < n; i++)
		if ((f[i].requests & NB_REQ_CHEST_MODE) &&
		    f[i].chest_mode == NAOBODY_CHEST_LED_MANUAL)
			seen++;
	EXPECT_LE(1, seen);
	EXPECT_EQ(0, nbt_sh("chest-mode -b | grep -qx firmware"));
	EXPECT_EQ(0, nbt_sh("chest-version 3 | grep -q ."));
}

/*
 * Chest requests are bounded: any reader may ask, so many readers at once
 * take turns (chest_lock) rather than fill the list the cycle walks with
 * interrupts off. Every request succeeds, with its own answer (the
 * emulator says "in the boot loader" to the query only, 0 to the LED ops,
 * so an answer taken by the wrong request shows); one chest mode request
 * is in flight at a time (the next goes out 9 cycles after one ends, in
 * time: a cycle whose frame the emulator missed counts too); and the
 * cycle keeps its rate meanwhile.
 */
#define CHEST_THREADS	8
#define CHEST_EACH	4
#define CHEST_WAIT	3	/* requests.c: NAOBODY_REQ_WAIT, cycles per send */
#define CHEST_HOLD	9	/* NAOBODY_REQ_WAIT * NAOBODY_REQ_SENDS */
#define CHEST_RETRIES	2

struct chest_asker {
	pthread_t thread;
	unsigned int index;
	int errors;		/* requests that failed */
	int retried;		/* timed out, asked again */
	int wrong;		/* answers not the request's own */
	int last_err;
};

static void *chest_ask(void *arg)
{
	struct chest_asker *a = arg;
	struct nb_device *d = nb_open(NULL, 0);

	if (!d) {
		a->errors = CHEST_EACH;
		a->last_err = -errno;
		return NULL;
	}
	for (unsigned int i = 0; i < CHEST_EACH; i++) {
		bool query = (a->index + i) % 2;
		uint32_t op = query ? NAOBODY_CHEST_QUERY_BOOTLOADER : NAOBODY_CHEST_LED_MANUAL;
		uint32_t result = 7;
		int err = nb_chest_mode(d, op, &result);

		/*
		 * The driver gives up on a request after NAOBODY_REQ_SENDS
		 * sends without an answer; under TCG on a loaded host the
		 * emulator can answer that late. A caller asks again (what
		 * counts is that no answer goes to the wrong request).
		 */
		for (int tries = 0; err == -ETIMEDOUT && tries < CHEST_RETRIES; tries++) {
			a->retried++;
			result = 7;
			err = nb_chest_mode(d, op, &result);
		}
		if (err) {
			a->errors++;
			a->last_err = err;
		} else if (result != (query ? 1u : 0u)) {
			a->wrong++;
		}
	}
	nb_close(d);
	return NULL;
}

static uint64_t emu_frames(struct nbt *t)
{
	struct nb_emu_stats st;

	return nb_emu_stats(&t->emu, &st) ? 0 : st.frames;
}

/* Many readers and a slow cycle: past the 30 s default on the debug tier. */
TEST_F_TIMEOUT(chest, many_readers_take_turns_with_their_own_answers, 120)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct chest_asker a[CHEST_THREADS] = { 0 };
	uint64_t t0, t1, f0, f1, base_ns, base_frames, from;
	int n, sent = 0, last = -1, errors = 0, wrong = 0, retried = 0;
	uint64_t last_rx = 0, period_ns = nb_info(self->t.dev)->period_ns;
	bool last_read = false;
	double base_rate, rate;

	ASSERT_EQ(0, nb_emu_cmd(&self->t.emu, NULL, 0, "bootloader on"));
	/* The rate before, as the board sees it. */
	t0 = nbt_now_ns();
	f0 = emu_frames(&self->t);
	usleep(1000000);
	base_ns = nbt_now_ns() - t0;
	base_frames = emu_frames(&self->t) - f0;
	base_rate = base_frames * 1e9 / base_ns;

	t0 = nbt_now_ns();
	f0 = from = emu_frames(&self->t);
	for (unsigned int i = 0; i < CHEST_THREADS; i++) {
		a[i].index = i;
		ASSERT_EQ(0, pthread_create(&a[i].thread, NULL, chest_ask, &a[i]));
	}
	for (unsigned int i = 0; i < CHEST_THREADS; i++) {
		pthread_join(a[i].thread, NULL);
		errors += a[i].errors;
		retried += a[i].retried;
		wrong += a[i].wrong;
		if (a[i].errors)
			TH_LOG("asker %u: %d failed, the last with %s", i, a[i].errors,
			       strerror(-a[i].last_err));
	}
	t1 = nbt_now_ns();
	f1 = emu_frames(&self->t);
	rate = (f1 - f0) * 1e9 / (t1 - t0);
	TH_LOG("%d requests (%d asked again) in %.1f s; %.1f frames/s (%.1f before); chest_requests_max %lld",
	       CHEST_THREADS * CHEST_EACH, retried, (t1 - t0) / 1e9, rate, base_rate,
	       nbt_stat("chest_requests_max"));
	EXPECT_EQ(0, errors);
	EXPECT_EQ(0, wrong);
	/* One at a time in the list the cycle walks, however many asked. */
	EXPECT_EQ(1, nbt_stat("chest_requests_max"));
	/* The cycle kept its rate (what the board got). */
	EXPECT_LE(0.8 * base_rate, rate);

	/* One chest mode request in flight: each went out, CHEST_HOLD apart. */
	while (from < f1) {
		n = nb_emu_frames(&self->t.emu, from, f, MAX_FRAMES);
		ASSERT_LT(0, n);
		for (int i = 0; i < n; i++) {
			if (!(f[i].requests & NB_REQ_CHEST_MODE))
				continue;
			/*
			 * The rule is in cycles, and every cycle sends one frame.
			 * Either of two things shows the cycles went by: as
			 * many frames in between (the emulator got each), or
			 * the time, one period short for the emulator's own
			 * lateness in stamping the first (a cycle whose frame
			 * the loaded emulator did not take in time counts
			 * too). Each alone can fail on the debug tier's loaded
			 * TCG: frames missed, or a first frame stamped more
			 * than a period late. A request sent two cycles early
			 * or more fails both (the time's slack lets one by). A
			 * resend (its answer was not read) may come CHEST_WAIT
			 * cycles later.
			 */
			if (last >= 0) {
				int cycles = last_read ? CHEST_HOLD : CHEST_WAIT;
				bool by_frames = f[i].seq - (uint64_t)last >= (uint64_t)cycles;
				bool by_time = f[i].rx_ns - last_rx >= (cycles - 1) * period_ns;

				EXPECT_TRUE(by_frames || by_time)
					TH_LOG("chest mode requests in frames %d and %llu, %llu ms apart (%d cycles: %d frames or %llu ms)",
					       last, (unsigned long long)f[i].seq,
					       (unsigned long long)(f[i].rx_ns - last_rx) / 1000000,
					       cycles, cycles,
					       (unsigned long long)((cycles - 1) * period_ns / 1000000));
			}
			last = (int)f[i].seq;
			last_rx = f[i].rx_ns;
			last_read = f[i].flags & NB_EMU_F_ANSWER_READ;
			sent++;
		}
		from += (uint64_t)n;
	}
	EXPECT_LE(CHEST_THREADS * CHEST_EACH, sent);
	ASSERT_EQ(0, nb_emu_cmd(&self->t.emu, NULL, 0, "bootloader off"));
}

/*
 * The requests that change power are provisional: refused by default, and
 * nothing of them reaches the board.
 */
TEST_F_TIMEOUT(chest, power_requests_are_refused_by_default, NBT_TIMEOUT)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct nb_emu_stats st;
	int n;

	ASSERT_EQ(0, nb_emu_stats(&self->t.emu, &st));
	EXPECT_EQ(-EOPNOTSUPP, nb_harakiri(self->t.dev, NAOBODY_HARAKIRI_POWER_OFF));
	EXPECT_EQ(-EOPNOTSUPP, nb_harakiri(self->t.dev, NAOBODY_HARAKIRI_RESET));
	EXPECT_EQ(-EOPNOTSUPP, nb_chest_mode(self->t.dev, NAOBODY_CHEST_CYCLE_MOTOR_POWER, NULL));
	EXPECT_EQ(-EOPNOTSUPP, nb_chest_mode(self->t.dev, NAOBODY_CHEST_CYCLE_HEAD_POWER, NULL));
	/* The read-only request stays. */
	EXPECT_EQ(0, nb_chest_mode(self->t.dev, NAOBODY_CHEST_QUERY_BOOTLOADER, NULL));
	n = nb_emu_frames(&self->t.emu, st.frames, f, MAX_FRAMES);
	for (int i = 0; i < n; i++) {
		EXPECT_EQ(0u, f[i].requests & NB_REQ_HARAKIRI);
		if (f[i].requests & NB_REQ_CHEST_MODE)
			EXPECT_EQ(NAOBODY_CHEST_QUERY_BOOTLOADER, f[i].chest_mode);
	}
	/* The tools say why, and the shutdown hook fails softly. */
	EXPECT_EQ(0, nbt_sh("chest-harakiri 2>&1 | grep -q provisional_power_requests"));
	EXPECT_EQ(0, nbt_sh("/tests/naobody/naobody-harakiri poweroff 2>&1 | grep -q provisional"));
}

/* harakiri -r: the board resets itself; the driver sees it go and come back. */
/* Its waits, scaled, can pass the 30 s default on the debug tier. */
TEST_F_TIMEOUT(chest, harakiri_reset_comes_back, 120)
{
	struct naobody_record rec;
	struct nb_device *d;

	/* Refused while the encoding is provisional, unless the parameter says. */
	ASSERT_EQ(-EOPNOTSUPP, nb_harakiri(self->t.dev, NAOBODY_HARAKIRI_RESET));
	ASSERT_EQ(0, nbt_sh("echo Y > /sys/module/naobody/parameters/provisional_power_requests"));
	ASSERT_EQ(0, nb_harakiri(self->t.dev, NAOBODY_HARAKIRI_RESET));
	/*
	 * It goes (within 3 s), then comes back: bounds that grow on a slower
	 * tier, where the re-enumeration and the probe take several times as
	 * long under TCG.
	 */
	nbt_wait_path("/dev/naobody", false, NBT_MS(3000));
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, NBT_MS(5000)));
	EXPECT_EQ(-ENODEV, nb_rearm(self->t.dev));
	d = nb_open(NULL, 0);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(1, nb_next(d, &rec, NBT_MS(3000)));
	nb_close(d);
}

/*
 * A USB reset from userspace (usbfs): pre_reset quiesces the driver,
 * post_reset starts the board over; the device and its files survive.
 */
/* The reset's limp frame, the restart and the handshake: past the 30 s default on the debug tier. */
TEST_F_TIMEOUT(chest, usb_reset_starts_the_boards_over, 120)
{
	struct naobody_record rec;
	int fd = nbt_open_usbfs(self->t.emu.host_dev);

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, USBDEVFS_RESET, 0));
	close(fd);

	/* The same device: its open file goes on, and the boards come back. */
	nbt_skip_to_newest(self->t.dev);
	EXPECT_EQ(1, nb_next(self->t.dev, &rec, NBT_MS(3000)));
	EXPECT_EQ(0, nbt_wait_boards(&self->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, NBT_MS(20000)));
	EXPECT_EQ(0, nb_refresh_info(self->t.dev));
}

NBT_HARNESS_MAIN
