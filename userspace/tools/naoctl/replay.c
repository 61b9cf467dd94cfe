// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoctl replay: a usbmon capture of a chest board, decoded through the
 * project's codec (the one naobody.ko runs): frames both ways, the 0x14
 * answers against the frames they acknowledge, the start-up's vendor
 * requests, handshake answers and id strings, with a count per message
 * type and, for everything that failed, the codec's reason.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nb_codec.h"
#include "naoctl.h"
#include "capture_cmds.h"

int naoctl_parse_busdev(const char *s, uint32_t *busdev)
{
	unsigned int bus, dev;
	char c;

	if (sscanf(s, "%u:%u%c", &bus, &dev, &c) != 2 || !bus || bus > 65535 ||
	    !dev || dev > 127)
		return -EINVAL;
	*busdev = CAP_BUSDEV(bus, dev);
	return 0;
}

int naoctl_capture_load(const char *path, uint32_t busdev, bool want_lola,
			struct naoctl_capture *nc)
{
	char pcap[4200], lola[4200], err[300];
	size_t n = strlen(path);
	int r;

	memset(nc, 0, sizeof(*nc));
	if (n > 5 && !strcmp(path + n - 5, ".pcap")) {
		snprintf(pcap, sizeof(pcap), "%s", path);
	} else {
		r = cap_archive_open(path, &nc->ar, err, sizeof(err));
		if (r) {
			fprintf(stderr, "%s: %s\n", naoctl_prog, err);
			return r;
		}
		nc->archive = true;
		cap_archive_path(&nc->ar, CAP_FILE_PCAP, pcap, sizeof(pcap));
		if (busdev == CAP_ANY_DEVICE)
			cap_archive_busdev(&nc->ar, &busdev);
	}
	r = cap_read_pcap(pcap, busdev, &nc->cap);
	if (r) {
		fprintf(stderr, "%s: %s: %s\n", naoctl_prog, pcap, nc->cap.err);
		return r;
	}
	if (nc->cap.cut)
		fprintf(stderr, "%s: %s: warning: %s; using the %llu records before it\n",
			naoctl_prog, pcap, nc->cap.err, (unsigned long long)nc->cap.packets);
	if (!want_lola)
		return 0;
	if (!nc->archive) {
		snprintf(nc->lola_err, sizeof(nc->lola_err),
			 "a bare pcap has no LoLA log: give the archive naocap wrote");
		return 0;
	}
	if (cap_archive_path(&nc->ar, CAP_FILE_LOLA, lola, sizeof(lola))) {
		snprintf(nc->lola_err, sizeof(nc->lola_err), "the archive has no " CAP_FILE_LOLA);
		return 0;
	}
	r = lola_log_read(lola, &nc->lola);
	if (r) {
		snprintf(nc->lola_err, sizeof(nc->lola_err), "%s", nc->lola.err);
		lola_log_free(&nc->lola);
		return 0;
	}
	if (!nc->lola.ns) {
		snprintf(nc->lola_err, sizeof(nc->lola_err), "the LoLA log holds no sensor packets");
		return 0;
	}
	nc->have_lola = true;
	return 0;
}

void naoctl_capture_free(struct naoctl_capture *nc)
{
	cap_free(&nc->cap);
	lola_log_free(&nc->lola);
	if (nc->archive)
		cap_archive_close(&nc->ar);
}

/* ------------------------------------------------------------------------ */

#define ERRNOS	140

struct tally {
	unsigned long long frames, empty, bad[ERRNOS];
	unsigned long long msgs[__NB_MSG_MAX], msg_err[ERRNOS];
	unsigned long long first_bad_frame, first_bad_msg;
	bool seen_bad_frame, seen_bad_msg;
	int bad_msg_err;
	u8 bad_msg[8];
	size_t bad_msg_len;
};

static void count_err(unsigned long long *t, int err)
{
	err = -err;
	t[err > 0 && err < ERRNOS ? err : 0]++;
}

static void print_errs(const char *what, const unsigned long long *t)
{
	for (int e = 0; e < ERRNOS; e++)
		if (t[e])
			printf("    %-10s %8llu  %s (%s)\n", what, t[e],
			       e ? strerror(e) : "other", e == EBADMSG ? "CRC" :
			       e == EPROTO ? "length table or ack byte" :
			       e == EMSGSIZE ? "size" : e == ENOENT ? "unknown kind, bus or address" :
			       e == ERANGE ? "a field out of range" : "codec");
}

static void frame(struct tally *t, const struct cap_event *e, bool out,
		  unsigned long long index, bool verbose)
{
	struct naobody_actuators a;
	struct naobody_sensors s;
	struct nb_msg_iter it;
	struct nb_msg_info info;
	struct nb_frame f;
	const u8 *m;
	size_t len;
	int r;

	t->frames++;
	if (!e->len) {
		t->empty++;
		return;
	}
	r = nb_frame_parse(&f, e->data, e->len, out ? NB_FRAME_OUT : NB_FRAME_IN);
	if (r) {
		count_err(t->bad, r);
		if (!t->seen_bad_frame)
			t->first_bad_frame = index;
		t->seen_bad_frame = true;
		return;
	}
	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	nb_msg_iter_init(&it, &f);
	while ((m = nb_msg_next(&it, &len))) {
		memset(&info, 0, sizeof(info));
		r = out ? nb_out_msg_decode(m, len, &a, &info) : nb_in_msg_decode(m, len, &s, &info);
		if (r < 0) {
			count_err(t->msg_err, r);
			if (!t->seen_bad_msg) {
				t->first_bad_msg = index;
				t->bad_msg_err = r;
				t->bad_msg_len = len;
				memcpy(t->bad_msg, m, len < 8 ? len : 8);
			}
			t->seen_bad_msg = true;
			continue;
		}
		if (info.type < __NB_MSG_MAX)
			t->msgs[info.type]++;
		if (verbose && info.type == NB_MSG_HANDSHAKE) {
			struct naobody_board b;

			if (!nb_handshake_parse(info.data, info.len, &b))
				printf("  handshake answer from %02x:%02x (%s): serial %08x, configuration version %u, hardware %u, type %u\n",
				       info.bus, info.address,
				       info.board < NB_BOARDS ? nb_board(info.board)->name : "?",
				       b.serial, b.config_version, b.hw_revision, b.board_type);
		}
		if (verbose && info.type == NB_MSG_ID_STRING)
			printf("  id string %u: %.*s\n", info.value, (int)info.len, info.data);
	}
}

