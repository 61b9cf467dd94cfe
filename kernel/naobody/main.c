// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobody: USB driver for the NAO6 chest board.
 *
 * Lifetime (after usb-skeleton): a kref owns each naobody_dev. Probe holds
 * the first reference; every open file holds one, and a mapping holds its
 * file, so the ring outlives disconnect until the last munmap. Disconnect
 * removes the /dev node, marks the device gone, fails waiting requests,
 * wakes pollers (they see a hang-up), stops the cycle and drains the work
 * items, then drops probe's reference. The memory goes with the last put.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/usb.h>

#include "naobody.h"
#include "compat.h"

unsigned int naobody_period_us = 12000;
module_param_named(period_us, naobody_period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "Cycle period in microseconds (2000..100000, default 12000)");

unsigned int naobody_ring_records;
module_param_named(ring_records, naobody_ring_records, uint, 0444);
MODULE_PARM_DESC(ring_records,
		 "Records in the state ring, a power of two (default 0: about 10 s of cycles)");

/*
 * The safety timeouts, which root may change at any time: a write outside
 * the range fails with EINVAL and leaves the value as it was, and so does a
 * load. The ranges: see the descriptions.
 */
#define NAOBODY_TIMEOUT_MIN_MS	10
#define NAOBODY_TIMEOUT_MAX_MS	10000
#define NAOBODY_RAMP_MAX_MS	10000

