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
: "${O:=$srctree/build}"
status=0
# Benchmarks run in build/bench: whatever one writes to its working
# directory lands there, never in the source tree.
mkdir -p "$O/bench"
cd "$O/bench"
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
	# VM_BENCH_ARGS: run.sh options a bench suite needs (its <suite>_VM_ARGS)
	# shellcheck disable=SC2086
	VM_SUITES="$VM_BENCH_SUITES" "$here/vm/run.sh" --test --name bench --timeout 1800 \
		${VM_BENCH_ARGS:-} |
		grep -v '^RESULT pass' || status=1
	# The benchmarks' figures are their TAP diagnostics.
	grep -E '^# ' "$O/vm/bench/results.log" | grep -vE '^#\s+(RUN|OK|PASSED|Totals|Starting)' || true
fi

# The cycle benchmark and the body loop with the head working again on the
# PREEMPT_RT kernel (the Makefile passes RT_KVER, RT_MODDIR, RT_KO_DIR and
# RT_KERNEL: see its RT tier), their figures, then the cycle's on both side
# by side. All are TCG figures: comparable with each other only.
if [[ -n ${RT_BENCH_SUITES:-} && -n ${RT_KVER:-} ]]; then
	echo
	echo "=== VM benchmarks on PREEMPT_RT ($RT_KVER): $RT_BENCH_SUITES"
	KVER=$RT_KVER MODDIR=$RT_MODDIR KO_DIR=$RT_KO_DIR VM_SUITES="$RT_BENCH_SUITES" \
		"$here/vm/run.sh" --test --name bench-rt --kernel "$RT_KERNEL" --timeout 1800 |
		grep -v '^RESULT pass' || status=1
	grep -E '^# ' "$O/vm/bench-rt/results.log" | grep -vE '^#\s+(RUN|OK|PASSED|Totals|Starting)' || true
	/usr/bin/python3 - "$O/vm/bench/results.log" "$O/vm/bench-rt/results.log" \
		"${KVER:-$("$here/kernel-release.sh")}" "$RT_KVER" <<'PY'
import re, sys

def figures(path):
    try:
        text = open(path, errors="replace").read()
    except FileNotFoundError:
        return {}
    f = {}
    m = re.search(r"# cycle: (\d+) ticks .*?; (\d+) exchanges, (\d+) missed", text)
    if m:
        f["ticks"], f["missed"] = m.group(1), m.group(3)
    m = re.search(r"# jitter of the period .*?p50 (\d+) us, p99 (\d+) us, max (\d+) us", text)
    if m:
        f["j50"], f["j99"], f["jmax"] = m.groups()
    m = re.search(r"# reader wake .*?p50 (\d+) us, p99 (\d+) us", text)
    if m:
        f["w50"], f["w99"] = m.groups()
    # cycle_bench's part 4: the same 8 s window without and with SCHED_FIFO
    # busy loops just below the cycle's priority, one per CPU.
    for load in ("off", "on"):
        m = re.search(r"# fifo load " + load + r": (\d+) ticks, (\d+) missed \((-?\d+) "
                      r"overruns, (-?\d+) skipped, (-?\d+) woken late\); jitter p50 (\d+) us, "
                      r"p99 (\d+) us, max (\d+) us; tick to OUT p99 (\d+) us, max (\d+) us; "
                      r"STOP to limp frame: at most (-?\d+) cycle", text)
        if m:
            (f["ft_" + load], f["fm_" + load], f["fo_" + load], _, f["fl_" + load],
             _, f["f99_" + load], f["fmax_" + load], f["fo99_" + load], f["fomax_" + load],
             f["fstop_" + load]) = m.groups()
    return f

stock, rt = figures(sys.argv[1]), figures(sys.argv[2])
rows = [("missed cycles (of ticks)", lambda f: f"{f['missed']} of {f['ticks']}" if "missed" in f else "-"),
        ("period jitter p50 (us)", lambda f: f.get("j50", "-")),
        ("period jitter p99 (us)", lambda f: f.get("j99", "-")),
        ("period jitter max (us)", lambda f: f.get("jmax", "-")),
        ("reader wake p50 (us)", lambda f: f.get("w50", "-")),
        ("reader wake p99 (us)", lambda f: f.get("w99", "-"))]
print()
print("=== cycle benchmark, stock and PREEMPT_RT (TCG, one run each)")
print(f"{'':28} {'stock ' + sys.argv[3]:>26} {'RT ' + sys.argv[4]:>26}")
for name, get in rows:
    print(f"{name:28} {get(stock):>26} {get(rt):>26}")

def fifo(load, what):
    def get(f):
        if "ft_" + load not in f:
            return "-"
        if what == "missed":
            return f"{f['fm_' + load]} of {f['ft_' + load]}"
        if what == "late":
            return f"{f['fl_' + load]} / {f['fo_' + load]}"
        if what == "jitter":
            return f"{f['f99_' + load]} / {f['fmax_' + load]}"
        if what == "tick":
            return f"{f['fo99_' + load]} / {f['fomax_' + load]}"
        return f["fstop_" + load]
    return get

rows = [(f"{label}, FIFO load {load}", fifo(load, what))
        for what, label in (("missed", "missed cycles"),
                            ("late", "  woken late / overruns"),
                            ("jitter", "jitter p99/max (us)"),
                            ("tick", "tick to OUT p99/max (us)"),
                            ("stop", "STOP to limp (cycles)"))
        for load in ("off", "on")]
print()
print("=== the cycle under SCHED_FIFO busy loops just below its priority, one per CPU")
print(f"{'':42} {'stock ' + sys.argv[3]:>22} {'RT ' + sys.argv[4]:>22}")
for name, get in rows:
    print(f"{name:42} {get(stock):>22} {get(rt):>22}")
PY
fi
exit $status
