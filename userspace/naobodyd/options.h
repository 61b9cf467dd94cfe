/* SPDX-License-Identifier: GPL-2.0-only */
/* naobodyd: its options (options.c, naobodyd.8). */
#ifndef NAOBODYD_OPTIONS_H
#define NAOBODYD_OPTIONS_H

struct config;

/*
 * The command line into cfg (zeroed by the caller), the defaults for what
 * it leaves out. -1 to go on, else the exit status (--help, --version, a
 * bad option: said on stdout or stderr). cfg points into argv and a static
 * buffer: one call per process.
 */
int options_parse(int argc, char **argv, struct config *cfg);

#endif
