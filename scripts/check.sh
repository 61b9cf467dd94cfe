#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test suite. Every step reports its test cases as RESULT lines (see
# scripts/lib/tap.py); this script runs the steps, shows failures as they
# happen, keeps full logs in build/logs/check, and ends with one line:
#
#   N passed, N failed
#
#   check.sh quick   stock tier: deps, build, lint, the build matrix, DKMS,
#                    docs, the device tree (dts), unit, fuzz smoke, VM, the
#                    arm64 serdev VM
#   check.sh full    the stock tier, the PREEMPT_RT tier, then the
#                    debug-kernel tier
#   check.sh rt      the PREEMPT_RT tier alone
#   check.sh debug   the debug-kernel tier alone
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
: "${O:=$srctree/build}"
tier=${1:-quick}
logdir=$O/logs/check
mkdir -p "$logdir"
summary=$logdir/results.txt
: >"$summary"
start=$(date +%s)
build_ok=1

# Files the run leaves in the source tree that git would see (outputs that
# belong under build/): listed now, compared at the end.
untracked() { git -C "$srctree" status --porcelain --untracked-files=all 2>/dev/null | sed -n 's/^?? //p' | sort; }
untracked_before=$(untracked)

# Make, quietly, with our settings; extra arguments go to make.
mk() { make -C "$srctree" --no-print-directory "$@"; }

# run_step NAME COMMAND...: run it, count its RESULT lines. A step that
# fails without reporting a failed case counts as one failure itself.
run_step() {
	local name=$1 log=$logdir/$1.log t0=$(date +%s) rc
	shift
	printf '%-10s ' "$name"
	"$@" >"$log" 2>&1 </dev/null
	rc=$?
	# The RESULT lines, each failure with its first reasons (the indented
	# lines under it), so that the summary at the end says why as well.
	awk '/^RESULT /{print; show = /^RESULT fail /; n = 0; next}
	     show && /^  / && n < 16 {print; n++}' "$log" >>"$summary"
	local p f s
	p=$(grep -c '^RESULT pass ' "$log")
	f=$(grep -c '^RESULT fail ' "$log")
	s=$(grep -c '^RESULT skip ' "$log")
	if [[ $rc -ne 0 && $f -eq 0 ]]; then
		echo "RESULT fail $name: exited with status $rc (log: ${log#"$srctree"/})" | tee -a "$summary" >>"$log"
		f=1
	fi
	printf '%4d passed, %d failed%s (%d s)\n' "$p" "$f" \
		"$([[ $s -gt 0 ]] && echo ", $s skipped")" $(($(date +%s) - t0))
	if [[ $f -gt 0 ]]; then
		# Each failure with the context lines that follow it, and a failed
		# program's own output where its runner prints it ("  --- ...").
		awk '/^RESULT fail /{show=1; print "  " $0; n=0; next}
		     /^  --- /{show=1; n=0}
		     /^RESULT /{show=0}
		     show && /^  / && n < 40 {print "  " $0; n++}' "$log"
		if ! grep -q '^  ' "$log"; then
			tail -n 15 "$log" | sed 's/^/  | /'
		fi
	fi
	return $rc
}

# Steps that only report pass or fail as a whole.
whole() {
	local name=$1
	shift
	if "$@"; then
		echo "RESULT pass $name"
	else
		echo "RESULT fail $name: '$*' failed"
		return 1
	fi
}

build() {
	local rc=0
	whole "build/modules" mk modules || rc=1
	whole "build/userspace" mk userspace || rc=1
	whole "build/unit tests" mk unit-tests || rc=1
	whole "build/fuzzers" mk fuzzers || rc=1
	whole "build/VM programs" mk vm-programs || rc=1
	return $rc
}

not_run() {
	echo "RESULT fail $1: not run because the build failed"
	return 1
}

stock_head() {
	run_step deps whole deps mk deps || return
	run_step build build || build_ok=0
}

stock_rest() {
	run_step lint mk lint
	run_step matrix mk matrix
	run_step dkms mk dkms-test
	run_step docs mk docs-check
	run_step dts mk dts-check
	if [[ $build_ok -eq 1 ]]; then
		run_step unit mk unit
		run_step fuzz mk fuzz-smoke
		run_step vm mk vm-test
		run_step arm64 mk check-arm64
	else
		run_step unit not_run unit
		run_step fuzz not_run fuzz
		run_step vm not_run vm
		run_step arm64 not_run arm64
	fi
}

stock_tier() {
	stock_head && stock_rest
}

# The debug tier: the kernel (built once, then cached: a no-op), then every
# VM suite on it. DEBUG_PROOF=... on the make command line reaches these
# makes through MAKEFLAGS (see the Makefile).
debug_tier() {
	if run_step dbg-kernel whole "build/debug kernel" mk debug-kernel; then
		run_step dbg-vm mk check-debug-vm
	else
		run_step dbg-vm not_run dbg-vm
	fi
}

