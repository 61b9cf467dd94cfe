// SPDX-License-Identifier: GPL-2.0-only
/*
 * make bench, in the VM: how long the body keeps its last targets, state by
 * state (Documentation/naobody.rst, "How long the body can keep its last
 * targets"). For each state the controller first holds every joint at a
 * stiffness of 500; then the event; then, from the emulator's recording of
 * the frames it received, the frames (cycles) from the event to the first
 * frame that carries targets with every stiffness 0, and the milliseconds.
 *
 *   running STOP   NAOBODY_IOC_STOP_NOW             goal: <= 1 cycle
 *   answers bad    answers that fail their CRC      from the first faulty
 *   answers late   IN reads that time out (nak)     frame: the hold, 10
 *   stalls go on   bulk IN stalls every cycle       misses, then limp
 *   bad + STOP     STOP 3 frames into bad answers   from the STOP: goal 1
 *   late + STOP    STOP 3 frames into late answers  from the STOP: goal 1
 *   one stall      bulk IN stalls once              limp frames in the 40
 *                                                   after it: goal 0
 *   resetting      USBDEVFS_RESET (pre_reset)       frames after the ioctl
 *   unbinding      sysfs unbind (disconnect)        frames after the write
 *   re-enumerated  stop, replug: stiff frames the new device sent (goal 0)
 *   suspending     not here: suspend needs a VM of its own (9p has no
 *                  freeze); suspend_test checks the limp frame
 *
 * Figures go out as TAP diagnostics ("# ..."); it never fails on a figure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

#include "nbtest.h"

#define TAIL	1024
#define REPS	5

static struct nb_emu_frame f[TAIL];

static bool stiff(const struct nb_emu_frame *x)
{
	for (int j = 0; x->targets && j < NAOBODY_JOINTS; j++)
		if (x->act.stiffness[j])
			return true;
	return false;
}

static bool limp(const struct nb_emu_frame *x)
{
	return x->targets && !stiff(x);
}

static int hold_stiff(struct nbt *t, struct nb_device **ctl)
{
	struct naobody_actuators a = { 0 };

	if (!*ctl)
		*ctl = nb_open(NULL, NB_OPEN_CONTROL);
	if (!*ctl)
		return -1;
	for (int j = 0; j < NAOBODY_JOINTS; j++)
		a.stiffness[j] = 500;
	if (nb_command_counts(*ctl, &a, NAOBODY_SET_STIFFNESS))
		return -1;
	for (int i = 0; i < 300; i++) {
		uint64_t n = nbt_emu_frames(t);

		if (n && nb_emu_frames(&t->emu, n - 1, f, 1) == 1 && stiff(&f[0]))
			return 0;
		usleep(10000);
	}
	return -1;
}

/* Frames from seq from on until the first limp one: its distance, or -1. */
static int first_limp(struct nbt *t, uint64_t from, uint64_t from_ns, double *ms)
{
	int n = nb_emu_frames(&t->emu, from, f, TAIL);

	for (int i = 0; i < n; i++) {
		if (limp(&f[i])) {
			*ms = f[i].rx_ns > from_ns ? (f[i].rx_ns - from_ns) / 1e6 : 0;
			return (int)(f[i].seq - from);
		}
	}
	return -1;
}

enum state { S_STOP, S_BAD, S_LATE, S_STALLS, S_BAD_STOP, S_LATE_STOP, S_RESET, S_UNBIND,
	     __S_MAX };

static const char *const names[] = {
	[S_STOP] = "running STOP", [S_BAD] = "answers bad", [S_LATE] = "answers late",
	[S_STALLS] = "stalls go on", [S_BAD_STOP] = "bad + STOP", [S_LATE_STOP] = "late + STOP",
	[S_RESET] = "resetting", [S_UNBIND] = "unbinding",
};

/* The link faults' misbehaviour (Documentation/naobody.rst, "Faults"). */
static const unsigned int fault_of[] = {
	[S_BAD] = NB_EMU_MISB_BAD_CRC, [S_LATE] = NB_EMU_MISB_NAK,
	[S_STALLS] = NB_EMU_MISB_STALL_IN, [S_BAD_STOP] = NB_EMU_MISB_BAD_CRC,
	[S_LATE_STOP] = NB_EMU_MISB_NAK,
};

