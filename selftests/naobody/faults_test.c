// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every way the emulated board can misbehave is counted in the driver's
 * statistics and survived: once the board behaves again, answers flow. The
 * console check fails the run if any of it makes the kernel warn.
 *
 * The variants share one device and emulator (NBT_HARNESS_MAIN_SHARED):
 * each starts from a healthy exchange, compares counters before and
 * after, and ends with the board answering again, as the next one wants.
 * The first meets the driver's start-up, the others its running cycle.
 */
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "nbtest.h"

FIXTURE(fault) {
	struct nbt t;
};

FIXTURE_VARIANT(fault) {
	unsigned int misbehaviour;
	const char *counter;		/* the statistic that must grow */
	const char *counter2;		/* or this one (NULL: only the first) */
};

#define FAULT(_name, _m, _c, _c2)		\
	FIXTURE_VARIANT_ADD(fault, _name) {	\
		.misbehaviour = _m,		\
		.counter = _c,			\
		.counter2 = _c2,		\
	}

FAULT(bad_crc, NB_EMU_MISB_BAD_CRC, "crc_errors", NULL);
FAULT(bad_length_table, NB_EMU_MISB_BAD_TABLE, "bad_tables", NULL);
FAULT(messages_256, NB_EMU_MISB_MSGS256, "bad_tables", NULL);
/* The host's read fills at 512 bytes: a truncated frame, or babble. */
FAULT(over_long_answer, NB_EMU_MISB_OVERLONG, "crc_errors", "io_errors");
FAULT(short_answer, NB_EMU_MISB_SHORT, "crc_errors", "bad_tables");
FAULT(no_zero_length_packet, NB_EMU_MISB_NO_ZLP, "timeouts", NULL);
FAULT(stall_bulk_in, NB_EMU_MISB_STALL_IN, "stalls", NULL);
FAULT(stall_bulk_out, NB_EMU_MISB_STALL_OUT, "stalls", NULL);
FAULT(stall_acknowledge, NB_EMU_MISB_STALL_ACK, "stalls", NULL);
FAULT(nak_until_timeout, NB_EMU_MISB_NAK, "timeouts", NULL);
FAULT(silence, NB_EMU_MISB_SILENCE, "timeouts", NULL);
FAULT(wrong_acknowledge, NB_EMU_MISB_WRONG_ACK, "ack_mismatches", NULL);

FIXTURE_SETUP(fault)
{
	ASSERT_EQ(0, nbt_shared(&self->t));
}

FIXTURE_TEARDOWN(fault)
{
}

/* Records within which the answers must come: a hang's bound (about 24 s). */
#define GOOD_WITHIN	2000

static long long counted(const FIXTURE_VARIANT(fault) *v)
{
	return nbt_stat(v->counter) + (v->counter2 ? nbt_stat(v->counter2) : 0);
}

TEST_F_TIMEOUT(fault, is_counted_and_survived, NBT_TIMEOUT)
{
	struct naobody_record rec;
	long long before, answers;
	int good = 0;

	/*
	 * Start from an exchange that answers. Answers are counted, not runs
	 * of them: a loaded machine misses cycles of its own (the debug VM in
	 * CI: a quarter of them), so how long a run lasts says how busy the
	 * host is, not how the driver fares. GOOD_WITHIN records bound a
	 * driver that never answers.
	 */
	for (int i = 0; i < GOOD_WITHIN && good < 10; i++) {
		ASSERT_EQ(1, nb_next(self->t.dev, &rec, NBT_MS(2000)));
		good += !(rec.flags & NAOBODY_REC_NO_ANSWER);
	}
	ASSERT_EQ(10, good);
	before = counted(variant);
	/*
	 * The board misbehaves until the driver has counted it, then behaves
	 * again. Not for a fixed number of cycles: the emulator withdraws an
	 * answer still unread when the next frame comes, so a host that
	 * reads few of them (CI's debug tier once answered one cycle in
	 * seven) can miss every one of a handful of bad answers, and the
	 * counter stays put with nothing wrong in the driver.
	 */
	ASSERT_EQ(0, nb_emu_misbehave(&self->t.emu, variant->misbehaviour, -1, 0));
	for (int i = 0; i < 400 * nbt_time_scale() && counted(variant) < before + 1; i++)
		usleep(10000);
	ASSERT_EQ(0, nb_emu_cmd(&self->t.emu, NULL, 0, "misbehave off"));
	EXPECT_LT(before, counted(variant)) {
		TH_LOG("%s stayed at %lld", variant->counter, before);
		nbt_explain_link(&self->t, &rec);
	}

	/*
	 * From the records that follow the count: the ones published while
	 * we waited came before it, and a reader going through them would
	 * find the driver's count unmoved.
	 */
	answers = nbt_stat("answers");
	nbt_skip_to_newest(self->t.dev);
	good = 0;
	for (int i = 0; i < GOOD_WITHIN && good < 20; i++) {
		if (nb_next(self->t.dev, &rec, NBT_MS(2000)) != 1)
			break;
		good += !(rec.flags & NAOBODY_REC_NO_ANSWER);
	}
	EXPECT_EQ(20, good) {
		TH_LOG("%d good answers of %d records after %s", good, GOOD_WITHIN,
		       nb_emu_misb_name(variant->misbehaviour));
		nbt_explain_link(&self->t, &rec);
	}
	EXPECT_LT(answers, nbt_stat("answers")) {
		TH_LOG("the driver counted no answer while this test read %d good records", good);
		nbt_explain_link(&self->t, &rec);
	}
}

NBT_HARNESS_MAIN_SHARED(NULL, NULL)
