#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# A fresh machine (issue 32): `make demo` and `make check` start before
# `make deps` has installed the compiler or pkg-config, so reading the
# Makefile and its fragments must call neither, or print nothing when they
# are missing: a new user's first screen was thirty "pkg-config: command
# not found" and "cc: No such file or directory" lines. Here PATH is every
# program this machine has except the compilers, pkg-config and readelf,
# and make only reads the files (-n, nothing runs).
set -u
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/../.." && pwd)
. "$srctree/selftests/lib/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
	for f in "$d"/*; do
		b=${f##*/}
		case $b in
		cc | c89 | c99 | gcc* | g++* | cpp* | clang* | *-gcc* | *-g++* | *-cc | \
		pkg-config | *-pkg-config | pkgconf | readelf | *-readelf | ld | ld.* | as) continue ;;
		esac
		[ -x "$f" ] && [ ! -e "$tmp/bin/$b" ] && ln -s "$f" "$tmp/bin/$b"
	done
done

tap_plan 4
# make_fresh GOAL: make -n GOAL as on a fresh machine; its stderr in $tmp/err.
make_fresh() {
	env PATH="$tmp/bin" make -C "$srctree" --no-print-directory -n O="$tmp/build" "$@" \
		>"$tmp/out" 2>"$tmp/err"
}
for goal in demo check deps; do
	if make_fresh "$goal" && [ ! -s "$tmp/err" ]; then
		ok "make $goal without a compiler or pkg-config reads the Makefile without a word"
	else
		not_ok "make $goal without a compiler or pkg-config reads the Makefile without a word"
		sed 's/^/#   /' "$tmp/err" | head -n 10
	fi
done
if ! make_fresh all && grep -q "not found: run 'make deps' first" "$tmp/err" &&
   [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
	ok "make without them says, once, to run make deps"
else
	not_ok "make without them says, once, to run make deps"
	sed 's/^/#   /' "$tmp/err" | head -n 10
fi
tap_done
