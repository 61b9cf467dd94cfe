// SPDX-License-Identifier: GPL-2.0-only
/*
 * n_robot: a tty line discipline for robot serial links (the Bioloid CM-5
 * running BRBrain, and the PAROL6 arm), on N_DEVELOPMENT (29).
 *
 * read() returns one validated frame, write() takes one frame; the framers
 * (framer.c, cm5.c, parol6.c) are pure C shared with userspace. The uapi
 * header, uapi/linux/n_robot.h, is the contract.
 *
 * Contexts and locks:
 *  - receive_buf() runs from the flip buffer work (process context, may
 *    sleep) and is not re-entered. It feeds the framer under rx_mutex.
 *  - rx_mutex: the framer, the CM-5 state and the configuration.
 *  - rxq_lock (spinlock): the receive queue, shared by receive_buf(), read(),
 *    poll() and FIONREAD.
 *  - tx_mutex: the one-frame transmit slot, shared by write(), the transmit
 *    work and SET_CONFIG. Order: tx_mutex, then rx_mutex, then rxq_lock.
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
#include "framer.h"
#include "cm5.h"
#include "parol6.h"

/* The uapi layouts are the ABI: the same on every architecture. */
static_assert(sizeof(struct n_robot_config) == 32);
static_assert(sizeof(struct n_robot_stats) == 168);
static_assert(sizeof(struct n_robot_cm5_entry) == 4);
static_assert(sizeof(struct n_robot_cm5_format) == 144);
static_assert(sizeof(struct n_robot_cm5_models) == 264);

struct nr_frame {
	struct list_head node;
	u32 len;
	u8 data[];
};

struct n_robot {
	struct tty_struct *tty;

	struct mutex rx_mutex;		/* framer, cm5, config */
	u32 framing;
	u32 rxq_max;
	struct cm5_state cm5;
	struct nrf rx;

	spinlock_t rxq_lock;		/* rxq, rxq_len, rx_overruns */
	struct list_head rxq;
	u32 rxq_len;
	u64 rx_overruns;

	struct mutex tx_mutex;		/* tx_* below */
	struct work_struct tx_work;
	bool tx_busy;
	u32 tx_len;
	u32 tx_off;
	u64 tx_frames;
	u64 tx_bytes;
	u64 tx_rejected;
	u8 tx_buf[N_ROBOT_CM5_MAX_TX_FRAME];
};

static const struct nrf_proto *nr_proto(u32 framing)
{
	switch (framing) {
	case N_ROBOT_FRAMING_CM5:
		return &cm5_proto;
	case N_ROBOT_FRAMING_PAROL6:
		return &parol6_proto;
	default:
		return NULL;
	}
}

static u32 nr_max_frame(u32 framing)
{
	const struct nrf_proto *p = nr_proto(framing);

	return p ? p->max_frame : 0;
}

/* ---- receive ------------------------------------------------------------ */

/* Framer callback, under rx_mutex: queue a copy, dropping the oldest if full. */
static void nr_emit(void *ctx, const u8 *frame, size_t len)
{
	struct n_robot *nr = ctx;
	struct nr_frame *fr, *old = NULL;

	fr = kmalloc(struct_size(fr, data, len), GFP_KERNEL);
	spin_lock(&nr->rxq_lock);
	if (!fr) {
		nr->rx_overruns++;
		spin_unlock(&nr->rxq_lock);
		return;
	}
	fr->len = len;
	memcpy(fr->data, frame, len);
	if (nr->rxq_len >= nr->rxq_max) {
		old = list_first_entry(&nr->rxq, struct nr_frame, node);
		list_del(&old->node);
		nr->rxq_len--;
		nr->rx_overruns++;
	}
	list_add_tail(&fr->node, &nr->rxq);
	nr->rxq_len++;
	spin_unlock(&nr->rxq_lock);
	kfree(old);
	wake_up_interruptible_poll(&nr->tty->read_wait, EPOLLIN | EPOLLRDNORM);
}

