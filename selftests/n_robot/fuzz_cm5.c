// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: the CM-5 framer and packet checks (fuzz_framer.c). */
#define FUZZ_CM5
#include "fuzz_framer.c"
