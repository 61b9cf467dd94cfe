#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The build matrix: both modules, with W=1, against every kernel whose
# headers the package archive here ships (scripts/kernel-headers.sh --list:
# Debian 12's 6.1, 6.1-rt, 6.12 and 6.12-rt, Debian 11's 5.10 and 5.10-rt).
# One RESULT line per kernel; a compiler warning in our code fails it, as in
# make lint. Each kernel builds from its own copy of the sources in
# build/matrix/<kernel> (M= has no output directory before 6.13), so the
# tree and the other kernels' objects are left alone and only changed
# sources recompile on the next run.
#
# "6.1-fallbacks" builds against 6.1 with NAOBODY_COMPAT_FALLBACKS=1: the
# compat.h fallbacks that can also build on a newer kernel (sysfs_emit,
# compat_ptr_ioctl, no_llseek, __poll_t) are compiled instead of the
# kernel's API. That proves they compile, not that they build on 5.4 or 4.4.
#
#   build-matrix.sh [KERNEL...]   default: all of them
#
# Environment: MATRIX_JOBS (default 2), O, NAOBODY_CACHE.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
: "${O:=$srctree/build}"
jobs=${MATRIX_JOBS:-2}
case ${1:-} in -h | --help) sed -n '4,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;; esac
[[ $# -gt 0 ]] || set -- $("$here/kernel-headers.sh" --list) 6.1-fallbacks

ours='^(/[^:]*/)?(kernel|uapi)/[^:]*:[0-9]+(:[0-9]+)?: (warning|error)'
failed=0
for k in "$@"; do
	name="matrix/$k W=1"
	log=$O/logs/matrix/$k.log
	mkdir -p "$(dirname "$log")"
	base=$k mkargs=()
	if [[ $k == *-fallbacks ]]; then
		base=${k%-fallbacks}
		mkargs=(NAOBODY_COMPAT_FALLBACKS=1)
	fi
	if ! kdir=$("$here/kernel-headers.sh" "$base" 2>"$log"); then
		echo "RESULT fail $name: no headers (log: ${log#"$srctree"/})"
		sed 's/^/  | /' "$log" | tail -5
		failed=1
		continue
	fi
	kfail=0
	extra=$("$here/kernel-headers.sh" --path "$base")
	kver=$(cat "$kdir/include/config/kernel.release")
	src=$O/matrix/$k
	mkdir -p "$src"
	(cd "$src" && find Kbuild kernel uapi \( -name '*.[chS]' -o -name Kbuild -o -name '*.mk' \) -delete 2>/dev/null
	 find . -name '*.ko' -delete)
	(cd "$srctree" && find Kbuild kernel uapi \( -name '*.[chS]' -o -name Kbuild -o -name '*.mk' \) \
		! -name '*.mod.c' -exec cp -p --parents {} "$src/" \;)
	if PATH=${extra:+$extra:}$PATH make -C "$kdir" M="$src" W=1 "${mkargs[@]}" -k -j"$jobs" modules >>"$log" 2>&1; then
		if grep -qE "$ours" "$log"; then
			echo "RESULT fail $name ($kver): compiler warnings"
			grep -E "$ours" "$log" | sed 's/^/  | /' | head -20
			kfail=1
		elif [[ ! -e $src/kernel/naobody/naobody.ko || ! -e $src/kernel/n_robot/n_robot.ko ]]; then
			echo "RESULT fail $name ($kver): a module is missing"
			kfail=1
		else
			echo "RESULT pass $name ($kver)"
		fi
	else
		echo "RESULT fail $name ($kver): build failed (log: ${log#"$srctree"/})"
		grep -E 'error|Error' "$log" | sed 's/^/  | /' | head -20
		kfail=1
	fi
	# Warnings show only when a file compiles: after a failure, start from
	# scratch so that the next run sees them again.
	if [[ $kfail -eq 1 ]]; then
		failed=1
		rm -rf "$src"
	fi
done
exit $failed
