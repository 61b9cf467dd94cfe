// SPDX-License-Identifier: GPL-2.0-only
/*
 * n_robot on a UART the device tree describes: a serdev driver for a node
 * with compatible "robotis,cm5-brbrain" (a Bioloid CM-5 running BRBrain) or
 * "sourcerobotics,parol6" (the PAROL6 control board) under the UART's node
 * (dts/n-robot.yaml is the binding). The node's compatible selects the
 * framing, its current-speed the baud rate; the character format is 8N1
 * without flow control, which is what both robots speak.
 *
 * Each bound node gets a character device, /dev/n_robotN (a misc device
 * whose parent is the serdev device), with the line discipline's interface
 * (uapi/linux/n_robot.h): read() one frame, write() one frame, poll(), the
 * n_robot ioctls, FIONREAD, and TCFLSH with TCIFLUSH. The framing is the
 * node's from the start; N_ROBOT_IOC_SET_CONFIG takes only that one (it
 * still resets the receiver and may change rx_queue_frames).
 *
 * Contexts and lifetime:
 *  - receive_buf() comes from the tty flip buffer work (process context),
 *    write_wakeup() from the UART's interrupt: it only schedules the core's
 *    transmit work.
 *  - An open file holds a reference (kref) on struct nr_sd; remove() makes
 *    the device node go away (misc_deregister() waits for a running open()),
 *    marks it gone under tx_mutex (every port operation runs under it, and
 *    touches the serdev device only while not gone), closes the UART, wakes
 *    the waiters and drops the probe's reference. The last release frees.
 *    The number (n_robotN) is given back at remove(), so the next device
 *    bound gets it even while files of this one are open.
 *  - The serdev bus passes no per-byte error flags (parity, framing): such
 *    bytes reach the framer as data, and rx_tty_errors stays 0; the CM-5's
 *    checksum and the PAROL6's length and end bytes still reject the frame.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/of.h>
#include <linux/property.h>
#include <linux/serdev.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/termios.h>

#include "core.h"
#include "serdev.h"

/* What a compatible says: the framing, and the baud rate by default. */
struct nr_sd_robot {
	u32 framing;
	u32 speed;
	const char *what;
};

/* BRBrain talks at 115200 baud; the PAROL6's board at 3 Mbaud (nominal). */
static const struct nr_sd_robot nr_sd_cm5 = {
	.framing = N_ROBOT_FRAMING_CM5,
	.speed = 115200,
	.what = "CM-5 (BRBrain)",
};

static const struct nr_sd_robot nr_sd_parol6 = {
	.framing = N_ROBOT_FRAMING_PAROL6,
	.speed = 3000000,
	.what = "PAROL6",
};

struct nr_sd {
	struct kref ref;
	struct serdev_device *serdev;	/* only while !gone */
	bool gone;			/* under core.tx_mutex; READ_ONCE outside */
	int id;
	char name[16];
	struct miscdevice misc;
	wait_queue_head_t read_wait;
	wait_queue_head_t write_wait;
	struct nr_core core;
};

static DEFINE_IDA(nr_sd_ida);

/* ---- the port: the serdev controller, under core.tx_mutex ---------------- */

/*
 * serdev arms the UART's write wakeup on every write, and only then (the
 * tty port's TTY_DO_WRITE_WAKEUP): a write of nothing arms it.
 */
static void nr_sd_want_wakeup(void *port, bool on)
{
	struct nr_sd *sd = port;

	if (on && !sd->gone)
		serdev_device_write_buf(sd->serdev, sd->core.tx_buf, 0);
}

static unsigned int nr_sd_write_room(void *port)
{
	struct nr_sd *sd = port;
	int room;

	if (sd->gone)
		return 0;
	room = serdev_device_write_room(sd->serdev);
	return room > 0 ? room : 0;
}

/*
 * serdev cannot tell whether the UART's buffer is empty; that buffer (a
 * page) is far larger than any frame, so a frame always waits to go whole.
 */
static bool nr_sd_tx_empty(void *port)
{
	return false;
}

static int nr_sd_write(void *port, const u8 *buf, size_t len)
{
	struct nr_sd *sd = port;

	if (sd->gone)
		return 0;
	return serdev_device_write_buf(sd->serdev, buf, len);
}

static const struct nr_port_ops nr_sd_port = {
	.want_wakeup	= nr_sd_want_wakeup,
	.write_room	= nr_sd_write_room,
	.tx_empty	= nr_sd_tx_empty,
	.write		= nr_sd_write,
};

/* ---- serdev callbacks ----------------------------------------------------- */

static size_t nr_sd_receive(struct serdev_device *serdev, const u8 *data,
			    size_t count)
{
	struct nr_sd *sd = serdev_device_get_drvdata(serdev);

	nr_core_receive(&sd->core, data, NULL, count);
	return count;	/* the framer takes everything */
}

