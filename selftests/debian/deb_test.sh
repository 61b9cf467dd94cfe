#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# debian/: dpkg-buildpackage -us -uc -b on a copy of the tree
# (build-debs.sh: its .debs land beside the copy), lintian with its errors
# failing, and each package holding what it must and nothing it must not.
# Prints TAP.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/selftests/lib/tap.sh"
tap_plan 17

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if "$src/selftests/debian/build-debs.sh" "$tmp"; then
	ok "dpkg-buildpackage -us -uc -b"
else
	not_ok "dpkg-buildpackage -us -uc -b"
	tail -30 "$tmp/build.log" | sed 's/^/#   /'
fi

if lintian --fail-on error "$tmp"/naobody_*.changes >"$tmp/lintian.log" 2>&1; then
	ok "lintian: no error"
else
	not_ok "lintian: no error"
fi
sed 's/^/#   /' "$tmp/lintian.log"

# has PACKAGE PATH-REGEX...: every regex matches a path in the package.
has() {
	local pkg=$1 deb list missing=
	shift
	deb=$(ls "$tmp/${pkg}"_*.deb 2>/dev/null | head -1)
	[[ -n $deb ]] || { not_ok "$pkg: built"; return; }
	list=$(dpkg-deb -c "$deb" | awk '{print $6}')
	for re in "$@"; do
		grep -qE "^\./$re\$" <<<"$list" || missing+=" $re"
	done
	if [[ -z $missing ]]; then ok "$pkg: holds what it must"; else
		not_ok "$pkg: holds what it must"; echo "#   missing:$missing"; fi
}
has naobody-dkms 'usr/src/naobody-[^/]+/dkms.conf' 'usr/src/naobody-[^/]+/Kbuild' \
	'usr/src/naobody-[^/]+/kernel/naobody/main.c' 'usr/src/naobody-[^/]+/kernel/n_robot/Kbuild' \
	'usr/src/naobody-[^/]+/uapi/linux/naobody.h' lib/udev/rules.d/91-naobody.rules \
	usr/lib/sysusers.d/naobody.conf
has naobodyd usr/bin/naobodyd usr/bin/naoguard lib/systemd/system/naobodyd.service \
	lib/systemd/system/naoguard.service usr/lib/tmpfiles.d/naobodyd.conf 'usr/share/man/man8/naoguard.8.gz' \
	usr/share/naobodyd/www/index.html usr/share/naobodyd/www/status.js \
	usr/share/naobodyd/www/status.css
has libnaobody1 'usr/lib/[^/]+/libnaobody.so.1'
has libnaobody-dev 'usr/lib/[^/]+/libnaobody.so' 'usr/lib/[^/]+/libnaobody.a' \
	'usr/lib/[^/]+/pkgconfig/naobody.pc' usr/include/linux/naobody.h \
	usr/include/naobody/naobody.h
has libnbclient1 'usr/lib/[^/]+/libnbclient.so.1'
has libnbclient-dev 'usr/lib/[^/]+/libnbclient.so' 'usr/lib/[^/]+/libnbclient.a' \
	usr/include/naobody/client.h
has python3-naobody usr/lib/python3/dist-packages/naobody/__init__.py \
	usr/lib/python3/dist-packages/naobody/client.py
has libnrobot1 'usr/lib/[^/]+/libnrobot.so.1'
has python3-nrobot usr/lib/python3/dist-packages/nrobot/__init__.py \
	usr/lib/python3/dist-packages/nrobot/_lib.py usr/lib/python3/dist-packages/nrobot/parol6.py \
	usr/lib/python3/dist-packages/nrobot/cm5.py
has libnrobot-dev 'usr/lib/[^/]+/libnrobot.so' 'usr/lib/[^/]+/pkgconfig/nrobot.pc' \
	usr/include/cm5/cm5.h usr/include/parol6/parol6.h usr/include/n_robot/link.h \
	usr/include/n_robot/framer.h usr/include/linux/n_robot.h
has naobody-tools usr/bin/naoctl usr/bin/cm5ctl usr/bin/parolctl usr/bin/chestboard-emu \
	usr/bin/chest-harakiri usr/bin/nb-physics-server usr/share/man/man1/nb-physics-server.1.gz \
	lib/systemd/system-shutdown/naobody-harakiri usr/share/man/man8/naoctl.8.gz \
	lib/udev/rules.d/71-n_robot.rules 'lib/systemd/system/n_robot-cm5@.service' \
	'lib/systemd/system/n_robot-parol6@.service' usr/lib/sysusers.d/naobody-tools.conf

# libnrobot-dev's headers stand on their own: a program that includes them
# (and nothing from the tree) builds and links against libnrobot1's library
# with the flags nrobot.pc gives, its prefix moved to the unpacked packages.
mkdir "$tmp/nrobot"
for p in libnrobot1 libnrobot-dev; do
	deb=$(ls "$tmp/${p}"_*.deb 2>/dev/null | head -1)
	[[ -n $deb ]] && dpkg-deb -x "$deb" "$tmp/nrobot"
done
cat >"$tmp/nrobot.c" <<'EOF'
#include <cm5/cm5.h>
#include <parol6/parol6.h>

