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

int main(int argc, char **argv)
{
	const char *dir = NULL, *socket_path = "/tmp/robocup", *sysfs = "/sys";
	const char *restart = NULL, *hal_version = NULL;
	uint32_t busdev = CAP_ANY_DEVICE;
	bool no_lola = false, wait_enter = true;
	double scale = 1;
	char def[64], path[PATH_MAX + 32], err[300], tarball[PATH_MAX + 16];
	struct naocap_device d;
	struct usbmon_rec u;
	struct lola_client l;
	FILE *marks, *ver;
	struct utsname un;
	int c;

	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ 0 }
	};

	while ((c = getopt_long(argc, argv, "o:l:ns:yr:V:D:S:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': dir = optarg; break;
		case 'l': socket_path = optarg; break;
		case 'n': no_lola = true; break;
		case 's': {
			char *end;

			scale = strtod(optarg, &end);
			if (end == optarg || *end || scale <= 0 || scale > 100) {
				fprintf(stderr, "naocap: -s wants a factor above 0 and at most 100, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'y': wait_enter = false; break;
		case 'r': restart = optarg; break;
		case 'V': hal_version = optarg; break;
		case 'D': {
			unsigned int b, v;

			if (sscanf(optarg, "%u:%u", &b, &v) != 2 || !b || b > 65535 || !v || v > 127) {
				fprintf(stderr, "naocap: -D wants BUS:DEV, as lsusb prints them\n");
				return 2;
			}
			busdev = CAP_BUSDEV(b, v);
			break;
		}
		case 'S': sysfs = optarg; break;
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
	if (device_find(sysfs, busdev, &d, err, sizeof(err))) {
		fprintf(stderr, "naocap: %s\n", err);
		return 1;
	}
	if (!strcmp(d.driver, "naobody")) {
		fprintf(stderr,
			"naocap: naobody.ko is bound to the chest board (%u:%u): the capture would show our\n"
			"driver, not HAL. Unload it (rmmod naobody), start HAL and LoLA, and run naocap again.\n",
			d.bus, d.dev);
		return 1;
	}
	if (!dir) {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(def, sizeof(def), "naocap-%Y%m%d-%H%M%S", &tm);
		dir = def;
	}
	if (mkdir(dir, 0755)) {
		fprintf(stderr, "naocap: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/" CAP_FILE_PCAP, dir);
	if (usbmon_start(&u, d.bus, path)) {
		fprintf(stderr, "naocap: %s\n", u.err);
		remove_dir(dir);
		return 1;
	}
	if (!no_lola) {
		snprintf(path, sizeof(path), "%s/" CAP_FILE_LOLA, dir);
		if (lola_start(&l, socket_path, path)) {
			fprintf(stderr, "naocap: %s\n", l.err);
			usbmon_stop(&u);
			remove_dir(dir);
			return 1;
		}
	}
	snprintf(path, sizeof(path), "%s/" CAP_FILE_MARKS, dir);
	marks = fopen(path, "w");
	if (!marks) {
		perror(path);
		return 1;
	}
	printf("naocap: recording the chest board %u:%u (%04x:%04x, driver %s) and %s\n",
	       d.bus, d.dev, d.vid, d.pid, d.driver[0] ? d.driver : "none",
	       no_lola ? "no LoLA" : socket_path);
	if (restart) {
		mark(marks, 0, "restart HAL");
		printf("naocap: running '%s'\n", restart);
		if (sh(restart, NULL))
			fprintf(stderr, "naocap: '%s' failed; going on\n", restart);
	}
	for (unsigned int i = 0; i < STEPS; i++) {
		int secs = (int)(steps[i].seconds * scale + 0.5);

		if (secs < 1)
			secs = 1;
		printf("\nStep %u of %zu: %s\n  %s (%d s)\n", i + 1, STEPS, steps[i].name,
		       steps[i].say, secs);
		if (wait_enter) {
			printf("  Press Enter to start.");
			fflush(stdout);
			while ((c = getchar()) != '\n' && c != EOF)
				;
		}
		mark(marks, i, steps[i].name);
		for (int s = secs; s > 0; s--) {
			printf("\r  %2d s left ", s);
			fflush(stdout);
			sleep(1);
			if (!no_lola && l.err[0])
				break;
		}
		printf("\r  done        \n");
	}
	mark(marks, STEPS, "end");
	fclose(marks);
	if (!no_lola)
		lola_stop(&l);
	usbmon_stop(&u);

	snprintf(path, sizeof(path), "%s/" CAP_FILE_VERSIONS, dir);
	ver = fopen(path, "w");
	if (!ver) {
		perror(path);
		return 1;
	}
	uname(&un);
	fprintf(ver, "naocap.version %s\nkernel %s %s\nusb.busdev %u:%u\nusb.id %04x:%04x\n"
		"usb.product %s\nusb.manufacturer %s\nusb.bcdDevice %s\nusb.driver %s\n"
		"usbmon.records %llu\nusbmon.dropped %llu\n",
		NAOBODY_VERSION, un.release, un.machine, d.bus, d.dev, d.vid, d.pid, d.product,
		d.manufacturer, d.bcd, d.driver[0] ? d.driver : "none", u.packets, u.dropped);
	if (!no_lola)
		fprintf(ver, "lola.packets %llu\nlola.commands %llu\nlola.undecodable %llu\n",
			(unsigned long long)l.packets, (unsigned long long)l.commands,
			(unsigned long long)l.errors);
	fprintf(ver, "chest.version see naoctl replay (the 0x02 answer, if HAL's start-up was recorded)\n");
	fflush(ver);
	if (hal_version) {
		fprintf(ver, "hal.version ");
		fflush(ver);
		if (sh(hal_version, path))
			fprintf(ver, "(the command failed)\n");
	} else {
		fprintf(ver, "hal.version unknown (naocap -V COMMAND records it)\n");
	}
	fclose(ver);
	snprintf(tarball, sizeof(tarball), "%s.tar.gz", dir);
	if (cap_archive_pack(dir, tarball, err, sizeof(err))) {
		fprintf(stderr, "naocap: %s\n", err);
		return 1;
	}
	printf("\nnaocap: %llu usbmon records (%llu dropped)", u.packets, u.dropped);
	if (!no_lola)
		printf(", %llu LoLA packets", (unsigned long long)l.packets);
	printf("\nnaocap: send %s; check it with: naoctl verify %s\n", tarball, tarball);
	if (!no_lola && l.err[0]) {
		fprintf(stderr, "naocap: %s: the LoLA log ends early\n", l.err);
		return 1;
	}
	return 0;
}
