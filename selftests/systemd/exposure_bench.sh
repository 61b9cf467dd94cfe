#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: systemd-analyze security's exposure score of each unit in
# packaging/systemd (0 safest, 10 worst; the goal is "OK" or better), and
# what each still exposes.
src=$(cd "$(dirname "$0")/../.." && pwd)
for u in "$src"/packaging/systemd/*.service; do
	systemd-analyze security --offline=yes "$u" >"${TMPDIR:-/tmp}/exposure.$$" 2>&1 || true
	grep 'Overall exposure level' "${TMPDIR:-/tmp}/exposure.$$" || {
		echo "$(basename "$u"): no score:"
		cat "${TMPDIR:-/tmp}/exposure.$$"
	}
	grep '✗' "${TMPDIR:-/tmp}/exposure.$$" | sed 's/  \+/  /g; s/^/    /'
done
rm -f "${TMPDIR:-/tmp}/exposure.$$"
