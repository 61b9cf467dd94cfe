// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller's side, end to end: commands reach the board, the death
 * switch zeroes stiffness in the very next frame and holds until a rearm
 * (which needs CAP_SYS_ADMIN), and losing the controller ramps stiffness
 * down. What the board received is read back from the emulator's record.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "nbtest.h"

#define MAX_FRAMES	512

static void all_joints(struct naobody_actuators *a, int32_t pos, uint16_t stiff)
{
	memset(a, 0, sizeof(*a));
	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		a->position[j] = pos + j;
		a->stiffness[j] = stiff;
	}
}

/* The smallest and largest stiffness a frame sent to the joints. */
static void stiffness_range(const struct nb_emu_frame *f, int *lo, int *hi)
{
	*lo = 1000;
	*hi = 0;
	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		if (f->act.stiffness[j] < *lo)
			*lo = f->act.stiffness[j];
		if (f->act.stiffness[j] > *hi)
			*hi = f->act.stiffness[j];
	}
}

/* Wait for a frame that carries targets with every stiffness == want. */
static int wait_stiffness(struct nb_emu *emu, int want, uint64_t *seq, int timeout_frames)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct nb_emu_stats st;
	uint64_t from;
	int lo, hi;

	if (nb_emu_stats(emu, &st))
		return -EIO;
	from = st.frames;
	for (int tries = 0; tries < timeout_frames; tries += 8) {
		int n;

		nb_emu_wait_frames(emu, from + 8, NBT_MS(2000));
		n = nb_emu_frames(emu, from, f, MAX_FRAMES);
		for (int i = 0; i < n; i++) {
			if (!f[i].targets)
				continue;
			stiffness_range(&f[i], &lo, &hi);
			if (lo == want && hi == want) {
				*seq = f[i].seq;
				return 0;
			}
		}
		if (n > 0)
			from = f[n - 1].seq + 1;
	}
	return -ETIMEDOUT;
}

FIXTURE(control) {
	struct nbt t;
	struct nb_device *ctl;
};

FIXTURE_VARIANT(control) {
	const char *modargs;
};

FIXTURE_VARIANT_ADD(control, defaults) {
	.modargs = NULL,
};

FIXTURE_SETUP(control)
{
	ASSERT_EQ(0, nbt_up(&self->t, variant->modargs, NULL));
	ASSERT_EQ(0, nbt_wait_boards(&self->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, NBT_MS(15000)));
	self->ctl = nb_open(NULL, NB_OPEN_CONTROL);
	ASSERT_NE(NULL, self->ctl);
}

FIXTURE_TEARDOWN(control)
{
	if (self->ctl)
		nb_close(self->ctl);
	nbt_down(&self->t);
}

TEST_F_TIMEOUT(control, commands_reach_the_board, NBT_TIMEOUT)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct naobody_actuators a;
	uint64_t seq;
	int n;

	all_joints(&a, 200, 345);
	a.chest_led[0] = 255;
	a.l_foot_led[1] = 128;
	a.sonar = NAOBODY_SONAR_LEFT | NAOBODY_SONAR_RIGHT;
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	ASSERT_EQ(0, wait_stiffness(&self->t.emu, 345, &seq, 200));
	n = nb_emu_frames(&self->t.emu, seq, f, 1);
	ASSERT_EQ(1, n);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		EXPECT_EQ(200 + j, f[0].act.position[j]);
	EXPECT_EQ(255, f[0].act.chest_led[0]);
	EXPECT_EQ(128, f[0].act.l_foot_led[1]);

	/* Only the groups a command flags change. */
	all_joints(&a, 0, 777);
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_STIFFNESS));
	ASSERT_EQ(0, wait_stiffness(&self->t.emu, 777, &seq, 200));
	ASSERT_EQ(1, nb_emu_frames(&self->t.emu, seq, f, 1));
	EXPECT_EQ(200 + NAOBODY_R_HAND, f[0].act.position[NAOBODY_R_HAND]);
}

