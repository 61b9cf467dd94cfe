// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbcapture's readers on hand-made input, under ASan and UBSan: usbmon
 * records written through libpcap (submission and completion pairs, a
 * record cut by the snap length, a completion without its submission,
 * another device), pcaps of the wrong kind, layout lines, LoLA logs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>
#include <pcap/usb.h>

#include "kselftest_harness.h"
#include <capture/capture.h>

struct writer {
	pcap_t *pd;
	pcap_dumper_t *d;
	char path[64];
	uint64_t ts;
};

static void w_open(struct writer *w, int dlt, int snap)
{
	snprintf(w->path, sizeof(w->path), "/tmp/reader_test.XXXXXX");
	close(mkstemp(w->path));
	w->pd = pcap_open_dead(dlt, snap);
	w->d = pcap_dump_open(w->pd, w->path);
	w->ts = 1000000;
}

/* one usbmon record; caplen may be shorter than the data (a cut) */
static void w_rec(struct writer *w, uint64_t id, char ev, uint8_t type, uint8_t ep,
		  uint8_t dev, const uint8_t *setup, const uint8_t *data, uint32_t len,
		  uint32_t caplen)
{
	uint8_t pkt[sizeof(pcap_usb_header_mmapped) + 512];
	pcap_usb_header_mmapped h = {
		.id = id, .event_type = (uint8_t)ev, .transfer_type = type,
		.endpoint_number = ep, .device_address = dev, .bus_id = 1,
		.setup_flag = setup ? 0 : '-', .data_flag = data ? 0 : '<',
		.urb_len = len, .data_len = data ? len : 0,
	};
	struct pcap_pkthdr ph = { .ts = { .tv_sec = 1, .tv_usec = (long)w->ts++ } };

	if (setup)
		memcpy(&h.s.setup, setup, 8);
	memcpy(pkt, &h, sizeof(h));
	if (data)
		memcpy(pkt + sizeof(h), data, len);
	ph.len = (uint32_t)sizeof(h) + (data ? len : 0);
	ph.caplen = caplen ? (uint32_t)sizeof(h) + caplen : ph.len;
	pcap_dump((u_char *)w->d, &ph, pkt);
}

static void w_close(struct writer *w)
{
	pcap_dump_close(w->d);
	pcap_close(w->pd);
}

static void descriptor(struct writer *w, uint8_t dev, uint16_t vid, uint16_t pid)
{
	static const uint8_t setup[8] = { 0x80, 6, 0, 1, 0, 0, 18, 0 };
	uint8_t d[18] = { 18, 1, 0, 2, 0, 0, 0, 64, (uint8_t)vid, (uint8_t)(vid >> 8),
			  (uint8_t)pid, (uint8_t)(pid >> 8) };

	w_rec(w, 100 + dev, 'S', URB_CONTROL, 0x80, dev, setup, NULL, 18, 0);
	w_rec(w, 100 + dev, 'C', URB_CONTROL, 0x80, dev, NULL, d, 18, 0);
}