/* The first frame from at on that misbehaved with m (waits for it); 0 if none. */
static uint64_t first_faulty(struct nbt *t, uint64_t at, unsigned int m, uint64_t *rx_ns)
{
	for (int w = 0; w < 500; w++) {
		int n = nb_emu_frames(&t->emu, at, f, TAIL);

		for (int i = 0; i < n; i++)
			if (f[i].misbehaviour == m) {
				*rx_ns = f[i].rx_ns;
				return f[i].seq;
			}
		usleep(10000);
	}
	return 0;
}

/* One event; returns the frame count at the event, or 0 if it failed. */
static uint64_t event(struct nbt *t, enum state s, uint64_t *at_ns)
{
	uint64_t at = nbt_emu_frames(t);
	int fd;

	*at_ns = nbt_now_ns();
	switch (s) {
	case S_STOP:
		if (ioctl(nb_fd(t->dev), NAOBODY_IOC_STOP_NOW))
			return 0;
		break;
	case S_BAD:
	case S_LATE:
	case S_STALLS:
		/* From the first faulty frame on: the hold, then limp. */
		if (nb_emu_misbehave(&t->emu, fault_of[s], -1, 0))
			return 0;
		at = first_faulty(t, at, fault_of[s], at_ns);
		usleep(3000000);
		return at;
	case S_BAD_STOP:
	case S_LATE_STOP:
		/* A stop 3 frames into the fault: limp from the next frame. */
		if (nb_emu_misbehave(&t->emu, fault_of[s], -1, 0))
			return 0;
		at = first_faulty(t, at, fault_of[s], at_ns);
		if (!at || nb_emu_wait_frames(&t->emu, at + 3, 5000))
			return 0;
		at = nbt_emu_frames(t);
		*at_ns = nbt_now_ns();
		if (ioctl(nb_fd(t->dev), NAOBODY_IOC_STOP_NOW))
			return 0;
		break;
	case S_RESET:
		fd = nbt_open_usbfs(t->emu.host_dev);
		if (fd < 0 || ioctl(fd, USBDEVFS_RESET, 0))
			return 0;
		close(fd);
		break;
	case S_UNBIND:
		if (nbt_sh("echo %s:1.0 > /sys/bus/usb/drivers/naobody/unbind", t->emu.host_dev))
			return 0;
		break;
	default:
		return 0;
	}
	usleep(500000);
	return at ? at : 1;
}

/* Back to a stiff, running body after the event. */
static int restore(struct nbt *t, enum state s, struct nb_device **ctl)
{
	switch (s) {
	case S_BAD_STOP:
	case S_LATE_STOP:
		nb_emu_cmd(&t->emu, NULL, 0, "misbehave off");
		/* fall through */
	case S_STOP:
		if (nb_rearm(t->dev))
			return -1;
		break;
	case S_BAD:
	case S_LATE:
	case S_STALLS:
		nb_emu_cmd(&t->emu, NULL, 0, "misbehave off");
		break;
	case S_UNBIND:
		nb_close(*ctl);
		*ctl = NULL;
		nb_close(t->dev);
		t->dev = NULL;
		if (nbt_sh("echo %s:1.0 > /sys/bus/usb/drivers/naobody/bind", t->emu.host_dev) ||
		    nbt_wait_path("/dev/naobody", true, 10000))
			return -1;
		t->dev = nb_open(NULL, 0);
		if (!t->dev || nb_wait_ready(t->dev, 20000) != 1)
			return -1;
		break;
	default:
		break;
	}
	return nbt_wait_boards(t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 20000) ?:
	       hold_stiff(t, ctl);
}

static void measure(struct nbt *t, enum state s, struct nb_device **ctl)
{
	int worst = -1, missed = 0;
	double ms, worst_ms = 0;
	char line[128] = "";
	size_t len = 0;

	for (int r = 0; r < REPS; r++) {
		uint64_t at_ns, at;
		int d;

		if (hold_stiff(t, ctl)) {
			printf("# %s: cannot hold the body stiff\n", names[s]);
			return;
		}
		at = event(t, s, &at_ns);
		d = at ? first_limp(t, at, at_ns, &ms) : -1;
		if (d < 0) {
			missed++;
		} else {
			len += snprintf(line + len, sizeof(line) - len, " %d", d);
			if (d > worst) {
				worst = d;
				worst_ms = ms;
			}
		}
		if (restore(t, s, ctl)) {
			printf("# %s: the body did not come back\n", names[s]);
			break;
		}
	}
	printf("# %-14s cycles to the first limp frame:%s (worst %d, %.1f ms)%s\n",
	       names[s], line, worst, worst_ms, missed ? " NOT SEEN in some runs" : "");
}

