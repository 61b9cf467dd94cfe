// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stop always wins (issue 11): it latches whatever its argument, it
 * survives the board's re-enumeration until REARM, and whenever the driver
 * stops talking to a board that may be powered, the last frame the board
 * got sets every stiffness to 0.
 *
 * What the body got is read from the emulator's recording of the frames it
 * received (struct nb_emu_frame: the targets mask and the decoded
 * stiffness), not from the driver. The controller holds every joint at a
 * stiffness of 500 first, so a frame that still carries it is told apart
 * from a limp one; controller_timeout_ms=0 keeps the controller-loss ramp
 * out of the way.
 *
 * Issue 27 added the fault policy's cases (Documentation/naobody.rst,
 * "Faults"): a board we stopped hearing from goes limp, and a stop or a
 * controller loss reaches it; a stall that clears itself costs no limp
 * frame; one that keeps coming does, after the hold.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

#include "kselftest_harness.h"
#include "nb_codec.h"
#include "nbtest.h"

#define TAIL		512
#define STIFF		500
#define MODARGS		"controller_timeout_ms=0"
/*
 * Per test: set-up, a re-enumeration and its start-up (a hang's bound;
 * NBT_HARNESS_MAIN multiplies it by NBVM_TIME_SCALE).
 */
#define TEST_SECONDS	240
/*
 * Cycles a one-cycle stall is armed for, at most, until one stalls: a
 * hang's bound. A loaded emulator takes a cycle's request after the cycle
 * has moved on, and the misbehaviour is spent unseen; 10 tries of
 * stall_status all went so on the debug tier beside a busy host.
 */
#define STALL_TRIES	200

#define MS(ms)		NBT_MS(ms)

static bool limp(const struct nb_emu_frame *f, uint64_t targets)
{
	if (!f->targets || (f->targets & targets) != targets)
		return false;
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		if (f->act.stiffness[j])
			return false;
	return true;
}

static bool stiff(const struct nb_emu_frame *f)
{
	for (int j = 0; f->targets && j < NAOBODY_JOINTS; j++)
		if (f->act.stiffness[j])
			return true;
	return false;
}

/* Every joint of board b has stiffness 0 in frame f. */
static bool board_limp(const struct nb_emu_frame *f, unsigned int b)
{
	const struct nb_board_desc *d = nb_board(b);

	for (int j = 0; j < d->joints; j++)
		if (f->act.stiffness[d->joint[j]])
			return false;
	return true;
}

/* The last (up to) TAIL frames the emulator received, oldest first. */
static int tail(struct nb_emu *emu, struct nb_emu_frame *f)
{
	struct nb_emu_stats st;

	if (nb_emu_stats(emu, &st))
		return -1;
	return nb_emu_frames(emu, st.frames > TAIL ? st.frames - TAIL : 0, f, TAIL);
}

/* Wait until the newest frame is stiff (want) or limp; 0 or -ETIMEDOUT. */
static int wait_newest(struct nb_emu *emu, bool want, uint64_t targets, int timeout_ms)
{
	static struct nb_emu_frame f[TAIL];

	for (int waited = 0; waited < timeout_ms; waited += 20) {
		int n = tail(emu, f);

		if (n > 0 && (want ? stiff(&f[n - 1]) : limp(&f[n - 1], targets)))
			return 0;
		usleep(MS(20000));
	}
	return -ETIMEDOUT;
}

static int command_stiffness(struct nb_device *ctl, uint16_t value)
{
	struct naobody_actuators a = { 0 };

	for (int j = 0; j < NAOBODY_JOINTS; j++)
		a.stiffness[j] = value;
	return nb_command_counts(ctl, &a, NAOBODY_SET_STIFFNESS);
}

/* What every fixture below holds. */
struct ctx {
	struct nbt t;
	struct nb_device *ctl;
	uint64_t targets;		/* the boards the stiff frames went to */
	struct nb_emu_frame f[TAIL];
};

/*
 * The start-up reads 145 preference pieces, one a frame: about 2 s, but
 * far longer on a machine that stalls under load (17 s seen). The bounds
 * are for a hang.
 */
#define READY_MS	60000

static int ctx_up(struct ctx *self)
{
	int err = nbt_up(&self->t, MODARGS, NULL);

	if (err) {
		fprintf(stderr, "# the emulator and the module: %s\n", strerror(-err));
		return -1;
	}
	if (nb_wait_ready(self->t.dev, MS(READY_MS)) != 1) {
		fprintf(stderr, "# the start-up did not end within %d ms\n", MS(READY_MS));
		return -1;
	}
	return nbt_wait_boards(&self->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, MS(READY_MS));
}

static void ctx_down(struct ctx *self)
{
	if (self->ctl)
		nb_close(self->ctl);
	self->ctl = NULL;
	nbt_down(&self->t);
}

FIXTURE(stop) {
	struct ctx c;
};

FIXTURE_SETUP(stop)
{
	ASSERT_EQ(0, ctx_up(&self->c));
}

FIXTURE_TEARDOWN(stop)
{
	ctx_down(&self->c);
}

/* Claim the controller and hold every joint stiff, as the board sees it. */
static int hold_stiff(struct ctx *self)
{
	int n;

	if (!self->ctl)
		self->ctl = nb_open(NULL, NB_OPEN_CONTROL);
	if (!self->ctl || command_stiffness(self->ctl, STIFF))
		return -1;
	if (wait_newest(&self->t.emu, true, 0, MS(3000)))
		return -1;
	n = tail(&self->t.emu, self->f);
	if (n <= 0)
		return -1;
	self->targets = self->f[n - 1].targets;
	return 0;
}

