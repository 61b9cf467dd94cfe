// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every input check of /dev/naobody, one error path per test, each call
 * otherwise valid (botching-up-ioctls.rst): the errno a user gets.
 *
 * The tests share one device, set up once before the first
 * (NBT_HARNESS_MAIN_SHARED): each must leave the module as it found it.
 * A test that changes it (a stop, a parameter, the board gone) needs a
 * fixture of its own, with its own nbt_up().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "nbtest.h"

FIXTURE(uapi) {
	struct nbt t;
	int ctl;			/* O_RDWR, the controller */
	int ro;				/* O_RDONLY */
	struct naobody_command cmd;
};

FIXTURE_SETUP(uapi)
{
	ASSERT_EQ(0, nbt_shared(&self->t));
	self->ctl = open("/dev/naobody", O_RDWR);
	ASSERT_LE(0, self->ctl);
	ASSERT_EQ(0, ioctl(self->ctl, NAOBODY_IOC_CLAIM));
	self->ro = open("/dev/naobody", O_RDONLY);
	ASSERT_LE(0, self->ro);
	memset(&self->cmd, 0, sizeof(self->cmd));
	self->cmd.size = sizeof(self->cmd);
	self->cmd.flags = NAOBODY_SET_ALL;
}

FIXTURE_TEARDOWN(uapi)
{
	close(self->ctl);
	close(self->ro);
}

/* The call fails with exactly this errno. */
#define EXPECT_ERRNO(err, call) do {		\
	errno = 0;				\
	EXPECT_EQ(-1, (long)(call));		\
	EXPECT_EQ(err, errno);			\
} while (0)

TEST_F_TIMEOUT(uapi, a_valid_command_is_taken, NBT_TIMEOUT)
{
	EXPECT_EQ((ssize_t)sizeof(self->cmd), write(self->ctl, &self->cmd, sizeof(self->cmd)));
}

