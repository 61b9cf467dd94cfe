// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobody's generic netlink events, as a listener sees them: the family and
 * its "events" group resolved by name (libmnl), then a touch, a stop, a
 * rearm, a controller lost and a disconnect, each with its attributes.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "kselftest_harness.h"
#include "nbtest.h"

struct family {
	uint16_t id;
	uint32_t group;
};

static int group_cb(const struct nlattr *nest, void *data)
{
	struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = { 0 };
	struct family *f = data;
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) <= CTRL_ATTR_MCAST_GRP_MAX)
			tb[mnl_attr_get_type(a)] = (struct nlattr *)a;
	}
	if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
	    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]), NAOBODY_GENL_MCGRP_EVENTS))
		f->group = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct family *f = data;
	const struct nlattr *a, *g;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			f->id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			mnl_attr_for_each_nested(g, a)
				group_cb(g, f);
			break;
		}
	}
	return MNL_CB_OK;
}

/* Resolve the family and its group by name; 0 or -errno. */
static int resolve(struct mnl_socket *nl, struct family *f)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;
	unsigned int seq = time(NULL), port = mnl_socket_get_portid(nl);
	int n;

	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, NAOBODY_GENL_NAME);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	while ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0) {
		n = mnl_cb_run(buf, n, seq, port, family_cb, f);
		if (n <= MNL_CB_STOP)
			break;
	}
	if (n < 0)
		return -errno;
	return f->id && f->group ? 0 : -ENOENT;
}

struct event {
	uint32_t event, device, touch, changed, reason, board;
	int has_cycle;
};

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	struct event *ev = data;
	const struct nlattr *a;

	memset(ev, 0, sizeof(*ev));
	ev->device = ~0u;
	/* Attributes a listener doesn't know are skipped, not failed. */
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case NAOBODY_GENL_A_DEVICE:
			ev->device = mnl_attr_get_u32(a);
			break;
		case NAOBODY_GENL_A_EVENT:
			ev->event = mnl_attr_get_u32(a);
			break;
		case NAOBODY_GENL_A_CYCLE:
			ev->has_cycle = 1;
			break;
		case NAOBODY_GENL_A_TOUCH:
			ev->touch = mnl_attr_get_u32(a);
			break;
		case NAOBODY_GENL_A_TOUCH_CHANGED:
			ev->changed = mnl_attr_get_u32(a);
			break;
		case NAOBODY_GENL_A_STOP_REASON:
			ev->reason = mnl_attr_get_u32(a);
			break;
		case NAOBODY_GENL_A_BOARD:
			ev->board = mnl_attr_get_u32(a);
			break;
		}
	}
	return MNL_CB_OK;
}

/* Wait up to timeout_ms for an event of this kind; 0 with it in *ev. */
static int wait_event(struct mnl_socket *nl, uint32_t kind, struct event *ev, int timeout_ms)
{
	struct pollfd p = { .fd = mnl_socket_get_fd(nl), .events = POLLIN };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint64_t end = nbt_now_ns() + (uint64_t)timeout_ms * 1000000;

	while (nbt_now_ns() < end) {
		int n;

		if (poll(&p, 1, (int)((end - nbt_now_ns()) / 1000000) + 1) <= 0)
			continue;
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n <= 0)
			return -errno;
		mnl_cb_run(buf, n, 0, 0, event_cb, ev);
		if (ev->event == kind)
			return 0;
	}
	return -ETIMEDOUT;
}

FIXTURE(events) {
	struct nbt t;
	struct mnl_socket *nl;
	struct family f;
};

FIXTURE_SETUP(events)
{
	ASSERT_EQ(0, nbt_up(&self->t, NULL, NULL));
	self->nl = mnl_socket_open(NETLINK_GENERIC);
	ASSERT_NE(NULL, self->nl);
	ASSERT_EQ(0, mnl_socket_bind(self->nl, 0, MNL_SOCKET_AUTOPID));
	ASSERT_EQ(0, resolve(self->nl, &self->f));
	ASSERT_EQ(0, mnl_socket_setsockopt(self->nl, NETLINK_ADD_MEMBERSHIP, &self->f.group,
					   sizeof(self->f.group)));
}

FIXTURE_TEARDOWN(events)
{
	if (self->nl)
		mnl_socket_close(self->nl);
	nbt_down(&self->t);
}

TEST_F_TIMEOUT(events, touch_stop_rearm_controller_and_disconnect, NBT_TIMEOUT)
{
	struct nb_device *ctl;
	struct event ev;

	/* The chest button, pressed for 20 cycles, starting now. */
	ASSERT_EQ(0, nb_emu_touch(&self->t.emu, NAOBODY_TOUCH_CHEST_BUTTON, 0, 20));
	ASSERT_EQ(0, wait_event(self->nl, NAOBODY_EVENT_TOUCH, &ev, NBT_MS(3000)));
	EXPECT_EQ(0u, ev.device);
	EXPECT_TRUE(ev.has_cycle);
	EXPECT_EQ(1u << NAOBODY_TOUCH_CHEST_BUTTON, ev.touch);
	EXPECT_EQ(1u << NAOBODY_TOUCH_CHEST_BUTTON, ev.changed);
	/* ...and released. */
	ASSERT_EQ(0, wait_event(self->nl, NAOBODY_EVENT_TOUCH, &ev, NBT_MS(3000)));
	EXPECT_EQ(0u, ev.touch);
	EXPECT_EQ(1u << NAOBODY_TOUCH_CHEST_BUTTON, ev.changed);

	ASSERT_EQ(0, nb_stop(self->t.dev, NAOBODY_STOP_GUARD));
	ASSERT_EQ(0, wait_event(self->nl, NAOBODY_EVENT_STOP, &ev, NBT_MS(3000)));
	EXPECT_EQ((uint32_t)NAOBODY_STOP_GUARD, ev.reason);
	ASSERT_EQ(0, nb_rearm(self->t.dev));
	EXPECT_EQ(0, wait_event(self->nl, NAOBODY_EVENT_REARM, &ev, NBT_MS(3000)));

	ctl = nb_open(NULL, NB_OPEN_CONTROL);
	ASSERT_NE(NULL, ctl);
	nb_close(ctl);
	EXPECT_EQ(0, wait_event(self->nl, NAOBODY_EVENT_CONTROLLER_LOST, &ev, NBT_MS(3000)));

	ASSERT_EQ(0, nb_emu_disconnect(&self->t.emu));
	EXPECT_EQ(0, wait_event(self->nl, NAOBODY_EVENT_DISCONNECT, &ev, NBT_MS(5000)));
	EXPECT_EQ(0u, ev.device);
}

/* Once the start-up has accepted the boards, each comes up once. */
TEST_F_TIMEOUT(events, boards_come_up, NBT_TIMEOUT)
{
	struct event ev;
	uint64_t seen = 0;
	int n = 0;

	while (!wait_event(self->nl, NAOBODY_EVENT_BOARD_UP, &ev, NBT_MS(15000))) {
		EXPECT_EQ(0u, seen & (1ull << ev.board));
		seen |= 1ull << ev.board;
		if (++n == (int)nb_info(self->t.dev)->boards)
			break;
	}
	EXPECT_EQ((int)nb_info(self->t.dev)->boards, n);
}

NBT_HARNESS_MAIN
