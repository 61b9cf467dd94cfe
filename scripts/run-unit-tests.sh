#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run host unit tests (kselftest-harness programs built with ASan and UBSan)
# and host test scripts, and print one RESULT line per test case.
# Usage: run-unit-tests.sh PROGRAM...
#
# Programs run UNIT_JOBS at a time (default 2): most host tests spend their
# time waiting on a daemon's cycle, and the physics tests keep one core
# busy, so two at once take about half the time on 2 cores. Every test uses
# private ports, paths and directories, so they cannot meet. Each program's
# report is printed whole when it ends.
#
# Each program runs under a time limit that only a hang reaches: UNIT_TIMEOUT
# seconds (default 300), or its own from UNIT_TIMEOUTS="name=seconds ..."
# (<name>_UNIT_TIMEOUT in a fragment). Programs with their own limit are the
# long ones: they start first, so that the others fill the second core.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${O:=$here/../build}"
logdir=$O/logs/unit
mkdir -p "$logdir"
: >"$logdir/times.txt"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
jobs=${UNIT_JOBS:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run-unit-tests.sh: UNIT_JOBS must be a count, not '$jobs'" >&2; exit 2; }

declare -A limit=()
for kv in ${UNIT_TIMEOUTS:-}; do
	limit[${kv%%=*}]=${kv#*=}
done

# The long ones first, then the rest in the order given.
ordered=()
for prog in "$@"; do [[ -n ${limit[$(basename "$prog")]:-} ]] && ordered+=("$prog"); done
for prog in "$@"; do [[ -z ${limit[$(basename "$prog")]:-} ]] && ordered+=("$prog"); done

# run_one PROGRAM: run it into its log; its time and status in $log.rc.
# The program runs in a session of its own: on a timeout every process of
# that session is killed, not only the program (the kselftest harness runs
# each case in a process group of its own, which would outlive a plain
# timeout and load the machine for the tests after it), and whatever it
# leaves behind when it ends is killed too.
run_one() {
	local prog=$1 name log t0 rc sid nap lim
	name=$(basename "$prog")
	log=$logdir/$name.log
	lim=${limit[$name]:-${UNIT_TIMEOUT:-300}}
	t0=$(date +%s)
	setsid "$prog" >"$log" 2>&1 </dev/null &
	sid=$!
	sleep "$lim" &
	nap=$!
	wait -n -p first "$sid" "$nap"
	rc=$?
	if [[ $first == "$nap" ]]; then
		pkill -TERM -s "$sid"
		for _ in 1 2 3 4 5; do kill -0 "$sid" 2>/dev/null || break; sleep 1; done
		pkill -KILL -s "$sid"
		wait "$sid" 2>/dev/null
		rc=124
	else
		kill "$nap" 2>/dev/null
		wait "$nap" 2>/dev/null
	fi
	pkill -KILL -s "$sid" 2>/dev/null
	echo "$(($(date +%s) - t0)) $name" >>"$logdir/times.txt"
	echo "$rc" >"$log.rc"
}

# report PROGRAM: its RESULT lines, and its output when it failed.
failed=0
report() {
	local name log rc
	name=$(basename "$1")
	log=$logdir/$name.log
	rc=$(cat "$log.rc")
	if ! /usr/bin/python3 "$here/lib/tap.py" "unit/$name" "$rc" \
		--timeout "${limit[$name]:-${UNIT_TIMEOUT:-300}}" <"$log"; then
		failed=1
		echo "  --- $name output (${log#"$O"/}) ---"
		grep -vE '^(ok|#\s+(OK|RUN))' "$log" | tail -40 | sed 's/^/  | /'
	fi
}

declare -A running=() # pid -> program
for prog in "${ordered[@]}"; do
	while [[ ${#running[@]} -ge $jobs ]]; do
		wait -n -p done_pid
		report "${running[$done_pid]}"
		unset "running[$done_pid]"
	done
	rm -f "$logdir/$(basename "$prog").log.rc"
	run_one "$prog" &
	running[$!]=$prog
done
while [[ ${#running[@]} -gt 0 ]]; do
	wait -n -p done_pid
	report "${running[$done_pid]}"
	unset "running[$done_pid]"
done
exit $failed
