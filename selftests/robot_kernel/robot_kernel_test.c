// SPDX-License-Identifier: GPL-2.0-only
/*
 * On the kernel configured like the robots' (scripts/robot-kernel.sh, make
 * check-robot-kernel), before anything loads n_robot: the running kernel
 * has the robots' config facts; a line discipline is not loaded on demand
 * for a caller without CAP_SYS_MODULE (as on NAO OS 2.8), and the tools
 * say what to do about it; once the module is loaded explicitly (as the
 * udev rule and the attach units do), an unprivileged attach works; both
 * modules carry this kernel's vermagic and symbol CRCs (no forced load).
 *
 * It must run before any suite that loads n_robot: make check-robot-kernel
 * puts its suite first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/n_robot.h>

#include "kselftest_harness.h"

static int run(const char *cmd)
{
	int status = system(cmd);

	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int loaded(const char *module)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/module/%s", module);
	return access(path, F_OK) == 0;
}

/* The running kernel's config (CONFIG_IKCONFIG_PROC), one line at a time. */
static int config_has(const char *line)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "zcat /proc/config.gz | grep -qxF '%s'", line);
	return run(cmd) == 0;
}

/*
 * Give up CAP_SYS_MODULE for good (bounding set, effective, permitted),
 * keeping the rest: root otherwise, and still CAP_NET_ADMIN, which
 * attaching n_robot needs, as the attach units' user has.
 */
static int drop_cap_sys_module(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (prctl(PR_CAPBSET_DROP, CAP_SYS_MODULE, 0, 0, 0))
		return -errno;
	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_SYS_MODULE / 32].effective &= ~CAP_TO_MASK(CAP_SYS_MODULE);
	d[CAP_SYS_MODULE / 32].permitted &= ~CAP_TO_MASK(CAP_SYS_MODULE);
	d[CAP_SYS_MODULE / 32].inheritable &= ~CAP_TO_MASK(CAP_SYS_MODULE);
	if (syscall(SYS_capset, &h, d))
		return -errno;
	return 0;
}

/* A pty pair; the slave is where a serial robot's port would be. */
static int open_pty(int *master, char *name, size_t len)
{
	*master = posix_openpt(O_RDWR | O_NOCTTY);
	if (*master < 0 || grantpt(*master) || unlockpt(*master) ||
	    ptsname_r(*master, name, len))
		return -1;
	return open(name, O_RDWR | O_NOCTTY);
}

/*
 * TIOCSETD to n_robot in a child without CAP_SYS_MODULE: 0, or the errno.
 * It leaves the tty as it found it.
 */
static int setd_unprivileged(void)
{
	int master, slave, ld = N_ROBOT_LDISC, tty = N_TTY, status;
	char name[64];
	pid_t pid;

	slave = open_pty(&master, name, sizeof(name));
	if (slave < 0)
		return -1000;
	pid = fork();
	if (pid == 0) {
		if (drop_cap_sys_module())
			_exit(200);
		if (ioctl(slave, TIOCSETD, &ld))
			_exit(errno);
		ioctl(slave, TIOCGETD, &ld);
		ioctl(slave, TIOCSETD, &tty);
		_exit(ld == N_ROBOT_LDISC ? 0 : 201);
	}
	waitpid(pid, &status, 0);
	close(slave);
	close(master);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1001;
}

TEST(the_robots_config)
{
	static const char *const facts[] = {
		"CONFIG_PREEMPT_RT=y", "CONFIG_HZ=1000", "CONFIG_MODVERSIONS=y",
		"# CONFIG_MODULE_SIG is not set", "# CONFIG_LDISC_AUTOLOAD is not set",
		"CONFIG_USB_ACM=m", "CONFIG_USB_SERIAL_FTDI_SIO=m",
	};
	char buf[8] = "";
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		int has = config_has(facts[i]);

		if (!has)
			printf("# the running kernel lacks %s\n", facts[i]);
		EXPECT_TRUE(has);
	}
	f = fopen("/proc/sys/dev/tty/ldisc_autoload", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_EQ(0, strcmp(buf, "0\n"));
	EXPECT_EQ(0, run("uname -v | grep -q PREEMPT_RT"));
}

TEST(no_autoload_without_cap_sys_module)
{
	ASSERT_FALSE(loaded("n_robot")) TH_LOG("n_robot is loaded already: this suite must run first");
	EXPECT_EQ(EPERM, setd_unprivileged());
	EXPECT_FALSE(loaded("n_robot")) TH_LOG("the kernel loaded n_robot on demand");
}

/* cm5ctl and parolctl name the cause and the command. */
TEST(the_tools_say_to_load_it)
{
	/* A command of each that opens the link first. */
	static const char *const tools[] = { "cm5ctl", "parolctl" };
	static const char *const cmds[] = { "stats", "status" };
	char name[64], cmd[256], out[512];
	unsigned int i;
	int master, slave;
	size_t n;
	FILE *p;

	ASSERT_FALSE(loaded("n_robot"));
	slave = open_pty(&master, name, sizeof(name));
	ASSERT_LE(0, slave);
	for (i = 0; i < 2; i++) {
		int pipefd[2], status;
		pid_t pid;

		ASSERT_EQ(0, pipe(pipefd));
		pid = fork();
		if (pid == 0) {
			dup2(pipefd[1], 2);
			if (drop_cap_sys_module())
				_exit(200);
			snprintf(cmd, sizeof(cmd), "%s --device %s --ldisc=yes %s", tools[i], name, cmds[i]);
			execlp("sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		close(pipefd[1]);
		p = fdopen(pipefd[0], "r");
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		fclose(p);
		waitpid(pid, &status, 0);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) TH_LOG("%s: %s", tools[i], out);
		EXPECT_NE(NULL, strstr(out, "not loaded")) TH_LOG("%s: %s", tools[i], out);
		EXPECT_NE(NULL, strstr(out, "modprobe n_robot")) TH_LOG("%s: %s", tools[i], out);
	}
	close(slave);
	close(master);
	EXPECT_FALSE(loaded("n_robot"));
}

/* Loaded explicitly (the udev rule's kmod load, the units' ExecStartPre). */
TEST(explicit_load_then_unprivileged_attach)
{
	ASSERT_EQ(0, run("modprobe n_robot"));
	EXPECT_EQ(0, setd_unprivileged());
}

/* Both modules load, with this kernel's vermagic and CRCs: a load without
 * matching symbol versions taints the kernel F, out of tree is only O. */
TEST(modules_load_with_this_kernels_versions)
{
	static const char *const mods[] = { "n_robot", "naobody" };
	char cmd[256], taint[16];
	unsigned int i;
	FILE *f;

	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "modprobe %s", mods[i]);
		ASSERT_EQ(0, run(cmd));
		snprintf(cmd, sizeof(cmd), "modinfo -F vermagic %s | grep -q \"^$(uname -r) SMP .*modversions\"",
			 mods[i]);
		EXPECT_EQ(0, run(cmd)) TH_LOG("%s: vermagic is not this kernel's", mods[i]);
		snprintf(cmd, sizeof(cmd), "/sys/module/%s/taint", mods[i]);
		f = fopen(cmd, "r");
		ASSERT_NE(NULL, f);
		memset(taint, 0, sizeof(taint));
		ASSERT_NE(NULL, fgets(taint, sizeof(taint), f));
		fclose(f);
		EXPECT_EQ(0, strcmp(taint, "O\n")) TH_LOG("%s: taint %s", mods[i], taint);
	}
	EXPECT_EQ(0, run("rmmod naobody"));
}

TEST_HARNESS_MAIN
