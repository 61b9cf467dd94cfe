#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel-style lint, one RESULT line per check:
#   checkpatch --strict   every .c and .h under kernel/ and uapi/
#   W=1                   a module build with extra warnings
#   sparse                make C=2 over every module source
#   uapi                  each uapi header compiled on its own, as C90 and as
#                         C++, with the kernel's uapi headers and no libc
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
: "${O:=$srctree/build}"
: "${NAOBODY_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/naobody}"
: "${KVER:=$("$here/kernel-release.sh")}"
: "${KDIR:=/usr/src/linux-headers-$KVER}"
checkpatch=$NAOBODY_CACHE/linux-source/scripts/checkpatch.pl
logdir=$O/logs/lint
mkdir -p "$logdir"
failed=0

pass() { echo "RESULT pass lint/$1"; }
fail() {
	failed=1
	echo "RESULT fail lint/$1: $2"
	[[ -n ${3:-} ]] && sed 's/^/  | /' "$3" | head -40
}

cd "$srctree"
mapfile -t sources < <(find kernel uapi -name '*.[ch]' ! -name '*.mod.c' | sort)

# --- checkpatch --------------------------------------------------------------
if [[ ! -r $checkpatch ]]; then
	fail checkpatch "checkpatch.pl not found; run 'make deps'"
else
	# In a kernel tree checkpatch learns the CamelCase names the kernel
	# itself defines (USB's idVendor...) from include/. Out of tree it
	# can't, so seed its cache from the kernel headers we build against:
	# with no git tree and no --root it reads ".checkpatch-camelcase.date.0"
	# from its working directory.
	cpdir=$O/lint/checkpatch
	seed=$cpdir/.checkpatch-camelcase.date.0
	mkdir -p "$cpdir"
	if [[ ! -s $seed ]]; then
		# Debian splits the headers: KDIR's Makefile includes the common tree.
		common=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$KDIR/Makefile")
		find "$KDIR/" ${common:+"$common/"} \
			-path '*/include/*' -name '*.h' -print0 2>/dev/null |
			xargs -0 grep -hoE '\b[A-Za-z_][A-Za-z0-9_]*\b' |
			grep -E '[A-Z][a-z]|[a-z][A-Z]' | sort -u >"$seed"
	fi
	# checkpatch applies its uapi rules (and skips kernel-only ones such as
	# BIT()) to files under include/uapi/, so show it ours there.
	mkdir -p "$cpdir/include"
	ln -sfn "$srctree/uapi" "$cpdir/include/uapi"
	for f in "${sources[@]}"; do
		log=$logdir/checkpatch-${f//\//_}.log
		path=$srctree/$f
		[[ $f == uapi/* ]] && path=include/$f
		if (cd "$cpdir" && GIT_DIR=/nonexistent perl "$checkpatch" --no-tree --strict \
			--terse --show-types --ignore FILE_PATH_CHANGES \
			-f "$path") >"$log" 2>&1 &&
			! grep -qE '(ERROR|WARNING|CHECK):' "$log"; then
			pass "checkpatch $f"
		else
			fail "checkpatch $f" "style issues" "$log"
		fi
	done
fi

# --- W=1 and sparse ------------------------------------------------------------
# Both rebuild every module object; the next plain build rebuilds them again.
ours='^(/[^:]*/)?(kernel|uapi)/[^:]*:[0-9]+(:[0-9]+)?: (warning|error)'
log=$logdir/w1.log
if make -C "$KDIR" M="$srctree" W=1 modules >"$log" 2>&1; then
	if grep -qE "$ours" "$log"; then
		grep -E "$ours" "$log" >"$log.hits"
		fail "W=1 build" "compiler warnings" "$log.hits"
	else
		pass "W=1 build"
	fi
else
	fail "W=1 build" "build failed" "$log"
fi

log=$logdir/sparse.log
if ! command -v sparse >/dev/null; then
	fail sparse "sparse is not installed; run 'make deps'"
elif make -C "$KDIR" M="$srctree" C=2 modules >"$log" 2>&1; then
	if grep -qE "$ours" "$log"; then
		grep -E "$ours" "$log" >"$log.hits"
		fail sparse "sparse warnings" "$log.hits"
	else
		pass sparse
	fi
else
	fail sparse "build failed under sparse" "$log"
fi

# --- uapi headers on their own --------------------------------------------------
# Only the kernel's own uapi headers (linux-libc-dev) are visible: a header
# that reaches for libc fails here.
sys=$O/lint/uapi-sysroot
rm -rf "$sys" && mkdir -p "$sys"
ln -s /usr/include/linux "$sys/linux"
ln -s /usr/include/asm-generic "$sys/asm-generic"
ln -s "/usr/include/$(gcc -print-multiarch)/asm" "$sys/asm"
for h in uapi/linux/*.h; do
	[[ -e $h ]] || continue
	inc="#include <linux/$(basename "$h")>"
	log=$logdir/uapi-$(basename "$h").log
	if echo "$inc" | gcc -std=c90 -Wall -Wextra -Werror -fsyntax-only -nostdinc \
		-Iuapi -isystem "$sys" -x c - >"$log" 2>&1 &&
	   echo "$inc" | g++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -nostdinc \
		-Iuapi -isystem "$sys" -x c++ - >>"$log" 2>&1; then
		pass "uapi $h alone (C90, C++)"
	else
		fail "uapi $h alone (C90, C++)" "does not compile on its own" "$log"
	fi
done
exit $failed
