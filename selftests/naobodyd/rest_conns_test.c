// SPDX-License-Identifier: GPL-2.0-only
/*
 * The REST API's connection limits (userspace/naobodyd/rest/rest_conns.h):
 * REST_PER_SOURCE from one source, another source still admitted; a
 * connection whose headers are late is cut off, one in a request or with
 * bytes waiting is not; and a peer cut off may connect again at once,
 * before the connections' threads have closed what was cut off. A
 * made-up clock; socketpairs stand in for the connections' sockets.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "rest/rest_conns.h"
#include "rest/rest_limit.h"

static struct sockaddr_in v4(const char *text)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	inet_pton(AF_INET, text, &a.sin_addr);
	return a;
}

#define SA(x)	((const struct sockaddr *)&(x))

FIXTURE(conns) {
	struct rest_conns rc;
	int peer[REST_PER_SOURCE];	/* the peers' ends */
};

/*
 * REST_PER_SOURCE connections from 192.0.2.7, started at time 0, as
 * rest_conns_started() fills them (it asks libmicrohttpd for the address).
 */
FIXTURE_SETUP(conns)
{
	struct sockaddr_in a = v4("192.0.2.7");

	rest_conns_init(&self->rc);
	for (int i = 0; i < REST_PER_SOURCE; i++) {
		struct rest_conn *e = &self->rc.conn[i];
		int sv[2];

		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
		e->c = (struct MHD_Connection *)(uintptr_t)(i + 1);
		e->fd = sv[0];
		self->peer[i] = sv[1];
		fail_limit_key(SA(a), e->key);
	}
}

FIXTURE_TEARDOWN(conns)
{
	for (int i = 0; i < REST_PER_SOURCE; i++) {
		close(self->rc.conn[i].fd);
		close(self->peer[i]);
	}
	rest_conns_uninit(&self->rc);
}

TEST_F(conns, one_source_holds_at_most_its_share)
{
	struct sockaddr_in a = v4("192.0.2.7"), b = v4("192.0.2.8");

	EXPECT_FALSE(rest_conns_admit(&self->rc, SA(a)));
	EXPECT_TRUE(rest_conns_admit(&self->rc, SA(b)));
	EXPECT_EQ(1u, self->rc.refused);
}

TEST_F(conns, late_headers_are_cut_off_and_free_their_share_at_once)
{
	struct sockaddr_in a = v4("192.0.2.7");
	char byte;

	/* In time: nothing is cut off. */
	EXPECT_EQ(0u, rest_conns_reap(&self->rc, REST_HEADER_NS - 1));
	/* One answering, one whose bytes wait for its thread: not theirs. */
	self->rc.conn[0].in_request = true;
	ASSERT_EQ(1, write(self->peer[1], "G", 1));
	EXPECT_EQ(REST_PER_SOURCE - 2u, rest_conns_reap(&self->rc, REST_HEADER_NS));
	EXPECT_EQ(REST_PER_SOURCE - 2u, self->rc.reaped);
	/* The peers see the end of the stream... */
	for (int i = 2; i < REST_PER_SOURCE; i++)
		EXPECT_EQ(0, read(self->peer[i], &byte, 1));
	/* ...and may connect again before the threads closed theirs. */
	EXPECT_TRUE(rest_conns_admit(&self->rc, SA(a)));
	/* Once: a second reap cuts off nothing more. */
	EXPECT_EQ(0u, rest_conns_reap(&self->rc, 2 * REST_HEADER_NS));
}

TEST_HARNESS_MAIN