static void close_all(struct ctx *self)
{
	if (self->ctl)
		nb_close(self->ctl);
	self->ctl = NULL;
	if (self->t.dev)
		nb_close(self->t.dev);
	self->t.dev = NULL;
}

static int info_stopped(struct nb_device *d, uint32_t *reason)
{
	if (nb_refresh_info(d))
		return -1;
	*reason = nb_info(d)->stop_reason;
	return !!(nb_info(d)->flags & NAOBODY_INFO_STOPPED);
}

/* The newest frame, once the board has heard nothing for a while. */
static int last_frame_after_silence(struct ctx *self, struct nb_emu_frame *out)
{
	struct nb_emu_stats a, b;
	int n;

	if (nb_emu_stats(&self->t.emu, &a))
		return -1;
	for (int i = 0; i < 100; i++) {
		usleep(MS(100000));
		if (nb_emu_stats(&self->t.emu, &b))
			return -1;
		if (b.frames == a.frames)
			break;
		a = b;
	}
	if (b.frames != a.frames)
		return -1;
	n = tail(&self->t.emu, self->f);
	if (n <= 0)
		return -1;
	*out = self->f[n - 1];
	return 0;
}

/* --- the stop latches whatever its argument ------------------------------ */

TEST_F_TIMEOUT(stop, a_bad_pointer_still_latches, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	uint32_t reason = 7;

	errno = 0;
	EXPECT_EQ(-1, ioctl(nb_fd(c->t.dev), NAOBODY_IOC_STOP, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, info_stopped(c->t.dev, &reason));
	EXPECT_EQ(NAOBODY_STOP_UNSPEC, reason);
}

TEST_F_TIMEOUT(stop, a_reserved_field_set_still_latches, TEST_SECONDS)
{
	struct naobody_stop s = { .reason = NAOBODY_STOP_GUARD, .reserved = 1 };
	struct ctx *c = &self->c;
	uint32_t reason = 7;

	errno = 0;
	EXPECT_EQ(-1, ioctl(nb_fd(c->t.dev), NAOBODY_IOC_STOP, &s));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, info_stopped(c->t.dev, &reason));
	EXPECT_EQ(NAOBODY_STOP_GUARD, reason);
}

TEST_F_TIMEOUT(stop, an_unknown_reason_latches_as_unspecified, TEST_SECONDS)
{
	struct naobody_stop s = { .reason = 1000 };
	struct ctx *c = &self->c;
	uint32_t reason = 7;

	errno = 0;
	EXPECT_EQ(-1, ioctl(nb_fd(c->t.dev), NAOBODY_IOC_STOP, &s));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, info_stopped(c->t.dev, &reason));
	EXPECT_EQ(NAOBODY_STOP_UNSPEC, reason);
}

/* The argument-less stop, from a read-only file: limp from the next frame. */
TEST_F_TIMEOUT(stop, stop_now_takes_no_argument_and_goes_limp, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	struct nb_emu_stats st;
	uint32_t reason = 7;
	uint64_t at;
	int n, fd, stiff_ok;

	ASSERT_EQ(0, hold_stiff(c));
	fd = open("/dev/naobody", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	at = st.frames;
	EXPECT_EQ(0, ioctl(fd, NAOBODY_IOC_STOP_NOW));
	/*
	 * Frames the board got between the two counts may predate the stop
	 * (a slow tier can fit several in), and one more may be on its way:
	 * the exchange is synchronous, so never more than one.
	 */
	ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	stiff_ok = st.frames - at + 1;
	close(fd);
	EXPECT_EQ(1, info_stopped(c->t.dev, &reason));
	EXPECT_EQ(NAOBODY_STOP_UNSPEC, reason);
	/* Commands are dropped meanwhile. */
	EXPECT_EQ(0, command_stiffness(c->ctl, STIFF));
	ASSERT_EQ(0, wait_newest(&c->t.emu, false, c->targets, MS(3000)));
	usleep(MS(200000));
	n = nb_emu_frames(&c->t.emu, at, c->f, TAIL);
	ASSERT_LT(stiff_ok + 1, n);
	for (int i = stiff_ok; i < n; i++) {
		EXPECT_FALSE(stiff(&c->f[i])) {
			TH_LOG("frame %d of %d after the stop is stiff", i, n);
		}
	}
	EXPECT_EQ(0, nb_rearm(c->t.dev));
}

/* --- the last frame before silence is limp ------------------------------ */

TEST_F_TIMEOUT(stop, unbind_leaves_the_body_limp, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	struct nb_emu_frame last;

	ASSERT_EQ(0, hold_stiff(c));
	ASSERT_EQ(0, nbt_sh("echo %s:1.0 > /sys/bus/usb/drivers/naobody/unbind",
			    c->t.emu.host_dev));
	ASSERT_EQ(0, last_frame_after_silence(c, &last));
	EXPECT_TRUE(limp(&last, c->targets));
	TH_LOG("last frame %llu: targets 0x%llx, stiffness[0] %u",
	       (unsigned long long)last.seq, (unsigned long long)last.targets,
	       last.act.stiffness[0]);
	ASSERT_EQ(0, nbt_sh("echo %s:1.0 > /sys/bus/usb/drivers/naobody/bind",
			    c->t.emu.host_dev));
}

TEST_F_TIMEOUT(stop, rmmod_leaves_the_body_limp, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	struct nb_emu_frame last;

	ASSERT_EQ(0, hold_stiff(c));
	/* Closing the controller starts the ramp; rmmod comes before its end. */
	close_all(c);
	ASSERT_EQ(0, nbt_sh("rmmod naobody"));
	c->t.module_loaded = 0;
	ASSERT_EQ(0, last_frame_after_silence(c, &last));
	EXPECT_TRUE(limp(&last, c->targets));
}

/*
 * A reset: pre_reset's last frame is limp; then the board starts over and
 * gets no targets until its boards are shaken hands with again. So the
 * frame before the first one without targets must be limp.
 */
TEST_F_TIMEOUT(stop, a_usb_reset_is_preceded_by_a_limp_frame, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	uint64_t at;
	int fd, n, k;

	ASSERT_EQ(0, hold_stiff(c));
	/*
	 * From the stiff frame hold_stiff() saw on, not the newest TAIL: a
	 * loaded tier can take more than TAIL frames to shake hands with the
	 * boards again, and the reset is then out of the tail.
	 */
	at = nbt_emu_frames(&c->t);
	ASSERT_LT(0u, at);
	at--;
	fd = nbt_open_usbfs(c->t.emu.host_dev);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, USBDEVFS_RESET, 0));
	close(fd);
	ASSERT_EQ(0, nbt_wait_boards(&c->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, MS(20000)));
	n = nb_emu_frames(&c->t.emu, at, c->f, TAIL);
	/* From the stiff frames before the reset to the first without targets. */
	for (k = 0; k < n && !stiff(&c->f[k]); k++)
		;
	ASSERT_LT(k, n);
	for (; k < n && c->f[k].targets; k++)
		;
	ASSERT_LT(k, n);
	for (int i = k > 3 ? k - 3 : 0; i <= k; i++)
		TH_LOG("frame %llu: targets 0x%llx stiffness[0] %u flags 0x%x rx %llu",
		       (unsigned long long)c->f[i].seq, (unsigned long long)c->f[i].targets,
		       c->f[i].act.stiffness[0], c->f[i].flags,
		       (unsigned long long)c->f[i].rx_ns / 1000000);
	EXPECT_TRUE(limp(&c->f[k - 1], c->targets));
	/* And stiff again once its boards are back. */
	EXPECT_EQ(0, wait_newest(&c->t.emu, true, 0, MS(5000)));
}

