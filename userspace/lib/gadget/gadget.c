// SPDX-License-Identifier: GPL-2.0-only
/*
 * configfs + FunctionFS gadget plumbing (see gadget.h).
 *
 * The descriptors route every control request to ep0
 * (FUNCTIONFS_ALL_CTRL_RECIP): the chest board's vendor requests have the
 * device as recipient, and without the flag the composite core stalls them
 * before userspace sees them.
 */
#include <gadget/gadget.h>

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>

#define CONFIGFS_GADGETS "/sys/kernel/config/usb_gadget"

static int write_file(const char *dir, const char *file, const char *value)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int mkdir_in(const char *dir, const char *sub)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int nb_gadget_load_modules(void)
{
	char hs[8] = "";

	if (access("/sys/module/dummy_hcd", F_OK) == 0) {
		/* Already loaded: it must be running at full speed. */
		read_file("/sys/module/dummy_hcd/parameters/is_high_speed", hs, sizeof(hs));
		if (hs[0] == 'Y')
			return -EBUSY;
	} else if (system("modprobe dummy_hcd is_high_speed=0 >/dev/null 2>&1")) {
		return -ENOENT;
	}
	if (system("modprobe libcomposite >/dev/null 2>&1") ||
	    system("modprobe usb_f_fs >/dev/null 2>&1"))
		return -ENOENT;
	if (access(CONFIGFS_GADGETS, F_OK))
		return -ENOENT;
	return 0;
}

/*
 * Full and high speed descriptors: one vendor interface, bulk IN and OUT,
 * and optionally the real board's isochronous pair (OUT, then IN).
 */
struct ffs_speed_descs {
	struct usb_interface_descriptor intf;
	struct usb_endpoint_descriptor_no_audio in;
	struct usb_endpoint_descriptor_no_audio out;
	struct usb_endpoint_descriptor_no_audio iso_out;
	struct usb_endpoint_descriptor_no_audio iso_in;
} __attribute__((packed));

#define ISO_OUT_PACKET	400
#define ISO_IN_PACKET	300

static struct usb_endpoint_descriptor_no_audio ep_desc(uint8_t addr, uint8_t type,
							uint16_t packet)
{
	struct usb_endpoint_descriptor_no_audio d = {
		.bLength = sizeof(d),
		.bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = addr,
		.bmAttributes = type,
		.wMaxPacketSize = htole16(packet),
		.bInterval = type == USB_ENDPOINT_XFER_ISOC ? 1 : 0,
	};
	return d;
}

static struct ffs_speed_descs speed_descs(uint16_t packet, int iso)
{
	struct ffs_speed_descs d = {
		.intf = {
			.bLength = sizeof(d.intf),
			.bDescriptorType = USB_DT_INTERFACE,
			.bNumEndpoints = iso ? 4 : 2,
			.bInterfaceClass = USB_CLASS_VENDOR_SPEC,
			.iInterface = 1,
		},
		.in = ep_desc(1 | USB_DIR_IN, USB_ENDPOINT_XFER_BULK, packet),
		.out = ep_desc(1 | USB_DIR_OUT, USB_ENDPOINT_XFER_BULK, packet),
		.iso_out = ep_desc(2 | USB_DIR_OUT, USB_ENDPOINT_XFER_ISOC, ISO_OUT_PACKET),
		.iso_in = ep_desc(2 | USB_DIR_IN, USB_ENDPOINT_XFER_ISOC, ISO_IN_PACKET),
	};
	return d;
}

/* The bytes of one speed's descriptors: the iso pair only when asked for. */
static size_t speed_descs_len(int iso)
{
	return iso ? sizeof(struct ffs_speed_descs) :
		     offsetof(struct ffs_speed_descs, iso_out);
}

