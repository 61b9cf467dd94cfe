/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the codec's fuzzers share: an assertion that aborts (libFuzzer
 * keeps the input as a crash), whatever the build's NDEBUG.
 */
#ifndef CODEC_FUZZ_H
#define CODEC_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#define FZ_ASSERT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#endif
