#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run libFuzzer targets over their committed seed corpus.
#   run-fuzzers.sh smoke BIN=CORPUS...   short run each (FUZZ_SMOKE_SECONDS, 10)
#   run-fuzzers.sh long  BIN=CORPUS...   long run each (FUZZ_SECONDS, 300); new
#                                        inputs are kept in build/fuzz/corpus
# The committed corpus is never written to; crashes land in build/fuzz/crashes.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${O:=$here/../build}"
mode=$1
shift
secs=${FUZZ_SMOKE_SECONDS:-10}
[[ $mode == long ]] && secs=${FUZZ_SECONDS:-300}
failed=0
for pair in "$@"; do
	bin=${pair%%=*}
	seeds=${pair#*=}
	name=$(basename "$bin")
	work=$O/fuzz/corpus/$name
	crashes=$O/fuzz/crashes/$name
	log=$O/logs/fuzz/$name.log
	mkdir -p "$work" "$crashes" "$(dirname "$log")"
	[[ $mode == smoke ]] && rm -rf "${work:?}"/*
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$crashes/" -print_final_stats=1 \
		"$work" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [[ $rc -eq 0 ]]; then
		echo "RESULT pass fuzz/$name: ${runs:-?} runs in $secs s, no crash"
	else
		failed=1
		echo "RESULT fail fuzz/$name: crashed (status $rc); input in ${crashes#"$O"/}"
		grep -E 'ERROR|SUMMARY|assert|runtime error' "$log" | head -10 | sed 's/^/  | /'
	fi
done
exit $failed
