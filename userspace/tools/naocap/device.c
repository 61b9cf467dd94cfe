// SPDX-License-Identifier: GPL-2.0-only
/*
 * The chest board in sysfs: the USB device of id ffff:0006 (or ffff:0005),
 * its bus and address (for usbmon and the archive), its strings, and the
 * driver bound to its interface 0 (naobody must not be: HAL must be the
 * one talking, or the capture shows our driver instead of the truth).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "naocap.h"

static int read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "r");
	buf[0] = 0;
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int device_find(const char *sysfs, uint32_t busdev, struct naocap_device *d, char *err,
		size_t errlen)
{
	char root[PATH_MAX], dir[PATH_MAX * 2], v[32], link[256];
	struct dirent *de;
	int found = 0;
	DIR *dd;

	snprintf(root, sizeof(root), "%s/bus/usb/devices", sysfs);
	dd = opendir(root);
	if (!dd) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return -ENODEV;
	}
	while ((de = readdir(dd))) {
		unsigned int vid, pid, bus, dev;
		char tmp[32];

		if (de->d_name[0] == '.' || strchr(de->d_name, ':'))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name);
		if (read_attr(dir, "idVendor", v, sizeof(v)) || sscanf(v, "%x", &vid) != 1)
			continue;
		if (read_attr(dir, "idProduct", v, sizeof(v)) || sscanf(v, "%x", &pid) != 1)
			continue;
		if (read_attr(dir, "busnum", tmp, sizeof(tmp)) || sscanf(tmp, "%u", &bus) != 1)
			continue;
		if (read_attr(dir, "devnum", tmp, sizeof(tmp)) || sscanf(tmp, "%u", &dev) != 1)
			continue;
		if (busdev != CAP_ANY_DEVICE ? CAP_BUSDEV(bus, dev) != busdev
					     : !cap_is_chest_board((uint16_t)vid, (uint16_t)pid))
			continue;
		if (found++)
			continue;
		snprintf(d->name, sizeof(d->name), "%s", de->d_name);
		d->bus = bus;
		d->dev = dev;
		d->vid = (uint16_t)vid;
		d->pid = (uint16_t)pid;
		read_attr(dir, "product", d->product, sizeof(d->product));
		read_attr(dir, "manufacturer", d->manufacturer, sizeof(d->manufacturer));
		read_attr(dir, "bcdDevice", d->bcd, sizeof(d->bcd));
		/* interface 0's driver: <dir>/<name>:1.0/driver -> .../drivers/X */
		snprintf(dir, sizeof(dir), "%s/%s/%s:1.0/driver", root, de->d_name, de->d_name);
		d->driver[0] = 0;
		{
			ssize_t n = readlink(dir, link, sizeof(link) - 1);

			if (n > 0) {
				link[n] = 0;
				snprintf(d->driver, sizeof(d->driver), "%s",
					 strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
			}
		}
	}
	closedir(dd);
	if (!found) {
		snprintf(err, errlen, busdev != CAP_ANY_DEVICE ?
			 "no USB device at that bus and address" :
			 "no chest board (ffff:0006 or ffff:0005) on USB: is this a NAO6?");
		return -ENODEV;
	}
	if (found > 1 && busdev == CAP_ANY_DEVICE) {
		snprintf(err, errlen, "%d chest boards on USB: pick one with -D BUS:DEV", found);
		return -EEXIST;
	}
	if (busdev != CAP_ANY_DEVICE && !cap_is_chest_board(d->vid, d->pid)) {
		snprintf(err, errlen, "%u:%u is %04x:%04x, not a chest board", d->bus, d->dev,
			 d->vid, d->pid);
		return -ENODEV;
	}
	return 0;
}