/*
 * The body stiff, one stall of bulk IN armed, and the 40 frames after it
 * come: NULL, the stalled frame's number in *at; or why not.
 */
static const char *stall_once(struct nbt *t, struct nb_device **ctl, uint64_t *at, uint64_t *rx)
{
	uint64_t before;

	if (hold_stiff(t, ctl))
		return "cannot hold the body stiff";
	/*
	 * The count before the stall is armed, as event()'s: read after, a
	 * late reader would search past the stalled frame.
	 */
	before = nbt_emu_frames(t);
	if (nb_emu_misbehave(&t->emu, NB_EMU_MISB_STALL_IN, 1, 0))
		return "cannot arm the emulator's stall";
	*at = first_faulty(t, before ? before - 1 : 0, NB_EMU_MISB_STALL_IN, rx);
	if (!*at)
		return "no stalled frame";
	if (nb_emu_wait_frames(&t->emu, *at + 40, 30000))
		return "no 40 frames after the stall";
	return NULL;
}

/* One stall of bulk IN, which clears: limp frames in the 40 frames after it. */
static void one_stall(struct nbt *t, struct nb_device **ctl)
{
	int worst = 0, limp_frames;
	uint64_t at, rx;

	for (int r = 0; r < REPS; r++) {
		const char *why = stall_once(t, ctl, &at, &rx);

		if (why) {
			printf("# %-14s not measured: %s\n", "one stall", why);
			return;
		}
		limp_frames = 0;
		for (int i = 0, n = nb_emu_frames(&t->emu, at, f, 41); i < n; i++)
			limp_frames += limp(&f[i]);
		worst = limp_frames > worst ? limp_frames : worst;
	}
	printf("# %-14s limp frames in the 40 after it: at most %d in %d runs (goal 0)\n",
	       "one stall", worst, REPS);
}

/* Stop, replug: does the new device send any stiff frame? */
static void reenumerated(struct nbt *t, struct nb_device **ctl)
{
	uint64_t at;
	int n, stiff_frames = 0, limp_frames = 0;

	if (hold_stiff(t, ctl) || nb_stop(t->dev, NAOBODY_STOP_TOOL))
		return;
	nb_close(*ctl);
	*ctl = NULL;
	nb_close(t->dev);
	t->dev = NULL;
	if (nb_emu_disconnect(&t->emu) || nbt_wait_path("/dev/naobody", false, 5000))
		return;
	at = nbt_emu_frames(t);
	if (nb_emu_connect(&t->emu) || nbt_wait_path("/dev/naobody", true, 10000))
		return;
	t->dev = nb_open(NULL, 0);
	*ctl = nb_open(NULL, NB_OPEN_CONTROL);
	if (!t->dev || !*ctl || nbt_wait_boards(t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 20000))
		return;
	hold_stiff(t, ctl);	/* fails: the latch holds */
	n = nb_emu_frames(&t->emu, at, f, TAIL);
	for (int i = 0; i < n; i++) {
		stiff_frames += stiff(&f[i]);
		limp_frames += limp(&f[i]);
	}
	printf("# %-14s stiff frames from the new device: %d of %d (limp: %d; goal 0)\n",
	       "re-enumerated", stiff_frames, n, limp_frames);
	nb_rearm(t->dev);
}

int main(void)
{
	struct nb_device *ctl = NULL;
	struct nbt t;

	printf("TAP version 13\n1..1\n");
	if (nbt_up(&t, "controller_timeout_ms=0", NULL) || nb_wait_ready(t.dev, 20000) != 1 ||
	    nbt_wait_boards(&t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 20000)) {
		printf("not ok 1 stop_bench: no body\n");
		nbt_down(&t);
		return 1;
	}
	printf("# the last targets, state by state (%d runs each, 12 ms cycles)\n", REPS);
	for (enum state s = 0; s < __S_MAX; s++)
		measure(&t, s, &ctl);
	one_stall(&t, &ctl);
	reenumerated(&t, &ctl);
	printf("# %-14s not measured here: see suspend_test (a VM of its own)\n", "suspending");
	if (ctl)
		nb_close(ctl);
	nbt_down(&t);
	printf("ok 1 stop_bench\n");
	return 0;
}
