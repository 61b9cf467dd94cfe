// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd's REST API: its connections' limits (see rest_conns.h). */
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "log.h"
#include "rest_conns.h"
#include "rest_limit.h"

void rest_conns_init(struct rest_conns *rc)
{
	memset(rc, 0, sizeof(*rc));
	pthread_mutex_init(&rc->lock, NULL);
}

void rest_conns_uninit(struct rest_conns *rc)
{
	pthread_mutex_destroy(&rc->lock);
}

/*
 * The connections source key holds. One cut off (shut) holds nothing: its
 * peer has seen it end, and may connect again before its thread has
 * noticed and closed it. Called with the lock held.
 */
static unsigned int from(const struct rest_conns *rc, const uint8_t key[16])
{
	unsigned int n = 0;

	for (int i = 0; i < REST_CONNECTIONS; i++)
		n += rc->conn[i].c && !rc->conn[i].shut && !memcmp(rc->conn[i].key, key, 16);
	return n;
}

bool rest_conns_admit(struct rest_conns *rc, const struct sockaddr *peer)
{
	uint8_t key[16];
	bool ok;

	fail_limit_key(peer, key);
	pthread_mutex_lock(&rc->lock);
	ok = from(rc, key) < REST_PER_SOURCE;
	if (!ok)
		rc->refused++;
	pthread_mutex_unlock(&rc->lock);
	if (!ok)
		log_warn_limited("rest: %d connections from one source already: refusing one",
				 REST_PER_SOURCE);
	return ok;
}

/* Called with the lock held. */
static struct rest_conn *find(struct rest_conns *rc, struct MHD_Connection *c)
{
	for (int i = 0; i < REST_CONNECTIONS; i++)
		if (rc->conn[i].c == c)
			return &rc->conn[i];
	return NULL;
}

void rest_conns_started(struct rest_conns *rc, struct MHD_Connection *c, uint64_t now)
{
	const union MHD_ConnectionInfo *addr =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const union MHD_ConnectionInfo *fd =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct rest_conn *e;

	pthread_mutex_lock(&rc->lock);
	/* libmicrohttpd holds no more than REST_CONNECTIONS: a free entry is there. */
	e = find(rc, NULL);
	if (e) {
		memset(e, 0, sizeof(*e));
		e->c = c;
		e->fd = fd ? fd->connect_fd : -1;
		if (addr && addr->client_addr)
			fail_limit_key(addr->client_addr, e->key);
		e->since = now;
	}
	pthread_mutex_unlock(&rc->lock);
}

/* Called before libmicrohttpd closes the socket: the fd is not shut after. */
void rest_conns_closed(struct rest_conns *rc, struct MHD_Connection *c)
{
	struct rest_conn *e;

	pthread_mutex_lock(&rc->lock);
	e = find(rc, c);
	if (e)
		memset(e, 0, sizeof(*e));
	pthread_mutex_unlock(&rc->lock);
}

void rest_conns_request(struct rest_conns *rc, struct MHD_Connection *c, bool in, uint64_t now)
{
	struct rest_conn *e;

	pthread_mutex_lock(&rc->lock);
	e = find(rc, c);
	if (e) {
		e->in_request = in;
		e->since = now;
	}
	pthread_mutex_unlock(&rc->lock);
}

unsigned int rest_conns_reap(struct rest_conns *rc, uint64_t now)
{
	unsigned int n = 0;

	pthread_mutex_lock(&rc->lock);
	for (int i = 0; i < REST_CONNECTIONS; i++) {
		struct rest_conn *e = &rc->conn[i];

		int unread = 0;

		if (!e->c || e->in_request || e->shut || e->fd < 0 ||
		    now - e->since < REST_HEADER_NS)
			continue;
		/*
		 * Bytes the peer sent that its thread has not read yet: the
		 * lateness is ours (a stalled daemon, a starved machine), not
		 * the peer's. A slowloris's trickle is read as it comes, so
		 * it is found with nothing waiting, at this round or the next.
		 */
		if (!ioctl(e->fd, FIONREAD, &unread) && unread > 0)
			continue;
		/*
		 * Its thread sees the end of the stream and closes it; the fd
		 * is still its own: rest_conns_closed() comes first.
		 */
		shutdown(e->fd, SHUT_RDWR);
		e->shut = true;
		rc->reaped++;
		n++;
	}
	pthread_mutex_unlock(&rc->lock);
	if (n)
		log_warn_limited("rest: %u connections sent no whole request within %llu s: cut off",
				 n, REST_HEADER_NS / 1000000000ULL);
	return n;
}
