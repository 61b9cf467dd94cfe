# SPDX-License-Identifier: GPL-2.0-only
#
# naobody-deploy: a script, run from the source tree or from make dist's
# bundle (scripts/dist.sh puts it in the bundle's bin/).
MAN_PAGES += $(srctree)/userspace/tools/naobody-deploy/naobody-deploy.8
