// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic netlink: low-rate events (touch changes, stop and rearm, boards up
 * and down, controller loss, disconnect) on the "events" multicast group of
 * the "naobody" family. The 83 Hz state goes through the ring, never here.
 *
 * Events are raised in atomic context (the cycle) into a small kfifo and
 * sent from a work item, so netlink allocation happens with GFP_KERNEL and
 * never delays the cycle. A full fifo drops the event and counts it.
 */
#include <net/genetlink.h>

#include "naobody.h"

static const struct genl_multicast_group naobody_mcgrps[] = {
	{ .name = NAOBODY_GENL_MCGRP_EVENTS, },
};

static struct genl_family naobody_genl_family __ro_after_init = {
	.name = NAOBODY_GENL_NAME,
	.version = NAOBODY_GENL_VERSION,
	.maxattr = NAOBODY_GENL_A_MAX,
	.module = THIS_MODULE,
	.mcgrps = naobody_mcgrps,
	.n_mcgrps = ARRAY_SIZE(naobody_mcgrps),
};

static int put_event_attrs(struct sk_buff *msg, struct naobody_dev *nb,
			   const struct naobody_event_item *ev)
{
	if (nla_put_u32(msg, NAOBODY_GENL_A_DEVICE, nb->index) ||
	    nla_put_u32(msg, NAOBODY_GENL_A_EVENT, ev->event) ||
	    nla_put_u64_64bit(msg, NAOBODY_GENL_A_CYCLE, ev->cycle, NAOBODY_GENL_A_PAD))
		return -EMSGSIZE;

	switch (ev->event) {
	case NAOBODY_EVENT_TOUCH:
		if (nla_put_u32(msg, NAOBODY_GENL_A_TOUCH, ev->a) ||
		    nla_put_u32(msg, NAOBODY_GENL_A_TOUCH_CHANGED, ev->b))
			return -EMSGSIZE;
		break;
	case NAOBODY_EVENT_STOP:
		if (nla_put_u32(msg, NAOBODY_GENL_A_STOP_REASON, ev->a))
			return -EMSGSIZE;
		break;
	case NAOBODY_EVENT_BOARD_UP:
	case NAOBODY_EVENT_BOARD_DOWN:
		if (nla_put_u32(msg, NAOBODY_GENL_A_BOARD, ev->a))
			return -EMSGSIZE;
		break;
	}
	return 0;
}

static void send_event(struct naobody_dev *nb, const struct naobody_event_item *ev)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&naobody_genl_family, &init_net, 0))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &naobody_genl_family, 0, NAOBODY_GENL_CMD_EVENT);
	if (!hdr || put_event_attrs(msg, nb, ev)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&naobody_genl_family, msg, 0, 0, GFP_KERNEL);
}

/* Queue an event from any context. Caller holds nb->lock. */
void naobody_queue_event(struct naobody_dev *nb, u32 event, u32 a, u32 b)
{
	struct naobody_event_item ev = {
		.event = event, .a = a, .b = b, .cycle = nb->cycle,
	};

	lockdep_assert_held(&nb->lock);
	/* After disconnect only its own event goes out: the work is flushed. */
	if (naobody_gone(nb) && event != NAOBODY_EVENT_DISCONNECT)
		return;
	if (!kfifo_put(&nb->events, ev)) {
		nb->stats.events_dropped++;
		return;
	}
	schedule_work(&nb->event_work);
}

void naobody_event_work(struct work_struct *work)
{
	struct naobody_dev *nb = container_of(work, struct naobody_dev, event_work);
	struct naobody_event_item ev;
	unsigned long irqflags;
	bool more;

	for (;;) {
		spin_lock_irqsave(&nb->lock, irqflags);
		more = kfifo_get(&nb->events, &ev);
		spin_unlock_irqrestore(&nb->lock, irqflags);
		if (!more)
			break;
		send_event(nb, &ev);
	}
}

int naobody_genl_init(void)
{
	return genl_register_family(&naobody_genl_family);
}

void naobody_genl_exit(void)
{
	genl_unregister_family(&naobody_genl_family);
}