TEST(pairs_and_devices)
{
	static const uint8_t frame[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t ack_setup[8] = { 0xc0, 0x14, 0, 0, 0, 0, 5, 0 };
	static const uint8_t ack[5] = { 0x2a, 1, 2, 3, 4 };
	struct cap_capture c;
	struct writer w;

	w_open(&w, DLT_USB_LINUX_MMAPPED, 65535);
	descriptor(&w, 3, 0xffff, 0x0006);
	descriptor(&w, 4, 0x046d, 0xc52b);
	w_rec(&w, 1, 'S', URB_BULK, 0x01, 3, NULL, frame, 8, 0);
	w_rec(&w, 1, 'C', URB_BULK, 0x01, 3, NULL, NULL, 8, 0);
	w_rec(&w, 2, 'S', URB_CONTROL, 0x80, 3, ack_setup, NULL, 5, 0);
	w_rec(&w, 2, 'C', URB_CONTROL, 0x80, 3, NULL, ack, 5, 0);
	w_rec(&w, 3, 'S', URB_BULK, 0x81, 4, NULL, NULL, 8, 0);	/* the mouse */
	w_rec(&w, 3, 'C', URB_BULK, 0x81, 4, NULL, frame, 8, 0);
	w_rec(&w, 9, 'C', URB_BULK, 0x81, 3, NULL, frame, 8, 0);	/* no 'S' */
	w_rec(&w, 5, 'S', URB_BULK, 0x81, 3, NULL, NULL, 8, 0);
	w_rec(&w, 5, 'C', URB_BULK, 0x81, 3, NULL, frame, 8, 4);	/* cut */
	w_close(&w);

	ASSERT_EQ(0, cap_read_pcap(w.path, CAP_ANY_DEVICE, &c));
	EXPECT_EQ(3, c.dev);
	EXPECT_EQ(0x0006, c.pid);
	ASSERT_EQ(2, c.n);
	EXPECT_EQ(CAP_OUT_FRAME, c.ev[0].type);
	EXPECT_EQ(8, c.ev[0].len);
	EXPECT_EQ(0, memcmp(c.ev[0].data, frame, 8));
	EXPECT_EQ(CAP_VENDOR_IN, c.ev[1].type);
	EXPECT_EQ(0x14, c.ev[1].request);
	EXPECT_EQ(0, memcmp(c.ev[1].data, ack, 5));
	EXPECT_EQ(1, c.unmatched);
	EXPECT_EQ(1, c.truncated);
	EXPECT_EQ(1, c.other);		/* the mouse's bulk IN; descriptors are no transfers */
	cap_free(&c);

	/* asked for the mouse by address: refused, it is not a chest board */
	EXPECT_EQ(-ENODEV, cap_read_pcap(w.path, CAP_BUSDEV(1, 4), &c));
	EXPECT_NE(NULL, strstr(c.err, "046d:c52b, not a chest board"));
	cap_free(&c);
	unlink(w.path);
}

TEST(wrong_kind_and_empty)
{
	struct cap_capture c;
	struct writer w;

	w_open(&w, DLT_EN10MB, 65535);
	w_close(&w);
	EXPECT_EQ(-EPROTONOSUPPORT, cap_read_pcap(w.path, CAP_ANY_DEVICE, &c));
	EXPECT_NE(NULL, strstr(c.err, "not a usbmon capture"));
	cap_free(&c);
	unlink(w.path);

	w_open(&w, DLT_USB_LINUX_MMAPPED, 65535);
	w_close(&w);
	EXPECT_EQ(-ENODATA, cap_read_pcap(w.path, CAP_ANY_DEVICE, &c));
	cap_free(&c);
	unlink(w.path);

	EXPECT_EQ(-ENOENT, cap_read_pcap("/nonexistent/capture.pcap", CAP_ANY_DEVICE, &c));
	cap_free(&c);
}

TEST(record_shorter_than_header)
{
	struct cap_capture c;
	struct writer w;
	struct pcap_pkthdr ph = { .caplen = 10, .len = 10 };
	uint8_t junk[10] = { 0 };

	w_open(&w, DLT_USB_LINUX_MMAPPED, 65535);
	descriptor(&w, 3, 0xffff, 0x0006);
	pcap_dump((u_char *)w.d, &ph, junk);
	w_close(&w);
	ASSERT_EQ(-ENODATA, cap_read_pcap(w.path, CAP_ANY_DEVICE, &c));	/* no transfers */
	EXPECT_EQ(1, c.truncated);
	cap_free(&c);
	unlink(w.path);
}

TEST(layout_lines)
{
	struct layout l;
	char err[200];
	const struct lay_field *f;

	layout_init(&l);
	EXPECT_EQ(0, layout_parse_line(&l, "field imu.acc_x 9 2 s le 981/819200\n", err, sizeof(err)));
	EXPECT_EQ(0, layout_parse_line(&l, "board LFoot 1 0x34", err, sizeof(err)));
	EXPECT_EQ(0, layout_parse_line(&l, "crc.cover zeroed", err, sizeof(err)));
	EXPECT_EQ(0, layout_parse_line(&l, "# a comment", err, sizeof(err)));
	f = layout_field_c(&l, "imu.acc_x");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(9, f->offset);
	EXPECT_TRUE(f->little);
	EXPECT_EQ(819200, f->den);
	EXPECT_EQ(LAY_CRC_ZEROED, l.crc_cover);
	EXPECT_EQ(-EINVAL, layout_parse_line(&l, "field x 3 3 s le 1/1", err, sizeof(err)));
	EXPECT_EQ(-EINVAL, layout_parse_line(&l, "field x 3 2 s middle 1/1", err, sizeof(err)));
	EXPECT_EQ(-EINVAL, layout_parse_line(&l, "field x 3 2 s be 1/0", err, sizeof(err)));
	EXPECT_EQ(-EINVAL, layout_parse_line(&l, "board X 7 0x10", err, sizeof(err)));
	EXPECT_EQ(-EINVAL, layout_parse_line(&l, "table backwards", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "table backwards"));
}

TEST(field_values)
{
	static const uint8_t m[] = { 2, 2, 9, 0xff, 0xfe, 0x01, 0x80 };
	struct lay_field f = { .offset = 3, .width = 2, .is_signed = true };
	bool ok;

	EXPECT_EQ(-2, lay_get_value(m, sizeof(m), &f, 0, &ok));
	EXPECT_TRUE(ok);
	f.little = true;
	EXPECT_EQ((int16_t)0xfeff, lay_get_value(m, sizeof(m), &f, 0, &ok));
	f.is_signed = false;
	f.offset = 5;
	EXPECT_EQ(0x8001, lay_get_value(m, sizeof(m), &f, 0, &ok));
	f.offset = 6;		/* one byte past the message */
	lay_get_value(m, sizeof(m), &f, 0, &ok);
	EXPECT_FALSE(ok);
}

TEST(lola_log)
{
	char path[] = "/tmp/lola_test.XXXXXX";
	struct lola_sensors s = { .acc = { 1, 2, -9.81f }, .status = { 3 } };
	struct lola_command c = { .chest = { 0.5f, 0, 1 }, .sonar = { true, false } };
	uint8_t buf[LOLA_PACKET_MAX];
	struct lola_log log;
	size_t n;
	FILE *f;

	close(mkstemp(path));
	f = fopen(path, "wb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, lola_log_open(f));
	n = lola_sensors_encode(&s, "P0000074A05S93M00061", buf, sizeof(buf));
	EXPECT_EQ(896, n);	/* LoLA's packet size (lola-clients.md) */
	ASSERT_EQ(0, lola_log_append(f, 5, 'S', buf, n));
	n = lola_command_encode(&c, buf, sizeof(buf));
	EXPECT_EQ(786, n);	/* the 11-key command map */
	ASSERT_EQ(0, lola_log_append(f, 6, 'C', buf, n));
	ASSERT_EQ(0, lola_log_append(f, 7, 'S', "\x81", 1));	/* a map cut short */
	fclose(f);
	ASSERT_EQ(0, lola_log_read(path, &log));
	ASSERT_EQ(1, log.ns);
	ASSERT_EQ(1, log.nc);
	EXPECT_EQ(1, log.bad);
	EXPECT_EQ(5, log.s[0].ts_ns);
	EXPECT_EQ(-9.81f, log.s[0].acc[2]);
	EXPECT_EQ(3, log.s[0].status[0]);
	EXPECT_EQ(0.5f, log.c[0].chest[0]);
	EXPECT_TRUE(log.c[0].sonar[0]);
	EXPECT_FALSE(log.c[0].sonar[1]);
	lola_log_free(&log);

	/* a damaged record header: an error that says where */
	{
		static const uint8_t bad[16] = { [8] = 0xff, 0xff, 0xff, 0xff, 'S' };

		f = fopen(path, "ab");
		fwrite(bad, 1, sizeof(bad), f);
		fclose(f);
	}
	EXPECT_EQ(-EBADMSG, lola_log_read(path, &log));
	EXPECT_NE(NULL, strstr(log.err, "damaged after 2 packets"));
	lola_log_free(&log);
	unlink(path);
}

/* A container that claims more elements than bytes follow: refused unread */
TEST(lola_packet_claiming_too_much)
{
	static const uint8_t huge_map[] = { 0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'x', 0 };
	static const uint8_t huge_array[] = { 0x81, 0xa1, 'x', 0xdd, 0x40, 0, 0, 0, 0 };
	struct lola_sensors s;

	EXPECT_EQ(-EBADMSG, lola_sensors_decode(huge_map, sizeof(huge_map), &s));
	EXPECT_EQ(-EBADMSG, lola_sensors_decode(huge_array, sizeof(huge_array), &s));
}

TEST_HARNESS_MAIN