/*
 * A restart that gives up: after the reset the board stalls its version
 * request (no_version), so the start-up work's 8 tries fail and it gives
 * up. The board then gets one more limp frame (pre_reset's was the one
 * before it), and nothing after it: no cycle, whatever a controller
 * writes; a latched stop stays latched.
 */
FIXTURE(giveup) {
	struct ctx c;
};

FIXTURE_VARIANT(giveup) {
	bool stopped;
};

FIXTURE_VARIANT_ADD(giveup, running) { .stopped = false };
FIXTURE_VARIANT_ADD(giveup, stopped) { .stopped = true };

FIXTURE_SETUP(giveup)
{
	ASSERT_EQ(0, ctx_up(&self->c));
}

FIXTURE_TEARDOWN(giveup)
{
	nb_emu_cmd(&self->c.t.emu, NULL, 0, "misbehave off");
	ctx_down(&self->c);
}

TEST_F_TIMEOUT(giveup, a_restart_that_gives_up_leaves_the_body_limp, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	struct nb_emu_stats st;
	struct nb_emu_frame last;
	uint64_t at, versions;
	uint32_t reason = 0;
	int fd, n;

	ASSERT_EQ(0, hold_stiff(c));
	if (variant->stopped) {
		ASSERT_EQ(0, nb_stop(c->t.dev, NAOBODY_STOP_GUARD));
		ASSERT_EQ(0, wait_newest(&c->t.emu, false, c->targets, MS(3000)));
	}
	ASSERT_EQ(0, nb_emu_misbehave(&c->t.emu, NB_EMU_MISB_NO_VERSION, -1, 0));
	ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	versions = st.version_requests;
	fd = nbt_open_usbfs(c->t.emu.host_dev);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, USBDEVFS_RESET, 0));
	close(fd);
	/*
	 * pre_reset's frame is in; what comes from here on is the restart's
	 * (whose first try may already have been made: it is not a frame).
	 */
	ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	at = st.frames;
	/* The 8 tries, 250 ms apart, each one stalled. */
	for (int i = 0; i < 200 && st.version_requests < versions + 8; i++) {
		usleep(MS(50000));
		ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	}
	ASSERT_LE(versions + 8, st.version_requests);
	for (int i = 0; i < 100 && st.frames == at; i++) {
		usleep(MS(20000));
		ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	}
	ASSERT_EQ(0, last_frame_after_silence(c, &last));
	n = nb_emu_frames(&c->t.emu, at, c->f, TAIL);
	TH_LOG("%d frame(s) after the reset; the last: targets 0x%llx stiffness[0] %u",
	       n, (unsigned long long)last.targets, last.act.stiffness[0]);
	/* The give-up's limp frame, and only it. */
	ASSERT_EQ(1, n);
	EXPECT_TRUE(limp(&c->f[0], c->targets));
	EXPECT_TRUE(limp(&last, c->targets));
	/* Not driving: a controller's stiffness reaches nothing. */
	(void)command_stiffness(c->ctl, STIFF);
	usleep(MS(500000));
	ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	EXPECT_EQ(at + 1, st.frames);
	if (variant->stopped) {
		EXPECT_EQ(1, info_stopped(c->t.dev, &reason));
		EXPECT_EQ(NAOBODY_STOP_GUARD, reason);
	}
}

/* --- faults: the policy (Documentation/naobody.rst, "Faults") ----------- */

/*
 * How many of the boards in targets last heard stiff targets, in the
 * frames the board got before frame number upto.
 */
