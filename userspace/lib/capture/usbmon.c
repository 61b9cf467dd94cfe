// SPDX-License-Identifier: GPL-2.0-only
/*
 * A usbmon capture, read through libpcap, turned into the chest board's
 * transfers.
 *
 * usbmon records every URB twice: its submission ('S', with the setup
 * packet and, for OUT transfers, the data) and its completion ('C', with
 * the status and, for IN transfers, the data). A transfer is the pair,
 * matched by the URB's id. libpcap hands us each record with usbmon's
 * header first (DLT_USB_LINUX: 48 bytes, DLT_USB_LINUX_MMAPPED: 64) in the
 * reading host's byte order: it swaps the header of a file written on a
 * host of the other order.
 *
 * The chest board is found by its device descriptor (idVendor ffff,
 * idProduct 0005 or 0006) in the capture, or given by bus and device
 * number when the capture starts after enumeration (naocap(8) writes them
 * into the archive's versions file). Every length is checked against what
 * the record holds: a record cut by the snap length counts as truncated
 * and its transfer is dropped, never read past.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>
#include <pcap/usb.h>

#include <capture/capture.h>

#define PENDING_MAX	256	/* submissions waiting for their completion */
#define DEVICES_MAX	32
#define EVENTS_MAX	(1u << 24)	/* a bound on memory: hours of cycles */

struct pending {
	uint64_t id;
	uint32_t busdev;
	uint8_t setup[8];
	bool has_setup;
	uint32_t len;
	uint8_t *data;		/* OUT data of the submission */
};

struct reader {
	struct cap_capture *c;
	struct pending pend[PENDING_MAX];
	unsigned int npend;
	struct { uint32_t busdev; uint16_t vid, pid; } devs[DEVICES_MAX];
	unsigned int ndevs;
};

bool cap_is_chest_board(uint16_t vid, uint16_t pid)
{
	return vid == 0xffff && (pid == 0x0005 || pid == 0x0006);
}

static struct pending *pending_take(struct reader *r, uint64_t id)
{
	for (unsigned int i = 0; i < r->npend; i++)
		if (r->pend[i].id == id)
			return &r->pend[i];
	return NULL;
}

static void pending_drop(struct reader *r, struct pending *p)
{
	free(p->data);
	*p = r->pend[--r->npend];
}

static int add_event(struct cap_capture *c, const struct cap_event *e,
		     const uint8_t *data)
{
	struct cap_event *n;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;

		if (cap > EVENTS_MAX) {
			snprintf(c->err, sizeof(c->err),
				 "more than %u transfers: split the capture", EVENTS_MAX);
			return -E2BIG;
		}
		n = realloc(c->ev, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->ev = n;
		c->cap = cap;
	}
	n = &c->ev[c->n];
	*n = *e;
	n->data = NULL;
	if (e->len) {
		n->data = malloc(e->len);
		if (!n->data)
			return -ENOMEM;
		memcpy(n->data, data, e->len);
	}
	c->n++;
	return 0;
}

static void note_device(struct reader *r, uint32_t busdev, const uint8_t *d,
			size_t len)
{
	uint16_t vid, pid;

	if (len < 12 || d[1] != 1)	/* bDescriptorType: DEVICE */
		return;
	vid = d[8] | d[9] << 8;
	pid = d[10] | d[11] << 8;
	for (unsigned int i = 0; i < r->ndevs; i++)
		if (r->devs[i].busdev == busdev) {
			r->devs[i].vid = vid;	/* re-enumerated: the newest */
			r->devs[i].pid = pid;
			return;
		}
	if (r->ndevs < DEVICES_MAX) {
		r->devs[r->ndevs].busdev = busdev;
		r->devs[r->ndevs].vid = vid;
		r->devs[r->ndevs].pid = pid;
		r->ndevs++;
	}
}

