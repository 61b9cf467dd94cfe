#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Is make check's verdict the code's, or the machine's? Run tiers of the
# suite several times in a row while a CPU hog keeps every core busy beside
# them, and report every test that failed in any run, with the runs it
# failed in. A test that fails here only sometimes is a flaky test: it
# depends on the machine's speed or moment (Documentation/dev/build-and-test.rst,
# "Time on a loaded machine"), which make check must never do.
#
#   soak-check.sh [options]
#
# Options:
#   -n RUNS        how many times each tier runs (default 3)
#   --tiers LIST   check.sh tiers, run in this order each time (default
#                  "quick rt": the stock tier and the PREEMPT_RT tier)
#   --hog KIND     busy: one busy loop per core at normal priority (default);
#                  kbuild: a kernel build (make -j<cores>) of the cached
#                  linux-source tree, restarted whenever it ends;
#                  none: no hog (to compare)
#   -h, --help     this text
#
# Logs: build/logs/soak/run<N>-<tier>/ (each run's check logs) and
# build/logs/soak/summary.txt. Exit status 0 only if no test failed in any run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
: "${O:=$srctree/build}"
: "${NAOBODY_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/naobody}"

runs=3 tiers="quick rt" hog=busy
while [[ $# -gt 0 ]]; do
	case "$1" in
	-n) runs=$2; shift ;;
	--tiers) tiers=$2; shift ;;
	--hog) hog=$2; shift ;;
	-h | --help) sed -n '4,/^set -uo/p' "$0" | sed 's/^# \{0,1\}//; /^set -uo/d'; exit 0 ;;
	*) echo "soak-check.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "soak-check.sh: -n wants a count of runs, not '$runs'" >&2; exit 2; }
case "$hog" in busy | kbuild | none) ;; *)
	echo "soak-check.sh: --hog is busy, kbuild or none, not '$hog'" >&2; exit 2 ;;
esac

soak=$O/logs/soak
rm -rf "$soak"
mkdir -p "$soak"
cores=$(nproc)

# The hog runs in a process group of its own, killed whatever way we leave.
hog_pid=
stop_hog() {
	[[ -n $hog_pid ]] && kill -- -"$hog_pid" 2>/dev/null
	wait 2>/dev/null
	hog_pid=
}
trap stop_hog EXIT
trap 'exit 130' INT TERM

start_hog() {
	case "$hog" in
	none) return ;;
	busy)
		# One shell busy loop per core: all user time, normal priority.
		setsid bash -c "for ((i = 0; i < $cores; i++)); do (while :; do :; done) & done; wait" \
			>/dev/null 2>&1 &
		;;
	kbuild)
		local tree=$soak/hog-kernel
		local tarball=/usr/src/linux-source-6.1.tar.xz
		[[ -r $tarball ]] || { echo "soak-check.sh: --hog kbuild needs $tarball (make deps)" >&2; exit 2; }
		mkdir -p "$tree"
		tar -xJf "$tarball" -C "$tree" --strip-components=1
		make -C "$tree" -s defconfig >/dev/null
		setsid bash -c "while :; do make -C '$tree' -s -j$cores >/dev/null 2>&1; make -C '$tree' -s clean >/dev/null 2>&1; done" \
			>/dev/null 2>&1 &
		;;
	esac
	hog_pid=$!
	echo "soak: hog '$hog' on $cores cores (process group $hog_pid)"
}

start_hog
t0=$(date +%s)
for ((r = 1; r <= runs; r++)); do
	for tier in $tiers; do
		out=$soak/run$r-$tier
		echo "soak: run $r of $runs, tier $tier"
		"$srctree/scripts/check.sh" "$tier" >"$soak/run$r-$tier.out" 2>&1
		rc=$?
		mkdir -p "$out"
		cp -r "$O/logs/check/." "$out/"
		echo "  $(tail -n 1 "$soak/run$r-$tier.out") (exit $rc; $(grep '^Took' "$soak/run$r-$tier.out"))"
		# A run that failed without a failed case (a crashed script) still counts.
		if [[ $rc -ne 0 ]] && ! grep -q '^RESULT fail ' "$out/results.txt"; then
			echo "RESULT fail $tier: check.sh exited with status $rc" >>"$out/results.txt"
		fi
	done
done
stop_hog

# Every failed test, once, with the runs it failed in (a test whose reason
# differs between runs is listed once per reason).
summary=$soak/summary.txt
{
	echo "soak: $runs run(s) of tiers '$tiers' beside hog '$hog', $(( ($(date +%s) - t0) / 60 )) min"
	for f in "$soak"/run*/results.txt; do
		run=$(basename "$(dirname "$f")")
		sed -n "s/^RESULT fail \\(.*\\)/\\1\t$run/p" "$f"
	done | sort | awk -F'\t' '
		{ runs[$1] = runs[$1] (runs[$1] ? ", " : "") $2; n[$1]++ }
		END { for (t in runs) printf "FLAKY-OR-BROKEN %s (failed in %d: %s)\n", t, n[t], runs[t] }' | sort
} >"$summary"
cat "$summary"
nfail=$(grep -c '^FLAKY-OR-BROKEN ' "$summary")
echo "soak: $nfail test(s) failed in at least one run"
[[ $nfail -eq 0 ]]
