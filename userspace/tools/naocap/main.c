// SPDX-License-Identifier: GPL-2.0-only
/*
 * naocap: one capture of a real NAO6 for naoctl verify. It records the
 * chest board's usbmon traffic and LoLA's packets on the same clock while
 * it guides a person through a short script, and writes one archive.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nbtool/version.h>

#include "naocap.h"

extern char **environ;

/* The script: what the person does, and for how long (scaled by -s) */
static const struct step {
	const char *name;
	const char *say;
	int seconds;
} steps[] = {
	{ "rest", "Sit the robot down (or hold it) and keep it still.", 10 },
	{ "press the chest button", "Press the chest button twice, a second each time.", 10 },
	{ "touch the front head pad", "Touch the front head pad, then the middle, then the rear.", 10 },
	{ "lift the left foot", "Hold the robot up, then lift its left foot off the ground; press each foot bumper once.", 10 },
	{ "tilt the robot forward", "Tilt the robot forward to about 60 degrees and back, then turn it left and right.", 10 },
	{ "move the left arm by hand with stiffness off", "Move the left arm and hand slowly through their range; touch the hand's three pads.", 15 },
	{ "walk in front of the sonar", "Walk up to 30 cm in front of the chest and back to 3 m, twice.", 15 },
	{ "rest", "Keep the robot still.", 5 },
};
#define STEPS (sizeof(steps) / sizeof(steps[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: naocap [options]\n\n"
		"Records the chest board's USB traffic (usbmon) and LoLA's sensor packets\n"
		"while it guides you through a short script, and writes one archive for\n"
		"naoctl verify. Run it on the robot as root, with HAL and LoLA running and\n"
		"naobody.ko not loaded. It never talks to the chest board; it is LoLA's\n"
		"client and sends stiffness 0 to every joint: sit the robot down first.\n\n"
		"  -o DIR       the archive directory (default naocap-<date>); DIR.tar.gz too\n"
		"  -l SOCKET    LoLA's socket (default /tmp/robocup)\n"
		"  -n           no LoLA (the USB traffic only; verify then checks frames only)\n"
		"  -s FACTOR    scale every step's duration (default 1; 0.1 for a quick try)\n"
		"  -y           don't wait for Enter before each step\n"
		"  -r COMMAND   run COMMAND once the capture runs (e.g. 'systemctl restart hal'),\n"
		"               so that HAL's start-up (preferences, handshake) is recorded\n"
		"  -V COMMAND   a command that prints HAL's version, for the versions file\n"
		"  -D BUS:DEV   the chest board's USB address (default: found by its id)\n"
		"  -S ROOT      where sysfs is (default /sys)\n"
		"  -h, --help   this help\n"
		"  --version    the program's version\n\n"
		"It takes about %d seconds. See naocap(8).\n", 85);
}