/* receive_buf() returns size_t and takes const u8 * from 6.8 (Kbuild probe). */
#ifdef NR_HAVE_SERDEV_SIZE_T_RX
#define nr_sd_receive_op nr_sd_receive
#else
static int nr_sd_receive_op(struct serdev_device *serdev,
			    const unsigned char *data, size_t count)
{
	return nr_sd_receive(serdev, data, count);
}
#endif

static void nr_sd_write_wakeup(struct serdev_device *serdev)
{
	struct nr_sd *sd = serdev_device_get_drvdata(serdev);

	nr_core_write_wakeup(&sd->core);
}

static const struct serdev_device_ops nr_sd_client_ops = {
	.receive_buf	= nr_sd_receive_op,
	.write_wakeup	= nr_sd_write_wakeup,
};

/* ---- the character device -------------------------------------------------- */

static void nr_sd_free(struct kref *ref)
{
	struct nr_sd *sd = container_of(ref, struct nr_sd, ref);

	nr_core_destroy(&sd->core);
	kvfree(sd);
}

static int nr_sd_open(struct inode *inode, struct file *file)
{
	struct nr_sd *sd = container_of(file->private_data, struct nr_sd, misc);

	/* Under misc's lock: remove() has not dropped the probe's reference. */
	kref_get(&sd->ref);
	file->private_data = sd;
	return nonseekable_open(inode, file);
}

static int nr_sd_release(struct inode *inode, struct file *file)
{
	struct nr_sd *sd = file->private_data;

	kref_put(&sd->ref, nr_sd_free);
	return 0;
}

static ssize_t nr_sd_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct nr_sd *sd = file->private_data;
	struct nr_frame *fr;
	ssize_t n;
	int ret;

	for (;;) {
		fr = nr_core_dequeue(&sd->core);
		if (fr)
			break;
		if (READ_ONCE(sd->gone))
			return 0;	/* like a hung-up tty */
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(sd->read_wait,
					       !nr_core_rx_empty(&sd->core) ||
					       READ_ONCE(sd->gone));
		if (ret)
			return -ERESTARTSYS;
	}
	/* A buffer too short for the frame: it stays queued, as on the tty. */
	if (count < fr->len) {
		nr_core_requeue(&sd->core, fr);
		return -EOVERFLOW;
	}
	if (copy_to_user(buf, fr->data, fr->len)) {
		nr_core_requeue(&sd->core, fr);
		return -EFAULT;
	}
	n = fr->len;
	kfree(fr);
	return n;
}

static ssize_t nr_sd_write_file(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	struct nr_sd *sd = file->private_data;
	u8 kbuf[N_ROBOT_CM5_MAX_TX_FRAME];
	ssize_t ret;

	ret = nr_core_tx_too_big(&sd->core, count);
	if (ret)
		return ret;
	if (copy_from_user(kbuf, buf, count))
		return -EFAULT;
	for (;;) {
		mutex_lock(&sd->core.tx_mutex);
		if (sd->gone) {
			mutex_unlock(&sd->core.tx_mutex);
			return -EIO;
		}
		if (nr_core_tx_free(&sd->core))
			break;
		mutex_unlock(&sd->core.tx_mutex);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(sd->write_wait,
					       nr_core_tx_free(&sd->core) ||
					       READ_ONCE(sd->gone));
		if (ret)
			return -ERESTARTSYS;
	}
	/* tx_mutex held, slot free. */
	ret = nr_core_tx_start(&sd->core, kbuf, count);
	mutex_unlock(&sd->core.tx_mutex);
	return ret;
}

static __poll_t nr_sd_poll(struct file *file, struct poll_table_struct *wait)
{
	struct nr_sd *sd = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &sd->read_wait, wait);
	poll_wait(file, &sd->write_wait, wait);
	if (!nr_core_rx_empty(&sd->core))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(sd->gone))
		mask |= EPOLLHUP;
	else if (nr_core_tx_free(&sd->core))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

