// SPDX-License-Identifier: GPL-2.0-only
/*
 * n_robot: a tty line discipline for robot serial links (the Bioloid CM-5
 * running BRBrain, and the PAROL6 arm), on N_DEVELOPMENT (29).
 *
 * read() returns one validated frame, write() takes one frame; the framers
 * (framer.c, cm5.c, parol6.c) are pure C shared with userspace, and the
 * queue, transmit slot and ioctls are the link core (core.c) that the
 * serdev driver (serdev.c) shares. The uapi header, uapi/linux/n_robot.h,
 * is the contract.
 *
 * Contexts and locks:
 *  - receive_buf() runs from the flip buffer work (process context, may
 *    sleep) and is not re-entered. It feeds the core's framer.
 *  - The core's locks (core.h): rx_mutex, rxq_lock, tx_mutex.
 *  - Lifetime: the tty layer holds the ldisc reference across every hook, and
 *    close() runs with the ldisc locked for writing, so no hook runs with or
 *    after it except our own transmit work, which close() cancels. A reader
 *    sleeping in read() holds that reference: hangup and ldisc changes wake
 *    tty->read_wait and read() leaves (see nr_read_should_stop()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/capability.h>
#include <linux/workqueue.h>
#include <linux/termios.h>

#include "compat.h"
#include "core.h"
#include "serdev.h"

struct n_robot {
	struct tty_struct *tty;
	struct nr_core core;
};

/* ---- the port: the tty driver ------------------------------------------- */

static void nr_tty_want_wakeup(void *port, bool on)
{
	struct tty_struct *tty = port;

	if (on)
		set_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
	else
		clear_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
}

static unsigned int nr_tty_write_room(void *port)
{
	return tty_write_room(port);
}

static bool nr_tty_tx_empty(void *port)
{
	return !tty_chars_in_buffer(port);
}

static int nr_tty_write(void *port, const u8 *buf, size_t len)
{
	struct tty_struct *tty = port;

	return tty->ops->write(tty, buf, len);
}

static const struct nr_port_ops nr_tty_port = {
	.want_wakeup	= nr_tty_want_wakeup,
	.write_room	= nr_tty_write_room,
	.tx_empty	= nr_tty_tx_empty,
	.write		= nr_tty_write,
};

/* ---- receive ------------------------------------------------------------ */

static void nr_receive_buf(struct tty_struct *tty, const u8 *cp,
			   const u8 *fp, size_t count)
{
	struct n_robot *nr = tty->disc_data;

	nr_core_receive(&nr->core, cp, fp, count);
	/*
	 * We took everything, so the flip buffer empties as soon as we
	 * return. A writer on a pty master waits for that room, and on a pty
	 * only the slave's discipline wakes it (as n_tty does when its reader
	 * drains it, in n_tty_check_unthrottle()).
	 */
	if (tty->driver->type == TTY_DRIVER_TYPE_PTY && tty->link)
		tty_wakeup(tty->link);
}

/* TCIFLUSH and hangup: forget what was received, partial frame included. */
static void nr_flush_buffer(struct tty_struct *tty)
{
	struct n_robot *nr = tty->disc_data;

	nr_core_flush_rx(&nr->core);
}

/* ---- read --------------------------------------------------------------- */

/* Should a reader stop waiting (or not start)? */
static bool nr_read_should_stop(struct tty_struct *tty, struct file *file)
{
	return test_bit(TTY_OTHER_CLOSED, &tty->flags) ||
	       test_bit(TTY_HUPPING, &tty->flags) ||
	       tty_hung_up_p(file) || tty_io_nonblock(tty, file);
}

