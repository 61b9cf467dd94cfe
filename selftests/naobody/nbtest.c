// SPDX-License-Identifier: GPL-2.0-only
#include "nbtest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int nbt_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

uint64_t nbt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int nbt_wait_path(const char *path, bool present, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		if ((access(path, F_OK) == 0) == present)
			return 0;
		sleep_ms(10);
	}
	return -ETIMEDOUT;
}

int nbt_time_scale(void)
{
	const char *s = getenv("NBVM_TIME_SCALE");

	return s && atoi(s) > 0 ? atoi(s) : 1;
}

const char *nbt_hold_arg(void)
{
	static char arg[32];

	snprintf(arg, sizeof(arg), "hold_cycles=%d", 10 * nbt_time_scale());
	return arg;
}

int nbt_hold_cycles(void)
{
	FILE *f = fopen("/sys/module/naobody/parameters/hold_cycles", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * On PREEMPT_RT, dummy_hcd moves the emulated bus's data in its softirq
 * (soft hrtimers), which runs in ksoftirqd at normal priority there. A
 * real board's host controller completes transfers from its interrupt
 * thread, SCHED_FIFO 50 on RT, and naobody's cycle thread and its 20 ms
 * step limit run at real-time priority: so the emulated bus gets the
 * controller's priority too, or a busy VM makes the bus, not the board,
 * miss the step limit. A no-op on other kernels.
 */
static void bus_at_controller_priority(void)
{
	FILE *f = fopen("/sys/kernel/realtime", "r");
	struct dirent *de;
	int rt = 0;
	DIR *d;

	if (f) {
		if (fscanf(f, "%d", &rt) != 1)
			rt = 0;
		fclose(f);
	}
	if (rt != 1 || !(d = opendir("/proc")))
		return;
	while ((de = readdir(d))) {
		struct sched_param sp = { .sched_priority = 50 };
		char path[300], comm[32] = "";

		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = atoi(de->d_name) > 0 ? fopen(path, "r") : NULL;
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "ksoftirqd/", 10))
			sched_setscheduler(atoi(de->d_name), SCHED_FIFO, &sp);
		fclose(f);
	}
	closedir(d);
}

uint64_t nbt_up_ns, nbt_down_ns;

static int up(struct nbt *t, const char *modargs, const char *const *emu_args,
	      const char *const *emu_cmds)
{
	/* The emulator's start and enumeration: slower on a slower tier. */
	struct nb_emu_options opt = { .args = emu_args, .quiet = 1,
				      .timeout_ms = NBT_MS(10000) };
	int err;

	memset(t, 0, sizeof(*t));
	bus_at_controller_priority();
	nbt_sh("rmmod naobody 2>/dev/null");
	err = nb_emu_start(&t->emu, &opt);
	if (err)
		return err;
	for (; emu_cmds && *emu_cmds; emu_cmds++)
		if (nb_emu_cmd(&t->emu, NULL, 0, "%s", *emu_cmds))
			return -EIO;
	if (nbt_sh("modprobe naobody %s %s", modargs ? modargs : "",
		   modargs && strstr(modargs, "hold_cycles=") ? "" : nbt_hold_arg()))
		return -ENOEXEC;
	t->module_loaded = 1;
	/* Slower on the debug tier (NBVM_TIME_SCALE): a first load there too. */
	if (nbt_wait_path("/dev/naobody", true, NBT_MS(10000)))
		return -ETIMEDOUT;
	t->dev = nb_open(NULL, 0);
	return t->dev ? 0 : -errno;
}

int nbt_up(struct nbt *t, const char *modargs, const char *const *emu_args)
{
	return nbt_up_cmds(t, modargs, emu_args, NULL);
}

int nbt_up_cmds(struct nbt *t, const char *modargs, const char *const *emu_args,
		const char *const *emu_cmds)
{
	uint64_t t0 = nbt_now_ns();
	int err = up(t, modargs, emu_args, emu_cmds);

	nbt_up_ns = nbt_now_ns() - t0;
	return err;
}

void nbt_down(struct nbt *t)
{
	uint64_t t0 = nbt_now_ns();

	if (t->dev)
		nb_close(t->dev);
	t->dev = NULL;
	if (t->module_loaded)
		nbt_sh("rmmod naobody");
	t->module_loaded = 0;
	if (t->emu.fd > 0 || t->emu.pid)
		nb_emu_stop(&t->emu);
	nbt_down_ns = nbt_now_ns() - t0;
}

static struct nbt shared;
static int shared_err = -ENODEV;	/* nbt_shared_up() not called */

static void shared_down(void)
{
	nbt_down(&shared);
}

int nbt_shared_up(const char *modargs, const char *const *emu_args)
{
	shared_err = nbt_up(&shared, modargs, emu_args);
	fprintf(stderr, "# the tests' shared device: %s in %.2f s\n",
		shared_err ? strerror(-shared_err) : "up", nbt_up_ns / 1e9);
	/* The tests' own lines say what they took beside it. */
	nbt_up_ns = 0;
	/* Only the parent exits: the harness's test processes _exit(). */
	atexit(shared_down);
	return shared_err;
}