TEST_F_TIMEOUT(control, stop_zeroes_stiffness_in_the_next_frame_until_rearm, NBT_TIMEOUT)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct naobody_actuators a;
	struct naobody_record rec;
	uint64_t seq, stop_ns;
	int n, lo, hi, late = 0, status;
	pid_t child;

	all_joints(&a, 0, 1000);
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	ASSERT_EQ(0, wait_stiffness(&self->t.emu, 1000, &seq, 200));

	/* Any file may stop; this one is read-only. */
	ASSERT_EQ(0, nb_stop(self->t.dev, NAOBODY_STOP_TOOL));
	stop_ns = nbt_now_ns();
	/* Commands during the stop are accepted and dropped. */
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	ASSERT_EQ(0, nb_emu_wait_frames(&self->t.emu, seq + 40, NBT_MS(5000)));

	n = nb_emu_frames(&self->t.emu, seq, f, MAX_FRAMES);
	ASSERT_LT(10, n);
	for (int i = 0; i < n; i++) {
		if (f[i].rx_ns <= stop_ns || !f[i].targets)
			continue;
		stiffness_range(&f[i], &lo, &hi);
		/* One frame may have been on its way as the stop came. */
		if (hi && !late++)
			continue;
		EXPECT_EQ(0, hi) {
			TH_LOG("frame %llu after the stop has stiffness up to %d",
			       (unsigned long long)f[i].seq, hi);
		}
	}
	EXPECT_GE(1, late);
	ASSERT_EQ(0, nb_latest(self->t.dev, &rec));
	EXPECT_NE(0u, rec.flags & NAOBODY_REC_STOPPED);
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		EXPECT_EQ(0, rec.commanded.stiffness[j]);
	ASSERT_EQ(0, nb_refresh_info(self->t.dev));
	EXPECT_NE(0u, nb_info(self->t.dev)->flags & NAOBODY_INFO_STOPPED);
	EXPECT_EQ(0, nbt_sh("grep -qx 1 /sys/class/naobody/naobody/stopped"));
	EXPECT_EQ(0, nbt_sh("grep -qx tool /sys/class/naobody/naobody/stop_reason"));

	/* Rearming needs CAP_SYS_ADMIN: as nobody, EPERM. */
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(nb_rearm(self->t.dev) == -EPERM ? 0 : 1);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, nb_refresh_info(self->t.dev));
	EXPECT_NE(0u, nb_info(self->t.dev)->flags & NAOBODY_INFO_STOPPED);

	/* As root: rearmed, and nothing from before applies. */
	ASSERT_EQ(0, nb_rearm(self->t.dev));
	ASSERT_EQ(0, nb_refresh_info(self->t.dev));
	EXPECT_EQ(0u, nb_info(self->t.dev)->flags & NAOBODY_INFO_STOPPED);
	ASSERT_EQ(0, wait_stiffness(&self->t.emu, 0, &seq, 100));
	all_joints(&a, 0, 400);
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	EXPECT_EQ(0, wait_stiffness(&self->t.emu, 400, &seq, 200));
}

TEST_F_TIMEOUT(control, closing_the_controller_ramps_stiffness_down, NBT_TIMEOUT)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct naobody_actuators a;
	uint64_t seq, close_ns;
	int n, lo, hi, prev = 1000, between = 0, zero_at = -1;

	/* Only the close may start this ramp, however slow the machine. */
	ASSERT_EQ(0, nbt_sh("echo 0 > /sys/module/naobody/parameters/controller_timeout_ms"));
	all_joints(&a, 0, 1000);
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	ASSERT_EQ(0, wait_stiffness(&self->t.emu, 1000, &seq, 200));
	/* Before the close: the ramp starts in it, however late it returns. */
	close_ns = nbt_now_ns();
	nb_close(self->ctl);
	self->ctl = NULL;
	/* ramp_ms defaults to 1000: about 83 frames, and some to spare. */
	ASSERT_EQ(0, nb_emu_wait_frames(&self->t.emu, seq + 140, NBT_MS(8000)));
	n = nb_emu_frames(&self->t.emu, seq, f, MAX_FRAMES);
	for (int i = 0; i < n; i++) {
		if (!f[i].targets || f[i].rx_ns < close_ns)
			continue;
		stiffness_range(&f[i], &lo, &hi);
		EXPECT_EQ(lo, hi);
		EXPECT_LE(hi, prev);
		between += hi > 0 && hi < 1000;
		if (!hi && zero_at < 0)
			zero_at = i;
		prev = hi;
	}
	/*
	 * A ramp, not a drop: steps in between (about 83 frames; a starved
	 * cycle sends fewer in the same time), then 0, not before ramp_ms
	 * (the ramp is timed by the kernel's clock), nor long after it:
	 * a freeze of the machine can delay the frame that reaches 0.
	 */
	EXPECT_LE(10, between);
	ASSERT_LE(0, zero_at);
	EXPECT_LT(900 * 1000000ull, f[zero_at].rx_ns - close_ns);
	EXPECT_GT((2000 + NBT_MS(1000)) * 1000000ull, f[zero_at].rx_ns - close_ns);
}

