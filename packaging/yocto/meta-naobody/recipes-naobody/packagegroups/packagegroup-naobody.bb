# SPDX-License-Identifier: GPL-2.0-only
SUMMARY = "naobody on a NAO: the modules, the daemons and tools, in place of HAL and LoLA"
LICENSE = "GPL-2.0-only"

PACKAGE_ARCH = "${MACHINE_ARCH}"
inherit packagegroup

RDEPENDS:${PN} = "naobody kernel-module-naobody kernel-module-n-robot naobody-replaces-aldebaran"
