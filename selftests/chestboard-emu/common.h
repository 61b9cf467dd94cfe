/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the emulator's tests share: starting the emulator and a host on it,
 * and building and reading frames with the codec.
 */
#ifndef EMU_TEST_COMMON_H
#define EMU_TEST_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <emuctl/emuctl.h>
#include <gadget/gadget.h>

#include "nb_codec.h"
#include "host.h"

#define ALL_BOARDS	((1ULL << NB_BOARDS) - 1)

/*
 * The emulator's arguments when a test gives none: -v, and a 0x14 that
 * waits up to 2 s for its frame rather than the host's 20 ms. A busy
 * machine starves the VM, and FunctionFS delivers a frame's data through
 * a workqueue: the data can come after its 0x14 by more than 20 ms, which
 * would fail tests that are about other things. For the same reason a
 * silent cycle holds its 0x14 for 2 s (EMU_TEST_SILENT_MS), against a host
 * that gives up after 40 ms, and a reset board is back after 3 s
 * (EMU_TEST_RECONNECT_MS), so that a test sees it gone first: a freeze of
 * the machine shorter than those cannot turn a silence into an answer, or
 * hide a board's absence.
 */
#define EMU_TEST_ACK_WAIT_MS	2000
#define EMU_TEST_SILENT_MS	2000
#define EMU_TEST_RECONNECT_MS	3000
#define EMU_TEST_GONE_MS	(EMU_TEST_RECONNECT_MS - 500)	/* to see it gone */
static const char *const emu_test_args[] = {
	"-v", "--ack-wait", "2000", "--silent-ms", "2000", "--reconnect-ms", "3000", NULL
};

/* Start the emulator with extra arguments (NULL-terminated) and claim it. */
static inline int emu_up(struct nb_emu *emu, struct host *h, const char *const *args)
{
	struct nb_emu_options o = { .args = args ? args : emu_test_args,
				    .timeout_ms = 20000 };
	int r = nb_emu_start(emu, &o);

	if (r)
		return r;
	r = host_open(h, emu->host_dev);
	if (r)
		nb_emu_stop(emu);
	return r;
}

static inline void emu_down(struct nb_emu *emu, struct host *h)
{
	host_close(h);
	nb_emu_stop(emu);
}

/* An OUT frame with these targets and this plan; its length or -errno. */
static inline int out_frame(uint8_t *buf, const struct naobody_actuators *a,
			    const struct nb_out_plan *p, uint32_t *crc)
{
	static const struct naobody_actuators none;

	return nb_out_cycle(buf, NB_FRAME_MAX, a ? a : &none, p, crc);
}

/* The usual cycle: every board's targets, the sensors. */
static inline int plain_frame(uint8_t *buf, uint32_t *crc)
{
	const struct nb_out_plan p = { .targets = ALL_BOARDS,
				       .requests = NB_REQ_SENSORS };

	return out_frame(buf, NULL, &p, crc);
}

/* Send one frame and run its cycle; 0 if every step worked. */
static inline int cycle_plan(struct host *h, const struct naobody_actuators *a,
			     const struct nb_out_plan *p, struct host_cycle *c,
			     uint32_t *crc)
{
	uint8_t buf[NB_FRAME_MAX];
	int n = out_frame(buf, a, p, crc);

	if (n < 0)
		return n;
	return host_cycle(h, buf, (size_t)n, c);
}

/* Call fn on every message of an answer; the message count or -errno. */
static inline int each_msg(const uint8_t *buf, size_t len,
			   void (*fn)(const struct nb_msg_info *, void *), void *ctx)
{
	struct naobody_sensors s;
	struct nb_msg_info info;
	struct nb_msg_iter it;
	struct nb_frame f;
	const uint8_t *m;
	size_t l;
	int r = nb_frame_parse(&f, buf, len, NB_FRAME_IN);

	if (r)
		return r;
	memset(&s, 0, sizeof(s));
	nb_msg_iter_init(&it, &f);
	while ((m = nb_msg_next(&it, &l)))
		if (nb_in_msg_decode(m, l, &s, &info) > 0)
			fn(&info, ctx);
	return f.count;
}

#endif
