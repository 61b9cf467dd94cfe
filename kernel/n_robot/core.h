/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * n_robot's link core: the receive queue, the one-frame transmit slot, the
 * counters and the ioctls of uapi/linux/n_robot.h, shared by the two ways a
 * robot is reached: the line discipline (ldisc.c) on any tty, and the
 * serdev driver (serdev.c) on a UART the device tree describes. Each front
 * end owns the wait loops of read() and write() (their stop conditions are
 * its own: a hung-up tty, a removed device) and hands the core a port: how
 * to write bytes and how much room there is.
 *
 * Locks (the order: tx_mutex, then rx_mutex, then rxq_lock):
 *  - rx_mutex: the framer, the CM-5 state and the configuration.
 *  - rxq_lock (spinlock): the receive queue.
 *  - tx_mutex: the transmit slot; every port operation runs under it.
 */
#ifndef _N_ROBOT_CORE_H
#define _N_ROBOT_CORE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "framer.h"
#include "cm5.h"
#include "parol6.h"

/* The types and masks poll() returns (4.16): Kbuild probes for them. */
#ifndef NR_HAVE_POLL_T
#define __poll_t unsigned int
#endif
#ifndef EPOLLIN
#define EPOLLIN		POLLIN
#define EPOLLOUT	POLLOUT
#define EPOLLRDNORM	POLLRDNORM
#define EPOLLWRNORM	POLLWRNORM
#endif

struct nr_frame {
	struct list_head node;
	u32 len;
	u8 data[];
};

/* How the core reaches the wire; every call is made under tx_mutex. */
struct nr_port_ops {
	/* Ask for a write_wakeup when the driver has room again. */
	void (*want_wakeup)(void *port, bool on);
	unsigned int (*write_room)(void *port);
	/* Is the driver's buffer empty? (It then takes a frame in pieces.) */
	bool (*tx_empty)(void *port);
	int (*write)(void *port, const u8 *buf, size_t len);
};

struct nr_core {
	const struct nr_port_ops *ops;
	void *port;
	wait_queue_head_t *read_wait;
	wait_queue_head_t *write_wait;
	/* 0: SET_CONFIG takes any framing; else only this one (a DT node). */
	u32 fixed_framing;

	struct mutex rx_mutex;		/* framer, cm5, config */
	u32 framing;
	u32 rxq_max;
	struct cm5_state cm5;
	struct nrf rx;

	spinlock_t rxq_lock;		/* rxq, rxq_len, rx_overruns */
	struct list_head rxq;
	u32 rxq_len;
	u64 rx_overruns;

	struct mutex tx_mutex;		/* tx_* below, the port */
	struct work_struct tx_work;
	bool tx_busy;
	u32 tx_len;
	u32 tx_off;
	u64 tx_frames;
	u64 tx_bytes;
	u64 tx_rejected;
	u8 tx_buf[N_ROBOT_CM5_MAX_TX_FRAME];
};

void nr_core_init(struct nr_core *nr, const struct nr_port_ops *ops,
		  void *port, wait_queue_head_t *read_wait,
		  wait_queue_head_t *write_wait, u32 framing);
/* After the port can call in no more: the transmit work, the queue. */
void nr_core_destroy(struct nr_core *nr);

/* Bytes from the wire (fp: per-byte error flags, or NULL). */
void nr_core_receive(struct nr_core *nr, const u8 *cp, const u8 *fp,
		     size_t count);
/* Forget what was received, the partial frame included. */
void nr_core_flush_rx(struct nr_core *nr);
struct nr_frame *nr_core_dequeue(struct nr_core *nr);
void nr_core_requeue(struct nr_core *nr, struct nr_frame *fr);
bool nr_core_rx_empty(struct nr_core *nr);

/*
 * write(): nr_core_tx_too_big() first (the errno, or 0); then with
 * tx_mutex held and the slot free (nr_core_tx_free()),
 * nr_core_tx_start() validates and sends: count or -errno.
 */
int nr_core_tx_too_big(struct nr_core *nr, size_t count);
ssize_t nr_core_tx_start(struct nr_core *nr, const u8 *buf, size_t count);
bool nr_core_tx_free(struct nr_core *nr);
/* The port has room again (any context): push from the work. */
void nr_core_write_wakeup(struct nr_core *nr);

/* The n_robot ioctls and FIONREAD; -ENOIOCTLCMD for any other. */
int nr_core_ioctl(struct nr_core *nr, unsigned int cmd, void __user *uarg);

#endif /* _N_ROBOT_CORE_H */
