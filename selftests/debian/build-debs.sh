#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# build-debs.sh DIR: the packages of the working tree (its files, committed
# or not, without the build), built with dpkg-buildpackage -us -uc -b on a
# copy in DIR/naobody, so the .debs and the .changes land in DIR, not beside
# the tree. No debug symbol packages. The log is DIR/build.log. Used by
# deb_test.sh and install_test.sh.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: build-debs.sh DIR}
mkdir -p "$dir/naobody" || exit 1
(cd "$src" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) |
	tar -xf - -C "$dir/naobody" || exit 1
cd "$dir/naobody" && DEB_BUILD_OPTIONS="noautodbgsym nocheck parallel=2" \
	dpkg-buildpackage -us -uc -b >"$dir/build.log" 2>&1
