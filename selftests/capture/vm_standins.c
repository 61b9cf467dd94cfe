// SPDX-License-Identifier: GPL-2.0-only
/*
 * naocap's counterparts in the VM. Without arguments it runs naocap_vm.sh
 * (the test, next to it), which calls it back for the stand-ins:
 *
 *   naocap_vm_test lola SOCKET SECONDS
 *	a stand-in for LoLA (not naobodyd's code): it serves one client on
 *	SOCKET with an 896-byte sensor packet every 12 ms (libnbcapture's
 *	encoder, a swaying body) and counts the commands that come back.
 *   naocap_vm_test hal SECONDS
 *	a stand-in for HAL: it talks to the emulated chest board through
 *	usbfs as HAL does (0x13, 0x02, then bulk OUT, 0x14, bulk IN every
 *	12 ms, the frames from the codec's nb_out_cycle()), so that usbmon
 *	has a chest board exchange to record while naobody.ko is not loaded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

#include "nb_codec.h"
#include <capture/capture.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ull),
			       .tv_nsec = (long)(t % 1000000000ull) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int lola(const char *path, int seconds)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	unsigned long long sent = 0, commands = 0;
	uint8_t pkt[LOLA_PACKET_MAX], in[4096];
	struct lola_sensors s;
	uint64_t t0, t;
	int ls, fd;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	unlink(path);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1)) {
		perror(path);
		return 1;
	}
	printf("# lola stand-in: listening on %s\n", path);
	fflush(stdout);
	fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		perror("accept");
		return 1;
	}
	t0 = t = now_ns();
	while (t - t0 < (uint64_t)seconds * 1000000000ull) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		size_t n;

		memset(&s, 0, sizeof(s));
		for (int j = 0; j < LOLA_JOINTS; j++)
			s.position[j] = (float)(0.3 * sin((double)sent / 50.0 + j));
		s.acc[2] = -9.81f;
		s.battery[0] = 0.9f;
		n = lola_sensors_encode(&s, "P0000074A05S93MVM001", pkt, sizeof(pkt));
		if (n != 896 || write(fd, pkt, n) != (ssize_t)n)
			break;
		sent++;
		t += 12000000;
		while (poll(&p, 1, 0) > 0) {
			ssize_t r = read(fd, in, sizeof(in));

			if (r <= 0)
				goto out;
			commands++;	/* one map per read, roughly: enough */
		}
		sleep_until(t);
	}
out:
	printf("# lola stand-in: %llu packets sent, %llu reads of commands\n", sent, commands);
	close(fd);
	close(ls);
	unlink(path);
	return sent > 10 && commands > 10 ? 0 : 1;
}

/* The emulated board in sysfs: its usbfs node and bulk endpoints */
static int find_board(char *node, size_t len, unsigned int *ep_out, unsigned int *ep_in)
{
	DIR *d = opendir("/sys/bus/usb/devices");
	struct dirent *de;
	int found = -ENODEV;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char p[512], v[32];
		unsigned int vid = 0, pid = 0, bus = 0, dev = 0;
		FILE *f;

		if (de->d_name[0] == '.' || strchr(de->d_name, ':'))
			continue;
#define ATTR(name, fmt, var) do { \
		snprintf(p, sizeof(p), "/sys/bus/usb/devices/%s/" name, de->d_name); \
		f = fopen(p, "r"); \
		if (f) { \
			if (fgets(v, sizeof(v), f)) \
				sscanf(v, fmt, var); \
			fclose(f); \
		} } while (0)
		ATTR("idVendor", "%x", &vid);
		ATTR("idProduct", "%x", &pid);
		ATTR("busnum", "%u", &bus);
		ATTR("devnum", "%u", &dev);
		if (!cap_is_chest_board((uint16_t)vid, (uint16_t)pid))
			continue;
		snprintf(node, len, "/dev/bus/usb/%03u/%03u", bus, dev);
		for (unsigned int ep = 1; ep < 16; ep++) {
			char dir[600];

			snprintf(dir, sizeof(dir), "/sys/bus/usb/devices/%s/%s:1.0/ep_%02x", de->d_name,
				 de->d_name, ep);
			if (!access(dir, F_OK))
				*ep_out = ep;
			snprintf(dir, sizeof(dir), "/sys/bus/usb/devices/%s/%s:1.0/ep_%02x", de->d_name,
				 de->d_name, ep | 0x80);
			if (!access(dir, F_OK))
				*ep_in = ep | 0x80;
		}
		found = 0;
	}
	closedir(d);
	return found;
}