static ssize_t nr_read(struct tty_struct *tty, struct file *file, u8 *kbuf,
		       size_t count, void **cookie, unsigned long offset)
{
	struct n_robot *nr = tty->disc_data;
	struct nr_frame *fr = *cookie;
	size_t n;
	int ret;

	if (fr)
		goto have_frame;

	if (READ_ONCE(nr->core.framing) == N_ROBOT_FRAMING_NONE)
		return -ENOPROTOOPT;
	for (;;) {
		fr = nr_core_dequeue(&nr->core);
		if (fr)
			break;
		if (test_bit(TTY_OTHER_CLOSED, &tty->flags))
			return -EIO;
		if (tty_hung_up_p(file) || test_bit(TTY_HUPPING, &tty->flags))
			return 0;
		if (tty_io_nonblock(tty, file))
			return -EAGAIN;
		ret = wait_event_interruptible(tty->read_wait,
					       !nr_core_rx_empty(&nr->core) ||
					       nr_read_should_stop(tty, file));
		if (ret)
			return -ERESTARTSYS;
	}
	*cookie = fr;

have_frame:
	if (offset >= fr->len) {
		/* Copied whole on the previous call. */
		*cookie = NULL;
		kfree(fr);
		return 0;
	}
	if (!count) {
		/* The caller's buffer is full and the frame is not: give it
		 * back untouched, and fail the read (the tty core then copies
		 * nothing).
		 */
		*cookie = NULL;
		nr_core_requeue(&nr->core, fr);
		return -EOVERFLOW;
	}
	n = min_t(size_t, count, fr->len - offset);
	memcpy(kbuf, fr->data + offset, n);
	if (offset + n >= fr->len) {
		*cookie = NULL;
		kfree(fr);
	}
	return n;
}

/* ---- transmit ----------------------------------------------------------- */

/* The driver has room again. Do not write from here: the core's work. */
static void nr_write_wakeup(struct tty_struct *tty)
{
	struct n_robot *nr = tty->disc_data;

	nr_core_write_wakeup(&nr->core);
}

static ssize_t nr_write(struct tty_struct *tty, struct file *file,
			const u8 *buf, size_t count)
{
	struct n_robot *nr = tty->disc_data;
	ssize_t ret;

	ret = nr_core_tx_too_big(&nr->core, count);
	if (ret)
		return ret;
	for (;;) {
		mutex_lock(&nr->core.tx_mutex);
		if (nr_core_tx_free(&nr->core))
			break;
		mutex_unlock(&nr->core.tx_mutex);
		if (test_bit(TTY_OTHER_CLOSED, &tty->flags))
			return -EIO;
		if (tty_hung_up_p(file) || test_bit(TTY_HUPPING, &tty->flags))
			return -EIO;
		if (tty_io_nonblock(tty, file))
			return -EAGAIN;
		ret = wait_event_interruptible(tty->write_wait,
					       nr_core_tx_free(&nr->core) ||
					       nr_read_should_stop(tty, file));
		if (ret)
			return -ERESTARTSYS;
	}
	/* tx_mutex held, slot free. */
	ret = nr_core_tx_start(&nr->core, buf, count);
	mutex_unlock(&nr->core.tx_mutex);
	return ret;
}

/* ---- poll --------------------------------------------------------------- */

static __poll_t nr_poll(struct tty_struct *tty, struct file *file,
			struct poll_table_struct *wait)
{
	struct n_robot *nr = tty->disc_data;
	__poll_t mask = 0;

	poll_wait(file, &tty->read_wait, wait);
	poll_wait(file, &tty->write_wait, wait);
	if (!nr_core_rx_empty(&nr->core))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (test_bit(TTY_OTHER_CLOSED, &tty->flags) || tty_hung_up_p(file))
		mask |= EPOLLHUP;
	if (nr_core_tx_free(&nr->core))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/* ---- ioctl -------------------------------------------------------------- */

static int nr_ioctl(struct tty_struct *tty, unsigned int cmd,
		    unsigned long arg)
{
	struct n_robot *nr = tty->disc_data;
	int ret;

	ret = nr_core_ioctl(&nr->core, cmd, (void __user *)arg);
	if (ret != -ENOIOCTLCMD)
		return ret;
	return nr_ioctl_helper(tty, cmd, arg);
}

/* ---- open, close, hangup ------------------------------------------------ */

static int nr_open(struct tty_struct *tty)
{
	struct n_robot *nr;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!tty->ops->write)
		return -EOPNOTSUPP;

