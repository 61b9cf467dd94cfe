// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the n_robot framers, built once per framing
 * (-DFUZZ_CM5 or -DFUZZ_PAROL6 through the wrapper files).
 *
 * Input: byte 0 picks the chunk size and whether the tty flags some bytes,
 * byte 1 the CM-5 read format size, the rest is the line. For the CM-5 the
 * input is also tried as a packet to send. Checked on every run: every
 * frame emitted is valid for its protocol and no longer than its maximum;
 * every byte is accounted for; the engine's indices stay in bounds.
 */
#include <stdlib.h>
#include <string.h>

#include <n_robot/cm5.h>
#include <n_robot/parol6.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a run emitted: a count and a hash of every byte, in order. */
static u64 emitted, hash;

static void check_frame(void *ctx, const u8 *p, size_t len)
{
	struct nrf *f = ctx;
	size_t i;

	emitted++;
	for (i = 0; i < len; i++)
		hash = (hash ^ p[i]) * 0x100000001b3ULL;
	hash ^= len;

	if (len == 0 || len > f->proto->max_frame)
		abort();
#ifdef FUZZ_CM5
	if (p[0] != N_ROBOT_CM5_STATUS && p[0] != N_ROBOT_CM5_DATA)
		abort();
	if (cm5_checksum(p, len - 1) != p[len - 1])
		abort();
	if (p[0] == N_ROBOT_CM5_STATUS && len != 7)
		abort();
#else
	if (len != 60 || p[0] != 0xFF || p[1] != 0xFF || p[2] != 0xFF ||
	    p[3] != 56 || p[58] != 1 || p[59] != 2)
		abort();
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nrf f;
#ifdef FUZZ_CM5
	static struct cm5_state cm5;
#endif
	static u8 flags[4096];
	size_t chunk, i, n;
	bool use_flags;

	if (size < 2)
		return 0;
#ifdef FUZZ_CM5
	nrf_init(&f, &cm5_proto, check_frame, &f);
	cm5_state_init(&cm5, &f);
	if (data[1]) {
		struct n_robot_cm5_entry e[N_ROBOT_CM5_MAX_DYNAMIXELS];
		u32 count = 1 + data[1] % N_ROBOT_CM5_MAX_DYNAMIXELS;

		for (i = 0; i < count; i++) {
			e[i].id = (u8)i;
			e[i].start = (u8)(data[1] % 40);
			e[i].num = (u8)(1 + data[1] % 15);
			e[i].pad = 0;
		}
		if (cm5_set_format(&cm5, &f, N_ROBOT_CM5_FORMAT_READ, e, count))
			abort();
	}
	/* The whole input as a packet to send: check, then learn from it. */
	if (size - 2 <= N_ROBOT_CM5_MAX_TX_FRAME &&
	    !cm5_tx_check(&cm5, data + 2, size - 2)) {
		cm5_tx_commit(&cm5, &f, data + 2, size - 2);
		if (f.cm5.data_len > N_ROBOT_CM5_MAX_FRAME - 7)
			abort();
	}
#else
	nrf_init(&f, &parol6_proto, check_frame, &f);
	if (!parol6_tx_check(data + 2, size - 2) && size - 2 != 56)
		abort();
#endif
	chunk = 1 + (data[0] & 0x3f);
	use_flags = data[0] & 0x80;
	data += 2;
	size -= 2;
	/* Differential: all at once (the in-place fast path) first... */
	if (!use_flags) {
		static struct nrf whole;
		u64 e, h;

		whole = f;
		emitted = 0;
		hash = 0;
		nrf_feed(&whole, data, NULL, size);
		e = emitted;
		h = hash;
		/* ...then byte by byte (the buffered path only): the same. */
		emitted = 0;
		hash = 0;
		for (i = 0; i < size; i++)
			nrf_feed(&f, data + i, NULL, 1);
		if (emitted != e || hash != h ||
		    memcmp(&whole.cnt, &f.cnt, sizeof(f.cnt)) ||
		    nrf_pending(&whole) != nrf_pending(&f))
			abort();
		nrf_reset(&f);
		nrf_reset(&whole);
		if (f.cnt.raw_bytes != f.cnt.frame_bytes + f.cnt.dropped_bytes)
			abort();
		return 0;
	}
	for (i = 0; i < size; i += n) {
		n = size - i < chunk ? size - i : chunk;
		if (use_flags) {
			memset(flags, 0, n);
			/* flag a byte whenever the data says 0x5A */
			for (size_t j = 0; j < n; j++)
				flags[j] = data[i + j] == 0x5A;
		}
		nrf_feed(&f, data + i, use_flags ? flags : NULL, n);
		if (f.head > f.tail || f.tail > NRF_BUF_SIZE ||
		    f.tail - f.head >= f.proto->max_frame)
			abort();
	}
	if (f.cnt.raw_bytes != f.cnt.frame_bytes + f.cnt.dropped_bytes +
	    nrf_pending(&f))
		abort();
	nrf_reset(&f);
	if (f.cnt.raw_bytes != f.cnt.frame_bytes + f.cnt.dropped_bytes)
		abort();
	return 0;
}
