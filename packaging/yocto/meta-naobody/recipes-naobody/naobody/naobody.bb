# SPDX-License-Identifier: GPL-2.0-only
SUMMARY = "naobodyd, naoguard, the tools and libnaobody"
DESCRIPTION = "The robot API and LoLA-compatible daemon (naobodyd), the UDP \
stop (naoguard), naoctl, naocap, cm5ctl and parolctl, libnaobody and \
libnrobot, with their systemd units, udev rules and man pages. The units \
stay disabled: naobody-replaces-aldebaran chooses naobody over HAL and LoLA."
LICENSE = "GPL-2.0-only & LGPL-2.1-or-later"
LIC_FILES_CHKSUM = "file://LICENSE;md5=0005ec5aee9e123f72f2500f7d9883e2 \
                    file://LICENSES/LGPL-2.1;md5=4fbd65380cdd255951079008b364516c"

require naobody-source.inc

DEPENDS = "msgpack-c libmicrohttpd jansson libmnl systemd zlib libjpeg-turbo \
           alsa-lib libsamplerate0 libpcap"

inherit pkgconfig systemd useradd

# The tree's Makefile builds out of tree into O and installs with the
# directories below. A newer compiler's new warnings must not fail an image
# build: WERROR=0.
B = "${WORKDIR}/build"
EXTRA_OEMAKE = "-C ${S} O=${B} WERROR=0 \
                PREFIX=${prefix} BINDIR=${bindir} LIBDIR=${libdir} \
                INCLUDEDIR=${includedir} MANDIR=${mandir} \
                UDEVDIR=${nonarch_base_libdir}/udev SYSTEMDDIR=${systemd_unitdir}"

# msgpack-c 6 (meta-oe's from scarthgap on) calls its pkg-config module
# msgpack-c; the Makefile asks for msgpack, Debian 12's name. Where only the
# new name exists, a module of the old name that requires it.
do_configure() {
	if ! pkg-config --exists msgpack && pkg-config --exists msgpack-c; then
		mkdir -p ${B}/pkgconfig
		printf 'Name: msgpack\nDescription: msgpack-c by its older name\nVersion: 6\nRequires: msgpack-c\n' \
			>${B}/pkgconfig/msgpack.pc
	fi
}
export PKG_CONFIG_PATH:prepend = "${B}/pkgconfig:"

do_compile() {
	oe_runmake userspace
}

do_install() {
	oe_runmake install-userspace DESTDIR=${D}
}

# The group of /dev/naobody and the robots' ports, which the udev rules name
# and the units join (sysusers.d/naobody.conf, made at build time here).
USERADD_PACKAGES = "${PN}"
GROUPADD_PARAM:${PN} = "--system naobody"

SYSTEMD_SERVICE:${PN} = "naobodyd.service naoguard.service"
SYSTEMD_AUTO_ENABLE = "disable"

PACKAGES =+ "${PN}-emulators"
FILES:${PN}-emulators = "${bindir}/chestboard-emu* ${bindir}/cm5-emu ${bindir}/parol6-emu \
                         ${bindir}/nb-physics-server ${mandir}/man1/chestboard-emu* \
                         ${mandir}/man1/cm5-emu.1 ${mandir}/man1/parol6-emu.1 \
                         ${mandir}/man1/nb-physics-server.1 ${mandir}/man8/chestboard-emu.8"
# The serial robots' attach templates, which no package enables (the udev
# rule starts them), and the rest the image's defaults leave out.
FILES:${PN} += "${systemd_system_unitdir} ${datadir}/naobodyd ${nonarch_base_libdir}/udev/rules.d \
                ${systemd_unitdir}/system-shutdown ${nonarch_libdir}/sysusers.d \
                ${nonarch_libdir}/tmpfiles.d"
CONFFILES:${PN} = "${sysconfdir}/modprobe.d/naobody.conf"
