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

unsigned int naobody_period_us = 12000;
module_param_named(period_us, naobody_period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "Cycle period in microseconds (2000..100000, default 12000)");

unsigned int naobody_ring_records;
module_param_named(ring_records, naobody_ring_records, uint, 0444);
MODULE_PARM_DESC(ring_records,
		 "Records in the state ring, a power of two (default 0: about 10 s of cycles)");

unsigned int naobody_controller_timeout_ms = 100;
module_param_named(controller_timeout_ms, naobody_controller_timeout_ms, uint, 0644);
MODULE_PARM_DESC(controller_timeout_ms,
		 "Controller silence after which stiffness ramps down (ms, 0: never; default 100)");

unsigned int naobody_ramp_ms = 1000;
module_param_named(ramp_ms, naobody_ramp_ms, uint, 0644);
MODULE_PARM_DESC(ramp_ms, "Time to ramp stiffness to 0 when the controller is lost (ms, default 1000)");

static int accepted_versions[8] = { 10 };
static unsigned int n_accepted_versions = 1;
module_param_array(accepted_versions, int, &n_accepted_versions, 0444);
MODULE_PARM_DESC(accepted_versions,
		 "Motor board configuration versions to accept (default 10, like HAL; 10,11 for boards updated by NAOqi 2.8.7)");

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
	naobody_ring_free(&nb->ring);
	naobody_cycle_free(nb);
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

/*
 * Stop everything that talks to the board: the cycle, the requests riding
 * in it (they fail with -ECANCELED; new ones are refused while the cycle is
 * halted) and the work items. Sleeps: at most as long as a restart's try
 * of 0x13 and 0x02 in the start-up work (their control timeouts).
 */
void naobody_quiesce(struct naobody_dev *nb)
{
	unsigned long irqflags;

	/* The start-up work may be about to start the cycle: it won't now. */
	set_bit(NAOBODY_QUIESCED, &nb->flags);
	naobody_cycle_stop(nb);
	spin_lock_irqsave(&nb->lock, irqflags);
	naobody_requests_fail_all(nb, -ECANCELED);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	cancel_delayed_work_sync(&nb->startup_work);
	cancel_work_sync(&nb->recovery_work);
}

/* About 10 s of history at the cycle period, as a power of two. */
static unsigned int ring_records(void)
{
	if (naobody_ring_records)
		return naobody_ring_records;
	return roundup_pow_of_two(DIV_ROUND_UP(10 * USEC_PER_SEC, naobody_period_us));
}

static int naobody_probe(struct usb_interface *intf, const struct usb_device_id *id)
{
	struct usb_endpoint_descriptor *bulk_in, *bulk_out;
	struct naobody_dev *nb;
	int ret;

	ret = usb_find_common_endpoints(intf->cur_altsetting, &bulk_in, &bulk_out,
					NULL, NULL);
	if (ret) {
		dev_err(&intf->dev, "no bulk IN and OUT endpoints on interface 0\n");
		return -ENODEV;
	}

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
	spin_lock_init(&nb->lock);
	init_waitqueue_head(&nb->wait);
	INIT_LIST_HEAD(&nb->requests);
	INIT_KFIFO(nb->events);
	INIT_DELAYED_WORK(&nb->startup_work, naobody_startup_work);
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

	usb_set_intfdata(intf, nb);
	ret = naobody_chrdev_add(nb);
	if (ret) {
		dev_err(&intf->dev, "cannot create the device node: %pe\n", ERR_PTR(ret));
		goto err_intfdata;
	}
	naobody_cycle_start(nb);
	schedule_delayed_work(&nb->startup_work, 0);
	dev_info(&intf->dev, "chest board version %08x on /dev/%s, %u us cycle\n",
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

	naobody_quiesce(nb);
	/* Whoever held io_mutex for the hardware has seen NAOBODY_GONE. */
	mutex_lock(&nb->io_mutex);
	mutex_unlock(&nb->io_mutex);
	/* The event names our index: send it before the index is reused. */
	flush_work(&nb->event_work);
	naobody_chrdev_remove(nb);

	usb_set_intfdata(intf, NULL);
	dev_info(&intf->dev, "chest board disconnected\n");
	naobody_dev_put(nb);
}

static int naobody_suspend(struct usb_interface *intf, pm_message_t message)
{
	struct naobody_dev *nb = usb_get_intfdata(intf);

	/* The cycle never idles: no autosuspend while bound. */
	if (PMSG_IS_AUTO(message))
		return -EBUSY;
	naobody_quiesce(nb);
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
	if (!READ_ONCE(nb->startup_done))
		schedule_delayed_work(&nb->startup_work, 0);
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

	naobody_quiesce(nb);
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

static const struct usb_device_id naobody_ids[] = {
	{ USB_DEVICE_INTERFACE_NUMBER(0xffff, 0x0006, 0) },	/* "Arm9 v3.3" */
	{ USB_DEVICE_INTERFACE_NUMBER(0xffff, 0x0005, 0) },	/* the older board */
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
	if (naobody_period_us < 2000 || naobody_period_us > 100000) {
		pr_err("period_us=%u is outside 2000..100000\n", naobody_period_us);
		return -EINVAL;
	}
	if (naobody_ring_records &&
	    (!is_power_of_2(naobody_ring_records) || naobody_ring_records < 16 ||
	     naobody_ring_records > 65536)) {
		pr_err("ring_records=%u is not a power of two in 16..65536\n",
		       naobody_ring_records);
		return -EINVAL;
	}
	return 0;
}

static int __init naobody_init(void)
{
	int ret;

	ret = check_params();
	if (ret)
		return ret;
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