TEST_F_TIMEOUT(uapi, write_without_the_role_is_eperm, NBT_TIMEOUT)
{
	int fd = open("/dev/naobody", O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_ERRNO(EPERM, write(fd, &self->cmd, sizeof(self->cmd)));
	close(fd);
}

TEST_F_TIMEOUT(uapi, write_of_a_wrong_size_is_einval, NBT_TIMEOUT)
{
	EXPECT_ERRNO(EINVAL, write(self->ctl, &self->cmd, sizeof(self->cmd) - 8));
}

TEST_F_TIMEOUT(uapi, command_size_field_must_match, NBT_TIMEOUT)
{
	self->cmd.size = sizeof(self->cmd) + 8;
	EXPECT_ERRNO(EINVAL, write(self->ctl, &self->cmd, sizeof(self->cmd)));
}

/* A newer, larger struct: its tail must be zero; then it is taken. */
TEST_F_TIMEOUT(uapi, a_larger_command_with_a_zero_tail_is_taken, NBT_TIMEOUT)
{
	uint8_t buf[sizeof(self->cmd) + 16] = { 0 };

	self->cmd.size = sizeof(buf);
	memcpy(buf, &self->cmd, sizeof(self->cmd));
	EXPECT_EQ((ssize_t)sizeof(buf), write(self->ctl, buf, sizeof(buf)));
	buf[sizeof(buf) - 1] = 1;
	EXPECT_ERRNO(E2BIG, write(self->ctl, buf, sizeof(buf)));
}

TEST_F_TIMEOUT(uapi, a_command_larger_than_a_page_is_einval, NBT_TIMEOUT)
{
	static uint8_t buf[8192];

	self->cmd.size = sizeof(buf);
	memcpy(buf, &self->cmd, sizeof(self->cmd));
	EXPECT_ERRNO(EINVAL, write(self->ctl, buf, sizeof(buf)));
}

/* Like an out-of-range stiffness: refused, not clamped. */
TEST_F_TIMEOUT(uapi, a_position_outside_the_wire_is_einval, NBT_TIMEOUT)
{
	self->cmd.set.position[NAOBODY_L_KNEE_PITCH] = NAOBODY_POSITION_MAX + 1;
	EXPECT_ERRNO(EINVAL, write(self->ctl, &self->cmd, sizeof(self->cmd)));
	self->cmd.set.position[NAOBODY_L_KNEE_PITCH] = NAOBODY_POSITION_MIN - 1;
	EXPECT_ERRNO(EINVAL, write(self->ctl, &self->cmd, sizeof(self->cmd)));
	self->cmd.set.position[NAOBODY_L_KNEE_PITCH] = NAOBODY_POSITION_MIN;
	self->cmd.set.position[NAOBODY_R_KNEE_PITCH] = NAOBODY_POSITION_MAX;
	EXPECT_EQ((ssize_t)sizeof(self->cmd), write(self->ctl, &self->cmd, sizeof(self->cmd)));
}

/* GET_INFO of a newer, larger struct: filled as far as the kernel knows. */
TEST_F_TIMEOUT(uapi, info_of_any_size_from_the_first_says_what_it_filled, NBT_TIMEOUT)
{
	union {
		struct naobody_info info;
		uint8_t bytes[sizeof(struct naobody_info) + 24];
	} u;
	struct naobody_info small;

	memset(&u, 0xa5, sizeof(u));
	ASSERT_EQ(0, ioctl(self->ro, _IOR(NAOBODY_IOC_MAGIC, 0x00, u.bytes), &u));
	EXPECT_EQ((uint32_t)sizeof(struct naobody_info), u.info.size);
	EXPECT_EQ((uint32_t)NAOBODY_ABI_VERSION, u.info.abi_version);
	for (size_t i = sizeof(struct naobody_info); i < sizeof(u); i++)
		EXPECT_EQ(0, u.bytes[i]);
	ASSERT_EQ(0, ioctl(self->ro, NAOBODY_IOC_GET_INFO, &small));
	EXPECT_EQ((uint32_t)sizeof(small), small.size);
	EXPECT_GT(__NAOBODY_CALIB_MAX, small.calibration);
	/* Smaller than the first struct: not an ioctl of ours. */
	EXPECT_ERRNO(ENOTTY, ioctl(self->ro, _IOR(NAOBODY_IOC_MAGIC, 0x00, uint8_t[64]), &small));
}

/* O_EXCL means nothing to a character device: no role comes with it. */
TEST_F_TIMEOUT(uapi, o_excl_does_not_claim_the_controller, NBT_TIMEOUT)
{
	int fd = open("/dev/naobody", O_RDWR | O_EXCL);

	ASSERT_LE(0, fd);
	EXPECT_ERRNO(EPERM, write(fd, &self->cmd, sizeof(self->cmd)));
	close(fd);
}

TEST_F_TIMEOUT(uapi, unknown_command_flags_are_eopnotsupp, NBT_TIMEOUT)
{
	self->cmd.flags |= 1U << 20;
	EXPECT_ERRNO(EOPNOTSUPP, write(self->ctl, &self->cmd, sizeof(self->cmd)));
}

TEST_F_TIMEOUT(uapi, command_reserved_must_be_zero, NBT_TIMEOUT)
{
	self->cmd.reserved = 1;
	EXPECT_ERRNO(EINVAL, write(self->ctl, &self->cmd, sizeof(self->cmd)));
}

TEST_F_TIMEOUT(uapi, stiffness_above_1000_is_einval, NBT_TIMEOUT)
{
	self->cmd.set.stiffness[NAOBODY_L_KNEE_PITCH] = NAOBODY_STIFFNESS_MAX + 1;
	EXPECT_ERRNO(EINVAL, write(self->ctl, &self->cmd, sizeof(self->cmd)));
}

TEST_F_TIMEOUT(uapi, unknown_sonar_bits_are_einval, NBT_TIMEOUT)
{
	self->cmd.set.sonar = 4;
	EXPECT_ERRNO(EINVAL, write(self->ctl, &self->cmd, sizeof(self->cmd)));
}

TEST_F_TIMEOUT(uapi, claim_needs_write_access, NBT_TIMEOUT)
{
	EXPECT_ERRNO(EBADF, ioctl(self->ro, NAOBODY_IOC_CLAIM));
}

TEST_F_TIMEOUT(uapi, release_without_the_role_is_eperm, NBT_TIMEOUT)
{
	EXPECT_ERRNO(EPERM, ioctl(self->ro, NAOBODY_IOC_RELEASE));
}

TEST_F_TIMEOUT(uapi, stop_reserved_must_be_zero, NBT_TIMEOUT)
{
	struct naobody_stop stop = { .reason = NAOBODY_STOP_TOOL, .reserved = 1 };

	EXPECT_ERRNO(EINVAL, ioctl(self->ro, NAOBODY_IOC_STOP, &stop));
}

TEST_F_TIMEOUT(uapi, stop_reason_out_of_range_is_einval, NBT_TIMEOUT)
{
	struct naobody_stop stop = { .reason = __NAOBODY_STOP_MAX };

	EXPECT_ERRNO(EINVAL, ioctl(self->ro, NAOBODY_IOC_STOP, &stop));
}

TEST_F_TIMEOUT(uapi, prefs_in_a_short_buffer_is_enospc_with_the_size, 90)
{
	uint8_t small[16];
	struct naobody_prefs p = { .data = (uintptr_t)small, .size = sizeof(small) };

	ASSERT_EQ(0, nbt_wait_calibrated(self->t.dev, NBT_MS(60000)));
	EXPECT_ERRNO(ENOSPC, ioctl(self->ro, NAOBODY_IOC_GET_PREFS, &p));
	EXPECT_EQ(NAOBODY_PREFS_SIZE, p.size);
}

TEST_F_TIMEOUT(uapi, prefs_flags_in_must_be_zero, NBT_TIMEOUT)
{
	uint8_t block[NAOBODY_PREFS_SIZE];
	struct naobody_prefs p = {
		.data = (uintptr_t)block, .size = sizeof(block), .flags = 1,
	};

	EXPECT_ERRNO(EINVAL, ioctl(self->ro, NAOBODY_IOC_GET_PREFS, &p));
}

TEST_F_TIMEOUT(uapi, boards_entry_size_must_match, NBT_TIMEOUT)
{
	struct naobody_board b[4];
	struct naobody_boards bs = {
		.entries = (uintptr_t)b, .count = 4, .entry_size = sizeof(b[0]) - 8,
	};

	EXPECT_ERRNO(EINVAL, ioctl(self->ro, NAOBODY_IOC_GET_BOARDS, &bs));
}

TEST_F_TIMEOUT(uapi, boards_report_the_count_beyond_the_room, NBT_TIMEOUT)
{
	struct naobody_board b[2];
	struct naobody_boards bs = {
		.entries = (uintptr_t)b, .count = 2, .entry_size = sizeof(b[0]),
	};

	EXPECT_EQ(0, ioctl(self->ro, NAOBODY_IOC_GET_BOARDS, &bs));
	EXPECT_EQ(nb_info(self->t.dev)->boards, bs.count);
	EXPECT_LT(2u, bs.count);
}

TEST_F_TIMEOUT(uapi, chest_id_slot_out_of_range_is_einval, NBT_TIMEOUT)
{
	struct naobody_chest_id id = { .slot = NAOBODY_CHEST_ID_SLOTS };

	EXPECT_ERRNO(EINVAL, ioctl(self->ro, NAOBODY_IOC_GET_CHEST_ID, &id));
}

TEST_F_TIMEOUT(uapi, chest_mode_unknown_op_is_eopnotsupp, NBT_TIMEOUT)
{
	struct naobody_chest_mode m = { .op = __NAOBODY_CHEST_MODE_MAX };

	EXPECT_ERRNO(EOPNOTSUPP, ioctl(self->ro, NAOBODY_IOC_CHEST_MODE, &m));
}

TEST_F_TIMEOUT(uapi, chest_mode_reserved_must_be_zero, NBT_TIMEOUT)
{
	struct naobody_chest_mode m = { .op = NAOBODY_CHEST_QUERY_BOOTLOADER, .reserved = 1 };

	EXPECT_ERRNO(EINVAL, ioctl(self->ro, NAOBODY_IOC_CHEST_MODE, &m));
}

/* In a child that gave up root: the state-changing requests are EPERM. */
TEST_F_TIMEOUT(uapi, state_changing_requests_need_cap_sys_admin, NBT_TIMEOUT)
{
	struct naobody_chest_mode m = { .op = NAOBODY_CHEST_LED_START };
	struct naobody_harakiri h = { .op = NAOBODY_HARAKIRI_POWER_OFF };
	int status;
	pid_t child = fork();

	ASSERT_LE(0, child);
	if (!child) {
		int bad = 0;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		bad |= !(ioctl(self->ro, NAOBODY_IOC_CHEST_MODE, &m) == -1 && errno == EPERM);
		bad |= !(ioctl(self->ro, NAOBODY_IOC_HARAKIRI, &h) == -1 && errno == EPERM) << 1;
		bad |= !(ioctl(self->ro, NAOBODY_IOC_REARM) == -1 && errno == EPERM) << 2;
		_exit(bad);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F_TIMEOUT(uapi, harakiri_unknown_op_is_eopnotsupp, NBT_TIMEOUT)
{
	struct naobody_harakiri h = { .op = 7 };

	EXPECT_ERRNO(EOPNOTSUPP, ioctl(self->ro, NAOBODY_IOC_HARAKIRI, &h));
}

TEST_F_TIMEOUT(uapi, unknown_ioctl_is_enotty, NBT_TIMEOUT)
{
	EXPECT_ERRNO(ENOTTY, ioctl(self->ro, _IO(NAOBODY_IOC_MAGIC, 0x1f)));
}

TEST_F_TIMEOUT(uapi, the_ring_cannot_be_mapped_writable, NBT_TIMEOUT)
{
	size_t len = nb_info(self->t.dev)->ring_size;

	/* Through a file open for writing, the driver itself says no... */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->ctl, 0));
	EXPECT_EQ(EPERM, errno);
	/* ...through a read-only one the VFS does, before the driver. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->ro, 0));
	EXPECT_EQ(EACCES, errno);
}

/*
 * Through a file open for writing, where only the driver's own VM_MAYWRITE
 * clearing stands in the way (the VFS would allow it): a shared and a
 * private read-only mapping, then mprotect.
 */
TEST_F_TIMEOUT(uapi, a_read_only_mapping_cannot_be_made_writable, NBT_TIMEOUT)
{
	size_t len = nb_info(self->t.dev)->ring_size;
	static const int kinds[] = { MAP_SHARED, MAP_PRIVATE };

	for (unsigned int i = 0; i < 2; i++) {
		void *p = mmap(NULL, len, PROT_READ, kinds[i], self->ctl, 0);

		ASSERT_NE(MAP_FAILED, p);
		TH_LOG("a %s mapping", kinds[i] == MAP_SHARED ? "shared" : "private");
		EXPECT_ERRNO(EACCES, mprotect(p, len, PROT_READ | PROT_WRITE));
		munmap(p, len);
		/* Nor asked for writable at once, privately. */
		EXPECT_EQ(MAP_FAILED, mmap(NULL, len, PROT_READ | PROT_WRITE, kinds[i], self->ctl, 0));
	}
}

TEST_F_TIMEOUT(uapi, the_ring_maps_only_from_offset_0_and_within_its_size, NBT_TIMEOUT)
{
	size_t len = nb_info(self->t.dev)->ring_size;

	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->ro, 4096));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len + 4096, PROT_READ, MAP_SHARED, self->ro, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F_TIMEOUT(uapi, read_into_a_short_buffer_is_einval, NBT_TIMEOUT)
{
	struct naobody_record rec;

	EXPECT_ERRNO(EINVAL, read(self->ro, &rec, sizeof(rec) - 1));
}

TEST_F_TIMEOUT(uapi, read_into_a_buffer_that_faults_is_efault, NBT_TIMEOUT)
{
	long page = sysconf(_SC_PAGESIZE);
	struct naobody_record rec;
	struct pollfd p = { .fd = self->ro, .events = POLLIN };
	char *buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, mprotect(buf + page, page, PROT_NONE));
	/* A record to read: read() then copies, and does not wait. */
	ASSERT_EQ(1, poll(&p, 1, NBT_MS(2000)));
	/* On a page that can't be written: all of it, then its second half. */
	EXPECT_ERRNO(EFAULT, read(self->ro, buf + page, sizeof(rec)));
	EXPECT_ERRNO(EFAULT, read(self->ro, buf + page - sizeof(rec) / 2, sizeof(rec)));
	EXPECT_EQ((ssize_t)sizeof(rec), read(self->ro, &rec, sizeof(rec)));
	munmap(buf, 2 * page);
}

NBT_HARNESS_MAIN_SHARED(NULL, NULL)
