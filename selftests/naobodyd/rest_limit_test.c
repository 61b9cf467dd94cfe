// SPDX-License-Identifier: GPL-2.0-only
/*
 * The REST API's limit on wrong tokens (userspace/naobodyd/rest/rest_limit.h):
 * an IPv6 source is its /64 (one host has the whole /64 to pick from), an
 * IPv4 one its address, the same on a dual-stack socket; past the global
 * burst every source waits, forgotten ones and new ones too; the memory
 * is the table's, however many sources come. A made-up clock.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "kselftest_harness.h"

#include "rest/rest_limit.h"

#define SEC	1000000000ULL

static struct sockaddr_in6 v6(const char *text)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };

	inet_pton(AF_INET6, text, &a.sin6_addr);
	return a;
}

static struct sockaddr_in v4(const char *text)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	inet_pton(AF_INET, text, &a.sin_addr);
	return a;
}

#define SA(x)	((const struct sockaddr *)&(x))

TEST(an_ipv6_source_is_its_slash_64)
{
	struct fail_limit fl;
	struct sockaddr_in6 a = v6("2001:db8:1:2::1"), b = v6("2001:db8:1:2:ffff:1:2:3");
	struct sockaddr_in6 other = v6("2001:db8:1:3::1");
	uint64_t now = 100 * SEC;

	fail_limit_init(&fl);
	for (int i = 0; i < FAIL_BURST - 1; i++)
		EXPECT_EQ(0, fail_limit_failed(&fl, i % 2 ? SA(a) : SA(b), now));
	/* The fifth from anywhere in the /64 locks the /64, and only it. */
	EXPECT_GT(fail_limit_failed(&fl, SA(b), now), 0);
	EXPECT_GT(fail_limit_wait(&fl, SA(a), now), 0);
	EXPECT_EQ(0, fail_limit_wait(&fl, SA(other), now));
	/* The window ends. */
	EXPECT_EQ(0, fail_limit_wait(&fl, SA(a), now + FAIL_WINDOW_NS));
	fail_limit_uninit(&fl);
}

TEST(ipv4_alone_or_mapped_is_one_source)
{
	struct sockaddr_in a = v4("192.0.2.7"), b = v4("192.0.2.8");
	struct sockaddr_in6 m = v6("::ffff:192.0.2.7");
	uint8_t ka[16], kb[16], km[16];

	fail_limit_key(SA(a), ka);
	fail_limit_key(SA(b), kb);
	fail_limit_key(SA(m), km);
	EXPECT_EQ(0, memcmp(ka, km, 16));
	EXPECT_NE(0, memcmp(ka, kb, 16));
}

TEST(past_the_global_burst_every_source_waits)
{
	struct fail_limit fl;
	uint64_t now = 100 * SEC;
	unsigned int judged = 0;
	char text[64];

	fail_limit_init(&fl);
	/* Far more sources than the table holds, one failure each. */
	for (int i = 0; i < 1000; i++) {
		struct sockaddr_in6 a;

		snprintf(text, sizeof(text), "2001:db8:%x::1", i);
		a = v6(text);
		if (!fail_limit_wait(&fl, SA(a), now)) {
			judged++;
			fail_limit_failed(&fl, SA(a), now);
		}
	}
	EXPECT_EQ(FAIL_GLOBAL_BURST, judged);
	{
		struct sockaddr_in fresh = v4("198.51.100.1");

		EXPECT_GT(fail_limit_wait(&fl, SA(fresh), now), 0);
		EXPECT_EQ(0, fail_limit_wait(&fl, SA(fresh), now + FAIL_WINDOW_NS));
	}
	EXPECT_EQ(FAIL_SOURCES, sizeof(fl.src) / sizeof(fl.src[0]));
	fail_limit_uninit(&fl);
}

TEST_HARNESS_MAIN