/* One usbmon record; hdr is already in our byte order. */
static int record(struct reader *r, const pcap_usb_header *h, uint64_t ts,
		  const uint8_t *data, size_t avail)
{
	struct cap_capture *c = r->c;
	uint32_t busdev = CAP_BUSDEV(h->bus_id, h->device_address);
	bool in = h->endpoint_number & URB_TRANSFER_IN;
	struct cap_event e = { .ts_ns = ts, .status = h->status, .busdev = busdev };
	struct pending *p;
	uint32_t len = h->data_flag ? 0 : h->data_len;
	int err = 0;

	if (len > avail) {		/* the snap length cut it */
		c->truncated++;
		if (h->event_type == URB_COMPLETE) {
			p = pending_take(r, h->id);
			if (p)
				pending_drop(r, p);
		}
		return 0;
	}
	if (h->transfer_type != URB_BULK && h->transfer_type != URB_CONTROL)
		return 0;
	if (h->event_type == URB_SUBMIT) {
		p = pending_take(r, h->id);
		if (p)			/* an id reused without completion */
			pending_drop(r, p);
		if (r->npend == PENDING_MAX) {
			c->unmatched++;
			return 0;
		}
		p = &r->pend[r->npend++];
		memset(p, 0, sizeof(*p));
		p->id = h->id;
		p->busdev = busdev;
		if (h->transfer_type == URB_CONTROL && !h->setup_flag) {
			memcpy(p->setup, &h->setup, 8);
			p->has_setup = true;
		}
		if (!in && len) {
			p->data = malloc(len);
			if (!p->data)
				return -ENOMEM;
			memcpy(p->data, data, len);
			p->len = len;
		}
		return 0;
	}
	if (h->event_type != URB_COMPLETE)
		return 0;		/* 'E': a submission error */
	p = pending_take(r, h->id);
	if (!p) {
		c->unmatched++;		/* the capture began after it */
		return 0;
	}
	if (h->transfer_type == URB_BULK) {
		if (in) {
			e.type = CAP_IN_FRAME;
			e.len = len;
			err = add_event(c, &e, data);
		} else {
			e.type = CAP_OUT_FRAME;
			e.len = p->len;
			err = add_event(c, &e, p->data);
		}
	} else if (p->has_setup) {
		uint8_t rt = p->setup[0], req = p->setup[1];
		uint16_t value = p->setup[2] | p->setup[3] << 8;

		if (rt == 0x80 && req == 6 && value == 0x0100 && h->status == 0)
			note_device(r, busdev, data, len);
		if ((rt & 0x60) == 0x40) {	/* vendor */
			e.type = (rt & 0x80) ? CAP_VENDOR_IN : CAP_VENDOR_OUT;
			e.request = req;
			e.len = (rt & 0x80) ? len : p->len;
			err = add_event(c, &e, (rt & 0x80) ? data : p->data);
		}
	}
	pending_drop(r, p);
	return err;
}

/* Keep only the chest board's events; say which devices there were. */
static int select_device(struct reader *r, uint32_t busdev)
{
	struct cap_capture *c = r->c;
	size_t o = 0, k = 0;
	int chest = -1;

	for (unsigned int i = 0; i < r->ndevs; i++) {
		int n = snprintf(c->devices + o, sizeof(c->devices) - o,
				 "%s%u:%u %04x:%04x", o ? ", " : "",
				 r->devs[i].busdev >> 16, r->devs[i].busdev & 0xffff,
				 r->devs[i].vid, r->devs[i].pid);

		if (n > 0 && (size_t)n < sizeof(c->devices) - o)
			o += n;
		if (busdev == CAP_ANY_DEVICE &&
		    cap_is_chest_board(r->devs[i].vid, r->devs[i].pid))
			chest = (int)i;
		if (busdev != CAP_ANY_DEVICE && r->devs[i].busdev == busdev)
			chest = (int)i;
	}
	if (busdev == CAP_ANY_DEVICE) {
		if (chest < 0) {
			snprintf(c->err, sizeof(c->err),
				 "no chest board (ffff:0006 or ffff:0005) enumerates in this capture%s%s; "
				 "give its bus and device (from the archive or lsusb)",
				 o ? "; devices seen: " : "", c->devices);
			return -ENODEV;
		}
		busdev = r->devs[chest].busdev;
	} else if (chest >= 0 && r->devs[chest].vid &&
		   !cap_is_chest_board(r->devs[chest].vid, r->devs[chest].pid)) {
		snprintf(c->err, sizeof(c->err),
			 "device %u:%u is %04x:%04x, not a chest board",
			 busdev >> 16, busdev & 0xffff, r->devs[chest].vid,
			 r->devs[chest].pid);
		return -ENODEV;
	}
	c->bus = busdev >> 16;
	c->dev = busdev & 0xffff;
	if (chest >= 0) {
		c->vid = r->devs[chest].vid;
		c->pid = r->devs[chest].pid;
	}
	for (size_t i = 0; i < c->n; i++) {
		if (c->ev[i].busdev == busdev) {
			c->ev[k++] = c->ev[i];
		} else {
			c->other++;
			free(c->ev[i].data);
		}
	}
	c->n = k;
	if (!k) {
		snprintf(c->err, sizeof(c->err),
			 "no transfers of device %u:%u in this capture",
			 busdev >> 16, busdev & 0xffff);
		return -ENODATA;
	}
	return 0;
}