static int boards_left_stiff(struct ctx *c, uint64_t upto, uint64_t targets)
{
	int n = tail(&c->t.emu, c->f), stiff_boards = 0;

	for (unsigned int b = 0; b < NB_BOARDS; b++) {
		int i;

		if (!(targets & (1ull << b)) || !nb_board(b)->joints)
			continue;
		for (i = n - 1; i >= 0; i--)
			if (c->f[i].seq < upto && (c->f[i].targets & (1ull << b)))
				break;
		if (i < 0 || !board_limp(&c->f[i], b))
			stiff_boards++;
	}
	return stiff_boards;
}

/*
 * A stall that clears itself: the 0x14's or the 0x15's (protocol stalls,
 * which the next setup clears) and a bulk endpoint's once (the driver
 * clears it). The body holds its targets through it: no limp frame, the
 * targets the same before and after, as long as the board's data came
 * back within the hold (hold_cycles misses). On a loaded machine it may
 * not: the emulator, slow to take up its cleared endpoint, misses cycles
 * of its own, and the policy then rightly sends the limp frame. So each
 * stall is judged by the driver's own record of its misses (its records'
 * boards_up, what the hold counts), and one whose misses ran past the
 * hold is tried again, STALL_HOLDS times at most.
 */
FIXTURE(stall) {
	struct ctx c;
};

FIXTURE_SETUP(stall)
{
	ASSERT_EQ(0, ctx_up(&self->c));
}

FIXTURE_TEARDOWN(stall)
{
	ctx_down(&self->c);
}

/* A driver record whose frame carried stiffness 0 to every joint. */
static bool record_limp(const struct naobody_record *rec)
{
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		if (rec->commanded.stiffness[j])
			return false;
	return true;
}

/* Stalls tried until the board's data comes back within the hold. */
#define STALL_HOLDS	3

/* The driver's account of the records since the reader's place. */
struct misses {
	int most;		/* records in a row without the boards' data */
	int records;
	bool limp;		/* one carried stiffness 0 everywhere */
	bool hole;		/* the reader missed records */
};

static struct misses misses_since(struct nb_device *d)
{
	struct naobody_record rec;
	struct misses m = { 0 };
	uint64_t seq = 0;
	int run = 0;

	while (nb_next(d, &rec, 0) == 1) {
		m.limp |= record_limp(&rec);
		m.hole |= m.records && rec.seq != seq + 2;
		seq = rec.seq;
		m.records++;
		run = rec.boards_up ? 0 : run + 1;
		if (run > m.most)
			m.most = run;
	}
	return m;
}

/* What one stall could judge. */
enum stall_judged {
	STALL_HELD,		/* the data came back within the hold: all of it */
	STALL_PAST_HOLD,	/* the misses ran past it: only the policy */
	STALL_UNSEEN,		/* this reader missed records: nothing */
};

/*
 * One stall of misbehaviour m, and the 40 frames after it. The caller
 * tries again unless the board's data came back within the hold (the
 * case to judge); after the hold the policy's limp frame is right.
 */
static enum stall_judged one_stall(struct __test_metadata *_metadata, struct ctx *c,
				   unsigned int m)
{
	long long stalls = nbt_stat("stalls");
	struct nb_emu_stats st;
	struct misses ms;
	uint64_t at, stalled = 0, emu_stalls;
	int n, limp_frames = 0, stiff_frames = 0, hold = nbt_hold_cycles();

	/* A try after the hold ran out: every board back and started first. */
	ASSERT_EQ(0, nbt_wait_boards(&c->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, MS(60000)));
	ASSERT_EQ(0, hold_stiff(c));
	/* The driver's records from here on: misses_since(). */
	nbt_skip_to_newest(c->t.dev);
	ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	emu_stalls = st.stalls;
	/*
	 * The board stalls one cycle. A loaded emulator may take that
	 * cycle's request after the driver gave up on it (a 0x14 after its
	 * 20 ms is a timeout to the driver: one miss): the misbehaviour is
	 * then spent with no stall, and is armed again. Counted in cycles:
	 * the stall is counted within two frames of the one it acted on.
	 * The frames judged start at the try that stalled (at).
	 */
	for (int tries = 0; tries < STALL_TRIES && st.stalls == emu_stalls; tries++) {
		uint64_t spent = st.misbehaviours;

		at = st.frames;
		ASSERT_EQ(0, nb_emu_misbehave(&c->t.emu, m, 1, 0));
		/* It acts on the next frame; 100 frames bound a broken emulator. */
		for (int k = 0; k < 100 && st.misbehaviours == spent; k++) {
			ASSERT_EQ(0, nb_emu_wait_frames(&c->t.emu, st.frames + 1, MS(10000)));
			ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
		}
		ASSERT_LT(spent, st.misbehaviours);
		ASSERT_EQ(0, nb_emu_wait_frames(&c->t.emu, st.frames + 2, MS(10000)));
		ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	}
	ASSERT_LT(emu_stalls, st.stalls) {
		TH_LOG("%s: %d cycles misbehaved, none stalled", nb_emu_misb_name(m), STALL_TRIES);
	}
	ASSERT_EQ(0, nb_emu_wait_frames(&c->t.emu, at + 40, MS(20000)));
	n = nb_emu_frames(&c->t.emu, at, c->f, TAIL);
	for (int i = 0; i < n; i++) {
		if (c->f[i].misbehaviour == m && !stalled)
			stalled = c->f[i].seq;
		limp_frames += limp(&c->f[i], c->targets);
		stiff_frames += stiff(&c->f[i]) && (c->f[i].targets & c->targets) == c->targets;
	}
	ms = misses_since(c->t.dev);
	TH_LOG("%s: %d limp frame(s) of %d; the driver's records: %d, at most %d in a row without the boards' data (the hold: %d)%s; %lld stall(s) counted",
	       nb_emu_misb_name(m), limp_frames, n, ms.records, ms.most, hold,
	       ms.hole ? ", some missed by this reader" : "", nbt_stat("stalls") - stalls);
	EXPECT_LT(0u, stalled);
	/*
	 * A reader that missed records has only part of the driver's
	 * account: the run of misses or the limp frame may be in the part it
	 * missed.
	 */
	if (ms.hole)
		return STALL_UNSEEN;
	/* The policy either way: limp after the hold's misses, and only then. */
	EXPECT_EQ(ms.most >= hold, ms.limp);
	if (ms.most >= hold)
		return STALL_PAST_HOLD;
	EXPECT_EQ(0, limp_frames);
	/* Every frame carried the targets to every board. */
	EXPECT_EQ(n, stiff_frames);
	return STALL_HELD;
}

