// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lifetime: the board goes away (disconnect, unbind, reconnect storms) or
 * the module is removed while files are open, mappings live and readers
 * sleep in poll. They get a hang-up or ENODEV, never a crash; the console
 * check fails the run on any kernel splat, and KASAN does in the debug tier.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/usbdevice_fs.h>

#include "kselftest_harness.h"
#include "nbtest.h"

struct poller {
	int fd;
	short revents;
	int ret;
};

/* Sleeps in poll until something happens; new records are read away. */
static void *poll_thread(void *arg)
{
	struct poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	struct naobody_record rec;

	for (;;) {
		p->ret = poll(&pfd, 1, NBT_MS(20000));
		p->revents = pfd.revents;
		if (p->ret <= 0 || (pfd.revents & (POLLHUP | POLLERR)))
			return NULL;
		/* Gone between the poll and the read: the next poll says so. */
		if (read(p->fd, &rec, sizeof(rec)) < 0 && errno != EAGAIN && errno != ENODEV)
			return NULL;
	}
}

FIXTURE(lifetime) {
	struct nbt t;
	int fd;
	const struct naobody_ring_header *hdr;
	size_t len;
};

FIXTURE_SETUP(lifetime)
{
	ASSERT_EQ(0, nbt_up(&self->t, NULL, NULL));
	self->fd = open("/dev/naobody", O_RDONLY);
	ASSERT_LE(0, self->fd);
	self->len = nb_info(self->t.dev)->ring_size;
	self->hdr = mmap(NULL, self->len, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->hdr);
}

FIXTURE_TEARDOWN(lifetime)
{
	munmap((void *)self->hdr, self->len);
	close(self->fd);
	nbt_down(&self->t);
}

/* The board unplugged with everything in use; then plugged back. */
TEST_F_TIMEOUT(lifetime, disconnect_with_open_mappings_and_a_blocked_poller, NBT_TIMEOUT)
{
	struct poller p = { .fd = self->fd };
	struct naobody_record rec;
	pthread_t th;
	uint64_t head;

	ASSERT_EQ(0, pthread_create(&th, NULL, poll_thread, &p));
	usleep(200000);
	ASSERT_EQ(0, nb_emu_disconnect(&self->t.emu));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(1, p.ret);
	EXPECT_NE(0, p.revents & POLLHUP);

	/* The mapping still reads, and says the device is gone. */
	EXPECT_NE(0u, self->hdr->flags & NAOBODY_RING_DISCONNECTED);
	head = self->hdr->head;
	EXPECT_LT(0u, head);
	usleep(100000);
	EXPECT_EQ(head, self->hdr->head);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &rec, sizeof(rec)));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, ioctl(self->fd, NAOBODY_IOC_GET_INFO, &(struct naobody_info){ 0 }));
	EXPECT_EQ(ENODEV, errno);
	/* A follower reads what was published, then learns the device is gone. */
	{
		int ret, left = 2000;

		while ((ret = nb_next(self->t.dev, &rec, NBT_MS(100))) == 1 && --left)
			;
		EXPECT_EQ(-ENODEV, ret);
	}
	EXPECT_EQ(0, nbt_wait_path("/dev/naobody", false, NBT_MS(5000)));

	/* Plugged back: a new device, records flow again. */
	ASSERT_EQ(0, nb_emu_connect(&self->t.emu));
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, NBT_MS(5000)));
	{
		struct nb_device *d = nb_open(NULL, 0);

		ASSERT_NE(NULL, d);
		EXPECT_EQ(1, nb_next(d, &rec, NBT_MS(3000)));
		nb_close(d);
	}
}

/* The controller closes after the board is gone (its last reference). */
TEST_F_TIMEOUT(lifetime, the_controller_closes_after_disconnect, NBT_TIMEOUT)
{
	struct naobody_actuators a = { 0 };
	struct nb_device *ctl = nb_open(NULL, NB_OPEN_CONTROL);

	ASSERT_NE(NULL, ctl);
	a.stiffness[0] = 500;
	EXPECT_EQ(0, nb_command_counts(ctl, &a, NAOBODY_SET_ALL));
	ASSERT_EQ(0, nb_emu_disconnect(&self->t.emu));
	for (int i = 0; i < 250 * nbt_time_scale() &&
			!(self->hdr->flags & NAOBODY_RING_DISCONNECTED); i++)
		usleep(20000);
	ASSERT_NE(0u, self->hdr->flags & NAOBODY_RING_DISCONNECTED);
	EXPECT_EQ(-ENODEV, nb_stop(ctl, NAOBODY_STOP_TOOL));
	/* The close loses the controller: an event after the device went. */
	nb_close(ctl);
	nb_close(self->t.dev);
	self->t.dev = NULL;
	munmap((void *)self->hdr, self->len);
	self->hdr = NULL;
	close(self->fd);
	self->fd = -1;
	/* The last reference is gone: the module unloads cleanly. */
	EXPECT_EQ(0, nbt_sh("rmmod naobody"));
	self->t.module_loaded = 0;
}

