/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A USB gadget built through configfs with one FunctionFS function: the
 * plumbing under the chest board emulator and the VM tests. The gadget
 * appears to the host side of dummy_hcd like a real device.
 */
#ifndef NAOBODY_GADGET_H
#define NAOBODY_GADGET_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct nb_gadget {
	char name[32];			/* configfs gadget and ffs instance name */
	char dir[80];			/* /sys/kernel/config/usb_gadget/<name> */
	char ffs[48];			/* where FunctionFS is mounted */
	int ep0;			/* control endpoint, after descriptors */
	int ep_in;			/* bulk IN (device to host) */
	int ep_out;			/* bulk OUT (host to device) */
	int mounted;
	int iso;			/* the descriptors have the iso endpoints */
};

struct nb_gadget_config {
	uint16_t vendor, product, bcd_device;
	const char *manufacturer, *product_name, *serial;
	uint16_t bulk_packet;		/* full-speed bulk wMaxPacketSize, 64 */
	/*
	 * Also describe the chest board's unused isochronous pair, after the
	 * bulk endpoints (OUT 400 bytes, IN 300 bytes at full speed). Nothing
	 * opens or moves data on them; they are there so that the host sees
	 * the real board's interface. 0 leaves them out.
	 */
	uint8_t iso;
};

/* Load dummy_hcd (full speed), libcomposite and usb_f_fs if needed. */
int nb_gadget_load_modules(void);

/*
 * Create the configfs gadget, mount its FunctionFS instance and write the
 * descriptors (bulk IN and OUT, all control recipients routed to ep0).
 * Returns 0 or a negative errno; on failure everything is undone.
 */
int nb_gadget_create(struct nb_gadget *g, const char *name,
		     const struct nb_gadget_config *cfg);

/* Attach to a UDC ("dummy_udc.0") or detach; both are idempotent. */
int nb_gadget_bind(struct nb_gadget *g, const char *udc);
int nb_gadget_unbind(struct nb_gadget *g);

/* Close endpoints, unmount, remove the configfs tree. */
void nb_gadget_destroy(struct nb_gadget *g);

/*
 * Find the host-side USB device with this id (under /sys/bus/usb/devices),
 * waiting up to timeout_ms. Writes its sysfs name ("1-1") to out.
 */
int nb_gadget_wait_host_device(uint16_t vendor, uint16_t product,
			       int timeout_ms, char *out, size_t outlen);

/* Wait up to timeout_ms until no host-side device has this id. */
int nb_gadget_wait_host_gone(uint16_t vendor, uint16_t product, int timeout_ms);

#endif
