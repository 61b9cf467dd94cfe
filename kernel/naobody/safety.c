// SPDX-License-Identifier: GPL-2.0-only
/*
 * The safety policy, applied to every OUT frame (naobody_safety_apply(),
 * from body.c) under nb->lock; Documentation/naobody.rst has the states:
 *   - stopped (the death switch): every stiffness is 0; commands are
 *     dropped until REARM, which leaves stiffness at 0 and positions at
 *     the measured ones, so nothing old applies afterwards;
 *   - ramping (the controller closed, released the role, or fell silent
 *     for controller_timeout_ms): stiffness falls linearly from what it
 *     was to 0 over ramp_ms, positions hold. A ramp keeps the length it
 *     started with: root may change ramp_ms meanwhile, and a longer one
 *     would raise the stiffness of a body going limp. The targets'
 *     stiffness is 0 from the start of the ramp, so nothing of the old
 *     controller's comes back; only a write that sets stiffness ends the
 *     ramp. When the ramp ends at 0, the position targets become the
 *     measured positions;
 *   - otherwise the controller's targets. Before any controller, every
 *     target is 0: the body starts limp.
 */
#include <linux/ktime.h>
#include <linux/math64.h>

#include "naobody.h"

/* Caller holds nb->lock, for all four. */
void naobody_safety_stop(struct naobody_dev *nb, u32 reason)
{
	lockdep_assert_held(&nb->lock);
	if (reason >= __NAOBODY_STOP_MAX)
		reason = NAOBODY_STOP_UNSPEC;
	/* Also when latched already: the body id may be new. */
	if (!naobody_latch_set(nb->latch_path, nb->latch_body_id, reason))
		dev_warn_ratelimited(&nb->intf->dev,
				     "too many stopped bodies: this stop won't survive a replug\n");
	if (nb->stopped)
		return;
	nb->stopped = true;
	nb->stop_reason = reason;
	memset(nb->target.stiffness, 0, sizeof(nb->target.stiffness));
	nb->ramping = false;
	/* Boards we stopped hearing from may still hear this. */
	naobody_boards_limp_unaccepted(nb);
	/* The next tick must carry it, even while backing off. */
	nb->backoff = 0;
	naobody_queue_event(nb, NAOBODY_EVENT_STOP, reason, 0);
}

void naobody_safety_rearm(struct naobody_dev *nb)
{
	lockdep_assert_held(&nb->lock);
	naobody_latch_clear(nb->latch_path, nb->latch_body_id);
	if (!nb->stopped)
		return;
	nb->stopped = false;
	nb->stop_reason = NAOBODY_STOP_UNSPEC;
	memset(nb->target.stiffness, 0, sizeof(nb->target.stiffness));
	memcpy(nb->target.position, nb->sensors.joint_position,
	       sizeof(nb->target.position));
	naobody_queue_event(nb, NAOBODY_EVENT_REARM, 0, 0);
}

void naobody_safety_controller_lost(struct naobody_dev *nb)
{
	lockdep_assert_held(&nb->lock);
	if (nb->lost)
		return;
	nb->lost = true;
	naobody_queue_event(nb, NAOBODY_EVENT_CONTROLLER_LOST, 0, 0);
	if (nb->stopped || nb->ramping)
		return;
	nb->ramping = true;
	nb->ramp_start = ktime_get();
	nb->ramp_len_ms = READ_ONCE(naobody_ramp_ms);
	naobody_boards_limp_unaccepted(nb);
	nb->backoff = 0;
	/* Ramp from what was sent; nothing of it survives the ramp. */
	memcpy(nb->ramp_from, nb->target.stiffness, sizeof(nb->ramp_from));
	memset(nb->target.stiffness, 0, sizeof(nb->target.stiffness));
}

/* The actuators this frame sends, after the policy above. */
void naobody_safety_apply(struct naobody_dev *nb, ktime_t now)
{
	/* root may change it at any time: read it once. */
	unsigned int timeout_ms = READ_ONCE(naobody_controller_timeout_ms);
	struct naobody_actuators *a = &nb->sent;
	unsigned int i;
	s64 left_ms;

	*a = nb->target;
	if (nb->stopped) {
		memset(a->stiffness, 0, sizeof(a->stiffness));
		return;
	}
	if (nb->controller && !nb->lost && timeout_ms &&
	    ktime_ms_delta(now, nb->last_command) > timeout_ms)
		naobody_safety_controller_lost(nb);
	if (!nb->ramping)
		return;

	left_ms = (s64)nb->ramp_len_ms - ktime_ms_delta(now, nb->ramp_start);
	if (left_ms <= 0) {
		/* Limp now: hold where the joints are, not the old targets. */
		nb->ramping = false;
		memcpy(nb->target.position, nb->sensors.joint_position,
		       sizeof(nb->target.position));
		*a = nb->target;
		return;
	}
	for (i = 0; i < NAOBODY_JOINTS; i++)
		a->stiffness[i] = div_u64((u64)nb->ramp_from[i] * left_ms, nb->ramp_len_ms);
}

/*
 * A new device, before anything can stop it (naobody_chrdev_add(), in the
 * locked section that makes it findable: a stop on a stale file either
 * finds it there or recorded its latch before, which this sees): a body
 * stopped before it re-enumerated is still stopped; with start_latched, a
 * body at a port this load has not seen yet starts stopped.
 */
void naobody_safety_latch_new(struct naobody_dev *nb)
{
	unsigned long irqflags;
	u32 reason;

	spin_lock_irqsave(&nb->lock, irqflags);
	if (naobody_latch_get(nb->latch_path, nb->latch_body_id, &reason)) {
		nb->stopped = true;
		nb->stop_reason = reason;
	} else if (READ_ONCE(naobody_start_latched) && naobody_latch_first_sight(nb->latch_path)) {
		naobody_safety_stop(nb, NAOBODY_STOP_UNSPEC);
	}
	spin_unlock_irqrestore(&nb->lock, irqflags);
}

/*
 * The start-up could not read the body id (id slot 3), the latch's key
 * that follows a body to another port: while any stop keyed by a body id is
 * latched, this body may be that one, so it is held stopped (its port
 * latched too) before any board gets targets, until REARM. An id read
 * later is looked up as usual (startup.c).
 */
void naobody_safety_latch_unidentified(struct naobody_dev *nb)
{
	unsigned long irqflags;
	bool held = false;
	u32 reason;

	if (!naobody_latch_get_any_body(&reason))
		return;
	spin_lock_irqsave(&nb->lock, irqflags);
	if (!nb->stopped && !nb->latch_body_id[0]) {
		naobody_safety_stop(nb, reason);
		held = true;
	}
	spin_unlock_irqrestore(&nb->lock, irqflags);
	if (held)
		dev_info(&nb->intf->dev,
			 "the body id could not be read and a stopped body may be this one: held stopped until REARM\n");
}
