// SPDX-License-Identifier: GPL-2.0-only
/*
 * System suspend with the board running and its device open.
 *
 * This suite runs in a VM of its own (naobody_suspend_VM_ALONE): virtio-9p
 * has no freeze and restore, so after a suspend the host's root in /host
 * is gone, and the suites that need it would hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "nbtest.h"

FIXTURE(suspend) {
	struct nbt t;
};

FIXTURE_SETUP(suspend)
{
	ASSERT_EQ(0, nbt_up(&self->t, NULL, NULL));
}

FIXTURE_TEARDOWN(suspend)
{
	nbt_down(&self->t);
}

/* Write a sysfs attribute: 0, or -errno. */
static int sysfs_write(const char *path, const char *value)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/*
 * System suspend. pm_test "devices" stops it for PM_TEST_DELAY_S once every
 * device is suspended, then resumes them, so no wake-up source is needed.
 * The cycle must stop across it (the timer quiesced, not ticking into a
 * suspended bus) and pick up after it, with the boards still running. The
 * emulator, a user process, is frozen meanwhile: the cycles just before
 * and after time out, and back off at most NAOBODY_BACKOFF_MAX_TICKS (64).
 */
#define PM_TEST_DELAY_S	3

TEST_F(suspend, stops_and_resumes_the_cycle)
{
	uint64_t gap_ns = 0, gap_ticks = 0, resumed_ns, lost;
	struct naobody_record rec, prev;
	char delay[16];
	int n = 0;

	if (access("/sys/power/pm_test", W_OK))
		SKIP(return, "no /sys/power/pm_test (CONFIG_PM_DEBUG)");
	ASSERT_EQ(1, nb_wait_ready(self->t.dev, 20000));
	ASSERT_EQ(0, nbt_wait_boards(&self->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 15000));
	snprintf(delay, sizeof(delay), "%d", PM_TEST_DELAY_S);
	ASSERT_EQ(0, sysfs_write("/sys/module/suspend/parameters/pm_test_delay", delay));
	ASSERT_EQ(0, sysfs_write("/sys/power/pm_test", "devices"));
	nbt_skip_to_newest(self->t.dev);
	ASSERT_EQ(1, nb_next(self->t.dev, &prev, 3000));
	lost = nb_lost(self->t.dev);

	EXPECT_EQ(0, sysfs_write("/sys/power/state", "freeze"));
	resumed_ns = nbt_now_ns();
	EXPECT_EQ(0, sysfs_write("/sys/power/pm_test", "none"));

	/* Every record from before the suspend to 1 s after it. */
	while (prev.out_submit_ns < resumed_ns + 1000000000ull && n++ < 5000) {
		ASSERT_EQ(1, nb_next(self->t.dev, &rec, 5000));
		if (rec.out_submit_ns - prev.out_submit_ns > gap_ns) {
			gap_ns = rec.out_submit_ns - prev.out_submit_ns;
			gap_ticks = rec.cycle - prev.cycle;
		}
		prev = rec;
	}
	EXPECT_EQ(lost, nb_lost(self->t.dev));
	TH_LOG("longest gap %llu ms, %llu ticks across it",
	       (unsigned long long)(gap_ns / 1000000), (unsigned long long)gap_ticks);
	/* The suspend is the longest gap between two records... */
	EXPECT_LE(PM_TEST_DELAY_S * 1000000000ull, gap_ns);
	/* ...and the timer did not tick through it (12 ms: 250 ticks). */
	EXPECT_GE(64 + 2, gap_ticks);
	/* The boards run again (resumed, or started over if reset-resumed). */
	EXPECT_EQ(0, nbt_wait_boards(&self->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 20000));
	EXPECT_EQ(0, (int)(rec.errors & ~NAOBODY_ERR_TIMEOUT));
}

TEST_HARNESS_MAIN
