# SPDX-License-Identifier: GPL-2.0-only
SUMMARY = "naobody in the place of Aldebaran's HAL and LoLA"
DESCRIPTION = "Masks hal.service, makes lola.service a name of \
naobodyd.service (so units that require lola.service, a team's own, start \
naobodyd), and enables naoguard and naobodyd. Add it to IMAGE_INSTALL to \
choose naobody; leave it out to keep HAL and LoLA."
LICENSE = "GPL-2.0-only"
LIC_FILES_CHKSUM = "file://${COMMON_LICENSE_DIR}/GPL-2.0-only;md5=801f80980d171dd6425610833a22dbe6"

PACKAGE_ARCH = "${MACHINE_ARCH}"

RDEPENDS:${PN} = "naobody kernel-module-naobody"

do_install() {
	install -d ${D}${sysconfdir}/systemd/system/multi-user.target.wants
	ln -s /dev/null ${D}${sysconfdir}/systemd/system/hal.service
	ln -s ${systemd_system_unitdir}/naobodyd.service ${D}${sysconfdir}/systemd/system/lola.service
	for u in naoguard naobodyd; do
		ln -s ${systemd_system_unitdir}/$u.service \
			${D}${sysconfdir}/systemd/system/multi-user.target.wants/$u.service
	done
}

FILES:${PN} = "${sysconfdir}/systemd/system"
