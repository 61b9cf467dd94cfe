# SPDX-License-Identifier: GPL-2.0-only
# naobodyd and naoguard on the host, against the simulated body, with a
# client on Debian's python3-msgpack (nbtest.py). Each prints TAP.
HOST_TESTS += $(addprefix $(srctree)/selftests/naobodyd/, \
	api_test.py watchdog_test.py lola_test.py naoguard_test.py leak_test.py)
# The benchmark: latency, CPU, RSS and churn against the simulated body.
BENCHES += $(srctree)/selftests/naobodyd/naobodyd_bench.py
