# SPDX-License-Identifier: GPL-2.0-only
SUMMARY = "naobody.ko (the NAO6 chest board) and n_robot.ko (serial robots)"
DESCRIPTION = "The chest board's USB driver, which runs the body's 12 ms \
exchange and owns its death switch, and the line discipline for the \
Bioloid CM-5 and the PAROL6 arm, built against the image's own kernel \
(MODVERSIONS: a module loads only on the kernel whose build made it)."
LICENSE = "GPL-2.0-only"
LIC_FILES_CHKSUM = "file://LICENSE;md5=0005ec5aee9e123f72f2500f7d9883e2"

require recipes-naobody/naobody/naobody-source.inc

inherit module

# Kbuild at the top of the tree names both modules; the tree's Makefile is
# the whole project's, so make goes straight to the kernel's build system
# with the tree as the external module. module.bbclass adds KERNEL_SRC, O=
# (the kernel's build artefacts), the cross tools, and MODLIB and DEPMOD for
# modules_install.
EXTRA_OEMAKE += "-C ${STAGING_KERNEL_DIR} M=${S}"
MAKE_TARGETS = "modules"
MODULES_INSTALL_TARGET = "modules_install"

# kernel-module-split makes kernel-module-naobody and kernel-module-n-robot.
# naobody.ko loads when the chest board appears (its USB ids); n_robot.ko
# when a udev rule names a port for it (71-n_robot.rules in naobody), since
# the robots' kernels may not load a line discipline on demand.
