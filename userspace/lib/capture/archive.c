// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture archive: one directory with capture.pcap, lola.log, marks
 * and versions, sent around as a .tar.gz of it. tar(1) packs and unpacks
 * it (posix_spawnp, no shell): the archive is a plain tarball anyone can
 * open.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <capture/capture.h>

extern char **environ;

static int run(char *const argv[], char *err, size_t errlen)
{
	pid_t pid;
	int st, r;

	r = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (r) {
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(r));
		return -r;
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(err, errlen, "%s failed (status %d)", argv[0], st);
		return -EIO;
	}
	return 0;
}

/* The one directory a tarball unpacked into, or the directory itself. */
static int find_root(char *dir, size_t len)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/" CAP_FILE_PCAP, dir);
	if (!stat(p, &st))
		return 0;
	snprintf(p, sizeof(p), "find '%s' -mindepth 2 -maxdepth 2 -name " CAP_FILE_PCAP, dir);
	{
		FILE *f = popen(p, "r");
		char line[4096];

		if (!f)
			return -errno;
		if (!fgets(line, sizeof(line), f)) {
			pclose(f);
			return -ENOENT;
		}
		pclose(f);
		line[strcspn(line, "\n")] = 0;
		*strrchr(line, '/') = 0;
		snprintf(dir, len, "%s", line);
	}
	return 0;
}

int cap_archive_open(const char *path, struct cap_archive *a, char *err, size_t errlen)
{
	struct stat st;
	int r;

	memset(a, 0, sizeof(*a));
	if (stat(path, &st)) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(a->dir, sizeof(a->dir), "%s", path);
	} else {
		char *argv[] = { "tar", "-xzf", (char *)path, "-C", a->tmp, NULL };
		const char *t = getenv("TMPDIR");

		snprintf(a->tmp, sizeof(a->tmp), "%s/naocap.XXXXXX", t ? t : "/tmp");
		if (!mkdtemp(a->tmp)) {
			r = -errno;
			snprintf(err, errlen, "mkdtemp: %s", strerror(-r));
			a->tmp[0] = 0;
			return r;
		}
		r = run(argv, err, errlen);
		if (r) {
			snprintf(err, errlen, "%s: not a .tar.gz archive tar can unpack", path);
			cap_archive_close(a);
			return -EBADMSG;
		}
		snprintf(a->dir, sizeof(a->dir), "%s", a->tmp);
	}
	r = find_root(a->dir, sizeof(a->dir));
	if (r) {
		snprintf(err, errlen, "%s: no " CAP_FILE_PCAP " in the archive", path);
		cap_archive_close(a);
		return -ENOENT;
	}
	return 0;
}

void cap_archive_close(struct cap_archive *a)
{
	if (a->tmp[0]) {
		char *argv[] = { "rm", "-rf", "--", a->tmp, NULL };
		char err[64];

		run(argv, err, sizeof(err));
		a->tmp[0] = 0;
	}
}

int cap_archive_path(const struct cap_archive *a, const char *file, char *buf, size_t len)
{
	struct stat st;

	snprintf(buf, len, "%s/%s", a->dir, file);
	return stat(buf, &st) ? -errno : 0;
}

/* "usb.busdev BUS:DEV" in the versions file */
int cap_archive_busdev(const struct cap_archive *a, uint32_t *busdev)
{
	char p[4200], line[256];
	unsigned int bus, dev;
	FILE *f;

	if (cap_archive_path(a, CAP_FILE_VERSIONS, p, sizeof(p)))
		return -ENOENT;
	f = fopen(p, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "usb.busdev %u:%u", &bus, &dev) == 2 &&
		    bus < 65536 && dev < 65536) {
			*busdev = CAP_BUSDEV(bus, dev);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -ENOENT;
}

int cap_archive_pack(const char *dir, const char *tarball, char *err, size_t errlen)
{
	char parent[PATH_MAX], base[PATH_MAX];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = 0;
		snprintf(base, sizeof(base), "%s", slash + 1);
		if (!parent[0])
			snprintf(parent, sizeof(parent), "/");
	} else {
		snprintf(base, sizeof(base), "%s", dir);
		snprintf(parent, sizeof(parent), ".");
	}
	{
		char *argv[] = { "tar", "-czf", (char *)tarball, "-C", parent, base, NULL };

		return run(argv, err, errlen);
	}
}
