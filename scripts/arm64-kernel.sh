#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's arm64 kernel, its headers and an arm64 busybox, for the serdev
# test on QEMU's virt machine (selftests/dts/arm64-test.sh). The packages
# are downloaded with a private apt configuration (its own sources list,
# state and cache, APT::Architecture=arm64; the system's apt state is never
# touched) and unpacked with dpkg-deb -x under $NAOBODY_CACHE/arm64: nothing
# is installed, and a kernel fetched once is not fetched again
# (NAOBODY_HEADERS_REFRESH=1 looks for a newer one).
#
#   arm64-kernel.sh           fetch if needed; print the unpacked root
#                             (boot/vmlinuz-*, lib/modules/*, usr/src/...,
#                             bin/busybox, and the file kver)
#   arm64-kernel.sh --kdir    the headers tree to build modules against
#
# The headers' scripts (fixdep, modpost) are arm64 programs in Debian's
# arm64 linux-kbuild; this machine runs the amd64 linux-kbuild of the same
# version instead, fetched the same way, so that a cross build runs here.
set -euo pipefail
. "$(dirname "$0")/lib/debian-mirror.sh"
: "${NAOBODY_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/naobody}"
top=$NAOBODY_CACHE/arm64
priv=$top/apt

usage() { sed -n '4,/^set -e/p' "$0" | sed 's/^# \{0,1\}//; /^set -e/d'; }

cfg_for() {
	printf '%s\n' -o "Dir::Etc::sourcelist=$priv/sources.list" -o Dir::Etc::sourceparts=- \
		-o "Dir::State=$priv/state" -o "Dir::State::status=$priv/state/status" \
		-o "Dir::Cache=$priv/cache" -o Debug::NoLocking=1 -o "APT::Architecture=$1" \
		-o "APT::Architectures=$1"
}

setup() {
	[[ -s $priv/state/lists/.updated && -z ${NAOBODY_HEADERS_REFRESH:-} ]] && return 0
	mkdir -p "$priv/state/lists/partial" "$priv/cache/archives/partial"
	touch "$priv/state/status"
	local mirror security keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	debian_mirrors
	[[ -n $mirror ]] || { echo "arm64-kernel: apt has no bookworm mirror configured" >&2; return 1; }
	{
		echo "deb [arch=arm64,amd64 signed-by=$keyring] $mirror bookworm main"
		[[ -n $security ]] && echo "deb [arch=arm64,amd64 signed-by=$keyring] $security bookworm-security main"
	} >"$priv/sources.list"
	local -a cfg
	mapfile -t cfg < <(cfg_for arm64)
	apt-get "${cfg[@]}" -o APT::Architectures::=amd64 -q update >&2
	date >"$priv/state/lists/.updated"
}

acache() {
	local -a cfg
	mapfile -t cfg < <(cfg_for arm64)
	apt-cache "${cfg[@]}" "$@"
}
field() { acache show --no-all-versions "$1" 2>/dev/null | sed -n "s/^$2: //p" | head -1; }

# dl ARCH PKG...: download into debs/, unpack into root/.
dl() {
	local arch=$1 dir=$2 p deb
	shift 2
	local -a cfg
	mapfile -t cfg < <(cfg_for "$arch")
	(cd "$dir/debs" && apt-get "${cfg[@]}" -q download "$@" >&2)
	for p in "$@"; do
		p=${p%%:*}
		for deb in "$dir/debs/${p}_"*.deb; do
			dpkg-deb -x "$deb" "$dir/root"
		done
	done
}

fetch() {
	if [[ -z ${NAOBODY_HEADERS_REFRESH:-} && -f $top/current/.complete ]]; then
		echo "$top/current/root"
		return
	fi
	setup
	local img kver ver common kbuild dir
	img=$(field linux-image-arm64 Depends | tr ',' '\n' | sed -n 's/^ *\(linux-image-[^ ]*\).*/\1/p' | head -1)
	[[ -n $img ]] || { echo "arm64-kernel: no linux-image-arm64 in the archive" >&2; return 1; }
	kver=${img#linux-image-}
	ver=$(field "$img" Version)
	dir=$top/${kver}_$ver
	if [[ ! -f $dir/.complete ]]; then
		echo "arm64-kernel: fetching $img $ver" >&2
		rm -rf "$dir"
		mkdir -p "$dir/debs" "$dir/root"
		common=$(field "linux-headers-$kver" Depends | tr ',' '\n' |
			sed -n 's/^ *\(linux-headers-[^ ]*-common\).*/\1/p' | head -1)
		kbuild=$(field "linux-headers-$kver" Depends | tr ',' '\n' |
			sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' | head -1)
		dl arm64 "$dir" "$img" "linux-headers-$kver" "$common" busybox-static
		dl amd64 "$dir" "$kbuild:amd64"
		local kd=$dir/root/usr/src/linux-headers-$kver
		sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$kd/Makefile"
		# The headers' scripts link points at /usr/lib/linux-kbuild-*:
		# into the unpacked root instead.
		local l
		for l in scripts tools; do
			[[ -L $kd/$l ]] && ln -sfn "$dir/root$(readlink "$kd/$l" | sed 's|^\(\.\./\)*|/usr/|; s|^/usr/usr/|/usr/|')" "$kd/$l"
		done
		echo "$kver" >"$dir/root/kver"
		touch "$dir/.complete"
	fi
	ln -sfn "$(basename "$dir")" "$top/current"
	echo "$top/current/root"
}

case ${1:-} in
-h | --help) usage ;;
--kdir) r=$(fetch) && echo "$r/usr/src/linux-headers-$(cat "$r/kver")" ;;
"") fetch ;;
*) usage >&2; exit 2 ;;
esac
