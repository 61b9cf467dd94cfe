#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernels of the build matrix, as header trees in the cache. Debian's
# header packages (and what they need: the -common tree, linux-kbuild, and
# the compiler they were built with when this machine lacks it) are
# downloaded with apt and unpacked with dpkg-deb -x under
# $NAOBODY_CACHE/kernel-headers: nothing is installed over the system, and a
# kernel fetched once is never fetched again (NAOBODY_HEADERS_REFRESH=1
# looks for a newer one).
#
#   kernel-headers.sh --list        the kernels, one per line
#   kernel-headers.sh NAME          fetch NAME if needed; print its KDIR
#   kernel-headers.sh --path NAME   the directories to put first on PATH
#                                   for NAME (its compiler, if unpacked)
#   kernel-headers.sh --image NAME  also fetch the kernel image and modules;
#                                   print the unpacked root (boot/vmlinuz-*,
#                                   lib/modules/*)
#
# The kernels: Debian 12 (bookworm) 6.1 (the one make deps installs, from
# /usr/src), 6.1 PREEMPT_RT, 6.12 and 6.12 PREEMPT_RT (bookworm's updates);
# Debian 11 (bullseye) 5.10 and 5.10 PREEMPT_RT. Bullseye is reached through
# a private apt configuration (its own sources list, state and cache under
# the cache directory) using the mirror and keyring this machine's apt uses
# for bookworm: the system's apt state is never touched. Bullseye's headers
# are built with gcc-10, which bookworm lacks: bullseye's gcc-10 is unpacked
# into the same tree (relocatable: the driver finds cc1 next to itself).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/debian-mirror.sh"
: "${NAOBODY_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/naobody}"
top=$NAOBODY_CACHE/kernel-headers
KERNELS="6.1 6.1-rt 6.12 6.12-rt 5.10 5.10-rt"

usage() { sed -n '4,/^set -e/p' "$0" | sed 's/^# \{0,1\}//; /^set -e/d'; }

# The suite a kernel comes from and how to find its headers package: a
# metapackage whose first linux-headers-* dependency it is, or a name
# pattern (newest version wins).
suite_of() { case $1 in 5.10*) echo bullseye ;; *) echo bookworm ;; esac; }
headers_pkg() {
	case $1 in
	6.1 | 5.10) meta_dep linux-headers-amd64 "$1" ;;
	6.1-rt | 5.10-rt) meta_dep linux-headers-rt-amd64 "$1" ;;
	6.12) newest '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' "$1" ;;
	6.12-rt) newest '^linux-headers-6\.12\.[0-9]+\+deb12-rt-amd64$' "$1" ;;
	*) echo "kernel-headers: unknown kernel '$1' (--list)" >&2; return 1 ;;
	esac
}

# apt for a kernel's suite: the system's for bookworm, the private one for
# bullseye (set up, and its index downloaded, on first use).
priv=$top/apt-bullseye
apt_cfg() {
	[[ $(suite_of "$1") == bullseye ]] || return 0
	printf '%s\n' -o "Dir::Etc::sourcelist=$priv/sources.list" -o Dir::Etc::sourceparts=- \
		-o "Dir::State=$priv/state" -o "Dir::State::status=$priv/state/status" \
		-o "Dir::Cache=$priv/cache" -o Debug::NoLocking=1 -o APT::Architecture=amd64
}
private_apt_setup() {
	[[ -s $priv/state/lists/.updated ]] && [[ -z ${NAOBODY_HEADERS_REFRESH:-} ]] && return 0
	mkdir -p "$priv/state/lists/partial" "$priv/cache/archives/partial"
	touch "$priv/state/status"
	# The mirrors apt uses for bookworm and bookworm-security, from its policy.
	local mirror security keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	debian_mirrors
	[[ -n $mirror ]] || { echo "kernel-headers: apt has no bookworm mirror configured" >&2; return 1; }
	{
		echo "deb [signed-by=$keyring] $mirror bullseye main"
		[[ -n $security ]] && echo "deb [signed-by=$keyring] $security bullseye-security main"
	} >"$priv/sources.list"
	local -a cfg
	mapfile -t cfg < <(apt_cfg 5.10)
	apt-get "${cfg[@]}" -q update >&2
	date >"$priv/state/lists/.updated"
}
acache() {
	local k=$1
	shift
	local -a cfg
	mapfile -t cfg < <(apt_cfg "$k")
	apt-cache "${cfg[@]}" "$@"
}
# First dependency of the candidate version of package $1, or of $2.
depends() { acache "$2" show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -1; }
meta_dep() { depends "$1" "$2" | tr ',' '\n' | sed -n 's/^ *\(linux-headers-[^ ]*\).*/\1/p' | head -1; }
newest() { acache "$2" search --names-only "$1" | cut -d' ' -f1 | sort -V | tail -1; }
version() { acache "$2" show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -1; }