int nbt_shared(struct nbt *t)
{
	*t = shared;
	/*
	 * The parent's reader stopped where it opened the device: this
	 * test's nb_next() starts with what comes next, as on its own open.
	 */
	if (t->dev)
		nbt_skip_to_newest(t->dev);
	return shared_err;
}

const char *nbt_board_state_name(unsigned int state)
{
	static const char *const names[] = { "unknown", "accepted", "rejected", "silent" };

	return state < 4 ? names[state] : "?";
}

int nbt_wait_boards(struct nbt *t, unsigned int state, unsigned int n, int timeout_ms)
{
	struct naobody_board b[64];
	int count = 0;

	for (int waited = 0; waited <= timeout_ms; waited += 20) {
		unsigned int in_state = 0;

		count = nb_boards(t->dev, b, 64);
		for (int i = 0; i < count && i < 64; i++)
			in_state += b[i].state == state;
		if (in_state >= (n == NBT_ALL_BOARDS ? (unsigned int)count : n))
			return 0;
		sleep_ms(20);
	}
	/* What a failure's output needs: where each board stands, and the link. */
	if (n == NBT_ALL_BOARDS)
		fprintf(stderr, "# not every board %s after %d ms:", nbt_board_state_name(state),
			timeout_ms);
	else
		fprintf(stderr, "# not %u board(s) %s after %d ms:", n, nbt_board_state_name(state),
			timeout_ms);
	for (int i = 0; i < count && i < 64; i++)
		fprintf(stderr, " %d %s (%u tries)", i, nbt_board_state_name(b[i].state),
			b[i].tries);
	fprintf(stderr, "\n");
	nbt_explain_link(t, NULL);
	return -ETIMEDOUT;
}

int nbt_wait_calibrated(struct nb_device *d, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited += 100) {
		if (nb_calibration_state(d) == NAOBODY_CALIB_READ)
			return 0;
		sleep_ms(100);
	}
	return -ETIMEDOUT;
}

long long nbt_stat(const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/naobody/naobody/statistics/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

uint64_t nbt_emu_frames(struct nbt *t)
{
	struct nb_emu_stats st;

	return nb_emu_stats(&t->emu, &st) ? 0 : st.frames;
}

void nbt_explain_link(struct nbt *t, const struct naobody_record *last)
{
	static const char *const counters[] = {
		"cycles", "answers", "timeouts", "crc_errors", "bad_tables", "stalls",
		"io_errors", "ack_mismatches", "overruns", "skipped",
	};
	struct naobody_record newest;
	struct nb_emu_stats es;

	fprintf(stderr, "# driver:");
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		fprintf(stderr, " %s %lld", counters[i], nbt_stat(counters[i]));
	fprintf(stderr, "\n");
	if (!nb_emu_stats(&t->emu, &es))
		fprintf(stderr, "# emulator: frames %llu, answers queued %llu, read %llu, "
			"dropped %llu, misbehaved %llu, 0x14 timeouts %llu\n",
			(unsigned long long)es.frames, (unsigned long long)es.answers,
			(unsigned long long)es.answers_read,
			(unsigned long long)es.answers_dropped,
			(unsigned long long)es.misbehaviours,
			(unsigned long long)es.ack_timeouts);
	else
		fprintf(stderr, "# emulator: no answer to \"stats\"\n");
	/* A reader far behind the newest record reads the past, not the board. */
	if (t->dev && last && nb_latest(t->dev, &newest) == 0)
		fprintf(stderr, "# reader: last read cycle %llu, %.1f s old; newest cycle %llu, "
			"%.1f s old; %llu records lost\n",
			(unsigned long long)last->cycle,
			(nbt_now_ns() - last->in_complete_ns) / 1e9,
			(unsigned long long)newest.cycle,
			(nbt_now_ns() - newest.in_complete_ns) / 1e9,
			(unsigned long long)nb_lost(t->dev));
}

char *nbt_attr(const char *attr, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/sys/class/naobody/naobody/%s", attr);
	f = fopen(path, "r");
	if (!f)
		return buf;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf;
}

void nbt_skip_to_newest(struct nb_device *d)
{
	struct naobody_record rec;

	while (nb_next(d, &rec, 0) == 1)
		;
}

static int read_int(const char *host_dev, const char *name)
{
	char path[96];
	int v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/%s", host_dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int nbt_open_usbfs(const char *host_dev)
{
	int bus = read_int(host_dev, "busnum"), dev = read_int(host_dev, "devnum");
	char path[64];

	if (bus < 0 || dev < 0)
		return -1;
	snprintf(path, sizeof(path), "/dev/bus/usb/%03d/%03d", bus, dev);
	return open(path, O_RDWR);
}
