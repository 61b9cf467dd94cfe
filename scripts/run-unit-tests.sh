#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run host unit tests (kselftest-harness programs built with ASan and UBSan)
# and host test scripts, and print one RESULT line per test case.
# Usage: run-unit-tests.sh PROGRAM...
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${O:=$here/../build}"
logdir=$O/logs/unit
mkdir -p "$logdir"
failed=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for prog in "$@"; do
	name=$(basename "$prog")
	log=$logdir/$name.log
	timeout -k 5 "${UNIT_TIMEOUT:-300}" "$prog" >"$log" 2>&1
	rc=$?
	if ! /usr/bin/python3 "$here/lib/tap.py" "unit/$name" "$rc" <"$log"; then
		failed=1
		echo "  --- $name output (${log#"$O"/}) ---"
		grep -vE '^(ok|#\s+(OK|RUN))' "$log" | tail -40 | sed 's/^/  | /'
	fi
done
exit $failed
