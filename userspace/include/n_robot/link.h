/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A framed serial link to a robot: through the n_robot line discipline when
 * it is there, through an n_robot serdev device node (/dev/n_robotN, a
 * robot the device tree puts on a UART), or through the same framer code
 * in userspace on a raw tty.
 * Either way a receive is one validated frame and a send is one frame that
 * passed the discipline's checks.
 */
#ifndef _N_ROBOT_LINK_H
#define _N_ROBOT_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <termios.h>

#include <linux/n_robot.h>

/*
 * The framers' headers: kernel/n_robot/ in the tree, beside this file once
 * installed (libnrobot-dev).
 */
#include <n_robot/cm5.h>
#include <n_robot/parol6.h>

enum nr_link_mode {
	NR_LINK_AUTO,	/* the line discipline if it can be attached */
	NR_LINK_LDISC,	/* the line discipline or fail */
	NR_LINK_RAW,	/* userspace framing on a raw tty */
};

#define NR_LINK_QUEUE	16

struct nr_link {
	int fd;
	bool ldisc;
	bool shared;	/* the discipline was attached already: leave it so */
	bool serdev;	/* a serdev device node: kernel framing, no tty */
	bool is_tty;
	uint32_t framing;
	struct termios saved;
	/* raw mode: the framer, the CM-5 checks, and a small frame queue */
	struct nrf rx;
	struct cm5_state cm5;
	uint8_t q[NR_LINK_QUEUE][N_ROBOT_MAX_FRAME];
	uint32_t qlen[NR_LINK_QUEUE];
	unsigned int qhead, qn;
	uint64_t overruns;
};

/* Parse "auto", "yes"/"ldisc", "no"/"raw"; -1 if none of those. */
int nr_link_parse_mode(const char *s);

/*
 * Open path, make it raw at baud (0: leave the speed), and attach the
 * framing. 0 or -errno; ENOENT/EACCES from open, EPERM when the line
 * discipline needs CAP_NET_ADMIN (NR_LINK_LDISC), ... A serdev device node
 * is used as it is (baud is the device tree's): EPROTOTYPE when it is
 * another robot's, ENOTTY with NR_LINK_RAW.
 */
int nr_link_open(struct nr_link *l, const char *path, uint32_t framing,
		 enum nr_link_mode mode, unsigned int baud);
/* The same on an open descriptor (not closed by nr_link_close). */
int nr_link_attach_fd(struct nr_link *l, int fd, uint32_t framing,
		      enum nr_link_mode mode, unsigned int baud);
/* Restore the tty's discipline and settings, close what we opened. */
void nr_link_close(struct nr_link *l);
int nr_link_close_fd(struct nr_link *l);

/* Send one frame: 0 or -errno (the discipline's errnos, also in raw mode). */
int nr_link_send(struct nr_link *l, const uint8_t *p, size_t len);
/* Receive one frame within timeout_ms: its length, -ETIMEDOUT, -EIO... */
ssize_t nr_link_recv(struct nr_link *l, uint8_t *buf, size_t cap,
		     int timeout_ms);
/* Forget everything received so far. */
int nr_link_flush(struct nr_link *l);
/* CM-5: tell the checks which model is behind each id. */
int nr_link_cm5_set_models(struct nr_link *l, const uint8_t model[256]);
/* Counters (in raw mode, from the userspace framer). */
int nr_link_stats(struct nr_link *l, struct n_robot_stats *s);

/*
 * Keep the port open, and so the discipline attached (the kernel detaches
 * it when the last descriptor closes), until SIGINT, SIGTERM or SIGHUP
 * (0) or the port hangs up (-EIO: unplugged, the pty's other end closed).
 * Reads nothing: the frames are for the programs that share the link. The
 * signals' dispositions and the signal mask are restored on return.
 * cm5ctl attach, parolctl attach, and the n_robot-*@.service units.
 */
int nr_link_hold(struct nr_link *l);

/* Monotonic milliseconds. */
int64_t nr_now_ms(void);
/*
 * The line discipline's number: the module's ldisc parameter if it is
 * loaded (N_ROBOT_LDISC_SYSFS, or $N_ROBOT_LDISC_SYSFS for tests), else
 * N_ROBOT_LDISC, which the module autoloads as.
 */
int nr_link_ldisc_number(void);
/*
 * Whether the n_robot module is loaded (its sysfs parameter is there). A
 * kernel without CONFIG_LDISC_AUTOLOAD (NAO OS 2.8's) loads a line
 * discipline's module on TIOCSETD only for a caller with CAP_SYS_MODULE:
 * anyone else gets EPERM until it is loaded (modprobe n_robot, or the udev
 * rule 71-n_robot.rules for a port it names).
 */
bool nr_link_module_loaded(void);

#endif /* _N_ROBOT_LINK_H */