static void print_tally(const char *name, const struct tally *t)
{
	printf("%s frames: %llu", name, t->frames);
	if (t->empty)
		printf(" (%llu empty)", t->empty);
	putchar('\n');
	print_errs("rejected", t->bad);
	if (t->seen_bad_frame)
		printf("    first rejected: frame %llu\n", t->first_bad_frame);
	for (int i = 0; i < __NB_MSG_MAX; i++)
		if (t->msgs[i])
			printf("    %-16s %8llu\n", nb_msg_layout(i)->name, t->msgs[i]);
	print_errs("failed", t->msg_err);
	if (t->seen_bad_msg) {
		printf("    first failed message: frame %llu, %zu bytes, %s:", t->first_bad_msg,
		       t->bad_msg_len, strerror(-t->bad_msg_err));
		for (size_t i = 0; i < t->bad_msg_len && i < 8; i++)
			printf(" %02x", t->bad_msg[i]);
		printf("%s\n", t->bad_msg_len > 8 ? " ..." : "");
	}
}

int replay_main(int argc, char **argv)
{
	static struct tally in, out;
	uint32_t busdev = CAP_ANY_DEVICE, last_crc = 0;
	unsigned long long vreq[256] = { 0 }, acks_ok = 0, acks_bad = 0, bulk_err = 0;
	bool have_out = false, verbose = false;
	struct naoctl_capture nc;
	int c;

	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	while ((c = getopt(argc, argv, "D:vh")) != -1) {
		switch (c) {
		case 'D':
			if (naoctl_parse_busdev(optarg, &busdev)) {
				fprintf(stderr, "%s: -D wants BUS:DEVICE, as lsusb prints them\n", naoctl_prog);
				return 2;
			}
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
		default:
			printf("Usage: %s replay [-D BUS:DEVICE] [-v] CAPTURE\n\n"
			       "Decodes a usbmon capture of a chest board (a .pcap, or the archive\n"
			       "naocap(8) wrote) through the project's codec: frames both ways, the\n"
			       "0x14 answers, the start-up's requests, with a count per message type\n"
			       "and the codec's reason for everything that failed. The chest board is\n"
			       "found by its device descriptor, the archive's versions file, or -D.\n"
			       "-v also prints the handshake answers and id strings.\n", naoctl_prog);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "%s replay: one CAPTURE, please (see -h)\n", naoctl_prog);
		return 2;
	}
	if (naoctl_capture_load(argv[optind], busdev, false, &nc)) {
		naoctl_capture_free(&nc);
		return 1;
	}
	for (size_t i = 0; i < nc.cap.n; i++) {
		const struct cap_event *e = &nc.cap.ev[i];

		switch (e->type) {
		case CAP_OUT_FRAME:
			if (e->status) {
				bulk_err++;
				break;
			}
			frame(&out, e, true, out.frames, verbose);
			if (e->len >= NB_FRAME_CRC_LEN) {
				last_crc = (u32)e->data[0] << 24 | e->data[1] << 16 | e->data[2] << 8 | e->data[3];
				have_out = true;
			}
			break;
		case CAP_IN_FRAME:
			if (e->status && !e->len) {
				bulk_err++;
				break;
			}
			frame(&in, e, false, in.frames, verbose);
			break;
		case CAP_VENDOR_IN:
		case CAP_VENDOR_OUT:
			vreq[e->request]++;
			if (e->request == 0x14 && have_out && !e->status) {
				if (nb_ack_check(e->data, e->len, last_crc))
					acks_bad++;
				else
					acks_ok++;
			}
			if (e->request == 0x02 && e->len == 4)
				printf("chest board version (0x02): %02x %02x %02x %02x\n",
				       e->data[0], e->data[1], e->data[2], e->data[3]);
			break;
		}
	}
	printf("capture: %llu usbmon records; the chest board is %u:%u",
	       (unsigned long long)nc.cap.packets, nc.cap.bus, nc.cap.dev);
	if (nc.cap.vid)
		printf(" (%04x:%04x)", nc.cap.vid, nc.cap.pid);
	printf("; %llu records of other devices", (unsigned long long)nc.cap.other);
	if (nc.cap.truncated)
		printf("; %llu cut by the snap length", (unsigned long long)nc.cap.truncated);
	putchar('\n');
	print_tally("OUT", &out);
	print_tally("IN", &in);
	printf("vendor requests:");
	for (int r = 0; r < 256; r++)
		if (vreq[r])
			printf(" 0x%02x x%llu", r, vreq[r]);
	printf("\n0x14 answers: %llu match the frame they follow, %llu do not\n", acks_ok, acks_bad);
	if (bulk_err)
		printf("bulk transfers that failed or timed out: %llu\n", bulk_err);
	naoctl_capture_free(&nc);
	return 0;
}