TEST_F_TIMEOUT(lifetime, unbind_through_sysfs_hangs_up_readers, NBT_TIMEOUT)
{
	struct poller p = { .fd = self->fd };
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, poll_thread, &p));
	usleep(200000);
	ASSERT_EQ(0, nbt_sh("echo %s:1.0 > /sys/bus/usb/drivers/naobody/unbind",
			    self->t.emu.host_dev));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_NE(0, p.revents & POLLHUP);
	EXPECT_NE(0u, self->hdr->flags & NAOBODY_RING_DISCONNECTED);
	ASSERT_EQ(0, nbt_sh("echo %s:1.0 > /sys/bus/usb/drivers/naobody/bind",
			    self->t.emu.host_dev));
	EXPECT_EQ(0, nbt_wait_path("/dev/naobody", true, NBT_MS(5000)));
}

/* rmmod must refuse while a file is open, and work once it is closed. */
TEST_F_TIMEOUT(lifetime, rmmod_with_a_blocked_poller, NBT_TIMEOUT)
{
	struct poller p = { .fd = self->fd };
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, poll_thread, &p));
	usleep(200000);
	EXPECT_NE(0, nbt_sh("rmmod naobody 2>/dev/null"));
	EXPECT_EQ(0, access("/sys/module/naobody", F_OK));
	/* The board goes, the poller wakes; the files still pin the module. */
	ASSERT_EQ(0, nb_emu_disconnect(&self->t.emu));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_NE(0, p.revents & POLLHUP);
	EXPECT_NE(0, nbt_sh("rmmod naobody 2>/dev/null"));

	munmap((void *)self->hdr, self->len);
	self->hdr = NULL;
	self->len = 0;
	close(self->fd);
	self->fd = -1;
	nb_close(self->t.dev);
	self->t.dev = NULL;
	EXPECT_EQ(0, nbt_sh("rmmod naobody"));
	self->t.module_loaded = 0;
	EXPECT_NE(0, access("/sys/module/naobody", F_OK));
}

TEST_F_TIMEOUT(lifetime, a_reconnect_storm_leaves_a_working_device, NBT_TIMEOUT)
{
	struct naobody_record rec;
	struct nb_device *d;

	struct nb_emu_stats st;
	uint64_t connects, end;

	ASSERT_EQ(0, nb_emu_stats(&self->t.emu, &st));
	connects = st.connects;
	/*
	 * The storm runs in the emulator; wait for its last bind: 10 of 90 ms
	 * each on the emulator's clock, then however long the binds take.
	 */
	ASSERT_EQ(0, nb_emu_storm(&self->t.emu, 10, 30, 60));
	end = nbt_now_ns() + NBT_MS(10000) * 1000000ull;
	while (st.connects < connects + 10 && nbt_now_ns() < end) {
		usleep(10000);
		ASSERT_EQ(0, nb_emu_stats(&self->t.emu, &st));
	}
	ASSERT_LE(connects + 10, st.connects);
	/* The old file belongs to a device that is gone. */
	EXPECT_NE(0u, self->hdr->flags & NAOBODY_RING_DISCONNECTED);
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, NBT_MS(5000)));
	d = nb_open(NULL, 0);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(1, nb_next(d, &rec, NBT_MS(3000)));
	nb_close(d);
}

/*
 * A reset's restart (the start-up work starts the board again, then the
 * cycle) raced against a disconnect: reset through usbfs, then unplug the
 * board a few milliseconds later, while the restart runs, again and again.
 * A timer armed on a device being freed is what KASAN catches here, in the
 * debug tier; any splat fails the run.
 */
TEST_F_TIMEOUT(lifetime, restarts_raced_against_disconnects, NBT_TIMEOUT)
{
	struct naobody_record rec;
	int resets = 0, err = 0;
	struct nb_device *d;

	for (int i = 0; i < 12; i++) {
		int fd;

		ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, NBT_MS(10000)));
		fd = nbt_open_usbfs(self->t.emu.host_dev);
		if (fd >= 0) {
			if (!ioctl(fd, USBDEVFS_RESET, 0))
				resets++;
			else
				err = errno;
			close(fd);
		}
		/* 0 to 55 ms: before, during and after the restart's 0x13 and 0x02. */
		usleep(5000 * (i % 12));
		ASSERT_EQ(0, nb_emu_disconnect(&self->t.emu));
		ASSERT_EQ(0, nbt_wait_path("/dev/naobody", false, NBT_MS(5000)));
		ASSERT_EQ(0, nb_emu_connect(&self->t.emu));
	}
	TH_LOG("%d resets raced against disconnects (last error %d)", resets, err);
	EXPECT_LE(6, resets);
	ASSERT_EQ(0, nbt_wait_path("/dev/naobody", true, NBT_MS(10000)));
	d = nb_open(NULL, 0);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(1, nb_next(d, &rec, NBT_MS(5000)));
	nb_close(d);
}

NBT_HARNESS_MAIN