static void nr_receive_buf(struct tty_struct *tty, const u8 *cp,
			   const u8 *fp, size_t count)
{
	struct n_robot *nr = tty->disc_data;

	mutex_lock(&nr->rx_mutex);
	if (nr->framing == N_ROBOT_FRAMING_NONE) {
		/* Nobody asked for frames yet: account and drop. */
		nr->rx.cnt.raw_bytes += count;
		nr->rx.cnt.dropped_bytes += count;
	} else {
		nrf_feed(&nr->rx, cp, fp, count);
	}
	mutex_unlock(&nr->rx_mutex);
	/*
	 * We took everything, so the flip buffer empties as soon as we
	 * return. A writer on a pty master waits for that room, and on a pty
	 * only the slave's discipline wakes it (as n_tty does when its reader
	 * drains it, in n_tty_check_unthrottle()).
	 */
	if (tty->driver->type == TTY_DRIVER_TYPE_PTY && tty->link)
		tty_wakeup(tty->link);
}

static void nr_free_queue(struct list_head *q)
{
	struct nr_frame *fr, *tmp;

	list_for_each_entry_safe(fr, tmp, q, node) {
		list_del(&fr->node);
		kfree(fr);
	}
}

/* Empty the receive queue (the frames are not counted as dropped). */
static void nr_flush_queue(struct n_robot *nr)
{
	LIST_HEAD(gone);

	spin_lock(&nr->rxq_lock);
	list_splice_init(&nr->rxq, &gone);
	nr->rxq_len = 0;
	spin_unlock(&nr->rxq_lock);
	nr_free_queue(&gone);
}

/* TCIFLUSH and hangup: forget what was received, partial frame included. */
static void nr_flush_buffer(struct tty_struct *tty)
{
	struct n_robot *nr = tty->disc_data;

	mutex_lock(&nr->rx_mutex);
	nrf_reset(&nr->rx);
	nr->rx.cm5.outstanding = 0;
	mutex_unlock(&nr->rx_mutex);
	nr_flush_queue(nr);
}

/* ---- read --------------------------------------------------------------- */

static struct nr_frame *nr_dequeue(struct n_robot *nr)
{
	struct nr_frame *fr;

	spin_lock(&nr->rxq_lock);
	fr = list_first_entry_or_null(&nr->rxq, struct nr_frame, node);
	if (fr) {
		list_del(&fr->node);
		nr->rxq_len--;
	}
	spin_unlock(&nr->rxq_lock);
	return fr;
}

/* Put a frame the reader could not take back where it was: at the head. */
static void nr_requeue(struct n_robot *nr, struct nr_frame *fr)
{
	spin_lock(&nr->rxq_lock);
	list_add(&fr->node, &nr->rxq);
	nr->rxq_len++;
	spin_unlock(&nr->rxq_lock);
}