static int sh(const char *cmd, const char *out_path)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	pid_t pid;
	int st = 0, r;

	posix_spawn_file_actions_init(&fa);
	if (out_path)
		posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_APPEND, 0);
	r = posix_spawnp(&pid, "sh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r)
		return -r;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A refusal leaves nothing behind: the files of a recording that never ran */
static void remove_dir(const char *dir)
{
	static const char *const files[] = { CAP_FILE_PCAP, CAP_FILE_LOLA };
	char p[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
}

static void mark(FILE *marks, unsigned int i, const char *what)
{
	fprintf(marks, "%llu %u %s\n", (unsigned long long)naocap_now(), i, what);
	fflush(marks);
}

struct options {
	const char *dir, *socket_path, *sysfs, *restart, *hal_version;
	uint32_t busdev;
	bool no_lola, wait_enter;
	double scale;
	char def[64];		/* the default dir's name */
};

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ 0 }
	};
	int c;

	*o = (struct options){ .socket_path = "/tmp/robocup", .sysfs = "/sys",
			       .busdev = CAP_ANY_DEVICE, .wait_enter = true, .scale = 1 };
	while ((c = getopt_long(argc, argv, "o:l:ns:yr:V:D:S:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->dir = optarg; break;
		case 'l': o->socket_path = optarg; break;
		case 'n': o->no_lola = true; break;
		case 's': {
			char *end;

			o->scale = strtod(optarg, &end);
			if (end == optarg || *end || o->scale <= 0 || o->scale > 100) {
				fprintf(stderr, "naocap: -s wants a factor above 0 and at most 100, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'y': o->wait_enter = false; break;
		case 'r': o->restart = optarg; break;
		case 'V': o->hal_version = optarg; break;
		case 'D': {
			unsigned int b, v;

			if (sscanf(optarg, "%u:%u", &b, &v) != 2 || !b || b > 65535 || !v || v > 127) {
				fprintf(stderr, "naocap: -D wants BUS:DEV, as lsusb prints them\n");
				return 2;
			}
			o->busdev = CAP_BUSDEV(b, v);
			break;
		}
		case 'S': o->sysfs = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'v': return nbtool_version("naocap");
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "naocap: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!o->dir) {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(o->def, sizeof(o->def), "naocap-%Y%m%d-%H%M%S", &tm);
		o->dir = o->def;
	}
	return -1;
}

/* What runs while the person follows the script. */
struct recording {
	struct naocap_device d;
	struct usbmon_rec u;
	struct lola_client l;
	FILE *marks;
};

/*
 * The chest board found (and refused if our driver has it), the archive's
 * directory made, usbmon and LoLA recording, the marks file open. 0, or
 * the exit status once the reason is said; a refusal leaves nothing.
 */
static int start(const struct options *o, struct recording *r)
{
	char path[PATH_MAX + 32], err[300];

	if (device_find(o->sysfs, o->busdev, &r->d, err, sizeof(err))) {
		fprintf(stderr, "naocap: %s\n", err);
		return 1;
	}
	if (!strcmp(r->d.driver, "naobody")) {
		fprintf(stderr,
			"naocap: naobody.ko is bound to the chest board (%u:%u): the capture would show our\n"
			"driver, not HAL. Unload it (rmmod naobody), start HAL and LoLA, and run naocap again.\n",
			r->d.bus, r->d.dev);
		return 1;
	}
	if (mkdir(o->dir, 0755)) {
		fprintf(stderr, "naocap: %s: %s\n", o->dir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/" CAP_FILE_PCAP, o->dir);
	if (usbmon_start(&r->u, r->d.bus, path)) {
		fprintf(stderr, "naocap: %s\n", r->u.err);
		remove_dir(o->dir);
		return 1;
	}
	if (!o->no_lola) {
		snprintf(path, sizeof(path), "%s/" CAP_FILE_LOLA, o->dir);
		if (lola_start(&r->l, o->socket_path, path)) {
			fprintf(stderr, "naocap: %s\n", r->l.err);
			usbmon_stop(&r->u);
			remove_dir(o->dir);
			return 1;
		}
	}
	snprintf(path, sizeof(path), "%s/" CAP_FILE_MARKS, o->dir);
	r->marks = fopen(path, "w");
	if (!r->marks) {
		perror(path);
		return 1;
	}
	return 0;
}

/* The guided script, each step's start marked; the recording stopped after. */
static void run_script(const struct options *o, struct recording *r)
{
	int c;

	for (unsigned int i = 0; i < STEPS; i++) {
		int secs = (int)(steps[i].seconds * o->scale + 0.5);

		if (secs < 1)
			secs = 1;
		printf("\nStep %u of %zu: %s\n  %s (%d s)\n", i + 1, STEPS, steps[i].name,
		       steps[i].say, secs);
		if (o->wait_enter) {
			printf("  Press Enter to start.");
			fflush(stdout);
			while ((c = getchar()) != '\n' && c != EOF)
				;
		}
		mark(r->marks, i, steps[i].name);
		for (int s = secs; s > 0; s--) {
			printf("\r  %2d s left ", s);
			fflush(stdout);
			sleep(1);
			if (!o->no_lola && r->l.err[0])
				break;
		}
		printf("\r  done        \n");
	}
	mark(r->marks, STEPS, "end");
	fclose(r->marks);
	if (!o->no_lola)
		lola_stop(&r->l);
	usbmon_stop(&r->u);
}

/* The versions file: what recorded what, and how much. 0, or 1. */
static int write_versions(const struct options *o, const struct recording *r)
{
	char path[PATH_MAX + 32];
	struct utsname un;
	FILE *ver;

	snprintf(path, sizeof(path), "%s/" CAP_FILE_VERSIONS, o->dir);
	ver = fopen(path, "w");
	if (!ver) {
		perror(path);
		return 1;
	}
	uname(&un);
	fprintf(ver, "naocap.version %s\nkernel %s %s\nusb.busdev %u:%u\nusb.id %04x:%04x\n"
		"usb.product %s\nusb.manufacturer %s\nusb.bcdDevice %s\nusb.driver %s\n"
		"usbmon.records %llu\nusbmon.dropped %llu\n",
		NAOBODY_VERSION, un.release, un.machine, r->d.bus, r->d.dev, r->d.vid, r->d.pid,
		r->d.product, r->d.manufacturer, r->d.bcd, r->d.driver[0] ? r->d.driver : "none",
		r->u.packets, r->u.dropped);
	if (!o->no_lola)
		fprintf(ver, "lola.packets %llu\nlola.commands %llu\nlola.undecodable %llu\n",
			(unsigned long long)r->l.packets, (unsigned long long)r->l.commands,
			(unsigned long long)r->l.errors);
	fprintf(ver, "chest.version see naoctl replay (the 0x02 answer, if HAL's start-up was recorded)\n");
	fflush(ver);
	if (o->hal_version) {
		fprintf(ver, "hal.version ");
		fflush(ver);
		if (sh(o->hal_version, path))
			fprintf(ver, "(the command failed)\n");
	} else {
		fprintf(ver, "hal.version unknown (naocap -V COMMAND records it)\n");
	}
	fclose(ver);
	return 0;
}

int main(int argc, char **argv)
{
	char err[300], tarball[PATH_MAX + 16];
	struct recording r = { 0 };
	struct options o;
	int rc = parse_options(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (start(&o, &r))
		return 1;
	printf("naocap: recording the chest board %u:%u (%04x:%04x, driver %s) and %s\n",
	       r.d.bus, r.d.dev, r.d.vid, r.d.pid, r.d.driver[0] ? r.d.driver : "none",
	       o.no_lola ? "no LoLA" : o.socket_path);
	if (o.restart) {
		mark(r.marks, 0, "restart HAL");
		printf("naocap: running '%s'\n", o.restart);
		if (sh(o.restart, NULL))
			fprintf(stderr, "naocap: '%s' failed; going on\n", o.restart);
	}
	run_script(&o, &r);
	if (write_versions(&o, &r))
		return 1;
	snprintf(tarball, sizeof(tarball), "%s.tar.gz", o.dir);
	if (cap_archive_pack(o.dir, tarball, err, sizeof(err))) {
		fprintf(stderr, "naocap: %s\n", err);
		return 1;
	}
	printf("\nnaocap: %llu usbmon records (%llu dropped)", r.u.packets, r.u.dropped);
	if (!o.no_lola)
		printf(", %llu LoLA packets", (unsigned long long)r.l.packets);
	printf("\nnaocap: send %s; check it with: naoctl verify %s\n", tarball, tarball);
	if (!o.no_lola && r.l.err[0]) {
		fprintf(stderr, "naocap: %s: the LoLA log ends early\n", r.l.err);
		return 1;
	}
	return 0;
}
