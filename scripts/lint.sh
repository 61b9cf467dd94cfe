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

# lint.sh --camelcase: print the CamelCase identifiers of kernel/ and uapi/
# that KDIR's headers define (Debian splits them: KDIR's Makefile includes
# the common tree), for scripts/checkpatch-camelcase.txt.
if [[ ${1:-} == --camelcase ]]; then
	cd "$srctree"
	common=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$KDIR/Makefile")
	ids() { grep -hoE '\b[A-Za-z_][A-Za-z0-9_]*\b' | grep -E '[a-z][A-Z]' | sort -u; }
	comm -12 <(find kernel uapi -name '*.[ch]' -print0 | xargs -0 cat | ids) \
		<(find "$KDIR/" ${common:+"$common/"} -path '*/include/*' -name '*.h' \
			-print0 | xargs -0 cat | ids)
	exit 0
fi
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
	# itself defines (USB's bConfigurationValue...) from include/. Out of
	# tree it can't, so we give it the list of those our sources use,
	# committed in scripts/checkpatch-camelcase.txt: the verdict then
	# depends on the sources alone, not on which headers this machine has
	# (learning them from KDIR made a machine with no or other headers
	# flag bConfigurationValue). A list rather than --ignore CAMELCASE:
	# a CamelCase name of our own is still flagged. With no git tree,
	# checkpatch reads the list from ".checkpatch-camelcase.date.<mtime of
	# the newest $root/include/*.h>"; --root points at $cpdir, whose
	# include/ holds only a symlink that find does not follow, so that is
	# always ".date.0" (and $root is defined: without --root checkpatch
	# warns "Use of uninitialized value $root"). Its working directory is
	# $cpdir, under $O: nothing it writes lands in the tree.
	cpdir=$O/lint/checkpatch
	mkdir -p "$cpdir"
	grep -v '^#' "$here/checkpatch-camelcase.txt" >"$cpdir/.checkpatch-camelcase.date.0"
	# checkpatch applies its uapi rules (and skips kernel-only ones such as
	# BIT()) to files under include/uapi/, so show it ours there.
	mkdir -p "$cpdir/include"
	ln -sfn "$srctree/uapi" "$cpdir/include/uapi"
	# checkpatch looks each DT compatible up in the bindings and its vendor
	# in vendor-prefixes.yaml, under $root: show it ours (dts/), copied (its
	# grep -r skips symlinks). Our vendor list is a proposal, not the
	# kernel's registry: see dts/vendor-prefixes.yaml.
	rm -rf "$cpdir/Documentation"
	mkdir -p "$cpdir/Documentation/devicetree/bindings"
	cp "$srctree"/dts/bindings/*.yaml "$srctree/dts/vendor-prefixes.yaml" \
		"$cpdir/Documentation/devicetree/bindings/"
	for f in "${sources[@]}"; do
		log=$logdir/checkpatch-${f//\//_}.log
		path=$srctree/$f
		[[ $f == uapi/* ]] && path=include/$f
		if (cd "$cpdir" && GIT_DIR=/nonexistent perl "$checkpatch" --no-tree --root="$cpdir" --strict \
			--terse --show-types --ignore FILE_PATH_CHANGES \
			-f "$path") >"$log" 2>&1 &&
			! grep -qE '(ERROR|WARNING|CHECK):|^Use of uninitialized' "$log"; then
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
