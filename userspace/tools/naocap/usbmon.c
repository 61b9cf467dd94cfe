// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chest board's bus through usbmon, written to capture.pcap by
 * libpcap as it arrives (its usbmonN device: link type USB_LINUX_MMAPPED,
 * every byte of every transfer, nanosecond stamps where the kernel gives
 * them). A thread of its own, so that a slow disk never delays LoLA's
 * client. The whole bus is kept; naoctl picks the chest board out.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include <pcap/pcap.h>

#include "naocap.h"

/*
 * The capture loop. Linux's usbmon fetch ignores pcap's timeout and blocks
 * until the next URB event, so on a quiet bus a blocking pcap_dispatch()
 * would never see the stop flag (or pcap_breakloop()): the handle is non-
 * blocking and the loop polls its fd for at most 100 ms at a time.
 */
static void *run(void *arg)
{
	struct usbmon_rec *u = arg;
	struct pollfd pfd = { .fd = pcap_get_selectable_fd(u->pcap), .events = POLLIN };

	while (!atomic_load(&u->stop)) {
		int n;

		if (pfd.fd >= 0 && poll(&pfd, 1, 100) <= 0)
			continue;
		n = pcap_dispatch(u->pcap, -1, pcap_dump, u->dump);

		if (n < 0 && n != PCAP_ERROR_BREAK) {
			snprintf(u->err, sizeof(u->err), "%s", pcap_geterr(u->pcap));
			break;
		}
		if (n > 0)
			u->packets += (unsigned long long)n;
	}
	return NULL;
}

int usbmon_start(struct usbmon_rec *u, unsigned int bus, const char *path)
{
	char eb[PCAP_ERRBUF_SIZE], name[32];
	pcap_t *p;
	int r;

	memset(u, 0, sizeof(*u));
	snprintf(name, sizeof(name), "usbmon%u", bus);
	p = pcap_create(name, eb);
	if (!p) {
		snprintf(u->err, sizeof(u->err), "%s: %s", name, eb);
		return -ENODEV;
	}
	pcap_set_snaplen(p, 65535);
	pcap_set_timeout(p, 100);
	pcap_set_buffer_size(p, 8 << 20);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	r = pcap_activate(p);
	if (r < 0) {
		snprintf(u->err, sizeof(u->err),
			 "%s: %s (load usbmon: modprobe usbmon; mount debugfs; run as root)",
			 name, pcap_geterr(p));
		pcap_close(p);
		return -ENODEV;
	}
	if (pcap_setnonblock(p, 1, eb) < 0) {
		snprintf(u->err, sizeof(u->err), "%s: %s", name, eb);
		pcap_close(p);
		return -EIO;
	}
	u->pcap = p;
	u->dump = pcap_dump_open(p, path);
	if (!u->dump) {
		snprintf(u->err, sizeof(u->err), "%s: %s", path, pcap_geterr(p));
		pcap_close(p);
		return -EIO;
	}
	if (pthread_create(&u->thread, NULL, run, u)) {
		pcap_dump_close(u->dump);
		pcap_close(p);
		return -EAGAIN;
	}
	return 0;
}

void usbmon_stop(struct usbmon_rec *u)
{
	struct pcap_stat st;

	atomic_store(&u->stop, true);
	pcap_breakloop(u->pcap);
	pthread_join(u->thread, NULL);
	if (!pcap_stats(u->pcap, &st))
		u->dropped = st.ps_drop;
	pcap_dump_close(u->dump);
	pcap_close(u->pcap);
}