/* The same board, one stall after the other: one set-up for the four. */
TEST_F_TIMEOUT(stall, a_stall_that_clears_holds_the_targets, TEST_SECONDS)
{
	static const unsigned int stalls[] = {
		NB_EMU_MISB_STALL_IN, NB_EMU_MISB_STALL_OUT, NB_EMU_MISB_STALL_ACK,
		NB_EMU_MISB_STALL_STATUS,
	};

	for (size_t i = 0; i < sizeof(stalls) / sizeof(stalls[0]); i++) {
		int tries = 0, policy = 0;
		enum stall_judged j;

		/* A failed ASSERT ends the test (the harness's longjmp). */
		do {
			j = one_stall(_metadata, &self->c, stalls[i]);
			policy += j == STALL_PAST_HOLD;
		} while (j != STALL_HELD && ++tries < STALL_HOLDS);
		if (j != STALL_HELD)
			TH_LOG("%s: the data never came back within the hold in %d tries: only the policy was checked, %d time(s)",
			       nb_emu_misb_name(stalls[i]), tries, policy);
		else if (tries)
			TH_LOG("%s: tried %d times", nb_emu_misb_name(stalls[i]), tries + 1);
	}
}

/*
 * A link that lost only its answers: the board still takes our frames and
 * acknowledges them (0x14), but its answers fail their CRC, never come
 * (the IN read times out) or its bulk IN stalls every cycle. The body
 * holds its targets through the hold (hold_cycles frames without
 * an answer), then every board goes down and gets stiffness 0 in the very
 * next frame; a stop, or a controller lost, 2 s into it, finds every board
 * limp by the second frame after it. (Before issue 27 the frames then
 * addressed no board at all, and a stop reached nobody.)
 */
enum loss_event { EVENT_STOP, EVENT_CONTROLLER_LOST };

FIXTURE(lost) {
	struct ctx c;
};

FIXTURE_VARIANT(lost) {
	unsigned int fault;
	enum loss_event event;
};

FIXTURE_VARIANT_ADD(lost, bad_crc_then_stop) {
	.fault = NB_EMU_MISB_BAD_CRC, .event = EVENT_STOP,
};
FIXTURE_VARIANT_ADD(lost, bad_crc_then_controller_lost) {
	.fault = NB_EMU_MISB_BAD_CRC, .event = EVENT_CONTROLLER_LOST,
};
FIXTURE_VARIANT_ADD(lost, in_timeout_then_stop) {
	.fault = NB_EMU_MISB_NAK, .event = EVENT_STOP,
};
FIXTURE_VARIANT_ADD(lost, stalls_that_keep_coming_then_stop) {
	.fault = NB_EMU_MISB_STALL_IN, .event = EVENT_STOP,
};

FIXTURE_SETUP(lost)
{
	ASSERT_EQ(0, ctx_up(&self->c));
}

FIXTURE_TEARDOWN(lost)
{
	nb_emu_cmd(&self->c.t.emu, NULL, 0, "misbehave off");
	ctx_down(&self->c);
}

/*
 * In the driver's records from the reader's place on, after the first
 * stiff one: how many came between the last one with its boards' data and
 * the first whose frame carried stiffness 0 everywhere; -1 if no record was
 * limp, -2 if none before the limp one had data. The data, boards_up, is
 * what the hold counts (boards.c); a record flagged NO_ANSWER may have it
 * (a later step of its exchange ran late). Every board's data comes or
 * none does in these faults. (The last answer may come before the fault:
 * chance misses just before it count towards the hold too.)
 */
static int records_held(struct nb_device *d)
{
	struct naobody_record rec;
	bool stiff_seen = false, answered = false;
	int last = -1;

	for (int i = 0; nb_next(d, &rec, 0) == 1; i++) {
		bool limp = record_limp(&rec);

		stiff_seen |= !limp;
		if (!stiff_seen)
			continue;
		if (limp)
			return answered ? i - last - 1 : -2;
		if (rec.boards_up) {
			answered = true;
			last = i;
		}
	}
	return -1;
}

