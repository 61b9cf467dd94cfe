#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build a kernel from one of Debian's linux-source-X.Y packages once, with
# a config made of make targets (x86_64_defconfig, kvm_guest.config) and a
# fragment of our own merged on top, and cache it outside the clone. The
# scripts that name a kernel call it (scripts/robot-kernel.sh):
#
#   kernel-build.sh --name NAME --source X.Y --fragment FILE --recipe N \
#       [--base "TARGET..."] [--dir]
#
#   --name      the cache directory's name, $NAOBODY_CACHE/NAME
#   --source    the linux-source-X.Y package (/usr/src/linux-source-X.Y.tar.xz)
#   --fragment  merged on top of the base; every line of it must survive
#               olddefconfig, or the build fails before it starts
#   --recipe    the calling script's RECIPE number, in the cache key
#   --base      the make targets that make the base config
#               (default "x86_64_defconfig kvm_guest.config")
#   --dir       print the cache directory (built or not) and exit
#
# The cache key is the package version plus a hash of the fragment, the
# recipe number and the compiler (modules built later with M= must use the
# compiler the kernel was built with). A second run with the same key does
# nothing; any change builds a new kernel and drops NAME's older builds.
# What a build leaves, in $NAOBODY_CACHE/NAME/KEY:
#
#   bzImage  config  kernel.release  build.log
#   build/     what `make -C build M=...` needs: Makefiles, scripts, headers,
#              generated files, Module.symvers, objtool (the list Debian's
#              builddeb puts in linux-headers); the 2 GB tree is deleted
#   modules/   modules_install output (stripped): MODDIR is
#              modules/lib/modules/$(cat kernel.release)
#   .complete  written last; a directory without it is not a build
set -euo pipefail

name= source= fragment= recipe= base="x86_64_defconfig kvm_guest.config" want_dir=
while [[ $# -gt 0 ]]; do
	case $1 in
	--name) name=$2; shift ;;
	--source) source=$2; shift ;;
	--fragment) fragment=$2; shift ;;
	--recipe) recipe=$2; shift ;;
	--base) base=$2; shift ;;
	--dir) want_dir=1 ;;
	*) echo "kernel-build: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[[ -n $name && -n $source && -n $fragment && -n $recipe ]] ||
	{ echo "kernel-build: --name, --source, --fragment and --recipe are required" >&2; exit 2; }

srctree=$(cd "$(dirname "$0")/../.." && pwd)
cache=${NAOBODY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/naobody}/$name
pkg=linux-source-$source
tarball=/usr/src/$pkg.tar.xz
export PATH=$PATH:/usr/sbin:/sbin	# depmod, for modules_install

srcver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || true
if [[ -z $srcver || ! -r $tarball ]]; then
	echo "$name: $pkg is not installed; run 'make deps'" >&2
	exit 1
fi
hash=$({ cat "$fragment"; echo "recipe=$recipe"; ${CC:-gcc} --version | head -n 1; } |
	sha256sum | cut -c1-12)
key=$srcver-$hash
dest=$cache/$key

if [[ -n $want_dir ]]; then
	echo "$dest"
	exit 0
fi

if [[ -f $dest/.complete ]]; then
	echo "$name $(cat "$dest/kernel.release"): cached in $dest"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! flock -n 9; then
	echo "$name: another build is running; waiting for it"
	flock 9
fi
if [[ -f $dest/.complete ]]; then
	echo "$name $(cat "$dest/kernel.release"): cached in $dest (built meanwhile)"
	exit 0
fi

tree=$cache/tree.$key
stage=$cache/$key.partial
rm -rf "$tree" "$stage"
trap 'rm -rf "$tree" "$stage"' EXIT
mkdir -p "$tree" "$stage"
log=$stage/build.log
t0=$(date +%s)

step() { printf '  %-8s %s\n' "$1" "$2"; }
fail() {
	echo "$name: $*" >&2
	[[ -s $log ]] && tail -n 30 "$log" | sed 's/^/  | /' >&2
	exit 1
}

step UNPACK "$pkg $srcver"
tar -xJf "$tarball" -C "$tree" --strip-components=1 || fail "cannot unpack $tarball"

step CONFIG "${base// / + } + ${fragment#"$srctree"/}"
{
	(for target in $base; do make -C "$tree" "$target" || exit 1; done) &&
		(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$fragment") &&
		make -C "$tree" olddefconfig
} >>"$log" 2>&1 || fail "configuration failed (log: $log)"

# Every line of the fragment must survive: Kconfig silently drops a symbol
# whose dependencies are off, and a kernel without, say, KASAN or
# PREEMPT_RT would pass every test and prove nothing.
bad=
while IFS= read -r line; do
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
		grep -qxF "$line" "$tree/.config" || bad+=" $line"
	elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		! grep -qE "^${BASH_REMATCH[1]}=" "$tree/.config" || bad+=" ${BASH_REMATCH[1]}=n"
	fi
done <"$fragment"
[[ -z $bad ]] || fail "the fragment did not apply; .config lacks:$bad"

jobs=$(nproc)
step BUILD "bzImage and modules, make -j$jobs"
make -C "$tree" -j"$jobs" bzImage modules >>"$log" 2>&1 ||
	fail "kernel build failed (log: $log)"

release=$(cat "$tree/include/config/kernel.release")
step INSTALL "$release into ${dest/#$HOME/\~}"
make -C "$tree" INSTALL_MOD_PATH="$stage/modules" INSTALL_MOD_STRIP=1 \
	modules_install >>"$log" 2>&1 || fail "modules_install failed (log: $log)"
cp "$tree/arch/x86/boot/bzImage" "$stage/bzImage"
cp "$tree/.config" "$stage/config"
echo "$release" >"$stage/kernel.release"

# The tree for out-of-tree modules: sources of Makefiles, scripts and headers,
# then the generated files and host programs of the build.
(
	cd "$tree"
	{
		find . arch/x86 -maxdepth 1 -name 'Makefile*'
		find include scripts -type f -o -type l
		find arch/x86 -name Kbuild.platforms -o -name Platform
		find $(find arch/x86 -name include -o -name scripts -type d) -type f
		find arch/x86/include Module.symvers .config -type f
		if grep -q '^CONFIG_OBJTOOL=y' .config; then echo tools/objtool/objtool; fi
	} | sort -u | tar -cf - --no-recursion -T -
) | { mkdir "$stage/build" && tar -xf - -C "$stage/build"; }
# modules_install points these at the deleted tree.
rm -f "$stage/modules/lib/modules/$release"/{build,source}
ln -s ../../../../build "$stage/modules/lib/modules/$release/build"

# Prove the slim tree builds a module before calling the build complete.
mkdir -p "$tree/probe"
printf '#include <linux/module.h>\nMODULE_LICENSE("GPL");\n' >"$tree/probe/probe.c"
echo 'obj-m := probe.o' >"$tree/probe/Kbuild"
make -C "$stage/build" M="$tree/probe" modules >>"$log" 2>&1 ||
	fail "the kept build tree cannot build an out-of-tree module (log: $log)"

t1=$(date +%s)
echo "built in $((t1 - t0)) s on $jobs CPUs" >>"$log"
touch "$stage/.complete"
rm -rf "$dest"
mv "$stage" "$dest"

# Keep the cache small: older keys are stale by definition.
for old in "$cache"/*/; do
	old=${old%/}
	[[ $old == "$dest" ]] || rm -rf "$old"
done
echo "$name $release: built in $(((t1 - t0) / 60)) min $(((t1 - t0) % 60)) s," \
	"$(du -sh "$dest" | cut -f1) in ${dest/#$HOME/\~}"