int main(void)
{
	return nr_link_parse_mode("raw") == NR_LINK_RAW ? 0 : 1;
}
EOF
pc=$(ls "$tmp"/nrobot/usr/lib/*/pkgconfig/nrobot.pc 2>/dev/null | head -1)
if [[ -n $pc ]] && flags=$(PKG_CONFIG_SYSROOT_DIR="$tmp/nrobot" \
	PKG_CONFIG_LIBDIR="${pc%/nrobot.pc}" pkg-config --cflags --libs nrobot) &&
	gcc -std=gnu11 -Wall -Werror -o "$tmp/nrobot.bin" "$tmp/nrobot.c" $flags \
		>"$tmp/nrobot.log" 2>&1 &&
	LD_LIBRARY_PATH="${pc%/pkgconfig/nrobot.pc}" "$tmp/nrobot.bin"; then
	ok "libnrobot-dev: a program with its headers alone builds, links and runs"
else
	not_ok "libnrobot-dev: a program with its headers alone builds, links and runs"
	sed 's/^/#   /' "$tmp/nrobot.log" 2>/dev/null | head -20
fi

# python3-nrobot unpacked beside libnrobot1 imports and finds the library
# by its soname (the unpacked tree stands for /usr); it depends on both.
deb=$(ls "$tmp"/python3-nrobot_*.deb 2>/dev/null | head -1)
if [[ -n $deb ]] && dpkg-deb -x "$deb" "$tmp/nrobot" &&
	dpkg-deb -f "$deb" Depends | grep -q "libnrobot1" &&
	dpkg-deb -f "$deb" Depends | grep -q "python3" &&
	(cd / && env -u NROBOT_LIB LD_LIBRARY_PATH="$(dirname "$(ls "$tmp"/nrobot/usr/lib/*/libnrobot.so.1)")" \
		PYTHONPATH="$tmp/nrobot/usr/lib/python3/dist-packages" /usr/bin/python3 -c \
		'import nrobot; print(nrobot.Parol6, nrobot.CM5)') >"$tmp/py.log" 2>&1; then
	ok "python3-nrobot: imports, libnrobot.so.1 by its soname; depends on libnrobot1 and python3"
else
	not_ok "python3-nrobot: imports, libnrobot.so.1 by its soname; depends on libnrobot1 and python3"
	sed 's/^/#   /' "$tmp/py.log" 2>/dev/null | head -10
fi

# The DKMS sources are sources: nothing a build in the tree left behind, and
# the version DKMS is told is the package's.
deb=$(ls "$tmp"/naobody-dkms_*.deb 2>/dev/null | head -1)
mkdir "$tmp/dkms"
if [[ -n $deb ]] && dpkg-deb -x "$deb" "$tmp/dkms"; then
	built=$(find "$tmp/dkms" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod' \))
	conf=$(ls "$tmp"/dkms/usr/src/naobody-*/dkms.conf 2>/dev/null)
	ver=${conf%/dkms.conf}
	ver=${ver##*/naobody-}
	if [[ -z $built && -n $conf ]] && grep -qx "PACKAGE_VERSION=\"$ver\"" "$conf"; then
		ok "naobody-dkms: sources only, PACKAGE_VERSION $ver"
	else
		not_ok "naobody-dkms: sources only, PACKAGE_VERSION $ver"
		echo "#   built files: ${built:-none}"
		grep PACKAGE_VERSION "$conf" 2>/dev/null | sed 's/^/#   /'
	fi
else
	not_ok "naobody-dkms: sources only"
fi
# naobody-dkms's and naobody-tools's postinsts make the group of their udev
# rules; naobodyd's enables both units.
dkms=$(ls "$tmp"/naobody-dkms_*.deb 2>/dev/null | head -1)
tools=$(ls "$tmp"/naobody-tools_*.deb 2>/dev/null | head -1)
deb=$(ls "$tmp"/naobodyd_*.deb 2>/dev/null | head -1)
mkdir "$tmp/ctl" "$tmp/ctl-dkms" "$tmp/ctl-tools"
if [[ -n $deb && -n $dkms && -n $tools ]] && dpkg-deb -e "$deb" "$tmp/ctl" &&
	dpkg-deb -e "$dkms" "$tmp/ctl-dkms" && dpkg-deb -e "$tools" "$tmp/ctl-tools" &&
	grep -q 'systemd-sysusers.*naobody.conf' "$tmp/ctl-dkms/postinst" &&
	grep -q 'systemd-sysusers.*naobody-tools.conf' "$tmp/ctl-tools/postinst" &&
	grep -q 'enable.*naoguard.service' "$tmp/ctl/postinst" &&
	grep -q 'enable.*naobodyd.service' "$tmp/ctl/postinst"; then
	ok "postinst: naobody-dkms and naobody-tools make the group naobody, naobodyd enables both units"
else
	not_ok "postinst: naobody-dkms and naobody-tools make the group naobody, naobodyd enables both units"
	grep -hE 'sysusers|enable' "$tmp/ctl/postinst" "$tmp/ctl-dkms/postinst" \
		"$tmp/ctl-tools/postinst" 2>/dev/null |
		sed 's/^/#   /'
fi
# naobodyd's status page: its --www default is where the package put it.
mkdir "$tmp/naobodyd"
if [[ -n $deb ]] && dpkg-deb -x "$deb" "$tmp/naobodyd" &&
	"$tmp/naobodyd/usr/bin/naobodyd" --help | grep -A1 -e '--www DIR' |
	grep -qF ' /usr/share/naobodyd/www)'; then
	ok "naobodyd: --www defaults to the package's /usr/share/naobodyd/www"
else
	not_ok "naobodyd: --www defaults to the package's /usr/share/naobodyd/www"
	"$tmp/naobodyd/usr/bin/naobodyd" --help 2>&1 | grep -A1 -e '--www' | sed 's/^/#   /'
fi
tap_done
