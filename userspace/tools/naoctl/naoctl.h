/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naoctl: the body from a shell. One subcommand per file; naoctl.c holds
 * the dispatch table that drives both dispatch and --help.
 */
#ifndef NAOCTL_H
#define NAOCTL_H

#include <naobody/naobody.h>

/* Set by naoctl.c from -d or NAOBODY_DEVICE. */
extern const char *naoctl_device;
extern const char *naoctl_prog;

/* Open the device read-only, or print why not (and return NULL). */
struct nb_device *naoctl_open(unsigned int flags);
/* Print "naoctl: what: strerror(-err)" plus a hint for common errnos. */
int naoctl_fail(const char *what, int err);

int status_main(int argc, char **argv);
int watch_main(int argc, char **argv);
int dump_main(int argc, char **argv);
int stop_main(int argc, char **argv);
int rearm_main(int argc, char **argv);
int boards_main(int argc, char **argv);
int prefs_main(int argc, char **argv);
int id_main(int argc, char **argv);
int mode_main(int argc, char **argv);
int harakiri_main(int argc, char **argv);
int token_main(int argc, char **argv);
int record_main(int argc, char **argv);

#endif
