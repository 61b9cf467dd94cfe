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

# wait_until SECONDS command...: run the command every 0.1 s until it
# succeeds or SECONDS (whole) have passed on the clock; its last status. A
# count of turns would stretch under a loaded TCG, where a turn (a fork, a
# sleep) takes far longer than its sleep.
wait_until() {
	wu_end=$(($(cut -d. -f1 /proc/uptime) + $1))
	shift
	until "$@"; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$wu_end" ] || return 1
		sleep 0.1
	done
}

tap_done() {
	[ "$tap_failed" -eq 0 ]
	exit $?
}
