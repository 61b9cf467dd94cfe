/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naocap: record a real chest board for naoctl verify, on the robot, with
 * HAL and LoLA running and nothing of ours loaded.
 *
 *   main.c        options, the refusals, the guided script, the archive
 *   device.c      the chest board in sysfs: its bus, address, driver
 *   usbmon.c      its bus's usbmon traffic into capture.pcap (libpcap)
 *   lola.c        LoLA's client: the packets into lola.log, the answers
 *
 * naocap never opens the chest board: usbmon only watches. It sends no
 * chest requests and nothing that moves the robot (see lola.c).
 */
#ifndef NAOCAP_H
#define NAOCAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <capture/capture.h>

struct naocap_device {
	char name[256];		/* sysfs name, "1-1" */
	unsigned int bus, dev;
	uint16_t vid, pid;
	char driver[256];	/* the driver of interface 0, "" for none */
	char product[128], manufacturer[128], bcd[16];
};

int device_find(const char *sysfs, uint32_t busdev, struct naocap_device *d,
		char *err, size_t errlen);

struct usbmon_rec {
	pthread_t thread;
	void *pcap;		/* pcap_t */
	void *dump;		/* pcap_dumper_t */
	atomic_bool stop;
	unsigned long long packets, dropped;
	char err[512];
};

int usbmon_start(struct usbmon_rec *u, unsigned int bus, const char *path);
void usbmon_stop(struct usbmon_rec *u);

struct lola_client {
	pthread_t thread;
	int fd;
	FILE *log;
	atomic_bool stop;
	atomic_ullong packets, commands, errors;
	char err[512];
};

int lola_start(struct lola_client *l, const char *socket, const char *path);
void lola_stop(struct lola_client *l);

uint64_t naocap_now(void);	/* CLOCK_REALTIME, usbmon's clock */

#endif