TEST_F_TIMEOUT(lost, every_board_goes_limp_and_the_event_reaches_it, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	uint64_t at, from, first = UINT64_MAX, limp_at = UINT64_MAX, answered;
	int n, stiff_boards, i;

	/* The driver's records from before the body went stiff (records_held()). */
	nbt_skip_to_newest(c->t.dev);
	ASSERT_EQ(0, hold_stiff(c));
	from = nbt_emu_frames(&c->t) - 1;	/* the stiff one hold_stiff() saw */
	/*
	 * The last answer the board saw read: if none in the frames from
	 * here on, it came before them (a loaded machine's chance misses
	 * just before the fault), and so did the driver's last data: before
	 * from is then the bound (the debug tier once found none, and
	 * counted 293 frames from frame 0).
	 */
	answered = from - 1;
	ASSERT_EQ(0, nb_emu_misbehave(&c->t.emu, variant->fault, -1, 0));
	usleep(MS(2000000));
	at = nbt_emu_frames(&c->t);
	if (variant->event == EVENT_STOP) {
		ASSERT_EQ(0, nb_stop(c->t.dev, NAOBODY_STOP_GUARD));
	} else {
		nb_close(c->ctl);
		c->ctl = NULL;
	}
	/* Two more frames: a stop ends a back-off, a lost controller too. */
	ASSERT_EQ(0, nb_emu_wait_frames(&c->t.emu, at + 2, MS(10000)));
	stiff_boards = boards_left_stiff(c, at + 2, c->targets);
	n = nb_emu_frames(&c->t.emu, from, c->f, TAIL);
	/*
	 * The hold: the frames after the last one the driver read a good
	 * answer to (before the fault, or a chance miss just before it) are
	 * stiff up to the first limp one, which comes after exactly the
	 * hold's misses.
	 */
	for (i = 0; i < n && !limp(&c->f[i], c->targets); i++) {
		if (first == UINT64_MAX && c->f[i].misbehaviour == variant->fault)
			first = c->f[i].seq;
		if (!c->f[i].misbehaviour && (c->f[i].flags & NB_EMU_F_ANSWER_READ))
			answered = c->f[i].seq;
		if (first != UINT64_MAX)
			EXPECT_TRUE(stiff(&c->f[i]));
	}
	if (i < n)
		limp_at = c->f[i].seq;
	TH_LOG("%s: %d board(s) left stiff by the second frame after the %s; the last answer read in frame %llu%s, the first fault in %llu, the limp frame %lld",
	       nb_emu_misb_name(variant->fault), stiff_boards,
	       variant->event == EVENT_STOP ? "stop" : "controller's loss",
	       (unsigned long long)answered, answered == from - 1 ? " or before" : "",
	       (unsigned long long)first,
	       limp_at == UINT64_MAX ? -1LL : (long long)limp_at);
	EXPECT_EQ(0, stiff_boards);
	ASSERT_NE(UINT64_MAX, first);
	ASSERT_NE(UINT64_MAX, limp_at);
	/*
	 * Limp after the hold's misses, in the very next frame: counted in
	 * the driver's records, whose misses are the driver's own. (The
	 * emulator's may be fewer: an answer it saw read can still be a miss
	 * to a driver whose exchange ran out of time at a later step.) The
	 * board never gets more stiff frames after the last answer it saw
	 * read than the hold.
	 */
	EXPECT_GE((uint64_t)nbt_hold_cycles(), limp_at - answered - 1);
	EXPECT_EQ(nbt_hold_cycles(), records_held(c->t.dev));
}

/* --- the latch survives re-enumeration ---------------------------------- */

enum reenum { REENUM_REPLUG, REENUM_UNBIND_BIND, REENUM_STORM, REENUM_HARAKIRI };

FIXTURE(latch) {
	struct ctx c;
};

FIXTURE_VARIANT(latch) {
	enum reenum how;
};

FIXTURE_VARIANT_ADD(latch, replug) { .how = REENUM_REPLUG };
FIXTURE_VARIANT_ADD(latch, unbind_bind) { .how = REENUM_UNBIND_BIND };
FIXTURE_VARIANT_ADD(latch, reconnect_storm) { .how = REENUM_STORM };
FIXTURE_VARIANT_ADD(latch, harakiri_reset) { .how = REENUM_HARAKIRI };

FIXTURE_SETUP(latch)
{
	ASSERT_EQ(0, ctx_up(&self->c));
}

FIXTURE_TEARDOWN(latch)
{
	ctx_down(&self->c);
}

static int reenumerate(struct ctx *c, enum reenum how)
{
	struct nb_emu_stats st;
	uint64_t connects;
	int err = 0;

	if (nb_emu_stats(&c->t.emu, &st))
		return -1;
	connects = st.connects;
	switch (how) {
	case REENUM_REPLUG:
		err = nb_emu_disconnect(&c->t.emu) ?: nbt_wait_path("/dev/naobody", false, MS(5000)) ?:
		      nb_emu_connect(&c->t.emu);
		break;
	case REENUM_UNBIND_BIND:
		err = nbt_sh("echo %s:1.0 > /sys/bus/usb/drivers/naobody/unbind",
			     c->t.emu.host_dev) ?:
		      nbt_sh("echo %s:1.0 > /sys/bus/usb/drivers/naobody/bind",
			     c->t.emu.host_dev);
		break;
	case REENUM_STORM:
		err = nb_emu_storm(&c->t.emu, 5, 30, 60);
		for (int i = 0; !err && i < 500 && st.connects < connects + 5; i++) {
			usleep(MS(10000));
			err = nb_emu_stats(&c->t.emu, &st);
		}
		break;
	case REENUM_HARAKIRI:
		/* Provisional: allowed for this test only. */
		err = nbt_sh("echo Y > /sys/module/naobody/parameters/provisional_power_requests");
		if (err)
			break;
		/*
		 * EIO: no 0x14 carried the frame's CRC in time (the debug
		 * tier), though the board may have taken it. What counts here
		 * is that it went and came back: the emulator's connects say.
		 * ENODEV: the board went before the acknowledge was seen.
		 */
		err = nb_harakiri(c->t.dev, NAOBODY_HARAKIRI_RESET);
		if (err == -EIO || err == -ENODEV)
			err = 0;
		for (int i = 0; !err && i < 250 && st.connects == connects; i++) {
			usleep(MS(20000));
			err = nb_emu_stats(&c->t.emu, &st);
		}
		if (!err && st.connects == connects)
			err = -ETIMEDOUT;
		break;
	}
	return err;
}

