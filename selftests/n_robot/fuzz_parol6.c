// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: the PAROL6 framer and command checks (fuzz_framer.c). */
#define FUZZ_PAROL6
#include "fuzz_framer.c"
