#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Print the kernel release we build against and boot in the VM: the one that
# Debian's linux-headers-amd64 metapackage pulls in, which make deps installs
# together with the matching linux-image-amd64. Never `uname -r`: the machine
# running the build usually has no modules of its own.
set -eu

dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
	echo "kernel-release: linux-headers-amd64 is not installed; run 'make deps'" >&2
	exit 1
}
# "linux-headers-6.1.0-57-amd64 (= 6.1.192-3)" -> "6.1.0-57-amd64"
kver=$(printf '%s\n' "$dep" | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')

if [ -z "$kver" ] || [ ! -e "/usr/src/linux-headers-$kver/Makefile" ]; then
	echo "kernel-release: no headers for '$kver'; run 'make deps'" >&2
	exit 1
fi
if [ ! -e "/boot/vmlinuz-$kver" ]; then
	echo "kernel-release: headers are for $kver but /boot/vmlinuz-$kver is missing;" \
		"run 'make deps'" >&2
	exit 1
fi
printf '%s\n' "$kver"