TEST_F_TIMEOUT(latch, a_stopped_body_stays_stopped_until_rearm, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	uint32_t reason = 0;
	int n, limp_frames = 0;

	ASSERT_EQ(0, hold_stiff(c));
	ASSERT_EQ(0, nb_stop(c->t.dev, NAOBODY_STOP_GUARD));
	ASSERT_EQ(0, wait_newest(&c->t.emu, false, c->targets, MS(3000)));
	/* The old files belong to the old device. */
	ASSERT_EQ(0, reenumerate(c, variant->how));
	close_all(c);
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, MS(10000)));
	c->t.dev = nb_open(NULL, 0);
	ASSERT_NE(NULL, c->t.dev);
	ASSERT_EQ(1, nb_wait_ready(c->t.dev, MS(READY_MS)));
	ASSERT_EQ(0, nbt_wait_boards(&c->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, MS(READY_MS)));
	/* The new device is stopped, for the old reason... */
	EXPECT_EQ(1, info_stopped(c->t.dev, &reason));
	EXPECT_EQ(NAOBODY_STOP_GUARD, reason);
	/* ...and a new controller's stiffness doesn't reach the board. */
	c->ctl = nb_open(NULL, NB_OPEN_CONTROL);
	ASSERT_NE(NULL, c->ctl);
	ASSERT_EQ(0, command_stiffness(c->ctl, STIFF));
	usleep(MS(300000));
	n = tail(&c->t.emu, c->f);
	for (int i = n > 20 ? n - 20 : 0; i < n; i++) {
		EXPECT_FALSE(stiff(&c->f[i]));
		limp_frames += limp(&c->f[i], c->targets);
	}
	EXPECT_LT(0, limp_frames);
	/* REARM ends it: then the same command does reach it. */
	ASSERT_EQ(0, nb_rearm(c->t.dev));
	ASSERT_EQ(0, command_stiffness(c->ctl, STIFF));
	EXPECT_EQ(0, wait_newest(&c->t.emu, true, 0, MS(3000)));
}

/*
 * start_latched: a load holds a body it has not seen yet stopped until
 * REARM, as an e-stop is reset after power-up, not by it; once rearmed, a
 * replug of the same body is not stopped again.
 */
FIXTURE(fresh) {
	struct ctx c;
};

FIXTURE_SETUP(fresh)
{
	memset(&self->c, 0, sizeof(self->c));
}

FIXTURE_TEARDOWN(fresh)
{
	ctx_down(&self->c);
}

TEST_F_TIMEOUT(fresh, start_latched_holds_a_new_body_until_rearm, TEST_SECONDS)
{
	struct ctx *c = &self->c;
	uint32_t reason = 7;
	int n;

	ASSERT_EQ(0, nbt_up(&c->t, MODARGS " start_latched=1", NULL));
	ASSERT_EQ(1, nb_wait_ready(c->t.dev, MS(READY_MS)));
	ASSERT_EQ(0, nbt_wait_boards(&c->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, MS(READY_MS)));
	EXPECT_EQ(1, info_stopped(c->t.dev, &reason));
	EXPECT_EQ(NAOBODY_STOP_UNSPEC, reason);
	c->ctl = nb_open(NULL, NB_OPEN_CONTROL);
	ASSERT_NE(NULL, c->ctl);
	ASSERT_EQ(0, command_stiffness(c->ctl, STIFF));
	usleep(MS(300000));
	n = tail(&c->t.emu, c->f);
	for (int i = n > 20 ? n - 20 : 0; i < n; i++)
		EXPECT_FALSE(stiff(&c->f[i]));
	ASSERT_EQ(0, nb_rearm(c->t.dev));
	ASSERT_EQ(0, command_stiffness(c->ctl, STIFF));
	EXPECT_EQ(0, wait_newest(&c->t.emu, true, 0, MS(3000)));
	/* Seen and rearmed: a replug does not hold it again. */
	close_all(c);
	ASSERT_EQ(0, reenumerate(c, REENUM_REPLUG));
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, MS(10000)));
	c->t.dev = nb_open(NULL, 0);
	ASSERT_NE(NULL, c->t.dev);
	ASSERT_EQ(1, nb_wait_ready(c->t.dev, MS(READY_MS)));
	EXPECT_EQ(0, info_stopped(c->t.dev, &reason));
}

/* --- boards that drop out, and starts the board did not acknowledge ------ */

#define DROP_BOARD	2

static int board_state(struct nbt *t, unsigned int board)
{
	struct naobody_board b[64];
	int n = nb_boards(t->dev, b, 64);

	return n > (int)board ? b[board].state : -1;
}

static int wait_board_state(struct nbt *t, unsigned int board, int state, bool is,
			    int timeout_ms)
{
	for (int waited = 0; waited < timeout_ms; waited += 20) {
		if ((board_state(t, board) == state) == is)
			return 0;
		usleep(MS(20000));
	}
	return -ETIMEDOUT;
}

FIXTURE(dropout) {
	struct ctx c;
};

FIXTURE_VARIANT(dropout) {
	unsigned int version_back;	/* what it says in its handshake when back */
	int state_back;
};

