// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd's REST API: the token and the failure limit (see rest_token.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netinet/in.h>

#include "log.h"
#include "rest_token.h"

struct rest_token {
	char path[PATH_MAX];
	pthread_mutex_t lock;
	char token[REST_TOKEN_HEX + 1];
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct ratelimit rl_bad;
};

static int make_token(const char *path)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t raw[REST_TOKEN_HEX / 2];
	char text[REST_TOKEN_HEX + 1], tmp[PATH_MAX];
	size_t got = 0;
	int fd, err = 0;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(raw); i++) {
		text[2 * i] = hex[raw[i] >> 4];
		text[2 * i + 1] = hex[raw[i] & 15];
	}
	text[REST_TOKEN_HEX] = '\n';
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	/* 0600 whatever the umask said. */
	if (fchmod(fd, 0600) || write(fd, text, sizeof(text)) != (ssize_t)sizeof(text) ||
	    fsync(fd))
		err = -errno;
	close(fd);
	/* Renamed into place: a reader never sees half a token. */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	explicit_bzero(raw, sizeof(raw));
	explicit_bzero(text, sizeof(text));
	return err;
}

/* Called with the lock held. 0, or -errno; the old token stays on failure. */
static int reload(struct rest_token *t, const struct stat *st)
{
	char text[REST_TOKEN_HEX + 2];
	ssize_t n;
	int fd = open(t->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text));
	close(fd);
	if (n < REST_TOKEN_HEX || (n > REST_TOKEN_HEX && text[REST_TOKEN_HEX] != '\n'))
		return -EINVAL;
	for (int i = 0; i < REST_TOKEN_HEX; i++)
		if (!strchr("0123456789abcdefABCDEF", text[i]) || !text[i])
			return -EINVAL;
	memcpy(t->token, text, REST_TOKEN_HEX);
	t->token[REST_TOKEN_HEX] = '\0';
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	t->size = st->st_size;
	t->mtime = st->st_mtim;
	explicit_bzero(text, sizeof(text));
	return 0;
}

/* mkdir -p: parents 0755 (as /var/lib would be), the directory itself 0700. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s", dir) >= sizeof(p))
		return -ENAMETOOLONG;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

struct rest_token *rest_token_open(const char *state_dir)
{
	struct rest_token *t = calloc(1, sizeof(*t));
	struct stat st;
	int err;

	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	if ((size_t)snprintf(t->path, sizeof(t->path), "%s/%s", state_dir, REST_TOKEN_FILE) >=
	    sizeof(t->path)) {
		log_err("rest: --state-dir %s: too long", state_dir);
		goto fail;
	}
	err = make_dirs(state_dir);
	if (err) {
		log_err("rest: cannot create the state directory %s: %s (--state-dir sets it)",
			state_dir, strerror(-err));
		goto fail;
	}
	if (lstat(t->path, &st) && errno == ENOENT) {
		err = make_token(t->path);
		if (err) {
			log_err("rest: cannot write a new token to %s: %s", t->path, strerror(-err));
			goto fail;
		}
		log_info("rest: a new token in %s", t->path);
	}
	if (lstat(t->path, &st)) {
		log_err("rest: %s: %s", t->path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		log_err("rest: %s: must be a regular file only its owner can read (chmod 0600)",
			t->path);
		goto fail;
	}
	err = reload(t, &st);
	if (err) {
		log_err("rest: %s: %s (expected 64 hex digits; delete it for a new one)",
			t->path, strerror(-err));
		goto fail;
	}
	return t;
fail:
	rest_token_close(t);
	return NULL;
}

void rest_token_close(struct rest_token *t)
{
	if (!t)
		return;
	explicit_bzero(t->token, sizeof(t->token));
	pthread_mutex_destroy(&t->lock);
	free(t);
}

const char *rest_token_path(const struct rest_token *t)
{
	return t->path;
}

/* Every byte compared, whatever the first difference: no timing oracle. */
static bool equal_ct(const char *a, const char *b, size_t n)
{
	unsigned char diff = 0;

	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return diff == 0;
}

bool rest_token_check(struct rest_token *t, const char *candidate)
{
	char cand[REST_TOKEN_HEX];
	struct stat st;
	bool ok;

	/* The length is no secret (64, documented); copy so a short one reads no further. */
	if (!candidate || strnlen(candidate, REST_TOKEN_HEX + 1) != REST_TOKEN_HEX)
		return false;
	memcpy(cand, candidate, REST_TOKEN_HEX);
	pthread_mutex_lock(&t->lock);
	if (!lstat(t->path, &st) &&
	    (st.st_ino != t->ino || st.st_dev != t->dev || st.st_size != t->size ||
	     st.st_mtim.tv_sec != t->mtime.tv_sec || st.st_mtim.tv_nsec != t->mtime.tv_nsec)) {
		int err = S_ISREG(st.st_mode) && !(st.st_mode & 077) ? reload(t, &st) : -EPERM;

		if (err && ratelimit_ok(&t->rl_bad))
			log_warn("rest: %s changed but cannot be used (%s): keeping the old token",
				 t->path, strerror(-err));
		else if (!err)
			log_info("rest: %s changed: the new token is in use", t->path);
	}
	ok = equal_ct(cand, t->token, REST_TOKEN_HEX);
	pthread_mutex_unlock(&t->lock);
	return ok;
}
