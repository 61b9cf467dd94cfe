// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobody.ko end to end against the chest board emulator: binding, the
 * start-up, the cycle's records, sensors, read and poll.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "nbtest.h"

/*
 * How much slower than the stock kernel the VM runs: 3 on the debug kernel
 * (KASAN, lockdep, kmemleak), where fewer cycles make their 20 ms steps.
 */
static int time_scale(void)
{
	const char *s = getenv("NBVM_TIME_SCALE");

	return s && atoi(s) > 0 ? atoi(s) : 1;
}

FIXTURE(body) {
	struct nbt t;
};

FIXTURE_SETUP(body)
{
	ASSERT_EQ(0, nbt_up(&self->t, NULL, NULL));
}

FIXTURE_TEARDOWN(body)
{
	nbt_down(&self->t);
}

TEST_F(body, probe_reads_version_and_records_flow)
{
	const struct naobody_info *info = nb_info(self->t.dev);
	struct naobody_record rec;
	uint64_t last = 0;

	EXPECT_EQ(0x00020029u, info->chest_version);
	EXPECT_EQ(12000000u, info->period_ns);
	EXPECT_EQ(1024u, info->record_count);
	for (int i = 0; i < 50; i++) {
		ASSERT_EQ(1, nb_next(self->t.dev, &rec, 2000));
		if (i)
			EXPECT_GT(rec.cycle, last);
		last = rec.cycle;
		EXPECT_GE(rec.in_complete_ns, rec.out_submit_ns);
	}
	/* Once the exchange runs, answers come back. */
	EXPECT_EQ(0u, rec.flags & NAOBODY_REC_NO_ANSWER);
	EXPECT_GT(nbt_stat("answers"), 40 / time_scale());
	EXPECT_EQ(0, nbt_stat("crc_errors"));
	EXPECT_EQ(0, nbt_stat("bad_tables"));
}

TEST_F(body, startup_accepts_version_10_boards_and_reads_prefs)
{
	char id[NAOBODY_CHEST_ID_LEN + 1];
	uint32_t flags = 0;
	uint8_t block[NAOBODY_PREFS_SIZE];
	struct nb_calibration cal;

	/* Opened as the module loaded: the start-up is still running. */
	EXPECT_EQ(0u, nb_info(self->t.dev)->flags & NAOBODY_INFO_READY);
	EXPECT_EQ(0u, nb_calibration(self->t.dev)->present & NB_CAL_BODY_ID);
	ASSERT_EQ(1, nb_wait_ready(self->t.dev, 20000));
	ASSERT_EQ(0, nbt_wait_boards(&self->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 15000));
	/* The same open device picks the calibration up once it exists. */
	sleep(1);
	EXPECT_NE(0u, nb_calibration(self->t.dev)->present & NB_CAL_BODY_ID);
	ASSERT_EQ(NAOBODY_PREFS_SIZE, nb_prefs(self->t.dev, block, sizeof(block), &flags));
	EXPECT_EQ(NAOBODY_PREFS_VALID, flags);
	ASSERT_LT(0, nb_prefs_parse(block, sizeof(block), &cal));
	ASSERT_EQ(0, nb_chest_id(self->t.dev, 3, id));
	EXPECT_STREQ(cal.body_id, id);
}

TEST_F(body, sensors_arrive_in_counts)
{
	struct naobody_record rec;
	int all = 0;

	/* Foot and joint boards send only once they are started. */
	ASSERT_EQ(0, nbt_wait_boards(&self->t, NAOBODY_BOARD_ACCEPTED, NBT_ALL_BOARDS, 15000));
	ASSERT_EQ(0, nb_emu_set(&self->t.emu, "accelerometer", 2, -16384));
	ASSERT_EQ(0, nb_emu_set(&self->t.emu, "gyroscope", 0, 1234));
	ASSERT_EQ(0, nb_emu_set(&self->t.emu, "sonar", 1, 87));
	ASSERT_EQ(0, nb_emu_set(&self->t.emu, "fsr", 5, 700));
	ASSERT_EQ(0, nb_emu_set(&self->t.emu, "joint_position", NAOBODY_R_KNEE_PITCH, -1500));
	for (int i = 0; i < 200 * time_scale() && !all; i++) {
		ASSERT_EQ(1, nb_next(self->t.dev, &rec, 2000));
		all = rec.sensors.accelerometer[2] == -16384 &&
		      rec.sensors.gyroscope[0] == 1234 &&
		      rec.sensors.sonar[1] == 87 &&
		      rec.sensors.fsr[5] == 700 &&
		      rec.sensors.joint_position[NAOBODY_R_KNEE_PITCH] == -1500;
	}
	EXPECT_TRUE(all) {
		TH_LOG("last record: acc z %d gyro x %d sonar r %d fsr5 %d rknee %d",
		       rec.sensors.accelerometer[2], rec.sensors.gyroscope[0],
		       rec.sensors.sonar[1], rec.sensors.fsr[5],
		       rec.sensors.joint_position[NAOBODY_R_KNEE_PITCH]);
	}
	EXPECT_NE(0u, rec.sensors.updated & NAOBODY_UPDATED_IMU);
	EXPECT_NE(0u, rec.sensors.updated & NAOBODY_UPDATED_R_FOOT);
	EXPECT_NE(0u, rec.sensors.updated & NAOBODY_UPDATED_JOINTS);
}

TEST_F(body, read_returns_each_new_record_and_poll_wakes_per_cycle)
{
	struct naobody_record rec, prev = { 0 };
	struct pollfd p;
	int fd, wakes = 0;

	fd = open("/dev/naobody", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	p.fd = fd;
	p.events = POLLIN;
	/* The first record (the driver may have just started). */
	EXPECT_EQ(1, poll(&p, 1, 2000));
	EXPECT_EQ((ssize_t)sizeof(rec), read(fd, &rec, sizeof(rec)));
	EXPECT_EQ(-1, read(fd, &rec, sizeof(rec) - 1));
	EXPECT_EQ(EINVAL, errno);
	for (int i = 0; i < 40; i++) {
		if (poll(&p, 1, 2000) != 1 || !(p.revents & POLLIN))
			break;
		/* A wake means a new record: a non-blocking read never fails. */
		if (read(fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec))
			break;
		if (prev.cycle)
			EXPECT_GT(rec.cycle, prev.cycle);
		prev = rec;
		wakes++;
		/* Right away again: nothing, or a newer record; never this one. */
		if (read(fd, &rec, sizeof(rec)) == (ssize_t)sizeof(rec)) {
			EXPECT_GT(rec.cycle, prev.cycle);
			prev = rec;
		} else {
			EXPECT_EQ(EAGAIN, errno);
		}
	}
	EXPECT_EQ(40, wakes);
	close(fd);
}

TEST_HARNESS_MAIN