static int read_all(pcap_t *pc, uint32_t busdev, struct cap_capture *c)
{
	struct reader *r = calloc(1, sizeof(*r));
	int dlt = pcap_datalink(pc), res, err = 0;
	size_t hlen;

	if (!r)
		return -ENOMEM;
	r->c = c;
	if (dlt == DLT_USB_LINUX) {
		hlen = sizeof(pcap_usb_header);
	} else if (dlt == DLT_USB_LINUX_MMAPPED) {
		hlen = sizeof(pcap_usb_header_mmapped);
	} else {
		snprintf(c->err, sizeof(c->err),
			 "not a usbmon capture: link type %s (%d), want USB_LINUX or USB_LINUX_MMAPPED",
			 pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "?",
			 dlt);
		free(r);
		return -EPROTONOSUPPORT;
	}
	for (;;) {
		struct pcap_pkthdr *ph;
		const u_char *pkt;
		pcap_usb_header h;

		res = pcap_next_ex(pc, &ph, &pkt);
		if (res == PCAP_ERROR_BREAK)
			break;
		if (res == PCAP_ERROR) {
			/* a capture cut short keeps what came before */
			c->cut = true;
			snprintf(c->err, sizeof(c->err), "%s", pcap_geterr(pc));
			break;
		}
		c->packets++;
		if (ph->caplen < hlen) {
			c->truncated++;
			continue;
		}
		memcpy(&h, pkt, sizeof(h));
		err = record(r, &h, (uint64_t)ph->ts.tv_sec * 1000000000ull + ph->ts.tv_usec,
			     pkt + hlen, ph->caplen - hlen);
		if (err)
			break;
	}
	while (r->npend)
		pending_drop(r, &r->pend[0]);
	if (!err && !c->packets) {
		snprintf(c->err, sizeof(c->err), "the capture holds no records");
		err = -ENODATA;
	}
	if (!err)
		err = select_device(r, busdev);
	free(r);
	return err;
}

static void cap_init(struct cap_capture *c)
{
	memset(c, 0, sizeof(*c));
}

int cap_read_pcap_file(FILE *f, uint32_t busdev, struct cap_capture *c)
{
	char eb[PCAP_ERRBUF_SIZE] = "";
	pcap_t *pc;
	int err;

	cap_init(c);
	pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, eb);
	if (!pc) {
		snprintf(c->err, sizeof(c->err), "not a readable pcap file: %s", eb);
		fclose(f);
		return -EBADMSG;
	}
	err = read_all(pc, busdev, c);
	pcap_close(pc);		/* closes f */
	return err;
}

int cap_read_pcap(const char *path, uint32_t busdev, struct cap_capture *c)
{
	FILE *f = fopen(path, "rb");

	if (!f) {
		int err = -errno;

		cap_init(c);
		snprintf(c->err, sizeof(c->err), "%s: %s", path, strerror(-err));
		return err;
	}
	return cap_read_pcap_file(f, busdev, c);
}

void cap_free(struct cap_capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->ev[i].data);
	free(c->ev);
	c->ev = NULL;
	c->n = c->cap = 0;
}
