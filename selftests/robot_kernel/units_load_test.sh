#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The serial robots' attach units load n_robot themselves before they
# attach it: their user has no CAP_SYS_MODULE, and a kernel without
# CONFIG_LDISC_AUTOLOAD (NAO OS 2.8's, the one make check-robot-kernel
# boots) loads a line discipline on demand only for a caller with it
# (robot_kernel_test.c shows both in the VM). The modprobe runs with
# privileges ("+") and before the attach. Prints TAP.
here=$(cd "$(dirname "$0")" && pwd)
units=$here/../../packaging/systemd
. "$here/../lib/tap.sh"
tap_plan 2
for u in n_robot-cm5@ n_robot-parol6@; do
	f=$units/$u.service
	pre=$(grep -n '^ExecStartPre=+/sbin/modprobe n_robot$' "$f" | cut -d: -f1)
	start=$(grep -n '^ExecStart=' "$f" | cut -d: -f1)
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$f")
	if [ -n "$pre" ] && [ -n "$start" ] && [ "$pre" -lt "$start" ] &&
		[ "${caps#*CAP_SYS_MODULE}" = "$caps" ]; then
		ok "$u.service loads n_robot (privileged) before its user, without CAP_SYS_MODULE, attaches it"
	else
		not_ok "$u.service loads n_robot (privileged) before its user, without CAP_SYS_MODULE, attaches it"
		echo "#   ExecStartPre line: ${pre:-none}; ExecStart line: ${start:-none}; CapabilityBoundingSet=$caps"
	fi
done
tap_done