# The PREEMPT_RT tier: Debian's 6.12-rt image (fetched once into the cache)
# and every stock VM suite on it; then a 6.12-rt kernel configured like the
# NAOs' (built once from linux-source-6.12, cached): both modules load, and
# the line discipline works where it is not autoloaded.
rt_tier() {
	if run_step rt-kernel whole "build/RT kernel and modules" mk rt-modules; then
		run_step rt-vm mk check-rt-vm
	else
		run_step rt-vm not_run rt-vm
	fi
	if run_step robot-kern whole "build/robot kernel and modules" mk robot-modules; then
		run_step robot-vm mk check-robot-kernel
	else
		run_step robot-vm not_run robot-vm
	fi
}

# timed NAME FUNCTION: run a tier and note how long it took, for the
# summary at the end (the 45-minute budget is watched tier by tier).
tier_times=()
timed() {
	local t0=$(date +%s) rc
	"$2"
	rc=$?
	tier_times+=("$1 $(($(date +%s) - t0))")
	return $rc
}
deps_step() { run_step deps whole deps mk deps; }
mmss() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

# The whole check on two lanes. The debug and PREEMPT_RT tiers are VM boots
# whose programs mostly wait on the emulated robot's 12 ms cycle (a boot
# keeps about one host core busy), so they run beside the stock tier's steps
# once the build is done, instead of after them: on 2 cores that takes the
# whole check from about 50 to about 35 minutes. Their lines are printed
# when the stock tier is done. CHECK_LANES=1 runs the tiers one after
# another (stock, PREEMPT_RT, debug), as before.
full_check() {
	timed stock stock_head || return
	if [[ ${CHECK_LANES:-2} -lt 2 || $build_ok -ne 1 ]]; then
		timed stock stock_rest
		timed PREEMPT_RT rt_tier
		timed debug debug_tier
		return
	fi
	local lane=$logdir/lane2
	(
		# Its own summary: two writers appending to one file can split lines.
		summary=$lane.results
		: >"$summary"
		tier_times=()
		timed debug debug_tier
		timed PREEMPT_RT rt_tier
		printf '%s\n' "${tier_times[@]}" >"$lane.times"
	) >"$lane.out" 2>&1 &
	local lane_pid=$!
	echo "           (the debug and PREEMPT_RT tiers run beside these; their lines follow them)"
	timed stock stock_rest
	wait "$lane_pid"
	cat "$lane.out"
	cat "$lane.results" >>"$summary"
	mapfile -t -O "${#tier_times[@]}" tier_times <"$lane.times"
}

echo "naobody: make check ($tier) — logs in ${logdir#"$srctree"/}"
case "$tier" in
quick) timed stock stock_tier ;;
full) full_check ;;
rt) deps_step && timed PREEMPT_RT rt_tier ;;
debug) deps_step && timed debug debug_tier ;;
*) echo "check.sh: unknown tier '$tier' (quick, full, rt or debug)" >&2; exit 2 ;;
esac

left=$(comm -13 <(printf '%s\n' "$untracked_before") <(untracked) | grep -v '^$')
if [[ -n $left ]]; then
	echo "RESULT fail tree/clean: the run left files in the source tree (outputs belong under build/): $(echo $left)" |
		tee -a "$summary"
else
	echo "RESULT pass tree/clean" >>"$summary"
fi

passed=$(grep -c '^RESULT pass ' "$summary")
failed=$(grep -c '^RESULT fail ' "$summary")
skipped=$(grep -c '^RESULT skip ' "$summary")
elapsed=$(($(date +%s) - start))
echo
if [[ $skipped -gt 0 ]]; then
	echo "Skipped:"
	grep '^RESULT skip ' "$summary" | sed 's/^RESULT skip /  /'
fi
# The failures last, nearest the verdict, each with its reasons: a log that
# keeps only the output's tail (CI's) still says why.
if [[ $failed -gt 0 ]]; then
	echo "Failed:"
	awk '/^RESULT fail /{print "  " substr($0, 13); show = 1; next}
	     /^RESULT /{show = 0}
	     show && /^  /{print "  " $0}' "$summary"
fi
# Each tier's time (the stock tier's two parts summed), in the order run.
printf '%s\n' "${tier_times[@]}" | awk '!($1 in t) { order[n++] = $1 } { t[$1] += $2 }
	END { for (i = 0; i < n; i++) print order[i], t[order[i]] }' |
	while read -r name secs; do
		printf 'Tier %-10s %s\n' "$name" "$(mmss "$secs")"
	done
printf 'Took %s in all.\n' "$(mmss $elapsed)"
# The last line: what CI reads. Skips are counted, before the verdict.
echo "$skipped skipped; $passed passed, $failed failed"
[[ $failed -eq 0 ]]
