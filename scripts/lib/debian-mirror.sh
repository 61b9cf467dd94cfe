# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian mirrors this machine's apt already uses, for the scripts that
# fetch from them without touching the system's apt configuration: a private
# apt root (kernel-headers.sh's bullseye kernels, arm64-kernel.sh's arm64
# kernel) or a debootstrap root (fresh-machine-test.sh, install_test.sh).
# Source it, then call debian_mirrors.

# Sets mirror and security to the URIs apt-cache policy lists for
# bookworm/main and bookworm-security/main (amd64); either is empty when
# apt has none.
# shellcheck disable=SC2034 # the caller's variables
debian_mirrors() {
	local pol
	pol=$(apt-cache policy)
	mirror=$(sed -n 's|^ *[0-9]* \(\S*\) bookworm/main amd64 Packages$|\1|p' <<<"$pol" | head -1)
	security=$(sed -n 's|^ *[0-9]* \(\S*\) bookworm-security/main amd64 Packages$|\1|p' <<<"$pol" | head -1)
}
