// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd: root's privileges, dropped once opened what needs them (see privileges.h). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "log.h"
#include "privileges.h"

#define MAX_GROUPS	64

/* The groups of the devices opened after the drop (privileges.h). */
static const char *const device_groups[] = { "naobody", "video", "audio", "dialout" };

static bool keep_root(const char *user)
{
	return geteuid() != 0 || !strcmp(user, "root");
}

int privileges_check(const char *user)
{
	struct passwd *pw;

	if (keep_root(user))
		return 0;
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		log_err("--user %s: %s: naobodyd started as root becomes an unprivileged user "
			"once its devices and sockets are open (default " NAOBODYD_DEFAULT_USER
			"); name one that exists, or --user root to stay root", user,
			errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (!pw->pw_uid) {
		log_err("--user %s: that user is root (UID 0); name an unprivileged one, or "
			"--user root to stay root knowingly", user);
		return -1;
	}
	return 0;
}

/*
 * What real-time scheduling needs, as limits an unprivileged process may
 * use. Raising a hard limit needs CAP_SYS_RESOURCE, which a container's
 * root may lack: then the body thread keeps the SCHED_FIFO it already has,
 * and since mlockall()'s MCL_FUTURE would make every later allocation fail
 * past the lower limit, memory from now on is left unlocked (what is locked
 * stays locked). Said in the log; never fatal.
 */
static void realtime_limits(int priority)
{
	struct rlimit rt = { .rlim_cur = (rlim_t)priority, .rlim_max = (rlim_t)priority };
	struct rlimit mem = { .rlim_cur = RLIM_INFINITY, .rlim_max = RLIM_INFINITY };
	struct rlimit now;

	if (!priority)
		return;
	if (!getrlimit(RLIMIT_RTPRIO, &now) && now.rlim_cur < (rlim_t)priority) {
		if (now.rlim_max != RLIM_INFINITY && now.rlim_max > (rlim_t)priority)
			rt.rlim_max = now.rlim_max;
		if (setrlimit(RLIMIT_RTPRIO, &rt))
			log_warn("cannot raise RLIMIT_RTPRIO to %d (%s): the body thread keeps the "
				 "SCHED_FIFO it has", priority, strerror(errno));
	}
	if (!getrlimit(RLIMIT_MEMLOCK, &now) && now.rlim_cur != RLIM_INFINITY &&
	    setrlimit(RLIMIT_MEMLOCK, &mem)) {
		log_warn("cannot raise RLIMIT_MEMLOCK (%s): what is locked stays locked, memory "
			 "allocated from now on is not", strerror(errno));
		mlockall(MCL_CURRENT);	/* as root still: no MCL_FUTURE from now on */
	}
}

int privileges_drop(const char *user, int priority)
{
	gid_t groups[MAX_GROUPS];
	int n = MAX_GROUPS;
	struct passwd *pw;
	char names[256] = "";

	if (geteuid() != 0)
		return 0;
	if (!strcmp(user, "root")) {
		log_warn("--user root: staying root: every parser of the peers' input runs as root");
		return 0;
	}
	pw = getpwnam(user);
	if (!pw || !pw->pw_uid) {
		log_err("--user %s: gone, or root, since the start: stopping", user);
		return -1;
	}
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		n = MAX_GROUPS;	/* the first MAX_GROUPS */
	for (size_t i = 0; i < sizeof(device_groups) / sizeof(device_groups[0]); i++) {
		struct group *g = getgrnam(device_groups[i]);
		bool have = false;

		if (!g)
			continue;
		for (int j = 0; j < n; j++)
			have |= groups[j] == g->gr_gid;
		if (!have && n < MAX_GROUPS)
			groups[n++] = g->gr_gid;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), " %s",
			 device_groups[i]);
	}
	realtime_limits(priority);
	/* glibc applies each to every thread of the process. */
	if (setgroups((size_t)n, groups) || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid)) {
		log_err("cannot become %s: %s: stopping rather than serve as root", user,
			strerror(errno));
		return -1;
	}
	/* For good: no way back, and nothing exec'd gains any. */
	if (!setresuid(0, 0, 0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		log_err("root's privileges could not be dropped for good: stopping");
		return -1;
	}
	log_info("now user %s (UID %u, GID %u, with the groups%s): no capabilities",
		 user, (unsigned int)pw->pw_uid, (unsigned int)pw->pw_gid,
		 names[0] ? names : " (none of the devices' groups exist)");
	return 0;
}
