// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobody: USB driver for the NAO6 chest board.
 *
 * Minimal placeholder while the driver is written (issue 4): it registers the
 * USB driver for the chest board ids so that loading, binding and unloading
 * are exercised by the VM plumbing test.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/usb.h>

static const struct usb_device_id naobody_ids[] = {
	{ USB_DEVICE_INTERFACE_NUMBER(0xffff, 0x0006, 0) },
	{ USB_DEVICE_INTERFACE_NUMBER(0xffff, 0x0005, 0) },
	{ }
};
MODULE_DEVICE_TABLE(usb, naobody_ids);

static int naobody_probe(struct usb_interface *intf,
			 const struct usb_device_id *id)
{
	dev_info(&intf->dev, "chest board %04x:%04x found (driver not written yet)\n",
		 id->idVendor, id->idProduct);
	return -ENODEV;
}

static void naobody_disconnect(struct usb_interface *intf)
{
}

static struct usb_driver naobody_driver = {
	.name = KBUILD_MODNAME,
	.id_table = naobody_ids,
	.probe = naobody_probe,
	.disconnect = naobody_disconnect,
};
module_usb_driver(naobody_driver);

MODULE_DESCRIPTION("NAO6 chest board driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(NAOBODY_VERSION);
