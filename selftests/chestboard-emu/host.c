// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tests' host side, in raw usbfs ioctls (see host.h).
 */
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/ch9.h>
#include <linux/usbdevice_fs.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int sysfs_num(const char *dev, const char *attr)
{
	char path[256], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/%s", dev, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return atoi(buf);
}

/* Walk the configuration descriptor (usbfs read gives device, then config). */
static void parse_descriptors(struct host *h, const uint8_t *d, size_t len)
{
	size_t off = sizeof(struct usb_device_descriptor);
	int in_intf0 = 0;

	while (off + 2 <= len && d[off] >= 2 && off + d[off] <= len) {
		const uint8_t *p = d + off;

		if (p[1] == USB_DT_INTERFACE) {
			const struct usb_interface_descriptor *i = (const void *)p;

			in_intf0 = i->bInterfaceNumber == 0 && i->bAlternateSetting == 0;
			if (in_intf0)
				h->intf_class = i->bInterfaceClass;
		} else if (p[1] == USB_DT_ENDPOINT && in_intf0) {
			const struct usb_endpoint_descriptor *e = (const void *)p;
			uint16_t maxp = (uint16_t)(p[4] | p[5] << 8);

			switch (e->bmAttributes & USB_ENDPOINT_XFERTYPE_MASK) {
			case USB_ENDPOINT_XFER_BULK:
				if (e->bEndpointAddress & USB_DIR_IN) {
					h->ep_in = e->bEndpointAddress;
					h->maxp_in = maxp;
				} else {
					h->ep_out = e->bEndpointAddress;
					h->maxp_out = maxp;
				}
				break;
			case USB_ENDPOINT_XFER_ISOC:
				h->iso++;
				break;
			}
		}
		off += d[off];
	}
}

int host_open(struct host *h, const char *sysfs_dev)
{
	struct usbdevfs_disconnect_claim dc = { .interface = 0,
		.flags = USBDEVFS_DISCONNECT_CLAIM_EXCEPT_DRIVER, .driver = "usbfs" };
	uint8_t desc[1024];
	char path[64];
	ssize_t n;
	int bus = sysfs_num(sysfs_dev, "busnum");
	int dev = sysfs_num(sysfs_dev, "devnum");

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	h->timeout_ms = h->in_timeout_ms = HOST_PATIENT_MS;
	if (bus <= 0 || dev <= 0)
		return -ENODEV;
	/* sysfs shows a device before the host has configured it */
	for (int i = 0; i < 250 && sysfs_num(sysfs_dev, "bConfigurationValue") != 1; i++)
		usleep(20000);
	snprintf(path, sizeof(path), "/dev/bus/usb/%03d/%03d", bus, dev);
	h->fd = open(path, O_RDWR | O_CLOEXEC);
	if (h->fd < 0)
		return -errno;
	n = read(h->fd, desc, sizeof(desc));
	if (n > 0)
		parse_descriptors(h, desc, (size_t)n);
	/* take interface 0 from whatever driver has it (naobody.ko, say) */
	if (ioctl(h->fd, USBDEVFS_DISCONNECT_CLAIM, &dc) < 0) {
		int r = -errno;

		close(h->fd);
		h->fd = -1;
		return r;
	}
	return h->ep_in && h->ep_out ? 0 : -ENOENT;
}

void host_close(struct host *h)
{
	unsigned int intf = 0;

	if (h->fd < 0)
		return;
	ioctl(h->fd, USBDEVFS_RELEASEINTERFACE, &intf);
	close(h->fd);
	h->fd = -1;
}

int host_control(struct host *h, uint8_t type, uint8_t req, uint16_t value,
		 uint16_t len, void *data, unsigned int timeout_ms)
{
	struct usbdevfs_ctrltransfer c = {
		.bRequestType = type, .bRequest = req, .wValue = value,
		.wIndex = 0, .wLength = len, .timeout = timeout_ms, .data = data,
	};
	int r = ioctl(h->fd, USBDEVFS_CONTROL, &c);

	return r < 0 ? -errno : r;
}

int host_bulk(struct host *h, uint8_t ep, void *buf, size_t len, int zero_packet,
	      unsigned int timeout_ms)
{
	struct usbdevfs_urb urb = {
		.type = USBDEVFS_URB_TYPE_BULK, .endpoint = ep, .buffer = buf,
		.buffer_length = (int)len,
		.flags = zero_packet ? USBDEVFS_URB_ZERO_PACKET : 0,
	};
	struct usbdevfs_urb *done = NULL;
	struct pollfd pfd = { .fd = h->fd, .events = POLLOUT };
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000;

	if (ioctl(h->fd, USBDEVFS_SUBMITURB, &urb) < 0)
		return -errno;
	for (;;) {
		int64_t left = (int64_t)(end - now_ns());

		if (ioctl(h->fd, USBDEVFS_REAPURBNDELAY, &done) == 0)
			break;
		if (errno != EAGAIN)
			return -errno;
		if (left <= 0) {
			/* unlink it, like the driver's timer; then collect it */
			ioctl(h->fd, USBDEVFS_DISCARDURB, &urb);
			if (ioctl(h->fd, USBDEVFS_REAPURB, &done) < 0)
				return -errno;
			/* it may have completed just before the unlink */
			return done->status ? -ETIMEDOUT : done->actual_length;
		}
		poll(&pfd, 1, (int)((left + 999999) / 1000000));
	}
	return done->status ? done->status : done->actual_length;
}

int host_clear_halt(struct host *h, uint8_t ep)
{
	unsigned int e = ep;

	return ioctl(h->fd, USBDEVFS_CLEAR_HALT, &e) < 0 ? -errno : 0;
}

int host_startup(struct host *h, uint8_t version[4])
{
	int r = host_control(h, HOST_OUT, 0x13, 0, 0, NULL, h->timeout_ms);

	if (r < 0)
		return r;
	r = host_control(h, HOST_IN, 0x02, 0, 4, version, h->timeout_ms);
	return r == 4 ? 0 : r < 0 ? r : -EMSGSIZE;
}

int host_cycle(struct host *h, const void *frame, size_t len, struct host_cycle *c)
{
	uint64_t t0 = now_ns();

	memset(c, 0, sizeof(*c));
	c->ack = c->in = c->status = -ENODATA;
	c->out = host_bulk(h, h->ep_out, (void *)frame, len, 1, h->timeout_ms);
	c->step_ns[0] = now_ns() - t0;
	if (c->out >= 0)
		c->ack = host_control(h, HOST_IN, 0x14, 0, 5, c->ackbuf, h->timeout_ms);
	c->step_ns[1] = now_ns() - t0 - c->step_ns[0];
	if (c->ack >= 0) {
		c->in = host_bulk(h, h->ep_in, c->answer, sizeof(c->answer), 0,
				  h->in_timeout_ms);
		c->step_ns[2] = now_ns() - t0 - c->step_ns[0] - c->step_ns[1];
		if (c->in == -ETIMEDOUT)
			c->status = host_control(h, HOST_IN, 0x15, 0, 2, c->statbuf,
						 h->timeout_ms);
	}
	c->ns = now_ns() - t0;
	return c->out < 0 ? c->out : c->ack < 0 ? c->ack : c->in < 0 ? c->in : 0;
}
