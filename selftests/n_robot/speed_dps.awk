# SPDX-License-Identifier: GPL-2.0-only
#
# awk -v from=LINE -f speed_dps.awk TELEMETRY: the fastest any joint ran, and
# the median and 90th percentile of J1's speed while it moved, in deg/s, in
# parol6-emu's telemetry (-t) from line FROM on: the way each joint went
# between two packets over the time between them (microsteps per degree from
# the gear ratios). For e2e.sh, which prints them, and link_bench.sh, which
# measures them.
NR >= from && /speed=/ {
	split("113.7778 355.5556 321.6931 71.1111 71.1111 177.7778", k, " ")
	split($2, a, "="); split(a[2], p, ","); split($4, b, "="); dt = b[2] / 1e6
	if (have && dt > 0) {
		for (j = 1; j <= 6; j++) { v = (p[j] - q[j]) / k[j] / dt; if (v < 0) v = -v; if (v > m) m = v }
		v = (p[1] - q[1]) / k[1] / dt; if (v < 0) v = -v; if (v > 0.5) j1[n++] = v
	}
	for (j = 1; j <= 6; j++) q[j] = p[j]
	have = 1
} END {
	for (i = 1; i < n; i++) for (x = i; x > 0 && j1[x - 1] > j1[x]; x--) { t = j1[x]; j1[x] = j1[x - 1]; j1[x - 1] = t }
	printf "%.3f %.3f %.3f\n", m, n ? j1[int(n / 2)] : 0, n ? j1[int(n * 9 / 10)] : 0
}