static int write_descriptors(struct nb_gadget *g, uint16_t packet, int iso)
{
	struct usb_functionfs_descs_head_v2 head = {
		.magic = htole32(FUNCTIONFS_DESCRIPTORS_MAGIC_V2),
		.flags = htole32(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC |
				 FUNCTIONFS_ALL_CTRL_RECIP),
	};
	const struct ffs_speed_descs fs = speed_descs(packet, iso);
	const struct ffs_speed_descs hs = speed_descs(512, iso);
	const size_t one = speed_descs_len(iso);
	const __le32 count = htole32(iso ? 5 : 3);	/* per speed */
	unsigned char descs[sizeof(head) + 2 * sizeof(count) + 2 * sizeof(fs)];
	static const char iface_name[] = "naobody";
	struct {
		struct usb_functionfs_strings_head head;
		__le16 lang;
		char str[sizeof(iface_name)];
	} __attribute__((packed)) strings = {
		.head = {
			.magic = htole32(FUNCTIONFS_STRINGS_MAGIC),
			.length = htole32(sizeof(strings)),
			.str_count = htole32(1),
			.lang_count = htole32(1),
		},
		.lang = htole16(0x0409),
	};
	char path[128];
	size_t len = 0;

	/* head, fs_count, hs_count, the full speed set, the high speed set */
	head.length = htole32(sizeof(head) + 2 * sizeof(count) + 2 * one);
	memcpy(descs + len, &head, sizeof(head));
	len += sizeof(head);
	memcpy(descs + len, &count, sizeof(count));
	len += sizeof(count);
	memcpy(descs + len, &count, sizeof(count));
	len += sizeof(count);
	memcpy(descs + len, &fs, one);
	len += one;
	memcpy(descs + len, &hs, one);
	len += one;

	memcpy(strings.str, iface_name, sizeof(iface_name));
	snprintf(path, sizeof(path), "%s/ep0", g->ffs);
	g->ep0 = open(path, O_RDWR | O_CLOEXEC);
	if (g->ep0 < 0)
		return -errno;
	if (write(g->ep0, descs, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	if (write(g->ep0, &strings, sizeof(strings)) != (ssize_t)sizeof(strings))
		return errno ? -errno : -EIO;

	/* FunctionFS names the endpoint files in descriptor order. */
	snprintf(path, sizeof(path), "%s/ep1", g->ffs);
	g->ep_in = open(path, O_RDWR | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/ep2", g->ffs);
	g->ep_out = open(path, O_RDWR | O_CLOEXEC);
	if (g->ep_in < 0 || g->ep_out < 0)
		return -errno;
	return 0;
}

int nb_gadget_create(struct nb_gadget *g, const char *name,
		     const struct nb_gadget_config *cfg)
{
	char func[160], link[160], buf[64];
	char strdir[128];
	int err;

	memset(g, 0, sizeof(*g));
	g->ep0 = g->ep_in = g->ep_out = -1;
	snprintf(g->name, sizeof(g->name), "%s", name);
	snprintf(g->dir, sizeof(g->dir), CONFIGFS_GADGETS "/%s", name);
	snprintf(g->ffs, sizeof(g->ffs), "/dev/ffs-%s", name);

	if (mkdir(g->dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(buf, sizeof(buf), "0x%04x", cfg->vendor);
	err = write_file(g->dir, "idVendor", buf);
	snprintf(buf, sizeof(buf), "0x%04x", cfg->product);
	err = err ?: write_file(g->dir, "idProduct", buf);
	snprintf(buf, sizeof(buf), "0x%04x", cfg->bcd_device);
	err = err ?: write_file(g->dir, "bcdDevice", buf);
	err = err ?: write_file(g->dir, "bcdUSB", "0x0200");
	err = err ?: mkdir_in(g->dir, "strings/0x409");
	snprintf(strdir, sizeof(strdir), "%s/strings/0x409", g->dir);
	err = err ?: write_file(strdir, "manufacturer", cfg->manufacturer ?: "");
	err = err ?: write_file(strdir, "product", cfg->product_name ?: "");
	err = err ?: write_file(strdir, "serialnumber", cfg->serial ?: "");
	err = err ?: mkdir_in(g->dir, "configs/c.1");
	err = err ?: mkdir_in(g->dir, "configs/c.1/strings/0x409");
	snprintf(strdir, sizeof(strdir), "%s/configs/c.1/strings/0x409", g->dir);
	err = err ?: write_file(strdir, "configuration", "naobody");
	snprintf(buf, sizeof(buf), "functions/ffs.%s", name);
	err = err ?: mkdir_in(g->dir, buf);
	if (err)
		goto fail;

	snprintf(func, sizeof(func), "%s/functions/ffs.%s", g->dir, name);
	snprintf(link, sizeof(link), "%s/configs/c.1/ffs.%s", g->dir, name);
	if (symlink(func, link) && errno != EEXIST) {
		err = -errno;
		goto fail;
	}
	if (mkdir(g->ffs, 0755) && errno != EEXIST) {
		err = -errno;
		goto fail;
	}
	if (mount(name, g->ffs, "functionfs", 0, NULL)) {
		err = -errno;
		goto fail;
	}
	g->mounted = 1;
	g->iso = !!cfg->iso;
	err = write_descriptors(g, cfg->bulk_packet ?: 64, g->iso);
	if (err)
		goto fail;
	return 0;
fail:
	nb_gadget_destroy(g);
	return err;
}

int nb_gadget_bind(struct nb_gadget *g, const char *udc)
{
	return write_file(g->dir, "UDC", udc);
}

int nb_gadget_unbind(struct nb_gadget *g)
{
	char cur[64] = "";
	char path[128];

	snprintf(path, sizeof(path), "%s/UDC", g->dir);
	if (read_file(path, cur, sizeof(cur)) || !cur[0])
		return 0;
	return write_file(g->dir, "UDC", "\n");
}

void nb_gadget_destroy(struct nb_gadget *g)
{
	char path[192];

	if (!g->dir[0])
		return;
	nb_gadget_unbind(g);
	if (g->ep_in >= 0)
		close(g->ep_in);
	if (g->ep_out >= 0)
		close(g->ep_out);
	if (g->ep0 >= 0)
		close(g->ep0);
	g->ep0 = g->ep_in = g->ep_out = -1;
	if (g->mounted)
		umount(g->ffs);
	g->mounted = 0;
	rmdir(g->ffs);
	snprintf(path, sizeof(path), "%s/configs/c.1/ffs.%s", g->dir, g->name);
	unlink(path);
	snprintf(path, sizeof(path), "%s/configs/c.1/strings/0x409", g->dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/configs/c.1", g->dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/functions/ffs.%s", g->dir, g->name);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/strings/0x409", g->dir);
	rmdir(path);
	rmdir(g->dir);
	g->dir[0] = '\0';
}

/* Look once for a host-side device with this id; 1 if found. */
static int find_host_device(uint16_t vendor, uint16_t product, char *out, size_t outlen)
{
	char path[PATH_MAX], v[16], p[16];
	struct dirent *de;
	int found = 0;
	DIR *dir;

	dir = opendir("/sys/bus/usb/devices");
	while (dir && !found && (de = readdir(dir))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, ':'))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/idVendor", de->d_name);
		if (read_file(path, v, sizeof(v)))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/idProduct", de->d_name);
		if (read_file(path, p, sizeof(p)))
			continue;
		if (strtoul(v, NULL, 16) == vendor && strtoul(p, NULL, 16) == product) {
			if (out)
				snprintf(out, outlen, "%s", de->d_name);
			found = 1;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

static void sleep_ms(int ms)
{
	const struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

int nb_gadget_wait_host_device(uint16_t vendor, uint16_t product,
			       int timeout_ms, char *out, size_t outlen)
{
	for (int waited = 0; waited <= timeout_ms; waited += 20) {
		if (find_host_device(vendor, product, out, outlen))
			return 0;
		sleep_ms(20);
	}
	return -ETIMEDOUT;
}

int nb_gadget_wait_host_gone(uint16_t vendor, uint16_t product, int timeout_ms)
{
	for (int waited = 0; waited <= timeout_ms; waited += 20) {
		if (!find_host_device(vendor, product, NULL, 0))
			return 0;
		sleep_ms(20);
	}
	return -ETIMEDOUT;
}