# Everything a headers package needs to be used from a tree: the closure of
# its linux-headers-*/linux-kbuild-* dependencies (first alternatives), and
# the compiler (gcc-N, directly or through linux-compiler-gcc-N-*) if the
# machine lacks it.
closure() {
	local k=$1 todo=$2 seen="" p d gcc=""
	while [[ -n $todo ]]; do
		set -- $todo
		p=$1
		shift
		todo="$*"
		[[ " $seen " == *" $p "* ]] && continue
		seen="$seen $p"
		for d in $(depends "$p" "$k" | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/ //g'); do
			case $d in
			linux-headers-* | linux-kbuild-*) todo="$todo $d" ;;
			gcc-[0-9]*) gcc=$d ;;
			linux-compiler-gcc-*) gcc=$(sed 's/^linux-compiler-\(gcc-[0-9]*\).*/\1/' <<<"$d") ;;
			esac
		done
	done
	echo $seen
	if [[ -n $gcc ]] && ! command -v "$gcc" >/dev/null; then
		local n=${gcc#gcc-}
		echo "$gcc cpp-$n gcc-$n-base libgcc-$n-dev"
	fi
}

# fetch NAME [image]: the tree for NAME (unpacked once), its directory.
fetch() {
	local k=$1 want_image=${2:-} link=$top/$1
	if [[ -z ${NAOBODY_HEADERS_REFRESH:-} && -f $link/.complete ]] &&
		{ [[ -z $want_image ]] || [[ -f $link/.image ]]; }; then
		echo "$link"
		return
	fi
	[[ $(suite_of "$k") == bullseye ]] && private_apt_setup
	local pkg ver dir pkgs
	pkg=$(headers_pkg "$k")
	[[ -n $pkg ]] || { echo "kernel-headers: the archive has no headers for $k" >&2; return 1; }
	ver=$(version "$pkg" "$k")
	dir=$top/${pkg}_$ver
	if [[ ! -f $dir/.complete ]]; then
		echo "kernel-headers: fetching $pkg $ver" >&2
		rm -rf "$dir"
		mkdir -p "$dir/debs" "$dir/root"
		pkgs=$(closure "$k" "$pkg")
		download "$k" "$dir" $pkgs
		local kdir
		kdir=$dir/root/usr/src/$pkg
		# Debian's flavour Makefile includes the common tree by its
		# absolute path: point it into the unpacked root.
		sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$kdir/Makefile"
		[[ -e $kdir/include/config/kernel.release ]] ||
			{ echo "kernel-headers: $pkg has no kernel.release" >&2; return 1; }
		echo "${pkg#linux-headers-}" >"$dir/kver"
		touch "$dir/.complete"
	fi
	if [[ -n $want_image && ! -f $dir/.image ]]; then
		local kver
		kver=$(cat "$dir/kver")
		download "$k" "$dir" "linux-image-$kver"
		# The VM's initramfs resolves module dependencies from modules.dep,
		# which the package leaves to depmod at installation.
		depmod -b "$dir/root" "$kver"
		touch "$dir/.image"
	fi
	ln -sfn "$(basename "$dir")" "$link"
	echo "$link"
}

# download NAME DIR PKG...: apt-get download into DIR/debs, unpack into DIR/root.
download() {
	local k=$1 dir=$2 deb
	shift 2
	local -a cfg
	mapfile -t cfg < <(apt_cfg "$k")
	(cd "$dir/debs" && apt-get "${cfg[@]}" -q download "$@" >&2)
	for p in "$@"; do
		for deb in "$dir/debs/${p}_"*.deb; do
			dpkg-deb -x "$deb" "$dir/root"
		done
	done
}

kdir_of() {
	local d
	d=$(fetch "$1")
	echo "$d/root/usr/src/linux-headers-$(cat "$d/kver")"
}

# make check fetches from two lanes at once (the build matrix, and the
# PREEMPT_RT tier's image): one fetch at a time, the other waits for it.
if [[ ${1:-} != --list && ${1:-} != -h && ${1:-} != --help && -n ${1:-} ]]; then
	mkdir -p "$top"
	exec 9>"$top/.lock"
	flock 9
fi

case ${1:-} in
--list) printf '%s\n' $KERNELS ;;
--path)
	[[ $2 == 6.1 ]] && exit 0
	d=$(fetch "$2")
	[[ -n $(find "$d/root/usr/bin" -maxdepth 1 -name 'gcc-*' 2>/dev/null) ]] && echo "$d/root/usr/bin"
	exit 0
	;;
--image) fetch "$2" image >/dev/null && echo "$top/$2/root" ;;
-h | --help) usage ;;
6.1)
	# The kernel make deps installs (and the VM boots): from the system.
	echo "/usr/src/linux-headers-$("$here/kernel-release.sh")"
	;;
"") usage >&2; exit 2 ;;
*) kdir_of "$1" ;;
esac
