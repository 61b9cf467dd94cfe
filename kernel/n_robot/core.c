// SPDX-License-Identifier: GPL-2.0-only
/*
 * n_robot's link core: see core.h. Moved out of the line discipline so the
 * serdev driver shares it; the contexts are the discipline's (ldisc.c) and
 * the serdev driver's (serdev.c): nr_core_receive() runs in process context
 * (the tty flip buffer work, which serdev's ttyport also uses) and is not
 * re-entered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/termios.h>

#include "core.h"

/* The uapi layouts are the ABI: the same on every architecture. */
static_assert(sizeof(struct n_robot_config) == 32);
static_assert(sizeof(struct n_robot_stats) == 168);
static_assert(sizeof(struct n_robot_cm5_entry) == 4);
static_assert(sizeof(struct n_robot_cm5_format) == 144);
static_assert(sizeof(struct n_robot_cm5_models) == 264);

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
	struct nr_core *nr = ctx;
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
	wake_up_interruptible_poll(nr->read_wait, EPOLLIN | EPOLLRDNORM);
}

void nr_core_receive(struct nr_core *nr, const u8 *cp, const u8 *fp,
		     size_t count)
{
	mutex_lock(&nr->rx_mutex);
	if (nr->framing == N_ROBOT_FRAMING_NONE) {
		/* Nobody asked for frames yet: account and drop. */
		nr->rx.cnt.raw_bytes += count;
		nr->rx.cnt.dropped_bytes += count;
	} else {
		nrf_feed(&nr->rx, cp, fp, count);
	}
	mutex_unlock(&nr->rx_mutex);
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
static void nr_flush_queue(struct nr_core *nr)
{
	LIST_HEAD(gone);

	spin_lock(&nr->rxq_lock);
	list_splice_init(&nr->rxq, &gone);
	nr->rxq_len = 0;
	spin_unlock(&nr->rxq_lock);
	nr_free_queue(&gone);
}

void nr_core_flush_rx(struct nr_core *nr)
{
	mutex_lock(&nr->rx_mutex);
	nrf_reset(&nr->rx);
	nr->rx.cm5.outstanding = 0;
	nr->rx.cm5.answer_in = 0;	/* an awaited answer is lost */
	mutex_unlock(&nr->rx_mutex);
	nr_flush_queue(nr);
}

struct nr_frame *nr_core_dequeue(struct nr_core *nr)
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
void nr_core_requeue(struct nr_core *nr, struct nr_frame *fr)
{
	spin_lock(&nr->rxq_lock);
	list_add(&fr->node, &nr->rxq);
	nr->rxq_len++;
	spin_unlock(&nr->rxq_lock);
}

bool nr_core_rx_empty(struct nr_core *nr)
{
	bool empty;

	spin_lock(&nr->rxq_lock);
	empty = list_empty(&nr->rxq);
	spin_unlock(&nr->rxq_lock);
	return empty;
}

/* ---- transmit ----------------------------------------------------------- */

/*
 * Hand the slot's frame to the port, under tx_mutex. A frame goes out whole
 * when the port has room for all of it; only a port whose buffer is empty
 * and still too small gets it in pieces. So the two bytes of a CM-5
 * READ_DATA never part.
 */
static void nr_tx_push(struct nr_core *nr)
{
	unsigned int room;
	u32 left;
	int n;

	lockdep_assert_held(&nr->tx_mutex);
	if (!nr->tx_busy)
		return;
	left = nr->tx_len - nr->tx_off;
	/* Ask for a wakeup before looking at the room, or one may be lost
	 * between the two (the driver may also drain inside its write).
	 */
	nr->ops->want_wakeup(nr->port, true);
	room = nr->ops->write_room(nr->port);
	if (room < left &&
	    !(room && (nr->tx_off || nr->ops->tx_empty(nr->port))))
		return;
	n = nr->ops->write(nr->port, nr->tx_buf + nr->tx_off, min(room, left));
	if (n > 0)
		nr->tx_off += min_t(u32, n, left);
	if (nr->tx_off >= nr->tx_len) {
		WRITE_ONCE(nr->tx_busy, false);
		nr->ops->want_wakeup(nr->port, false);
		wake_up_interruptible_poll(nr->write_wait,
					   EPOLLOUT | EPOLLWRNORM);
	}
}

static void nr_tx_work(struct work_struct *work)
{
	struct nr_core *nr = container_of(work, struct nr_core, tx_work);

	mutex_lock(&nr->tx_mutex);
	nr_tx_push(nr);
	mutex_unlock(&nr->tx_mutex);
}

/* The port has room again. Do not write from here: schedule the work. */
void nr_core_write_wakeup(struct nr_core *nr)
{
	schedule_work(&nr->tx_work);
}

/*
 * Lockless peek at the slot, for wait conditions and poll(), which may not
 * sleep on tx_mutex. tx_busy is written under tx_mutex with WRITE_ONCE();
 * the wait queue's wake_up()/prepare_to_wait() pair orders the clearing
 * store before a waiter's re-check, so no explicit barrier is needed.
 */
bool nr_core_tx_free(struct nr_core *nr)
{
	return !READ_ONCE(nr->tx_busy);
}

/* Validate a frame for the current framing, and learn from it (rx_mutex). */
static int nr_tx_accept(struct nr_core *nr, const u8 *buf, size_t len)
{
	int ret;

	mutex_lock(&nr->rx_mutex);
	switch (nr->framing) {
	case N_ROBOT_FRAMING_CM5:
		ret = cm5_tx_check(&nr->cm5, buf, len);
		if (!ret)
			ret = cm5_tx_ready(&nr->rx, buf, len);
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

int nr_core_tx_too_big(struct nr_core *nr, size_t count)
{
	int ret;

	if (count <= sizeof(nr->tx_buf))
		return 0;
	ret = READ_ONCE(nr->framing) == N_ROBOT_FRAMING_NONE ?
	      -ENOPROTOOPT : -EMSGSIZE;
	mutex_lock(&nr->tx_mutex);
	nr->tx_rejected++;
	mutex_unlock(&nr->tx_mutex);
	return ret;
}

ssize_t nr_core_tx_start(struct nr_core *nr, const u8 *buf, size_t count)
{
	int ret;

	lockdep_assert_held(&nr->tx_mutex);
	ret = nr_tx_accept(nr, buf, count);
	if (ret) {
		nr->tx_rejected++;
		return ret;
	}
	memcpy(nr->tx_buf, buf, count);
	nr->tx_len = count;
	nr->tx_off = 0;
	WRITE_ONCE(nr->tx_busy, true);
	nr->tx_frames++;
	nr->tx_bytes += count;
	nr_tx_push(nr);
	return count;
}

/* ---- ioctl -------------------------------------------------------------- */

/* Select a framing and reset everything that belongs to the old one. */
static void nr_reset_framing(struct nr_core *nr, u32 framing, u32 rxq_max)
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

static int nr_set_config(struct nr_core *nr, void __user *arg)
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
	/* A device tree node says which robot is on the line. */
	if (nr->fixed_framing && c.framing != nr->fixed_framing)
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

static int nr_get_config(struct nr_core *nr, void __user *arg)
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

static int nr_get_stats(struct nr_core *nr, void __user *arg)
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
	s.cm5_formats_lost = c->cm5_formats_lost;
	s.rx_pending_bytes = nrf_pending(&nr->rx);
	spin_lock(&nr->rxq_lock);
	s.rx_overruns = nr->rx_overruns;
	s.rx_queued_frames = nr->rxq_len;
	spin_unlock(&nr->rxq_lock);
	mutex_unlock(&nr->rx_mutex);
	mutex_unlock(&nr->tx_mutex);
	return copy_to_user(arg, &s, sizeof(s)) ? -EFAULT : 0;
}

static void nr_reset_stats(struct nr_core *nr)
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

static int nr_cm5_set_format(struct nr_core *nr, void __user *arg)
{
	struct n_robot_cm5_format f;
	u32 i;
	int ret;

	if (copy_from_user(&f, arg, sizeof(f)))
		return -EFAULT;
	if (f.size != sizeof(f) || f.flags ||
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

static int nr_cm5_get_format(struct nr_core *nr, void __user *arg)
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
	if (nr->rx.cm5.fmt_unknown & (1U << which))
		f.flags = N_ROBOT_CM5_FORMAT_UNKNOWN;
	f.count = fmt->count;
	memcpy(f.entry, fmt->entry, sizeof(f.entry));
	mutex_unlock(&nr->rx_mutex);
	return copy_to_user(arg, &f, sizeof(f)) ? -EFAULT : 0;
}

static int nr_cm5_set_models(struct nr_core *nr, void __user *arg)
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

static int nr_cm5_get_models(struct nr_core *nr, void __user *arg)
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

int nr_core_ioctl(struct nr_core *nr, unsigned int cmd, void __user *uarg)
{
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
		return -ENOIOCTLCMD;
	}
}

/* ---- life --------------------------------------------------------------- */

void nr_core_init(struct nr_core *nr, const struct nr_port_ops *ops,
		  void *port, wait_queue_head_t *read_wait,
		  wait_queue_head_t *write_wait, u32 framing)
{
	nr->ops = ops;
	nr->port = port;
	nr->read_wait = read_wait;
	nr->write_wait = write_wait;
	mutex_init(&nr->rx_mutex);
	mutex_init(&nr->tx_mutex);
	spin_lock_init(&nr->rxq_lock);
	INIT_LIST_HEAD(&nr->rxq);
	INIT_WORK(&nr->tx_work, nr_tx_work);
	mutex_lock(&nr->rx_mutex);
	nr_reset_framing(nr, framing, N_ROBOT_RX_QUEUE_DEFAULT);
	mutex_unlock(&nr->rx_mutex);
}

void nr_core_destroy(struct nr_core *nr)
{
	cancel_work_sync(&nr->tx_work);
	nr_free_queue(&nr->rxq);
	mutex_destroy(&nr->rx_mutex);
	mutex_destroy(&nr->tx_mutex);
}
