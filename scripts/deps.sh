#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install everything naobody builds and tests with, from Debian 12's packages,
# and unpack the few files we take from linux-source-6.1 (checkpatch.pl and
# the kselftest harness) into the cache. Idempotent: when everything is
# already there it only runs dpkg-query and returns.
#
#   deps.sh           everything: make check runs this
#   deps.sh --demo    all but the OpenAPI linter, which comes from the npm
#                     registry and only make check's tests use: make demo
#                     runs this, so it needs nothing but Debian's mirror
#
# Environment:
#   NAOBODY_CACHE   where unpacked sources and built kernels live
#                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/naobody)
set -eu

openapi_lint=yes
case ${1:-} in
--demo) openapi_lint=no ;;
"") ;;
*) echo "usage: deps.sh [--demo]" >&2; exit 2 ;;
esac

# What the build and the tests use, all from Debian 12.
PACKAGES="
	build-essential make gcc pkg-config git xz-utils
	clang libclang-rt-14-dev llvm
	linux-headers-amd64 linux-image-amd64 linux-source-6.1 linux-source-6.12 kmod dkms debootstrap
	qemu-system-x86 busybox-static cpio
	sparse valgrind
	libmsgpack-dev libmnl-dev zlib1g-dev libturbojpeg0-dev
	libmicrohttpd-dev libjansson-dev python3-jsonschema python3-yaml wrk libcurl4-gnutls-dev python3-venv python3-pip python3-setuptools
	libasound2-dev libsamplerate0-dev alsa-utils
	chromium chromium-driver python3-selenium
	libpcap-dev libsystemd-dev libmujoco-dev
	cargo rustc librust-libc-dev
	debhelper dh-dkms lintian dpkg-dev systemd systemd-container iproute2
	python3 python3-msgpack python3-docutils groff-base mandoc i2c-tools
	python3-setuptools python3-wheel python3-pip python3-venv dh-python
	bc flex bison libelf-dev libssl-dev dwarves
	device-tree-compiler dt-schema
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
	openssh-server openssh-client
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
	# openssh-server is for naobody-deploy's test, which runs its own sshd
	# in a network namespace: installing it must not start or enable an
	# SSH server on this machine. Debian's units and init script honour
	# this file; it stays, and says why.
	case " $missing " in
	*" openssh-server "*)
		if [ ! -e /etc/ssh/sshd_not_to_be_run ]; then
			as_root mkdir -p /etc/ssh
			echo "naobody's make deps: the tests run their own sshd; remove this file to run one here" |
				as_root tee /etc/ssh/sshd_not_to_be_run >/dev/null
		fi
		;;
	esac
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

# The OpenAPI linter (openapi_test.py): Debian has none; from the npm
# registry, pinned, into the cache. 1.34 is the newest line that runs on
# Debian 12's Node.js 18 (2.x wants Node 20.19). npm comes from Debian when
# the machine has none (a machine with another Node.js keeps its own).
redocly_ver=1.34.20
if [ "$openapi_lint" = no ]; then
	:
elif ! command -v npm >/dev/null 2>&1; then
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm
fi
if [ "$openapi_lint" = no ]; then
	:
elif [ ! -x "$cache/npm/node_modules/.bin/redocly" ] ||
   ! grep -q "\"version\": \"$redocly_ver\"" \
	"$cache/npm/node_modules/@redocly/cli/package.json" 2>/dev/null; then
	if command -v npm >/dev/null 2>&1; then
		echo "deps: installing @redocly/cli@$redocly_ver (npm) into $cache/npm"
		mkdir -p "$cache/npm"
		# Trust the machine's certificate authorities (Debian's bundle,
		# and a proxy's CA an administrator added to it) unless npm was
		# told otherwise: npm's own list knows no proxy.
		cafile=
		if [ "$(npm config get cafile 2>/dev/null)" = null ] &&
		   [ -r /etc/ssl/certs/ca-certificates.crt ]; then
			cafile=--cafile=/etc/ssl/certs/ca-certificates.crt
		fi
		npm install --no-audit --no-fund $cafile --prefix "$cache/npm" \
			"@redocly/cli@$redocly_ver"
	else
		echo "deps: no npm: the OpenAPI lint (openapi_test.py) will skip"
	fi
fi

# Debian installs vmlinuz mode 0600; QEMU runs as the user, so keep a
# readable copy next to the other cached files.
kver=$("$(dirname "$0")/kernel-release.sh")
if [ ! -r "/boot/vmlinuz-$kver" ] && [ ! -r "$cache/vmlinuz-$kver" ]; then
	as_root cp "/boot/vmlinuz-$kver" "$cache/vmlinuz-$kver"
	as_root chown "$(id -u):$(id -g)" "$cache/vmlinuz-$kver"
fi
echo "deps: ok (kernel $kver, cache $cache)"
