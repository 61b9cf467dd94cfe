/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The options every tool answers the same way: --help on stdout, exit 0;
 * --version (<nbtool/version.h>); anything getopt refused, the usage on
 * stderr, exit 2. Not installed: the tools' own header.
 */
#ifndef _NBTOOL_OPTIONS_H
#define _NBTOOL_OPTIONS_H

#include <stdio.h>

#include <nbtool/version.h>

#define NBTOOL_EXIT_USAGE	2

/* getopt's 'h' (--help), 'V' (--version) and anything else: the exit status. */
static inline int nbtool_option(const char *prog, void (*usage)(FILE *f), int opt)
{
	switch (opt) {
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		return nbtool_version(prog);
	default:
		usage(stderr);
		return NBTOOL_EXIT_USAGE;
	}
}

#endif /* _NBTOOL_OPTIONS_H */