TEST_F_TIMEOUT(control, a_silent_controller_ramps_down_until_it_writes_again, NBT_TIMEOUT)
{
	struct naobody_actuators a;
	struct naobody_record rec;
	uint64_t seq;
	int ramping = 0;

	all_joints(&a, 0, 1000);
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	ASSERT_EQ(0, wait_stiffness(&self->t.emu, 1000, &seq, 200));
	/* Silent past controller_timeout_ms (100): the records say so. */
	nbt_skip_to_newest(self->t.dev);
	for (int i = 0; i < 100 && !ramping; i++) {
		ASSERT_EQ(1, nb_next(self->t.dev, &rec, NBT_MS(2000)));
		/* The ramp's first frame still has it all; wait for it to fall. */
		ramping = (rec.flags & NAOBODY_REC_RAMPING) &&
			  rec.commanded.stiffness[0] < 1000;
	}
	ASSERT_TRUE(ramping);
	/* The controller is back: its targets apply again. */
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	EXPECT_EQ(0, wait_stiffness(&self->t.emu, 1000, &seq, 200));
}

/* A new controller mid-ramp: the old stiffness never comes back. */
TEST_F_TIMEOUT(control, a_new_controller_does_not_undo_the_ramp, NBT_TIMEOUT)
{
	static struct nb_emu_frame f[MAX_FRAMES];
	struct naobody_actuators a;
	struct nb_device *b;
	uint64_t seq, claim_ns;
	int n, lo, hi, prev = 1000;

	all_joints(&a, 0, 1000);
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	ASSERT_EQ(0, wait_stiffness(&self->t.emu, 1000, &seq, 200));
	nb_close(self->ctl);
	self->ctl = NULL;
	usleep(200000);		/* some way into the ramp */
	b = nb_open(NULL, NB_OPEN_CONTROL);
	ASSERT_NE(NULL, b);
	claim_ns = nbt_now_ns();
	/* Positions only: the ramp goes on. */
	all_joints(&a, 50, 0);
	ASSERT_EQ(0, nb_command_counts(b, &a, NAOBODY_SET_POSITION));
	ASSERT_EQ(0, nb_emu_wait_frames(&self->t.emu, seq + 120, NBT_MS(8000)));
	n = nb_emu_frames(&self->t.emu, seq, f, MAX_FRAMES);
	for (int i = 0; i < n; i++) {
		if (!f[i].targets)
			continue;
		stiffness_range(&f[i], &lo, &hi);
		EXPECT_LE(hi, prev) {
			TH_LOG("frame %llu: stiffness rose to %d (claim at +%lld ms)",
			       (unsigned long long)f[i].seq, hi,
			       (long long)(f[i].rx_ns - claim_ns) / 1000000);
		}
		prev = hi;
	}
	EXPECT_EQ(0, prev);
	/* Setting stiffness ends it: the new controller's value applies. */
	all_joints(&a, 50, 300);
	ASSERT_EQ(0, nb_command_counts(b, &a, NAOBODY_SET_STIFFNESS));
	EXPECT_EQ(0, wait_stiffness(&self->t.emu, 300, &seq, 200));
	nb_close(b);
}

/* Silent for good: one ramp and one loss, not one per ramp_ms. */
TEST_F_TIMEOUT(control, a_silent_controller_is_lost_once, NBT_TIMEOUT)
{
	struct naobody_actuators a;
	struct naobody_record rec;
	uint64_t seq, end;
	int ramping = 0, ended = 0, again = 0;

	all_joints(&a, 0, 800);
	ASSERT_EQ(0, nb_command_counts(self->ctl, &a, NAOBODY_SET_ALL));
	ASSERT_EQ(0, wait_stiffness(&self->t.emu, 800, &seq, 200));
	nbt_skip_to_newest(self->t.dev);
	/* 100 ms of silence, a 1 s ramp, then 2 s more: ramping only once. */
	end = nbt_now_ns() + 3500 * 1000000ull;
	while (nbt_now_ns() < end && nb_next(self->t.dev, &rec, NBT_MS(2000)) == 1) {
		int r = !!(rec.flags & NAOBODY_REC_RAMPING);

		if (r && !ramping && ended)
			again++;
		if (!r && ramping)
			ended = 1;
		ramping = r;
	}
	EXPECT_TRUE(ended);
	EXPECT_EQ(0, again);
	EXPECT_EQ(0, rec.commanded.stiffness[0]);
}

TEST_F_TIMEOUT(control, one_controller_at_a_time, NBT_TIMEOUT)
{
	struct nb_device *other;
	int fd;

	errno = 0;
	other = nb_open(NULL, NB_OPEN_CONTROL);
	EXPECT_EQ(NULL, other);
	EXPECT_EQ(EBUSY, errno);
	fd = open("/dev/naobody", O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, NAOBODY_IOC_CLAIM));
	EXPECT_EQ(EBUSY, errno);
	/* Released, the role is free for the next. */
	ASSERT_EQ(0, nb_release(self->ctl));
	EXPECT_EQ(0, ioctl(fd, NAOBODY_IOC_CLAIM));
	EXPECT_EQ(-EBUSY, nb_claim(self->ctl));
	close(fd);
	/* Closing released it too. */
	EXPECT_EQ(0, nb_claim(self->ctl));
}

NBT_HARNESS_MAIN
