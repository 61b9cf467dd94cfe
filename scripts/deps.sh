#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install everything naobody builds and tests with, from Debian 12's packages,
# and unpack the few files we take from linux-source-6.1 (checkpatch.pl and
# the kselftest harness) into the cache. Idempotent: when everything is
# already there it only runs dpkg-query and returns.
#
# Environment:
#   NAOBODY_CACHE   where unpacked sources and built kernels live
#                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/naobody)
set -eu

# Keep this list in step with README.md ("What make deps installs").
PACKAGES="
	build-essential make gcc pkg-config git xz-utils
	clang libclang-rt-14-dev llvm
	linux-headers-amd64 linux-image-amd64 linux-source-6.1 kmod
	qemu-system-x86 busybox-static cpio
	sparse valgrind
	libmsgpack-dev libmnl-dev zlib1g-dev
	python3 python3-msgpack python3-docutils groff-base
	bc flex bison libelf-dev libssl-dev dwarves
"

cache=${NAOBODY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/naobody}

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "deps: need root (or sudo) to run: $*" >&2
		exit 1
	fi
}

missing=""
for p in $PACKAGES; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done

if [ -n "$missing" ]; then
	echo "deps: installing:$missing"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
	# shellcheck disable=SC2086 # word splitting is the point
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $missing
fi

# Files from linux-source-6.1: extracted once per source version.
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
srcdir="$cache/linux-source-$srcver"
if [ ! -f "$srcdir/.complete" ]; then
	echo "deps: unpacking checkpatch and kselftest harness from linux-source-$srcver"
	rm -rf "$srcdir"
	mkdir -p "$srcdir"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$srcdir" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch \
		linux-source-6.1/tools/testing/selftests/kselftest.h \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h
	touch "$srcdir/.complete"
fi
ln -sfn "linux-source-$srcver" "$cache/linux-source"

# Debian installs vmlinuz mode 0600; QEMU runs as the user, so keep a
# readable copy next to the other cached files.
kver=$("$(dirname "$0")/kernel-release.sh")
if [ ! -r "/boot/vmlinuz-$kver" ] && [ ! -r "$cache/vmlinuz-$kver" ]; then
	as_root cp "/boot/vmlinuz-$kver" "$cache/vmlinuz-$kver"
	as_root chown "$(id -u):$(id -g)" "$cache/vmlinuz-$kver"
fi
echo "deps: ok (kernel $kver, cache $cache)"