static long nr_sd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct nr_sd *sd = file->private_data;
	int ret;

	ret = nr_core_ioctl(&sd->core, cmd, (void __user *)arg);
	if (ret != -ENOIOCTLCMD)
		return ret;
	if (cmd != TCFLSH)
		return -ENOTTY;
	/* tcflush(fd, TCIFLUSH), as on the tty. Output cannot be flushed
	 * through serdev, so TCOFLUSH and TCIOFLUSH are refused.
	 */
	switch (arg) {
	case TCIFLUSH:
		nr_core_flush_rx(&sd->core);
		return 0;
	case TCOFLUSH:
	case TCIOFLUSH:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

static const struct file_operations nr_sd_fops = {
	.owner		= THIS_MODULE,
	.open		= nr_sd_open,
	.release	= nr_sd_release,
	.read		= nr_sd_read,
	.write		= nr_sd_write_file,
	.poll		= nr_sd_poll,
	.unlocked_ioctl	= nr_sd_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,	/* the structs are fixed-size */
};

/* ---- probe and remove --------------------------------------------------------- */

static int nr_sd_probe(struct serdev_device *serdev)
{
	struct device *dev = &serdev->dev;
	const struct nr_sd_robot *robot = device_get_match_data(dev);
	struct nr_sd *sd;
	u32 speed, baud;
	int ret;

	if (!robot)
		return -ENODEV;
	speed = robot->speed;
	device_property_read_u32(dev, "current-speed", &speed);
	if (!speed)
		return dev_err_probe(dev, -EINVAL, "current-speed is 0\n");

	sd = kvzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	ret = ida_alloc(&nr_sd_ida, GFP_KERNEL);
	if (ret < 0) {
		kvfree(sd);
		return ret;
	}
	sd->id = ret;
	kref_init(&sd->ref);
	sd->serdev = serdev;
	init_waitqueue_head(&sd->read_wait);
	init_waitqueue_head(&sd->write_wait);
	nr_core_init(&sd->core, &nr_sd_port, sd, &sd->read_wait,
		     &sd->write_wait, robot->framing);
	sd->core.fixed_framing = robot->framing;
	serdev_device_set_drvdata(serdev, sd);
	serdev_device_set_client_ops(serdev, &nr_sd_client_ops);

	ret = serdev_device_open(serdev);
	if (ret) {
		dev_err_probe(dev, ret, "cannot open the UART\n");
		goto err_free;
	}
	baud = serdev_device_set_baudrate(serdev, speed);
	/* Both ends must agree within a few per cent, or bytes break. */
	if (baud < speed - speed / 32 || baud > speed + speed / 32) {
		ret = dev_err_probe(dev, -EINVAL,
				    "current-speed %u: the UART gives %u baud\n",
				    speed, baud);
		goto err_close;
	}
	serdev_device_set_flow_control(serdev, false);
	ret = serdev_device_set_parity(serdev, SERDEV_PARITY_NONE);
	if (ret && ret != -EOPNOTSUPP) {
		dev_err_probe(dev, ret, "cannot set 8N1\n");
		goto err_close;
	}

	snprintf(sd->name, sizeof(sd->name), "n_robot%d", sd->id);
	sd->misc.minor = MISC_DYNAMIC_MINOR;
	sd->misc.name = sd->name;
	sd->misc.fops = &nr_sd_fops;
	sd->misc.parent = dev;
	ret = misc_register(&sd->misc);
	if (ret) {
		dev_err_probe(dev, ret, "cannot register /dev/%s\n", sd->name);
		goto err_close;
	}
	dev_info(dev, "%s on /dev/%s at %u baud\n", robot->what, sd->name, baud);
	return 0;

err_close:
	serdev_device_close(serdev);
err_free:
	ida_free(&nr_sd_ida, sd->id);
	kref_put(&sd->ref, nr_sd_free);
	return ret;
}

static void nr_sd_remove(struct serdev_device *serdev)
{
	struct nr_sd *sd = serdev_device_get_drvdata(serdev);

	misc_deregister(&sd->misc);
	/* The name is free again: a device bound next gets it, files open
	 * on this one or not.
	 */
	ida_free(&nr_sd_ida, sd->id);
	mutex_lock(&sd->core.tx_mutex);
	WRITE_ONCE(sd->gone, true);
	mutex_unlock(&sd->core.tx_mutex);
	serdev_device_close(serdev);
	/* No wakeup can schedule it again: the UART is closed. */
	cancel_work_sync(&sd->core.tx_work);
	wake_up_interruptible_all(&sd->read_wait);
	wake_up_interruptible_all(&sd->write_wait);
	kref_put(&sd->ref, nr_sd_free);
}

static const struct of_device_id nr_sd_of_match[] = {
	{ .compatible = "robotis,cm5-brbrain", .data = &nr_sd_cm5 },
	{ .compatible = "sourcerobotics,parol6", .data = &nr_sd_parol6 },
	{ }
};
MODULE_DEVICE_TABLE(of, nr_sd_of_match);

static struct serdev_device_driver nr_sd_driver = {
	.probe	= nr_sd_probe,
	.remove	= nr_sd_remove,
	.driver	= {
		.name		= "n_robot",
		.of_match_table	= nr_sd_of_match,
	},
};

int nr_serdev_register(void)
{
	return serdev_device_driver_register(&nr_sd_driver);
}

void nr_serdev_unregister(void)
{
	serdev_device_driver_unregister(&nr_sd_driver);
}
