/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A host for the emulator's tests, in raw usbfs ioctls (no libusb): it
 * claims the emulated chest board and does what naobody.ko does, one step
 * at a time, with the spec's timeouts.
 */
#ifndef EMU_TEST_HOST_H
#define EMU_TEST_HOST_H

#include <stddef.h>
#include <stdint.h>

struct host {
	int fd;
	uint8_t ep_in, ep_out;		/* bulk endpoint addresses */
	uint16_t maxp_in, maxp_out;
	unsigned int iso;		/* isochronous endpoints in interface 0 */
	uint8_t intf_class;
	/*
	 * Per-step timeout of host_cycle(): the spec's 20 ms when a test is
	 * about timeouts, longer otherwise, so that a VM starved by a busy
	 * machine doesn't fail a test about something else.
	 */
	unsigned int timeout_ms;
	unsigned int in_timeout_ms;	/* the same for the IN read */
};

/* Vendor requests, as the driver sends them */
#define HOST_OUT	0x40		/* vendor, device, host to device */
#define HOST_IN		0xc0		/* vendor, device, device to host */

#define HOST_TIMEOUT_MS	20		/* the spec's per-step timeout */
#define HOST_PATIENT_MS	3000		/* host_open()'s default: > --ack-wait */

int host_open(struct host *h, const char *sysfs_dev);
void host_close(struct host *h);

/* A control transfer: bytes moved, or -errno (-ETIMEDOUT, -EPIPE). */
int host_control(struct host *h, uint8_t type, uint8_t req, uint16_t value,
		 uint16_t len, void *data, unsigned int timeout_ms);

/*
 * A bulk transfer through an URB: bytes moved, or -errno; -ETIMEDOUT
 * after timeout_ms, when the URB is discarded (unlinked) as the driver
 * does. zero_packet: URB_ZERO_PACKET for OUT.
 */
int host_bulk(struct host *h, uint8_t ep, void *buf, size_t len, int zero_packet,
	      unsigned int timeout_ms);
int host_clear_halt(struct host *h, uint8_t ep);

/* The start-up requests 0x13 and 0x02; version gets 0x02's 4 bytes. */
int host_startup(struct host *h, uint8_t version[4]);

/* One cycle, as the driver runs it. */
struct host_cycle {
	int out;			/* bulk OUT: bytes or -errno */
	int ack;			/* 0x14: bytes or -errno */
	uint8_t ackbuf[8];
	int in;				/* bulk IN: bytes or -errno */
	uint8_t answer[512];
	int status;			/* 0x15 if the IN timed out: bytes or -errno */
	uint8_t statbuf[2];
	uint64_t ns;			/* the cycle's duration */
	uint64_t step_ns[3];		/* OUT, 0x14, IN */
};

int host_cycle(struct host *h, const void *frame, size_t len, struct host_cycle *c);

#endif
