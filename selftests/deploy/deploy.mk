# SPDX-License-Identifier: GPL-2.0-only
#
# naobody-deploy against a stand-in robot (systemd-nspawn, sshd in a network
# namespace of its own): deploy, check, update, revert, refusals, a failed
# deployment undone. About 20-35 s; root only (it skips otherwise).
HOST_TESTS += $(srctree)/selftests/deploy/deploy_test.sh
