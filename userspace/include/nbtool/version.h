/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every tool's --version, the GNU way: "PROGRAM (naobody) VERSION" on
 * stdout, then the licence, exit status 0. NAOBODY_VERSION is the tree's
 * `git describe` (or what the package build says), in a header the
 * Makefile rewrites only when it changes, so a tool is rebuilt exactly
 * when its version moves. Not installed: the tools' own header.
 */
#ifndef _NBTOOL_VERSION_H
#define _NBTOOL_VERSION_H

#include <stdio.h>

#include <naobody_version.h>	/* $(O)/include, generated */

static inline int nbtool_version(const char *prog)
{
	printf("%s (naobody) %s\n"
	       "License GPL-2.0-only: <https://spdx.org/licenses/GPL-2.0-only.html>.\n"
	       "This is free software: you are free to change and redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n",
	       prog, NAOBODY_VERSION);
	return 0;
}

#endif /* _NBTOOL_VERSION_H */
