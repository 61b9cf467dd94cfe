// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd's REST API: the local network's prefixes, from rtnetlink (see rest_net.h). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>

#include "log.h"
#include "rest_net.h"

/* A host has a handful; a table this size is never the limit in practice. */
#define LOCALNET_MAX	256

struct prefix {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];
	unsigned int len;	/* prefix length, bits */
	unsigned int ifindex;
};

struct localnet {
	struct mnl_socket *nl;
	pthread_mutex_t lock;
	struct prefix p[LOCALNET_MAX];
	unsigned int n;
	bool full_logged;
	char buf[8192];	/* MNL_SOCKET_BUFFER_SIZE with 4 KiB pages, as a constant */
};

static bool same(const struct prefix *a, const struct prefix *b)
{
	return a->family == b->family && a->len == b->len && a->ifindex == b->ifindex &&
	       !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* Called with the lock held. */
static void table_update(struct localnet *ln, const struct prefix *p, bool add)
{
	char text[INET6_ADDRSTRLEN];

	for (unsigned int i = 0; i < ln->n; i++) {
		if (!same(&ln->p[i], p))
			continue;
		if (!add)
			ln->p[i] = ln->p[--ln->n];
		else
			return;		/* already there */
		inet_ntop(p->family, p->addr, text, sizeof(text));
		log_info("rest: local network: %s/%u went", text, p->len);
		return;
	}
	if (!add)
		return;
	inet_ntop(p->family, p->addr, text, sizeof(text));
	if (ln->n == LOCALNET_MAX) {
		if (!ln->full_logged)
			log_warn("rest: local network: more than %d addresses; %s/%u not allowed",
				 LOCALNET_MAX, text, p->len);
		ln->full_logged = true;
		return;
	}
	ln->p[ln->n++] = *p;
	log_info("rest: local network: %s/%u", text, p->len);
}

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, IFA_MAX) < 0)
		return MNL_CB_OK;
	tb[type] = a;
	return MNL_CB_OK;
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct localnet *ln = data;
	const struct nlattr *tb[IFA_MAX + 1] = { NULL };
	const struct ifaddrmsg *ifa;
	const struct nlattr *a;
	struct prefix p = { 0 };
	size_t want;

	if (nlh->nlmsg_type != RTM_NEWADDR && nlh->nlmsg_type != RTM_DELADDR)
		return MNL_CB_OK;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)))
		return MNL_CB_OK;	/* malformed: dropped */
	ifa = mnl_nlmsg_get_payload(nlh);
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*ifa), attr_cb, tb);
	/* IFA_LOCAL is our address on a point-to-point link; IFA_ADDRESS the peer's. */
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	want = ifa->ifa_family == AF_INET ? 4 : 16;
	if (!a || mnl_attr_get_payload_len(a) != want)
		return MNL_CB_OK;
	p.family = ifa->ifa_family;
	memcpy(p.addr, mnl_attr_get_payload(a), want);
	p.len = ifa->ifa_prefixlen;
	if (p.len > want * 8)
		return MNL_CB_OK;
	p.ifindex = ifa->ifa_index;
	pthread_mutex_lock(&ln->lock);
	table_update(ln, &p, nlh->nlmsg_type == RTM_NEWADDR);
	pthread_mutex_unlock(&ln->lock);
	return MNL_CB_OK;
}

/* One RTM_GETADDR dump on its own socket, before the followed one listens. */
static int dump(struct localnet *ln)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	struct nlmsghdr *nlh;
	struct rtgenmsg *rt;
	unsigned int seq = (unsigned int)time(NULL), portid;
	int ret, err = 0;

	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(ln->buf);
	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtgen_family = AF_UNSPEC;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		ret = mnl_socket_recvfrom(nl, ln->buf, sizeof(ln->buf));
		if (ret <= 0) {
			err = ret < 0 ? -errno : -EIO;
			break;
		}
		ret = mnl_cb_run(ln->buf, ret, seq, portid, addr_cb, ln);
		if (ret <= MNL_CB_STOP) {
			err = ret < 0 ? -errno : 0;
			break;
		}
	}
