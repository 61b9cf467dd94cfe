#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# TAP output for shell tests. Source it, call tap_plan N, then ok/not_ok per
# case, or tap_check "description" command... which runs the command.
# Finish with tap_done, which exits non-zero if any case failed.

tap_n=0
tap_failed=0

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n $*"
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $1 # SKIP $2"
}

tap_check() {
	desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
	fi
}

tap_done() {
	[ "$tap_failed" -eq 0 ]
	exit $?
}
