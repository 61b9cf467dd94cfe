/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naoctl replay and verify: a recording of a real chest board (naocap(8))
 * read through the project's codec, and the provisional layout checked
 * against it. They need no device.
 *
 *   replay.c          naoctl replay: decode a capture, count, say what failed
 *   verify.c          naoctl verify: the table, the layout file, the patch
 *   verify_frames.c   the CRC, the 0x14 answer, the length table
 *   verify_fields.c   board addresses and fields against LoLA's values
 */
#ifndef NAOCTL_CAPTURE_CMDS_H
#define NAOCTL_CAPTURE_CMDS_H

#include <capture/capture.h>

int replay_main(int argc, char **argv);
int verify_main(int argc, char **argv);

/* A capture and, if there is one, its LoLA log, from a pcap or an archive */
struct naoctl_capture {
	struct cap_archive ar;
	bool archive;
	struct cap_capture cap;
	struct lola_log lola;
	bool have_lola;
	char lola_err[300];
};

int naoctl_capture_load(const char *path, uint32_t busdev, bool want_lola,
			struct naoctl_capture *nc);
void naoctl_capture_free(struct naoctl_capture *nc);
int naoctl_parse_busdev(const char *s, uint32_t *busdev);

#endif
