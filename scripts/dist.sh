#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make dist: the bundle that runs on any x86-64 Linux with glibc
# (Documentation/install.rst, "The bundle"). Called by the Makefile with the
# programs linked again with an RPATH of $ORIGIN/../lib:
#
#   dist.sh BINDIR OUTPUT.tar.gz
#
# Environment (from the Makefile): DIST_PROGRAMS, DIST_LINKS (link=program),
# DIST_MAN_PAGES, DIST_WWW_FILES, and srctree-relative packaging/.
#
# The tarball holds one directory, naobody/, meant to be /opt/naobody:
#
#   bin/      the programs (debug info stripped) and naoctl's other names
#   lib/      every shared library they need that is not the C library's
#             (Debian's libc6: libc, libm, the loader), found with ldd
#   share/    the status page, the simulated body's model, the man pages
#   system/   the units, udev rules, sysusers.d, tmpfiles.d, modprobe.d and
#             the shutdown hook, with their paths pointing into /opt/naobody
#             (naobody-deploy(8) installs them)
#   GLIBC     the oldest glibc the bundle runs with: the newest GLIBC_x.y
#             symbol version any of its files asks for
#   README
set -euo pipefail

bindir=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
prefix=/opt/naobody
version=$(basename "$out" .tar.gz)
version=${version#naobody-}
version=${version%-x86_64}

stage=$(mktemp -d "${TMPDIR:-/tmp}/naobody-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
top=$stage/naobody
mkdir -p "$top"/{bin,lib,share/naobodyd/www,share/naobodyd/sim,system} "$(dirname "$out")"

step() { printf '  %-8s %s\n' "$1" "$2"; }

# --- programs --------------------------------------------------------------
for p in $DIST_PROGRAMS; do
	install -m 0755 "$bindir/$p" "$top/bin/$p"
	strip --strip-debug "$top/bin/$p"
done
# naobody-deploy: from a PC that has the bundle, onto the robot.
install -m 0755 "$srctree/userspace/tools/naobody-deploy/naobody-deploy" "$top/bin/"
for l in ${DIST_LINKS:-}; do
	ln -s "${l#*=}" "$top/bin/${l%%=*}"
done

# --- libraries -------------------------------------------------------------
# Everything ldd resolves but what Debian's libc6 package ships: that is
# the C library the target brings. The others go in lib/, with the list of
# their Debian packages and those packages' copyright files (the sources
# are Debian's). One dpkg call each: dpkg is slow to start.
libc6=" $(dpkg -L libc6 | sed -n 's|.*/\([^/]*\.so[^/]*\)$|\1|p' | sort -u | tr '\n' ' ')"
declare -A libs=()
for p in $DIST_PROGRAMS; do
	if ldd "$bindir/$p" | grep -q 'not found'; then
		echo "dist: $p: a library is not found:" >&2
		ldd "$bindir/$p" | grep 'not found' >&2
		exit 1
	fi
	while read -r lib; do
		[[ $libc6 == *" ${lib##*/} "* ]] || libs[$lib]=1
	done < <(ldd "$bindir/$p" | sed -n 's/.* => \(\/[^ ]*\) .*/\1/p')
done
paths=()
for lib in "${!libs[@]}"; do
	cp -L "$lib" "$top/lib/${lib##*/}"
	real=$(readlink -f "$lib")
	# usrmerge: dpkg may know either spelling.
	paths+=("$lib" "$real" "/usr${lib#/usr}" "/usr${real#/usr}" "${lib#/usr}" "${real#/usr}")
done
chmod 0644 "$top"/lib/*.so*
owners=$(dpkg -S "${paths[@]}" 2>/dev/null) || true
for lib in "${!libs[@]}"; do
	grep -q "/${lib##*/}\$" <<<"$owners" || { echo "dist: no package owns $lib" >&2; exit 1; }
done
pkgs=$(sed 's/: .*//; s/:[a-z0-9]*$//; s/, /\n/g' <<<"$owners" | sort -u)
dpkg-query -W -f='${Package} ${Version}\n' $pkgs >"$top/lib/PACKAGES"
mkdir -p "$top/share/doc/naobody/libraries"
for pkg in $pkgs; do
	cp "/usr/share/doc/$pkg/copyright" "$top/share/doc/naobody/libraries/$pkg.copyright"
done

# --- data, documentation ---------------------------------------------------
install -m 0644 $DIST_WWW_FILES "$top/share/naobodyd/www/"
install -m 0644 "$srctree/userspace/sim/nao6/nao6.xml" "$top/share/naobodyd/sim/"
for m in $DIST_MAN_PAGES "$srctree/userspace/tools/naobody-deploy/naobody-deploy.8"; do
	sec=${m##*.}
	install -D -m 0644 "$m" "$top/share/man/man$sec/$(basename "$m")"
done

# --- what naobody-deploy installs into the system ---------------------------
# The units run the bundle's programs; naobodyd is told where its status
# page is (its built-in default is the one make install uses).
pkg=$srctree/packaging
for u in naobodyd naoguard n_robot-cm5@ n_robot-parol6@; do
	sed -e "s|/usr/bin/|$prefix/bin/|g" \
		-e "s|^\(ExecStart=$prefix/bin/naobodyd .*\)$|\1 --www $prefix/share/naobodyd/www|" \
		"$pkg/systemd/$u.service" >"$top/system/$u.service"
done
grep -q "^ExecStart=$prefix/bin/naobodyd .*--www $prefix/share/naobodyd/www$" \
	"$top/system/naobodyd.service" ||
	{ echo "dist: naobodyd.service's ExecStart was not pointed at the bundle" >&2; exit 1; }
install -m 0644 "$pkg/udev/91-naobody.rules" "$pkg/udev/71-n_robot.rules" \
	"$pkg/modprobe.d/naobody.conf" "$top/system/"
install -m 0644 "$pkg/sysusers.d/naobody.conf" "$top/system/sysusers-naobody.conf"
install -m 0644 "$pkg/tmpfiles.d/naobodyd.conf" "$top/system/tmpfiles-naobodyd.conf"
sed "s|^\(out=\$(\)chest-harakiri |\1$prefix/bin/chest-harakiri |" \
	"$pkg/systemd/naobody-harakiri" >"$top/system/naobody-harakiri"
grep -q "$prefix/bin/chest-harakiri" "$top/system/naobody-harakiri" ||
	{ echo "dist: the shutdown hook was not pointed at the bundle" >&2; exit 1; }
chmod 0755 "$top/system/naobody-harakiri"

# --- the oldest glibc -------------------------------------------------------
glibc=$(for f in "$top"/bin/* "$top"/lib/*; do
	[[ -L $f || $(head -c 4 "$f") != $'\x7fELF' ]] || readelf -V -W "$f"
done | grep -o 'Name: GLIBC_[0-9.]*' | sed 's/.*GLIBC_//' | sort -V | tail -n 1)
[[ -n $glibc ]] || { echo "dist: no GLIBC_ symbol version found" >&2; exit 1; }
echo "$glibc" >"$top/GLIBC"

cat >"$top/README" <<EOF
naobody $version for x86-64 Linux (a NAO V6's head, or any PC)

Runs with glibc $glibc or newer and nothing else of the system's libraries:
the others are in lib/, which the programs find beside themselves.
Unpack it as $prefix:

    tar -C /opt -xzf naobody-$version-x86_64.tar.gz

then install the kernel modules built for the robot's kernel and the
units with naobody-deploy(8) from a machine that reaches the robot, or by
hand as Documentation/install.rst says. MuJoCo is not included: the
physical simulated body (naobodyd --sim-physics) needs libmujoco, which
naobodyd loads when asked; everything else runs without it.
EOF

step TAR "${out#"$srctree"/} ($(ls "$top"/lib/*.so* | wc -l) libraries; glibc >= $glibc)"
epoch=$(git -C "$srctree" log -1 --format=%ct 2>/dev/null || date +%s)
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
	-czf "$out.tmp" naobody
mv "$out.tmp" "$out"
