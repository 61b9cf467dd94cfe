// SPDX-License-Identifier: GPL-2.0-only
/*
 * nb-codec-bench: what decoding one answer frame costs, against zlib's
 * crc32 of the same frame.
 *
 * The frame is 512 bytes (a full bulk IN read) of about 40 messages: the
 * whole body's data, an acknowledge from every board, a preference piece,
 * a handshake answer, an id string and an unnamed device's data. Decoding
 * it (nb_in_frame_decode(): CRC, length table, every message into struct
 * naobody_sensors) is timed, then zlib's crc32() over the 512 bytes, and
 * both are counted in instructions under callgrind: the program runs
 * itself under valgrind for that. Target: decode at most 2x the CRC.
 *
 * Usage: nb-codec-bench [iterations]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <valgrind/callgrind.h>
#include <zlib.h>

#include "codec_test.h"

#define FRAME_LEN	NB_IN_FRAME_MAX

static uint8_t frame[FRAME_LEN];
static unsigned int frame_msgs;

static void make_frame(void)
{
	static const uint8_t answer[NB_HANDSHAKE_LEN] = { [16] = 1, 2, 3, 4, 10 };
	static const uint8_t piece[NB_PREFS_PIECE] = "a preference piece, 32 bytes...";
	struct nb_msg_info info = { .board = NB_NO_BOARD };
	struct naobody_sensors s;
	struct nb_frame_builder b;
	uint64_t st = 1;
	unsigned int i;
	uint8_t *m;
	int fill;

	ct_random_sensors(&s, &st);
	nb_frame_begin(&b, frame, sizeof(frame), NB_FRAME_IN);
	nb_in_body(&b, &s, CT_ALL_BOARDS);
	for (i = 0; i < NB_BOARDS; i++) {
		info = (struct nb_msg_info){ .type = NB_MSG_ACK, .board = i };
		nb_in_msg_encode(&b, &info, &s);
	}
	info = (struct nb_msg_info){ .type = NB_MSG_PREF_PIECE, .piece = 7,
				     .data = piece, .len = sizeof(piece),
				     .board = NB_NO_BOARD };
	nb_in_msg_encode(&b, &info, &s);
	info = (struct nb_msg_info){ .type = NB_MSG_HANDSHAKE, .board = 4,
				     .data = answer, .len = sizeof(answer) };
	nb_in_msg_encode(&b, &info, &s);
	info = (struct nb_msg_info){ .type = NB_MSG_ID_STRING, .value = 3,
				     .data = (const uint8_t *)"P0000074A05S93M00061",
				     .len = 20, .board = NB_NO_BOARD };
	nb_in_msg_encode(&b, &info, &s);
	/* an unnamed device (02 02 50) fills the frame to 512 bytes */
	fill = FRAME_LEN - NB_FRAME_CRC_LEN - b.end - b.count - 1;
	if (fill < NB_MSG_HDR || fill > NB_MSG_MAX) {
		fprintf(stderr, "frame layout: %d bytes to fill\n", fill);
		exit(1);
	}
	m = nb_frame_add(&b, fill);
	memset(m, 0, fill);
	m[0] = 0x02;
	m[1] = 0x02;
	m[2] = 0x50;
	frame_msgs = b.count;
	if (nb_frame_end(&b, NULL) != FRAME_LEN) {
		fprintf(stderr, "frame is not %d bytes\n", FRAME_LEN);
		exit(1);
	}
}

static volatile uint32_t sink;

static void decode_once(void)
{
	static struct naobody_sensors s;
	struct nb_in_stats st;

	sink += nb_in_frame_decode(frame, FRAME_LEN, &s, &st);
}

static void crc_once(void)
{
	sink += crc32(0, frame, FRAME_LEN);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The best of 7 rounds of n calls, in ns per call: the machine is noisy. */
static double time_ns(void (*fn)(void), long n)
{
	double best = 1e30, t;
	long i;
	int r;

	for (r = 0; r < 7; r++) {
		t = now_ns();
		for (i = 0; i < n; i++)
			fn();
		t = (now_ns() - t) / n;
		if (t < best)
			best = t;
	}
	return best;
}

/* Under callgrind: one call of each, each in its own dump. */
static int callgrind_child(void)
{
	decode_once();		/* warm: lazy binding, caches */
	crc_once();
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	decode_once();
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("decode");
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
	crc_once();
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("crc");
	return 0;
}

static long totals(const char *path)
{
	char line[256];
	long n = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "totals:", 7) || !strncmp(line, "summary:", 8))
			n = atol(strchr(line, ':') + 1);
	fclose(f);
	return n;
}

/* Run ourselves under callgrind; 0 and the two counts, or -1. */
static int callgrind(const char *self, long *decode, long *crc)
{
	char dir[] = "/tmp/nb-codec-bench.XXXXXX", out[300], path[320];
	int status;
	pid_t pid;

	if (!mkdtemp(dir))
		return -1;
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg.out", dir);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execlp("valgrind", "valgrind", "--tool=callgrind",
		       "--collect-atstart=no", out, self, "--callgrind-child",
		       (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	snprintf(path, sizeof(path), "%s/cg.out.1", dir);
	*decode = totals(path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cg.out.2", dir);
	*crc = totals(path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cg.out", dir);
	unlink(path);
	rmdir(dir);
	return *decode > 0 && *crc > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	long n = 200000, ins_decode, ins_crc;
	struct naobody_sensors s;
	struct nb_in_stats st;
	double t_decode, t_crc;

	make_frame();
	if (argc > 1 && !strcmp(argv[1], "--callgrind-child"))
		return callgrind_child();
	if (argc > 1)
		n = atol(argv[1]);
	if (nb_in_frame_decode(frame, FRAME_LEN, &s, &st) != (int)frame_msgs ||
	    st.decoded + 1U != frame_msgs) {
		fprintf(stderr, "the frame does not decode as intended\n");
		return 1;
	}

	t_decode = time_ns(decode_once, n);
	t_crc = time_ns(crc_once, n);
	printf("frame: %d bytes, %u messages (%u decoded, 1 unknown device)\n",
	       FRAME_LEN, frame_msgs, st.decoded);
	printf("decode (nb_in_frame_decode, CRC included): %8.0f ns\n", t_decode);
	printf("zlib crc32 of the frame:                   %8.0f ns\n", t_crc);
	printf("ratio (ns):            %.2f  (target <= 2)\n", t_decode / t_crc);
	if (callgrind(argv[0], &ins_decode, &ins_crc)) {
		printf("callgrind: could not run valgrind; no instruction counts\n");
		return 0;
	}
	printf("decode:                %8ld instructions (callgrind)\n", ins_decode);
	printf("zlib crc32:            %8ld instructions (callgrind)\n", ins_crc);
	printf("ratio (instructions):  %.2f  (target <= 2)\n",
	       (double)ins_decode / ins_crc);
	return 0;
}
