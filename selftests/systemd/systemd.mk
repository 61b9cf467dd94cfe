# SPDX-License-Identifier: GPL-2.0-only
# packaging/systemd, sysusers.d and tmpfiles.d on the host: verify,
# security --offline, the units' dependencies and priorities, and Type=notify
# against the built daemons. make bench prints the exposure scores.
HOST_TESTS += $(srctree)/selftests/systemd/units_test.py
BENCHES += $(srctree)/selftests/systemd/exposure_bench.sh