	nr = kvzalloc(sizeof(*nr), GFP_KERNEL);
	if (!nr)
		return -ENOMEM;
	nr->tty = tty;
	nr_core_init(&nr->core, &nr_tty_port, tty, &tty->read_wait,
		     &tty->write_wait, N_ROBOT_FRAMING_NONE);

	tty->disc_data = nr;
	/* We do no flow control: the framer takes everything it is given. */
	tty->receive_room = 65536;
	/* One write() is one frame: the tty core must not split it. */
	set_bit(TTY_NO_WRITE_SPLIT, &tty->flags);
	tty_driver_flush_buffer(tty);
	return 0;
}

static void nr_close(struct tty_struct *tty)
{
	struct n_robot *nr = tty->disc_data;

	if (!nr)
		return;
	/* The transmit work first: a running one sets TTY_DO_WRITE_WAKEUP
	 * again (nr_tty_want_wakeup()), and the next discipline would
	 * inherit it.
	 */
	nr_core_destroy(&nr->core);
	clear_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
	/* Set at open for whole-frame writes; not the next discipline's. */
	clear_bit(TTY_NO_WRITE_SPLIT, &tty->flags);
	tty->disc_data = NULL;
	kvfree(nr);
}

/* The tty layer flushes us, wakes both queues and then closes us. */
static void nr_hangup(struct tty_struct *tty)
{
	struct n_robot *nr = tty->disc_data;

	cancel_work_sync(&nr->core.tx_work);
	wake_up_interruptible_all(&tty->read_wait);
	wake_up_interruptible_all(&tty->write_wait);
}

static struct tty_ldisc_ops nr_ldisc = {
	.owner		= THIS_MODULE,
	.num		= N_DEVELOPMENT,
	.name		= "n_robot",
	.open		= nr_open,
	.close		= nr_close,
	.hangup		= nr_hangup_op,
	.flush_buffer	= nr_flush_buffer,
	.read		= nr_read_op,
	.write		= nr_write,
	.ioctl		= nr_ioctl_op,
	.poll		= nr_poll,
	.receive_buf	= nr_receive_buf_op,
	.write_wakeup	= nr_write_wakeup,
};

/*
 * N_DEVELOPMENT is the kernel's slot for testing, and a registration there
 * by anything else silently replaces ours: the number is a parameter, and
 * the tools read it from /sys/module/n_robot/parameters/ldisc.
 */
static int ldisc = N_DEVELOPMENT;
module_param(ldisc, int, 0444);
MODULE_PARM_DESC(ldisc, "line discipline number to register (default 29, N_DEVELOPMENT)");

static int __init nr_init(void)
{
	int ret;

	if (ldisc <= N_TTY || ldisc >= NR_LDISCS) {
		pr_err("ldisc=%d: not a line discipline number (1..%d)\n",
		       ldisc, NR_LDISCS - 1);
		return -EINVAL;
	}
#ifdef NR_HAVE_REGISTER_OPS
	nr_ldisc.num = ldisc;
#else
	/* before 5.14 compat.h registers by number, N_DEVELOPMENT's */
	if (ldisc != N_DEVELOPMENT) {
		pr_err("ldisc=%d: this kernel takes only %d\n", ldisc,
		       N_DEVELOPMENT);
		return -EINVAL;
	}
#endif
	nr_ldisc_prepare(&nr_ldisc);
	ret = nr_register_ldisc(&nr_ldisc);
	if (ret) {
		pr_err("cannot register line discipline %d: %d\n", ldisc, ret);
		return ret;
	}
	ret = nr_serdev_register();
	if (ret) {
		pr_err("cannot register the serdev driver: %d\n", ret);
		nr_unregister_ldisc(&nr_ldisc);
	}
	return ret;
}
module_init(nr_init);

static void __exit nr_exit(void)
{
	nr_serdev_unregister();
	nr_unregister_ldisc(&nr_ldisc);
}
module_exit(nr_exit);

MODULE_ALIAS_LDISC(N_DEVELOPMENT);
MODULE_DESCRIPTION("Line discipline for CM-5 (BRBrain) and PAROL6 serial links");
MODULE_LICENSE("GPL");
