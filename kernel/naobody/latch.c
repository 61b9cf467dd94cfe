// SPDX-License-Identifier: GPL-2.0-only
/*
 * The death switch's latch, outside the per-probe device.
 *
 * A naobody_dev lives from probe to disconnect. A cable glitch, a failed
 * reset, a chest board that resets itself (harakiri -r) or an unbind/bind
 * gives a new one, and a stopped body must stay stopped until REARM across
 * all of these. So a stop is also written here, keyed by what stays the
 * same across a re-enumeration: the USB device path (the port, "1-1.2"),
 * and, once start-up has read it, the chest board's body id (id slot 3),
 * which follows the body to another port. Probe and the id read look the
 * key up; REARM removes every entry that matches the device.
 *
 * The table is small and fixed (no allocation under the cycle's spinlock):
 * two entries per device the driver can serve. When it is full the stop
 * still latches the device, only not across a re-enumeration; that is
 * logged. A module unload forgets the table: the disconnect before it
 * leaves the body limp (its last frame), and a new load starts limp; with
 * start_latched, every body a load has not seen yet starts stopped (the
 * ports it saw are kept beside the table).
 */
#include <linux/spinlock.h>
#include <linux/string.h>

#include "naobody.h"

#define NAOBODY_LATCHES		(2 * NAOBODY_MAX_DEVICES)

struct naobody_latch {
	bool used;
	u32 reason;
	char path[NAOBODY_LATCH_KEY_LEN];	/* "" if unknown */
	char body_id[NAOBODY_LATCH_KEY_LEN];	/* "" if unknown */
};

static DEFINE_SPINLOCK(latch_lock);
static struct naobody_latch latches[NAOBODY_LATCHES];
/* start_latched: the ports this load has seen a body at. */
static char seen[NAOBODY_LATCHES][NAOBODY_LATCH_KEY_LEN];

static bool key_eq(const char *a, const char *b)
{
	return a[0] && !strncmp(a, b, NAOBODY_LATCH_KEY_LEN);
}

static bool latch_matches(const struct naobody_latch *l, const char *path,
			  const char *body_id)
{
	return l->used && (key_eq(l->path, path) || key_eq(l->body_id, body_id));
}

/*
 * Record a stop for the device at path (with body_id, "" if not read).
 * Any context. Returns false if the table is full.
 */
bool naobody_latch_set(const char *path, const char *body_id, u32 reason)
{
	struct naobody_latch *l, *free = NULL;
	unsigned long irqflags;
	unsigned int i;

	spin_lock_irqsave(&latch_lock, irqflags);
	for (i = 0; i < NAOBODY_LATCHES; i++) {
		l = &latches[i];
		if (latch_matches(l, path, body_id)) {
			free = l;
			break;
		}
		if (!l->used && !free)
			free = l;
	}
	if (free) {
		/* A newer key replaces an older one: the body moved. */
		if (!free->used)
			free->reason = reason;
		free->used = true;
		if (path[0])
			strscpy(free->path, path, sizeof(free->path));
		if (body_id[0])
			strscpy(free->body_id, body_id, sizeof(free->body_id));
	}
	spin_unlock_irqrestore(&latch_lock, irqflags);
	return free;
}

/* REARM: forget every stop of this device. Any context. */
void naobody_latch_clear(const char *path, const char *body_id)
{
	unsigned long irqflags;
	unsigned int i;

	spin_lock_irqsave(&latch_lock, irqflags);
	for (i = 0; i < NAOBODY_LATCHES; i++)
		if (latch_matches(&latches[i], path, body_id))
			memset(&latches[i], 0, sizeof(latches[i]));
	spin_unlock_irqrestore(&latch_lock, irqflags);
}

/* Is a stop recorded for this device? Its reason goes to *reason. */
bool naobody_latch_get(const char *path, const char *body_id, u32 *reason)
{
	unsigned long irqflags;
	bool found = false;
	unsigned int i;

	spin_lock_irqsave(&latch_lock, irqflags);
	for (i = 0; i < NAOBODY_LATCHES && !found; i++) {
		if (latch_matches(&latches[i], path, body_id)) {
			*reason = latches[i].reason;
			found = true;
		}
	}
	spin_unlock_irqrestore(&latch_lock, irqflags);
	return found;
}

/* Do (path_a, body_id_a) and (path_b, body_id_b) name the same body? */
bool naobody_latch_same_body(const char *path_a, const char *body_id_a,
			     const char *path_b, const char *body_id_b)
{
	return key_eq(path_a, path_b) || key_eq(body_id_a, body_id_b);
}

/*
 * Is any stop recorded with a body id? The first one's reason goes to
 * *reason: for a body whose own id could not be read, which may be it.
 */
bool naobody_latch_get_any_body(u32 *reason)
{
	unsigned long irqflags;
	bool found = false;
	unsigned int i;

	spin_lock_irqsave(&latch_lock, irqflags);
	for (i = 0; i < NAOBODY_LATCHES && !found; i++) {
		if (latches[i].used && latches[i].body_id[0]) {
			*reason = latches[i].reason;
			found = true;
		}
	}
	spin_unlock_irqrestore(&latch_lock, irqflags);
	return found;
}

/*
 * start_latched: is this the first body this load sees at path? It is
 * remembered; a full list answers yes (a body stopped once too often, never
 * one left running).
 */
bool naobody_latch_first_sight(const char *path)
{
	unsigned long irqflags;
	unsigned int i;
	bool first = true;

	spin_lock_irqsave(&latch_lock, irqflags);
	for (i = 0; i < NAOBODY_LATCHES && first; i++)
		first = !key_eq(seen[i], path);
	for (i = 0; first && i < NAOBODY_LATCHES; i++) {
		if (!seen[i][0]) {
			strscpy(seen[i], path, sizeof(seen[i]));
			break;
		}
	}
	spin_unlock_irqrestore(&latch_lock, irqflags);
	return first;
}
