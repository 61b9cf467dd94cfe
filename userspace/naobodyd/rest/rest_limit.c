// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd's REST API: the limit on wrong tokens (see rest_limit.h). */
#include <netinet/in.h>
#include <string.h>

#include "rest_limit.h"

void fail_limit_init(struct fail_limit *fl)
{
	memset(fl, 0, sizeof(*fl));
	pthread_mutex_init(&fl->lock, NULL);
}

void fail_limit_uninit(struct fail_limit *fl)
{
	pthread_mutex_destroy(&fl->lock);
}

void fail_limit_key(const struct sockaddr *sa, uint8_t key[16])
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(key, 0, 16);
	if (sa->sa_family == AF_INET) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const uint8_t *a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;

		/* IPv4 on a dual-stack socket is that address; IPv6 its /64. */
		memcpy(key, a, memcmp(a, mapped, sizeof(mapped)) ? 8 : 16);
	}
}

/* Called with the lock held: the source's entry, or a new one in the oldest's place. */
static struct fail_source *find(struct fail_limit *fl, const uint8_t key[16], bool make)
{
	struct fail_source *oldest = &fl->src[0];

	for (int i = 0; i < FAIL_SOURCES; i++) {
		struct fail_source *s = &fl->src[i];

		if (s->used && !memcmp(s->key, key, 16))
			return s;
		if (!s->used || (oldest->used && s->window_start < oldest->window_start))
			oldest = s;
	}
	if (!make)
		return NULL;
	memset(oldest, 0, sizeof(*oldest));
	memcpy(oldest->key, key, 16);
	oldest->used = true;
	return oldest;
}

static unsigned int wait_s(uint64_t start, unsigned int fails, unsigned int burst, uint64_t now)
{
	uint64_t end = start + FAIL_WINDOW_NS;

	if (fails < burst || now >= end)
		return 0;
	return (unsigned int)((end - now + 999999999ULL) / 1000000000ULL);
}

/* Called with the lock held. */
static unsigned int wait_locked(struct fail_limit *fl, const struct fail_source *s,
				uint64_t now)
{
	unsigned int a = s ? wait_s(s->window_start, s->fails, FAIL_BURST, now) : 0;
	unsigned int b = wait_s(fl->global_start, fl->global_fails, FAIL_GLOBAL_BURST, now);

	return a > b ? a : b;
}

unsigned int fail_limit_wait(struct fail_limit *fl, const struct sockaddr *peer, uint64_t now)
{
	uint8_t key[16];
	unsigned int w;

	fail_limit_key(peer, key);
	pthread_mutex_lock(&fl->lock);
	w = wait_locked(fl, find(fl, key, false), now);
	pthread_mutex_unlock(&fl->lock);
	return w;
}

unsigned int fail_limit_failed(struct fail_limit *fl, const struct sockaddr *peer, uint64_t now)
{
	struct fail_source *s;
	uint8_t key[16];
	unsigned int w;

	fail_limit_key(peer, key);
	pthread_mutex_lock(&fl->lock);
	s = find(fl, key, true);
	if (now >= s->window_start + FAIL_WINDOW_NS) {
		s->window_start = now;
		s->fails = 0;
	}
	s->fails++;
	if (now >= fl->global_start + FAIL_WINDOW_NS) {
		fl->global_start = now;
		fl->global_fails = 0;
	}
	fl->global_fails++;
	w = wait_locked(fl, s, now);
	pthread_mutex_unlock(&fl->lock);
	return w;
}