FIXTURE_VARIANT_ADD(dropout, comes_back) {
	.version_back = 10, .state_back = NAOBODY_BOARD_ACCEPTED,
};
FIXTURE_VARIANT_ADD(dropout, comes_back_refused) {
	.version_back = 11, .state_back = NAOBODY_BOARD_REJECTED,
};

FIXTURE_SETUP(dropout)
{
	ASSERT_EQ(0, ctx_up(&self->c));
}

FIXTURE_TEARDOWN(dropout)
{
	ctx_down(&self->c);
}

TEST_F_TIMEOUT(dropout, a_board_is_shaken_hands_with_again_before_its_targets, TEST_SECONDS)
{
	const uint64_t bit = 1ull << DROP_BOARD;
	struct ctx *c = &self->c;
	struct nb_emu_stats st;
	bool asked = false, started = false;
	uint64_t before, from;
	char reply[64];
	int n, i, limp_frames = 0;

	ASSERT_EQ(0, hold_stiff(c));
	ASSERT_NE(0u, c->targets & bit);
	ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	before = st.frames;
	ASSERT_EQ(0, nb_emu_cmd(&c->t.emu, reply, sizeof(reply), "board %d down", DROP_BOARD));
	/* Ten cycles without its data: it is no longer accepted... */
	ASSERT_EQ(0, wait_board_state(&c->t, DROP_BOARD, NAOBODY_BOARD_ACCEPTED, false, MS(3000)));
	ASSERT_EQ(0, nb_emu_stats(&c->t.emu, &st));
	from = st.frames;
	usleep(MS(300000));
	/*
	 * ...and gets stiffness 0 (it may still hear us), then nothing; never
	 * stiff targets again, while the others still get theirs.
	 */
	n = nb_emu_frames(&c->t.emu, before, c->f, TAIL);
	ASSERT_LT(5, n);
	for (i = 0; i < n; i++) {
		if (!(c->f[i].targets & bit))
			continue;
		if (board_limp(&c->f[i], DROP_BOARD))
			limp_frames++;
		else
			EXPECT_EQ(0, limp_frames);	/* stiff only before it went limp */
	}
	EXPECT_LT(0, limp_frames);
	/* Once a 0x14 acknowledged its limp frame, it gets no more. */
	EXPECT_EQ(0u, c->f[n - 1].targets & bit);
	n = nb_emu_frames(&c->t.emu, from, c->f, TAIL);
	for (i = 0; i < n; i++) {
		EXPECT_FALSE((c->f[i].targets & bit) && !board_limp(&c->f[i], DROP_BOARD));
		EXPECT_NE(0u, c->f[i].targets & ~bit);
	}
	ASSERT_EQ(0, nb_emu_board_version(&c->t.emu, DROP_BOARD, variant->version_back));
	ASSERT_EQ(0, nb_emu_cmd(&c->t.emu, reply, sizeof(reply), "board %d up", DROP_BOARD));
	ASSERT_EQ(0, wait_board_state(&c->t, DROP_BOARD, variant->state_back, true, MS(10000)));
	usleep(MS(300000));
	/* Back: asked, started (if accepted), and only then its stiff targets. */
	n = nb_emu_frames(&c->t.emu, from, c->f, TAIL);
	for (i = 0; i < n; i++) {
		asked |= !!(c->f[i].handshake & bit);
		started |= asked && (c->f[i].start & bit);
		if ((c->f[i].targets & bit) && !board_limp(&c->f[i], DROP_BOARD))
			break;
	}
	EXPECT_TRUE(asked);
	if (variant->state_back == NAOBODY_BOARD_ACCEPTED) {
		EXPECT_TRUE(started);
		EXPECT_LT(i, n);
	} else {
		EXPECT_FALSE(started);
		EXPECT_EQ(n, i);
	}
}

/* START is done only when the 0x14 that follows carries its frame's CRC. */
FIXTURE(ack) {
	struct nbt t;
};

FIXTURE_SETUP(ack)
{
	memset(&self->t, 0, sizeof(self->t));
}

FIXTURE_TEARDOWN(ack)
{
	nbt_down(&self->t);
}

TEST_F_TIMEOUT(ack, a_start_the_board_did_not_acknowledge_is_sent_again, TEST_SECONDS)
{
	static struct nb_emu_frame f[TAIL];
	struct naobody_board b[64];
	int n, starts = 0, accepted = 0;
	struct nbt *t = &self->t;

	ASSERT_EQ(0, nbt_up(t, MODARGS, NULL));
	/* Before the handshake (the preferences come first, about 1.8 s). */
	ASSERT_EQ(0, nb_emu_misbehave(&t->emu, NB_EMU_MISB_WRONG_ACK, -1, 0));
	ASSERT_EQ(1, nb_wait_ready(t->dev, MS(30000)));
	usleep(MS(500000));
	n = nb_boards(t->dev, b, 64);
	for (int i = 0; i < n && i < 64; i++)
		accepted += b[i].state == NAOBODY_BOARD_ACCEPTED;
	EXPECT_EQ(0, accepted);
	n = tail(&t->emu, f);
	for (int i = 0; i < n; i++) {
		starts += !!f[i].start;
		EXPECT_EQ(0u, f[i].targets);
	}
	EXPECT_LT(0, starts);
	/* Acknowledged again: the start goes again, and the boards run. */
	ASSERT_EQ(0, nb_emu_misbehave(&t->emu, NB_EMU_MISB_WRONG_ACK, 0, 0));
	EXPECT_EQ(0, nbt_wait_boards(t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, MS(10000)));
}

NBT_HARNESS_MAIN