out:
	mnl_socket_close(nl);
	return err;
}

struct localnet *localnet_create(void)
{
	struct localnet *ln = calloc(1, sizeof(*ln));
	int err;

	if (!ln)
		return NULL;
	pthread_mutex_init(&ln->lock, NULL);
	/* Follow first, then dump: nothing that changes in between is missed. */
	ln->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!ln->nl)
		goto fail;
	if (mnl_socket_bind(ln->nl, RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
			    MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	err = dump(ln);
	if (err) {
		errno = -err;
		goto fail;
	}
	return ln;
fail:
	err = errno;
	localnet_destroy(ln);
	errno = err;
	return NULL;
}

void localnet_destroy(struct localnet *ln)
{
	if (!ln)
		return;
	if (ln->nl)
		mnl_socket_close(ln->nl);
	pthread_mutex_destroy(&ln->lock);
	free(ln);
}

int localnet_fd(const struct localnet *ln)
{
	return mnl_socket_get_fd(ln->nl);
}

void localnet_process(struct localnet *ln)
{
	for (;;) {
		int ret = mnl_socket_recvfrom(ln->nl, ln->buf, sizeof(ln->buf));

		if (ret < 0) {
			/* ENOBUFS: we missed some; dump again to be sure. */
			if (errno == ENOBUFS) {
				log_warn("rest: local network: netlink overrun; reading the addresses again");
				if (dump(ln))
					log_err("rest: local network: the dump failed: %s",
						strerror(errno));
				continue;
			}
			return;		/* EAGAIN: all read */
		}
		/* Notifications: seq 0, any port id. */
		mnl_cb_run(ln->buf, ret, 0, 0, addr_cb, ln);
	}
}

static bool in_prefix(const uint8_t *a, const uint8_t *net, unsigned int bits)
{
	unsigned int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, net, whole))
		return false;
	if (!rest)
		return true;
	return ((a[whole] ^ net[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* Loopback, always local and always the host's own: 127.0.0.0/8 and ::1. */
static bool loopback(int family, const uint8_t *addr)
{
	return (family == AF_INET && addr[0] == 127) ||
	       (family == AF_INET6 && IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)addr));
}

bool localnet_allows(struct localnet *ln, const struct sockaddr *peer)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	uint8_t addr[16];
	int family = peer->sa_family;
	bool ok = false;

	if (family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)peer)->sin_addr, 4);
	} else if (family == AF_INET6) {
		const uint8_t *a6 = ((const struct sockaddr_in6 *)peer)->sin6_addr.s6_addr;

		if (!memcmp(a6, mapped, sizeof(mapped))) {
			family = AF_INET;	/* ::ffff:a.b.c.d on a dual-stack socket */
			memcpy(addr, a6 + 12, 4);
		} else {
			memcpy(addr, a6, 16);
		}
	} else {
		return false;
	}
	if (loopback(family, addr))
		return true;
	pthread_mutex_lock(&ln->lock);
	for (unsigned int i = 0; i < ln->n && !ok; i++)
		ok = ln->p[i].family == family && in_prefix(addr, ln->p[i].addr, ln->p[i].len);
	pthread_mutex_unlock(&ln->lock);
	return ok;
}

bool localnet_own(struct localnet *ln, int family, const void *addr)
{
	const uint8_t *a = addr;
	size_t len = family == AF_INET ? 4 : 16;
	bool own = false;

	if (loopback(family, a))
		return true;
	pthread_mutex_lock(&ln->lock);
	for (unsigned int i = 0; i < ln->n && !own; i++)
		own = ln->p[i].family == family && !memcmp(ln->p[i].addr, a, len);
	pthread_mutex_unlock(&ln->lock);
	return own;
}

unsigned int localnet_count(struct localnet *ln)
{
	unsigned int n;

	pthread_mutex_lock(&ln->lock);
	n = ln->n;
	pthread_mutex_unlock(&ln->lock);
	return n;
}
