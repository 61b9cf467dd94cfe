#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: run every benchmark the components register (BENCHES: built
# programs or scripts, run with no arguments) and the VM benchmarks
# (VM_BENCH_SUITES, run in their own VM boot). Benchmarks print figures and
# ratios measured in one run; they never pass or fail on absolute time, since
# the machines here are noisy. A benchmark that cannot run is reported.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
status=0
for b in "$@"; do
	echo "=== ${b#"$srctree"/}"
	if [[ ! -x $b ]]; then
		echo "not built: $b"
		status=1
		continue
	fi
	"$b" || { echo "(exited with status $?)"; status=1; }
	echo
done
if [[ -n ${VM_BENCH_SUITES:-} ]]; then
	echo "=== VM benchmarks: $VM_BENCH_SUITES"
	VM_SUITES="$VM_BENCH_SUITES" "$here/vm/run.sh" --test --name bench --timeout 1800 |
		grep -v '^RESULT pass' || status=1
	# The benchmarks' figures are their TAP diagnostics.
	grep -E '^# ' "$srctree/build/vm/bench/results.log" | grep -vE '^#\s+(RUN|OK|PASSED|Totals|Starting)' || true
fi
exit $status