static int ctrl(int fd, uint8_t rt, uint8_t req, void *data, uint16_t len)
{
	struct usbdevfs_ctrltransfer c = { .bRequestType = rt, .bRequest = req,
					   .wLength = len, .timeout = 100, .data = data };

	return ioctl(fd, USBDEVFS_CONTROL, &c);
}

static int hal(int seconds)
{
	unsigned int ep_out = 0, ep_in = 0, iface = 0;
	unsigned long long frames = 0, answers = 0, acks = 0;
	struct naobody_actuators act;
	struct nb_out_plan plan;
	uint8_t out[NB_FRAME_MAX], in[NB_IN_FRAME_MAX], ack[NB_ACK_LEN], ver[4];
	char node[64];
	uint64_t t0, t;
	int fd;

	if (find_board(node, sizeof(node), &ep_out, &ep_in) || !ep_out || !ep_in) {
		fprintf(stderr, "hal stand-in: no chest board with bulk endpoints in sysfs\n");
		return 1;
	}
	fd = open(node, O_RDWR);
	if (fd < 0) {
		perror(node);
		return 1;
	}
	if (ctrl(fd, 0x40, 0x13, NULL, 0) < 0 || ioctl(fd, USBDEVFS_CLAIMINTERFACE, &iface) ||
	    ctrl(fd, 0xc0, 0x02, ver, 4) != 4) {
		perror("hal stand-in: start-up");
		return 1;
	}
	printf("# hal stand-in: %s, endpoints %02x %02x, version %02x%02x%02x%02x\n", node, ep_out,
	       ep_in, ver[0], ver[1], ver[2], ver[3]);
	memset(&act, 0, sizeof(act));
	t0 = t = now_ns();
	while (t - t0 < (uint64_t)seconds * 1000000000ull) {
		struct usbdevfs_bulktransfer bo, bi;
		u32 crc;
		int n;

		memset(&plan, 0, sizeof(plan));
		plan.requests = NB_REQ_SENSORS | NB_REQ_CHEST_LED;
		if (frames < 2)
			plan.handshake = (1ull << NB_BOARDS) - 1;
		n = nb_out_cycle(out, sizeof(out), &act, &plan, &crc);
		if (n < 0)
			break;
		bo = (struct usbdevfs_bulktransfer){ .ep = ep_out, .len = (unsigned int)n,
						     .timeout = 20, .data = out };
		if (ioctl(fd, USBDEVFS_BULK, &bo) == n)
			frames++;
		if (ctrl(fd, 0xc0, 0x14, ack, NB_ACK_LEN) == NB_ACK_LEN && !nb_ack_check(ack, NB_ACK_LEN, crc))
			acks++;
		bi = (struct usbdevfs_bulktransfer){ .ep = ep_in, .len = sizeof(in), .timeout = 20,
						     .data = in };
		if (ioctl(fd, USBDEVFS_BULK, &bi) > 0)
			answers++;
		t += 12000000;
		sleep_until(t);
	}
	ioctl(fd, USBDEVFS_RELEASEINTERFACE, &iface);
	close(fd);
	printf("# hal stand-in: %llu frames, %llu 0x14 answers that match, %llu answers\n", frames,
	       acks, answers);
	return frames > 10 && acks > 10 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "lola"))
		return lola(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "hal"))
		return hal(atoi(argv[2]));
	if (argc == 1) {
		execl("/bin/sh", "sh", "./naocap_vm.sh", (char *)NULL);
		perror("naocap_vm.sh");
		return 1;
	}
	fprintf(stderr, "usage: naocap_vm_test [lola SOCKET SECONDS | hal SECONDS]\n");
	return 2;
}