static int set_controller_timeout(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	if (v && (v < NAOBODY_TIMEOUT_MIN_MS || v > NAOBODY_TIMEOUT_MAX_MS)) {
		pr_err("controller_timeout_ms=%u is neither 0 nor in %u..%u\n", v,
		       NAOBODY_TIMEOUT_MIN_MS, NAOBODY_TIMEOUT_MAX_MS);
		return -EINVAL;
	}
	if (!v)
		pr_warn("controller_timeout_ms=0: a silent controller keeps its targets; only its close or release ramps the body down\n");
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static int set_ramp(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	if (v > NAOBODY_RAMP_MAX_MS) {
		pr_err("ramp_ms=%u is outside 0..%u\n", v, NAOBODY_RAMP_MAX_MS);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops controller_timeout_ops = {
	.set = set_controller_timeout,
	.get = param_get_uint,
};

static const struct kernel_param_ops ramp_ops = {
	.set = set_ramp,
	.get = param_get_uint,
};

unsigned int naobody_controller_timeout_ms = 100;
module_param_cb(controller_timeout_ms, &controller_timeout_ops, &naobody_controller_timeout_ms,
		0644);
MODULE_PARM_DESC(controller_timeout_ms,
		 "Controller silence after which stiffness ramps down (ms, 10..10000; 0: none, only a close or release of the role ramps; default 100)");

unsigned int naobody_ramp_ms = 1000;
module_param_cb(ramp_ms, &ramp_ops, &naobody_ramp_ms, 0644);
MODULE_PARM_DESC(ramp_ms,
		 "Time to ramp stiffness to 0 when the controller is lost (ms, 0..10000; 0: at once; default 1000)");

/*
 * The chest mode and harakiri encodings are invented (the spec doesn't give
 * them, Documentation/chest-board.rst): until someone checked them on the
 * robot, the requests that change power are refused.
 */
bool naobody_provisional_power_requests;
module_param_named(provisional_power_requests, naobody_provisional_power_requests, bool, 0644);
MODULE_PARM_DESC(provisional_power_requests,
		 "Allow the chest requests that change power (harakiri, motor and head power cycles), whose encodings are provisional; set only once checked on this robot (default N: EOPNOTSUPP)");

/*
 * The cycle's thread's SCHED_FIFO priority (Documentation/naobody.rst,
 * "Real time"): above everything the robot's userspace runs that depends
 * on it (naoguard at 30 under systemd or 50 by hand, naobodyd at 20, LoLA
 * clients at 10..20) and the threaded interrupts of PREEMPT_RT (50).
 */
unsigned int naobody_cycle_priority = 51;
module_param_named(cycle_priority, naobody_cycle_priority, uint, 0444);
MODULE_PARM_DESC(cycle_priority,
		 "SCHED_FIFO priority of the cycle's thread, 1..99; 0: normal priority (default 51)");

/*
 * An e-stop is reset after power-up, not by it: with start_latched, a body
 * this load has not seen yet starts stopped until REARM, as one stopped
 * before an rmmod would have stayed (Documentation/naobody.rst, "Death
 * switch"). Off by default: nothing moves a body before a controller stiffens it.
 */
bool naobody_start_latched;
module_param_named(start_latched, naobody_start_latched, bool, 0444);
MODULE_PARM_DESC(start_latched,
		 "Hold every chest board this load binds at a new port stopped until REARM, as if stopped before the load (default N)");

/*
 * The fault policy's hold (naobody.h, Documentation/naobody.rst "Faults";
 * provisional): misses of a board's data through which its targets are
 * held before it goes limp. The recovery and the reset come at 2 and 6
 * holds of misses.
 */
unsigned int naobody_hold_cycles = 10;
module_param_named(hold_cycles, naobody_hold_cycles, uint, 0444);
MODULE_PARM_DESC(hold_cycles,
		 "Cycles without a board's data before it goes limp, 1..100 (default 10; provisional)");

static int accepted_versions[8] = { 10 };
static unsigned int n_accepted_versions = 1;
module_param_array(accepted_versions, int, &n_accepted_versions, 0444);
MODULE_PARM_DESC(accepted_versions,
		 "Motor board configuration versions to accept, 0..255 each (default 10, like HAL; 10,11 for boards updated by NAOqi 2.8.7)");

bool naobody_version_accepted(unsigned int version)
{
	unsigned int i;

	for (i = 0; i < n_accepted_versions; i++)
		if (accepted_versions[i] == version)
			return true;
	return false;
}

static void naobody_dev_release(struct kref *kref)
{
	struct naobody_dev *nb = container_of(kref, struct naobody_dev, kref);

	/* A file closed after disconnect may have queued an event. */
	cancel_work_sync(&nb->event_work);
	/* The timers first: they may still fire, and the cycle publishes. */
	naobody_cycle_free(nb);
	naobody_ring_free(&nb->ring);
	kfree(nb->prefs);
	usb_put_intf(nb->intf);
	usb_put_dev(nb->udev);
	kfree(nb);
}

/* The last put waits for the event work: process context only. */
void naobody_dev_put(struct naobody_dev *nb)
{
	might_sleep();
	kref_put(&nb->kref, naobody_dev_release);
}

/* About 10 s of history at the cycle period, as a power of two. */
static unsigned int ring_records(void)
{
	if (naobody_ring_records)
		return naobody_ring_records;
	return roundup_pow_of_two(DIV_ROUND_UP(10 * USEC_PER_SEC, naobody_period_us));
}

/*
 * Is this a chest board, beyond its ids? ffff is no vendor's, so another
 * device may carry it. What the spec gives, checked cheaply: interface 0
 * has one bulk IN and one bulk OUT endpoint of 64-byte packets and nothing
 * but isochronous ones besides (the board's unused EP2); a product string,
 * when the device has one and its id's entry names one, must be that one
 * (provisional: "Arm9 v3.3" is the spec's name for ffff:0006).
 */
#define NAOBODY_BULK_PACKET	64

/* The product string is the provisional part: a robot whose board says
 * something else is bound with check_product=0 (and the string reported).
 */
static bool naobody_check_product = true;
module_param_named(check_product, naobody_check_product, bool, 0644);
MODULE_PARM_DESC(check_product,
		 "Refuse a device whose USB product string is not the chest board's (provisional: \"Arm9 v3.3\"; default Y)");

static int naobody_check_device(struct usb_interface *intf, const struct usb_device_id *id,
				struct usb_endpoint_descriptor **bulk_in,
				struct usb_endpoint_descriptor **bulk_out)
{
	const struct usb_host_interface *alt = intf->cur_altsetting;
	const char *product = interface_to_usbdev(intf)->product;
	const char *want = (const char *)id->driver_info;
	unsigned int i, bulk = 0;

	if (usb_find_common_endpoints(intf->cur_altsetting, bulk_in, bulk_out, NULL, NULL)) {
		dev_err(&intf->dev, "no bulk IN and OUT endpoints on interface 0\n");
		return -ENODEV;
	}
	for (i = 0; i < alt->desc.bNumEndpoints; i++) {
		const struct usb_endpoint_descriptor *ep = &alt->endpoint[i].desc;

		if (usb_endpoint_xfer_isoc(ep))
			continue;
		if (!usb_endpoint_xfer_bulk(ep) || usb_endpoint_maxp(ep) != NAOBODY_BULK_PACKET ||
		    ++bulk > 2) {
			dev_err(&intf->dev,
				"endpoint %02x is not one of a chest board's (bulk, %u-byte packets, two): not binding\n",
				ep->bEndpointAddress, NAOBODY_BULK_PACKET);
			return -ENODEV;
		}
	}
	if (naobody_check_product && want && product && strcmp(product, want)) {
		dev_err(&intf->dev,
			"product \"%s\" is not a chest board (\"%s\"): not binding; if it is one, load with check_product=0 and report the string\n",
			product, want);
		return -ENODEV;
	}
	return 0;
}

static int naobody_probe(struct usb_interface *intf, const struct usb_device_id *id)
{
	struct usb_endpoint_descriptor *bulk_in, *bulk_out;
	struct naobody_dev *nb;
	int ret;

	ret = naobody_check_device(intf, id, &bulk_in, &bulk_out);
	if (ret)
		return ret;

	nb = kzalloc(sizeof(*nb), GFP_KERNEL);
	if (!nb)
		return -ENOMEM;
	kref_init(&nb->kref);
	nb->udev = usb_get_dev(interface_to_usbdev(intf));
	nb->intf = usb_get_intf(intf);
	nb->out_pipe = usb_sndbulkpipe(nb->udev, usb_endpoint_num(bulk_out));
	nb->in_pipe = usb_rcvbulkpipe(nb->udev, usb_endpoint_num(bulk_in));
	nb->period = ns_to_ktime((u64)naobody_period_us * NSEC_PER_USEC);
	mutex_init(&nb->io_mutex);
	mutex_init(&nb->info_lock);
	mutex_init(&nb->chest_lock);
	mutex_init(&nb->limp_lock);
	spin_lock_init(&nb->lock);
	init_waitqueue_head(&nb->wait);
	INIT_LIST_HEAD(&nb->requests);
	INIT_KFIFO(nb->events);
	INIT_DELAYED_WORK(&nb->startup_work, naobody_startup_work);
	INIT_DELAYED_WORK(&nb->retry_work, naobody_retry_work);
	INIT_WORK(&nb->recovery_work, naobody_recovery_work);
	INIT_WORK(&nb->event_work, naobody_event_work);
	naobody_boards_init(nb);

	nb->prefs = kzalloc(NAOBODY_PREFS_SIZE, GFP_KERNEL);
	if (!nb->prefs) {
		ret = -ENOMEM;
		goto err_put;
	}
	ret = naobody_ring_init(&nb->ring, ring_records(), naobody_period_us * NSEC_PER_USEC);
	if (ret)
		goto err_put;
	ret = naobody_cycle_init(nb);
	if (ret)
		goto err_put;
	ret = naobody_startup_probe(nb);
	if (ret)
		goto err_put;
	/* The latch's key (naobody_chrdev_add() looks it up). */
	strscpy(nb->latch_path, dev_name(&nb->udev->dev), sizeof(nb->latch_path));

	usb_set_intfdata(intf, nb);
	ret = naobody_chrdev_add(nb);
	if (ret) {
		dev_err(&intf->dev, "cannot create the device node: " NAOBODY_PE "\n",
			NAOBODY_ERR(ret));
		goto err_intfdata;
	}
	if (READ_ONCE(nb->stopped))
		dev_info(&intf->dev, "the death switch is latched (%s): REARM ends it\n",
			 naobody_start_latched ? "stopped before replug, or start_latched" :
			 "stopped before replug");
	naobody_cycle_start(nb);
	schedule_delayed_work(&nb->startup_work, 0);
	dev_dbg(&intf->dev, "chest board version %08x on /dev/%s, %u us cycle\n",
		nb->chest_version, dev_name(nb->dev), naobody_period_us);
	return 0;

err_intfdata:
	usb_set_intfdata(intf, NULL);
err_put:
	naobody_dev_put(nb);
	return ret;
}

static void naobody_disconnect(struct usb_interface *intf)
{
	struct naobody_dev *nb = usb_get_intfdata(intf);
	unsigned long irqflags;

	/* Open files fail with ENODEV from here; new opens too. */
	set_bit(NAOBODY_GONE, &nb->flags);
	spin_lock_irqsave(&nb->lock, irqflags);
	naobody_requests_fail_all(nb, -ENODEV);
	naobody_ring_set_flags(&nb->ring, NAOBODY_RING_DISCONNECTED);
	naobody_queue_event(nb, NAOBODY_EVENT_DISCONNECT, 0, 0);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	wake_up_interruptible_all(&nb->wait);

	naobody_quiesce(nb, "unbinding");
	/* The event names our index: send it before the index is reused. */
	flush_work(&nb->event_work);
	naobody_chrdev_remove(nb);

	usb_set_intfdata(intf, NULL);
	dev_dbg(&intf->dev, "chest board disconnected\n");
	naobody_dev_put(nb);
}

static int naobody_suspend(struct usb_interface *intf, pm_message_t message)
{
	struct naobody_dev *nb = usb_get_intfdata(intf);

	/* No autosuspend (supports_autosuspend is 0): this is a system sleep. */
	naobody_quiesce(nb, "suspending");
	return 0;
}

/*
 * The board kept its state: carry on, and finish a start-up cut short
 * (or a restart: then the work starts the cycle once the board answers).
 */
static int naobody_resume(struct usb_interface *intf)
{
	struct naobody_dev *nb = usb_get_intfdata(intf);

	clear_bit(NAOBODY_QUIESCED, &nb->flags);
	if (!test_bit(NAOBODY_RESTARTING, &nb->flags))
		naobody_cycle_start(nb);
	/* A start-up cut short, or boards to ask again: the work sees which. */
	schedule_delayed_work(&nb->startup_work, 0);
	if (READ_ONCE(nb->startup_done))
		naobody_retry_schedule(nb);
	return 0;
}

/* The board lost its state: it starts over, as at probe. */
static int naobody_reset_resume(struct usb_interface *intf)
{
	naobody_startup_restart(usb_get_intfdata(intf));
	return 0;
}

/* io_mutex spans the reset: the recovery work can't touch an endpoint. */
static int naobody_pre_reset(struct usb_interface *intf)
{
	struct naobody_dev *nb = usb_get_intfdata(intf);

	naobody_quiesce(nb, "resetting");
	mutex_lock(&nb->io_mutex);
	return 0;
}

/* The board starts over; the start-up work starts it again, then the cycle. */
static int naobody_post_reset(struct usb_interface *intf)
{
	struct naobody_dev *nb = usb_get_intfdata(intf);

	naobody_startup_restart(nb);
	mutex_unlock(&nb->io_mutex);
	return 0;
}

/* driver_info: the product string the device must have if it has one. */
static const struct usb_device_id naobody_ids[] = {
	{ USB_DEVICE_INTERFACE_NUMBER(0xffff, 0x0006, 0),
	  .driver_info = (kernel_ulong_t)"Arm9 v3.3" },
	/* The older board: its product string is not known. */
	{ USB_DEVICE_INTERFACE_NUMBER(0xffff, 0x0005, 0) },
	{ }
};
MODULE_DEVICE_TABLE(usb, naobody_ids);

static struct usb_driver naobody_driver = {
	.name = KBUILD_MODNAME,
	.id_table = naobody_ids,
	.probe = naobody_probe,
	.disconnect = naobody_disconnect,
	.suspend = naobody_suspend,
	.resume = naobody_resume,
	.reset_resume = naobody_reset_resume,
	.pre_reset = naobody_pre_reset,
	.post_reset = naobody_post_reset,
	.soft_unbind = 1,
};

static int check_params(void)
{
	unsigned int i;

	if (naobody_period_us < 2000 || naobody_period_us > 100000) {
		pr_err("period_us=%u is outside 2000..100000\n", naobody_period_us);
		return -EINVAL;
	}
	if (naobody_hold_cycles < 1 || naobody_hold_cycles > 100) {
		pr_err("hold_cycles=%u is outside 1..100\n", naobody_hold_cycles);
		return -EINVAL;
	}
	if (naobody_cycle_priority > 99) {
		pr_err("cycle_priority=%u is outside 0..99\n", naobody_cycle_priority);
		return -EINVAL;
	}
	if (naobody_ring_records &&
	    (!is_power_of_2(naobody_ring_records) || naobody_ring_records < 16 ||
	     naobody_ring_records > 65536)) {
		pr_err("ring_records=%u is not a power of two in 16..65536\n",
		       naobody_ring_records);
		return -EINVAL;
	}
	/* The handshake's version is one byte: anything else never matches. */
	for (i = 0; i < n_accepted_versions; i++) {
		if (accepted_versions[i] < 0 || accepted_versions[i] > 255) {
			pr_err("accepted_versions: %d is outside 0..255\n", accepted_versions[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int __init naobody_init(void)
{
	int ret;

	ret = check_params();
	if (ret)
		return ret;
	naobody_sysfs_init();
	ret = naobody_chrdev_init();
	if (ret)
		return ret;
	ret = naobody_genl_init();
	if (ret)
		goto err_chrdev;
	ret = usb_register(&naobody_driver);
	if (ret)
		goto err_genl;
	return 0;

err_genl:
	naobody_genl_exit();
err_chrdev:
	naobody_chrdev_exit();
	return ret;
}
module_init(naobody_init);

static void __exit naobody_exit(void)
{
	usb_deregister(&naobody_driver);
	naobody_genl_exit();
	naobody_chrdev_exit();
}
module_exit(naobody_exit);

MODULE_DESCRIPTION("NAO6 chest board driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(NAOBODY_VERSION);
