# SPDX-License-Identifier: GPL-2.0-only
# naobodyd and naoguard on the host, against the simulated body, with a
# client on Debian's python3-msgpack (nbtest.py). Each prints TAP.
HOST_TESTS += $(addprefix $(srctree)/selftests/naobodyd/, \
	api_test.py watchdog_test.py lola_test.py naoguard_test.py leak_test.py)
# The benchmark: latency, CPU, RSS and churn against the simulated body.
BENCHES += $(srctree)/selftests/naobodyd/naobodyd_bench.py

# libFuzzer: the structural check, the robot API decoder and the LoLA
# actuator parser; seeds written by make_corpus.py.
FUZZERS += fuzz_naobodyd_msgpack
fuzz_naobodyd_msgpack_SRCS := $(srctree)/selftests/naobodyd/fuzz_msgpack.c
fuzz_naobodyd_msgpack_LIBS := nbdcodec
fuzz_naobodyd_msgpack_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack) -lm
fuzz_naobodyd_msgpack_CORPUS := $(srctree)/selftests/naobodyd/corpus
