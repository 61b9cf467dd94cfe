/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd started as root: once it has opened what needs root (the body's
 * device, the head bus, the sockets, the REST token's directory) it
 * becomes --user (default "nobody"), so that no parser of a peer's input
 * runs as root (Documentation/naobodyd.rst, "Privileges").
 *
 * It keeps no capability at all: the capability sets (permitted,
 * effective, inheritable, ambient) are empty after the change, as under
 * the packaged unit (CapabilityBoundingSet= empty). What real-time
 * scheduling needs is set as resource limits before the change, which an
 * unprivileged process may use without any capability: RLIMIT_RTPRIO up
 * to --priority (SCHED_FIFO) and RLIMIT_MEMLOCK unlimited (mlockall's
 * MCL_FUTURE); where root may not raise them (a container without
 * CAP_SYS_RESOURCE), the body thread keeps the SCHED_FIFO it was given
 * before, and memory allocated after the change is not locked (the log
 * says so). The supplementary groups are the user's own and those of
 * the devices it opens later, where they exist: naobody (the body, the
 * head bus), video (cameras), audio (speaker, microphones), dialout
 * (serial bodies).
 *
 * "--user root" keeps root, with a warning: for test rigs whose devices
 * only root may open. Not started as root: nothing changes.
 */
#ifndef NAOBODYD_PRIVILEGES_H
#define NAOBODYD_PRIVILEGES_H

#define NAOBODYD_DEFAULT_USER	"nobody"

/*
 * Checks --user before anything is opened: 0, or -1 with a message
 * (no such user; a user that is root by another name).
 */
int privileges_check(const char *user);
/* Drops root for good (all threads); 0, or -1 with a message: then naobodyd stops. */
int privileges_drop(const char *user, int priority);

#endif