static bool nr_rx_empty(struct n_robot *nr)
{
	bool empty;

	spin_lock(&nr->rxq_lock);
	empty = list_empty(&nr->rxq);
	spin_unlock(&nr->rxq_lock);
	return empty;
}

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

	if (READ_ONCE(nr->framing) == N_ROBOT_FRAMING_NONE)
		return -ENOPROTOOPT;
	for (;;) {
		fr = nr_dequeue(nr);
		if (fr)
			break;
		if (test_bit(TTY_OTHER_CLOSED, &tty->flags))
			return -EIO;
		if (tty_hung_up_p(file) || test_bit(TTY_HUPPING, &tty->flags))
			return 0;
		if (tty_io_nonblock(tty, file))
			return -EAGAIN;
		ret = wait_event_interruptible(tty->read_wait,
					       !nr_rx_empty(nr) ||
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
		nr_requeue(nr, fr);
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

/*
 * Hand the slot's frame to the driver, under tx_mutex. A frame goes out
 * whole when the driver has room for all of it; only a driver whose buffer
 * is empty and still too small gets it in pieces. So the two bytes of a
 * CM-5 READ_DATA never part.
 */
static void nr_tx_push(struct n_robot *nr)
{
	struct tty_struct *tty = nr->tty;
	unsigned int room;
	u32 left;
	int n;

	lockdep_assert_held(&nr->tx_mutex);
	if (!nr->tx_busy)
		return;
	left = nr->tx_len - nr->tx_off;
	/* Ask for a wakeup before looking at the room, or one may be lost
	 * between the two (the driver may also drain inside ops->write).
	 */
	set_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
	room = tty_write_room(tty);
	if (room < left &&
	    !(room && (nr->tx_off || !tty_chars_in_buffer(tty))))
		return;
	n = tty->ops->write(tty, nr->tx_buf + nr->tx_off, min(room, left));
	if (n > 0)
		nr->tx_off += min_t(u32, n, left);
	if (nr->tx_off >= nr->tx_len) {
		WRITE_ONCE(nr->tx_busy, false);
		clear_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
		wake_up_interruptible_poll(&tty->write_wait,
					   EPOLLOUT | EPOLLWRNORM);
	}
}

static void nr_tx_work(struct work_struct *work)
{
	struct n_robot *nr = container_of(work, struct n_robot, tx_work);

	mutex_lock(&nr->tx_mutex);
	nr_tx_push(nr);
	mutex_unlock(&nr->tx_mutex);
}

/* The driver has room again. Do not write from here: schedule the work. */
static void nr_write_wakeup(struct tty_struct *tty)
{
	struct n_robot *nr = tty->disc_data;

	schedule_work(&nr->tx_work);
}

/*
 * Lockless peek at the slot, for wait conditions and poll(), which may not
 * sleep on tx_mutex. tx_busy is written under tx_mutex with WRITE_ONCE();
 * the wait queue's wake_up()/prepare_to_wait() pair orders the clearing
 * store before a waiter's re-check, so no explicit barrier is needed.
 */
static bool nr_tx_free(struct n_robot *nr)
{
	return !READ_ONCE(nr->tx_busy);
}

/* Validate a frame for the current framing, and learn from it (rx_mutex). */
static int nr_tx_accept(struct n_robot *nr, const u8 *buf, size_t len)
{
	int ret;

	mutex_lock(&nr->rx_mutex);
	switch (nr->framing) {
	case N_ROBOT_FRAMING_CM5:
		ret = cm5_tx_check(&nr->cm5, buf, len);
		if (!ret)
			cm5_tx_commit(&nr->cm5, &nr->rx, buf, len);
		break;
	case N_ROBOT_FRAMING_PAROL6:
		ret = parol6_tx_check(buf, len);
		break;
	default:
		ret = -ENOPROTOOPT;
		break;
	}
	mutex_unlock(&nr->rx_mutex);
	return ret;
}

static ssize_t nr_write(struct tty_struct *tty, struct file *file,
			const u8 *buf, size_t count)
{
	struct n_robot *nr = tty->disc_data;
	int ret;

	if (count > sizeof(nr->tx_buf)) {
		ret = READ_ONCE(nr->framing) == N_ROBOT_FRAMING_NONE ?
		      -ENOPROTOOPT : -EMSGSIZE;
		goto reject;
	}
	for (;;) {
		mutex_lock(&nr->tx_mutex);
		if (!nr->tx_busy)
			break;
		mutex_unlock(&nr->tx_mutex);
		if (test_bit(TTY_OTHER_CLOSED, &tty->flags))
			return -EIO;
		if (tty_hung_up_p(file) || test_bit(TTY_HUPPING, &tty->flags))
			return -EIO;
		if (tty_io_nonblock(tty, file))
			return -EAGAIN;
		ret = wait_event_interruptible(tty->write_wait,
					       nr_tx_free(nr) ||
					       nr_read_should_stop(tty, file));
		if (ret)
			return -ERESTARTSYS;
	}
	/* tx_mutex held, slot free. */
	ret = nr_tx_accept(nr, buf, count);
	if (ret) {
		nr->tx_rejected++;
		mutex_unlock(&nr->tx_mutex);
		return ret;
	}
	memcpy(nr->tx_buf, buf, count);
	nr->tx_len = count;
	nr->tx_off = 0;
	WRITE_ONCE(nr->tx_busy, true);
	nr->tx_frames++;
	nr->tx_bytes += count;
	nr_tx_push(nr);
	mutex_unlock(&nr->tx_mutex);
	return count;

reject:
	mutex_lock(&nr->tx_mutex);
	nr->tx_rejected++;
	mutex_unlock(&nr->tx_mutex);
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
	if (!nr_rx_empty(nr))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (test_bit(TTY_OTHER_CLOSED, &tty->flags) || tty_hung_up_p(file))
		mask |= EPOLLHUP;
	if (nr_tx_free(nr))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/* ---- ioctl -------------------------------------------------------------- */

/* Select a framing and reset everything that belongs to the old one. */
static void nr_reset_framing(struct n_robot *nr, u32 framing, u32 rxq_max)
{
	lockdep_assert_held(&nr->rx_mutex);
	/* read() and write() peek at it without rx_mutex */
	WRITE_ONCE(nr->framing, framing);
	nr->rxq_max = rxq_max;
	nrf_init(&nr->rx, nr_proto(framing) ?: &cm5_proto, nr_emit, nr);
	cm5_state_init(&nr->cm5, &nr->rx);
	nr_flush_queue(nr);
	spin_lock(&nr->rxq_lock);
	nr->rx_overruns = 0;
	spin_unlock(&nr->rxq_lock);
}

static int nr_set_config(struct n_robot *nr, void __user *arg)
{
	struct n_robot_config c;
	u32 qmax;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.size != sizeof(c) || c.api_version || c.max_frame ||
	    c.reserved[0] || c.reserved[1])
		return -EINVAL;
	if (c.flags)
		return -EOPNOTSUPP;
	if (!nr_proto(c.framing) && c.framing != N_ROBOT_FRAMING_NONE)
		return -EINVAL;
	if (c.rx_queue_frames > N_ROBOT_RX_QUEUE_MAX)
		return -EINVAL;
	qmax = c.rx_queue_frames ?: N_ROBOT_RX_QUEUE_DEFAULT;

	mutex_lock(&nr->tx_mutex);
	mutex_lock(&nr->rx_mutex);
	nr_reset_framing(nr, c.framing, qmax);
	/* A frame write() accepted still goes out, whole: it was valid when
	 * accepted, and the device must not see half a packet.
	 */
	nr->tx_frames = 0;
	nr->tx_bytes = 0;
	nr->tx_rejected = 0;
	mutex_unlock(&nr->rx_mutex);
	mutex_unlock(&nr->tx_mutex);
	return 0;
}

static int nr_get_config(struct n_robot *nr, void __user *arg)
{
	struct n_robot_config c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.api_version = N_ROBOT_API_VERSION;
	mutex_lock(&nr->rx_mutex);
	c.framing = nr->framing;
	c.rx_queue_frames = nr->rxq_max;
	c.max_frame = nr_max_frame(nr->framing);
	mutex_unlock(&nr->rx_mutex);
	return copy_to_user(arg, &c, sizeof(c)) ? -EFAULT : 0;
}

static int nr_get_stats(struct n_robot *nr, void __user *arg)
{
	struct n_robot_stats s;
	const struct nrf_counters *c = &nr->rx.cnt;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	mutex_lock(&nr->tx_mutex);
	s.tx_frames = nr->tx_frames;
	s.tx_bytes = nr->tx_bytes;
	s.tx_rejected = nr->tx_rejected;
	mutex_lock(&nr->rx_mutex);
	s.framing = nr->framing;
	s.rx_raw_bytes = c->raw_bytes;
	s.rx_frames = c->frames;
	s.rx_bytes = c->frame_bytes;
	s.rx_dropped_bytes = c->dropped_bytes;
	s.rx_checksum_errors = c->checksum_errors;
	s.rx_length_errors = c->length_errors;
	s.rx_marker_errors = c->marker_errors;
	s.rx_resyncs = c->resyncs;
	s.rx_tty_errors = c->tty_errors;
	s.cm5_unsolicited = c->cm5_unsolicited;
	s.rx_pending_bytes = nrf_pending(&nr->rx);
	spin_lock(&nr->rxq_lock);
	s.rx_overruns = nr->rx_overruns;
	s.rx_queued_frames = nr->rxq_len;
	spin_unlock(&nr->rxq_lock);
	mutex_unlock(&nr->rx_mutex);
	mutex_unlock(&nr->tx_mutex);
	return copy_to_user(arg, &s, sizeof(s)) ? -EFAULT : 0;
}

static void nr_reset_stats(struct n_robot *nr)
{
	mutex_lock(&nr->tx_mutex);
	nr->tx_frames = 0;
	nr->tx_bytes = 0;
	nr->tx_rejected = 0;
	mutex_lock(&nr->rx_mutex);
	memset(&nr->rx.cnt, 0, sizeof(nr->rx.cnt));
	/* Keep the accounting identity: the partial frame was received. */
	nr->rx.cnt.raw_bytes = nrf_pending(&nr->rx);
	spin_lock(&nr->rxq_lock);
	nr->rx_overruns = 0;
	spin_unlock(&nr->rxq_lock);
	mutex_unlock(&nr->rx_mutex);
	mutex_unlock(&nr->tx_mutex);
}

static int nr_cm5_set_format(struct n_robot *nr, void __user *arg)
{
	struct n_robot_cm5_format f;
	u32 i;
	int ret;

	if (copy_from_user(&f, arg, sizeof(f)))
		return -EFAULT;
	if (f.size != sizeof(f) || f.reserved ||
	    f.which > N_ROBOT_CM5_FORMAT_WRITE ||
	    f.count > N_ROBOT_CM5_MAX_DYNAMIXELS)
		return -EINVAL;
	for (i = f.count; i < N_ROBOT_CM5_MAX_DYNAMIXELS; i++)
		if (f.entry[i].id || f.entry[i].start || f.entry[i].num ||
		    f.entry[i].pad)
			return -EINVAL;
	mutex_lock(&nr->rx_mutex);
	if (nr->framing != N_ROBOT_FRAMING_CM5)
		ret = -ENOPROTOOPT;
	else
		ret = cm5_set_format(&nr->cm5, &nr->rx, f.which, f.entry,
				     f.count);
	mutex_unlock(&nr->rx_mutex);
	return ret;
}

static int nr_cm5_get_format(struct n_robot *nr, void __user *arg)
{
	struct n_robot_cm5_format f;
	const struct cm5_format *fmt;
	u32 which;

	if (copy_from_user(&f, arg, sizeof(f)))
		return -EFAULT;
	if (f.size != sizeof(f) || f.which > N_ROBOT_CM5_FORMAT_WRITE)
		return -EINVAL;
	which = f.which;
	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.which = which;
	mutex_lock(&nr->rx_mutex);
	if (nr->framing != N_ROBOT_FRAMING_CM5) {
		mutex_unlock(&nr->rx_mutex);
		return -ENOPROTOOPT;
	}
	fmt = &nr->cm5.fmt[which];
	f.count = fmt->count;
	memcpy(f.entry, fmt->entry, sizeof(f.entry));
	mutex_unlock(&nr->rx_mutex);
	return copy_to_user(arg, &f, sizeof(f)) ? -EFAULT : 0;
}

static int nr_cm5_set_models(struct n_robot *nr, void __user *arg)
{
	struct n_robot_cm5_models *m;
	int ret = 0;
	u32 i;

	m = memdup_user(arg, sizeof(*m));
	if (IS_ERR(m))
		return PTR_ERR(m);
	if (m->size != sizeof(*m) || m->reserved ||
	    m->model[N_ROBOT_CM5_MAX_ID + 1] || m->model[N_ROBOT_CM5_MAX_ID + 2])
		ret = -EINVAL;
	for (i = 0; !ret && i <= N_ROBOT_CM5_MAX_ID; i++)
		if (m->model[i] > N_ROBOT_CM5_MODEL_OTHER)
			ret = -EINVAL;
	if (!ret) {
		mutex_lock(&nr->rx_mutex);
		if (nr->framing != N_ROBOT_FRAMING_CM5)
			ret = -ENOPROTOOPT;
		else
			memcpy(nr->cm5.model, m->model, sizeof(nr->cm5.model));
		mutex_unlock(&nr->rx_mutex);
	}
	kfree(m);
	return ret;
}

static int nr_cm5_get_models(struct n_robot *nr, void __user *arg)
{
	struct n_robot_cm5_models *m;
	int ret = 0;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->size = sizeof(*m);
	mutex_lock(&nr->rx_mutex);
	if (nr->framing != N_ROBOT_FRAMING_CM5)
		ret = -ENOPROTOOPT;
	else
		memcpy(m->model, nr->cm5.model, sizeof(m->model));
	mutex_unlock(&nr->rx_mutex);
	if (!ret && copy_to_user(arg, m, sizeof(*m)))
		ret = -EFAULT;
	kfree(m);
	return ret;
}

static int nr_ioctl(struct tty_struct *tty, unsigned int cmd,
		    unsigned long arg)
{
	struct n_robot *nr = tty->disc_data;
	void __user *uarg = (void __user *)arg;
	struct nr_frame *fr;
	int count;

	switch (cmd) {
	case N_ROBOT_IOC_SET_CONFIG:
		return nr_set_config(nr, uarg);
	case N_ROBOT_IOC_GET_CONFIG:
		return nr_get_config(nr, uarg);
	case N_ROBOT_IOC_GET_STATS:
		return nr_get_stats(nr, uarg);
	case N_ROBOT_IOC_RESET_STATS:
		nr_reset_stats(nr);
		return 0;
	case N_ROBOT_IOC_CM5_SET_FORMAT:
		return nr_cm5_set_format(nr, uarg);
	case N_ROBOT_IOC_CM5_GET_FORMAT:
		return nr_cm5_get_format(nr, uarg);
	case N_ROBOT_IOC_CM5_SET_MODELS:
		return nr_cm5_set_models(nr, uarg);
	case N_ROBOT_IOC_CM5_GET_MODELS:
		return nr_cm5_get_models(nr, uarg);
	case FIONREAD:
		spin_lock(&nr->rxq_lock);
		fr = list_first_entry_or_null(&nr->rxq, struct nr_frame, node);
		count = fr ? fr->len : 0;
		spin_unlock(&nr->rxq_lock);
		return put_user(count, (int __user *)uarg);
	default:
		return nr_ioctl_helper(tty, cmd, arg);
	}
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
	mutex_init(&nr->rx_mutex);
	mutex_init(&nr->tx_mutex);
	spin_lock_init(&nr->rxq_lock);
	INIT_LIST_HEAD(&nr->rxq);
	INIT_WORK(&nr->tx_work, nr_tx_work);
	mutex_lock(&nr->rx_mutex);
	nr_reset_framing(nr, N_ROBOT_FRAMING_NONE, N_ROBOT_RX_QUEUE_DEFAULT);
	mutex_unlock(&nr->rx_mutex);

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
	clear_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
	/* Set at open for whole-frame writes; not the next discipline's. */
	clear_bit(TTY_NO_WRITE_SPLIT, &tty->flags);
	cancel_work_sync(&nr->tx_work);
	tty->disc_data = NULL;
	nr_free_queue(&nr->rxq);
	mutex_destroy(&nr->rx_mutex);
	mutex_destroy(&nr->tx_mutex);
	kvfree(nr);
}

/* The tty layer flushes us, wakes both queues and then closes us. */
static void nr_hangup(struct tty_struct *tty)
{
	struct n_robot *nr = tty->disc_data;

	cancel_work_sync(&nr->tx_work);
	wake_up_interruptible_all(&tty->read_wait);
	wake_up_interruptible_all(&tty->write_wait);
}

static struct tty_ldisc_ops nr_ldisc = {
	.owner		= THIS_MODULE,
	.num		= N_DEVELOPMENT,
	.name		= "n_robot",
	.open		= nr_open,
	.close		= nr_close,
	.hangup		= nr_hangup,
	.flush_buffer	= nr_flush_buffer,
	.read		= nr_read_op,
	.write		= nr_write,
	.ioctl		= nr_ioctl_op,
	.poll		= nr_poll,
	.receive_buf	= nr_receive_buf_op,
	.write_wakeup	= nr_write_wakeup,
};

static int __init nr_init(void)
{
	int ret;

	nr_ldisc_prepare(&nr_ldisc);
	ret = nr_register_ldisc(&nr_ldisc);
	if (ret)
		pr_err("cannot register line discipline %d: %d\n",
		       N_DEVELOPMENT, ret);
	return ret;
}
module_init(nr_init);

static void __exit nr_exit(void)
{
	nr_unregister_ldisc(&nr_ldisc);
}
module_exit(nr_exit);

MODULE_ALIAS_LDISC(N_DEVELOPMENT);
MODULE_DESCRIPTION("Line discipline for CM-5 (BRBrain) and PAROL6 serial links");
MODULE_LICENSE("GPL");
